"""The Your data page for analysts (issue #26, item 4): one score scale for every method,
readable maps at thousands of flags, the file's row numbers, the ranking on the flag method,
categories left out, rows with missing values kept, bad columns named, advice on small
blocks, and the share flagged among the fitted rows and the others."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from momkde_core.methods import DEFAULT_DETECTOR, method_label
from tests.app._apptest import (
    caption,
    density_figures,
    figures,
    open_app,
    read_download,
    upload,
    values,
)

PAGE = "app_pages/your_data.py"


def _csv(n: int, seed: int = 0, **extra) -> bytes:
    """A CSV of ``n`` rows: x, y Gaussian with a few far rows, then the ``extra`` columns."""
    rng = np.random.default_rng(seed)
    xy = rng.normal(size=(n, 2)).round(4)
    xy[: max(n // 100, 1)] += 8.0
    frame = pd.DataFrame(xy, columns=["x", "y"]).assign(**extra)
    return frame.to_csv(index=False).encode()


def test_percentile_among_the_fitted_rows():
    from app_support.scoring import percentile_among

    reference = np.array([3.0, 1.0, 2.0, 0.0])
    got = percentile_among(np.array([-1.0, 0.0, 1.5, 3.0, 7.0]), reference)
    assert got.tolist() == [0.0, 0.25, 0.5, 1.0, 1.0]


def test_scores_on_one_scale_for_every_method(downloads):
    """Every method's percentile is the share of fitted rows (here all rows) scoring as low or
    lower; the raw score stays in the download; the table opens with the percentile."""
    at = upload("two.csv", _csv(400), methods=["kde", "mom_kde"])
    assert not at.error, [e.value for e in at.error]
    csv = read_download(downloads, at)
    for method in ("kde", "mom_kde"):
        score, percentile = csv[f"score_{method}"], csv[f"percentile_{method}"]
        expected = [(score <= s).mean() for s in score]
        assert np.allclose(percentile, expected)
        assert percentile.between(1 / 400, 1).all()
        flags = csv[f"is_outlier_{method}"]
        assert ((score < 0) == flags).all()
        assert percentile[flags].max() < percentile[~flags].min()
    ranges = {m: np.ptp(csv[f"percentile_{m}"]) for m in ("kde", "mom_kde")}
    assert all(abs(r - (1 - 1 / 400)) < 1e-9 for r in ranges.values())
    table = at.dataframe[0].value
    assert list(table.columns[:3]) == ["percentile", "flagged", "score"]
    assert table["percentile"].is_monotonic_increasing
    assert caption(at, "Percentile: the share of the rows a method was fitted on")
    assert "percentile_<method>, score_<method>" in caption(at, "Score: ")


def test_maps_circle_the_lowest_flags_and_list_the_rest(downloads, monkeypatch):
    """More flags than the maps circle: every map circles the flag method's lowest rows only;
    the caption says how many and where the others are."""
    import app_support.scoring as scoring

    monkeypatch.setattr(scoring, "MAX_CIRCLED", 15)
    at = upload("two.csv", _csv(300), methods=["kde", "mom_kde"], plot=["x", "y"])
    csv = read_download(downloads, at)
    n_flagged = int(csv["is_outlier_mom_kde"].sum())
    assert n_flagged == 30
    (fig,) = density_figures(at)
    rings = [t for t in fig["data"] if t.get("legendgroup") == "flagged" and t["x"] != [None]]
    assert len(rings) == sum(t["type"] in ("contour", "heatmap") for t in fig["data"]) == 2
    assert rings[0]["name"] == f"flagged: the 15 lowest of {n_flagged}"
    lowest = csv.sort_values("score_mom_kde", kind="stable").head(15)
    for ring in rings:
        assert sorted(map(int, ring["customdata"])) == sorted(lowest["row"])
    text = caption(at, "h = ")
    assert f"the 15 rows MoM-KDE scores lowest, of the {n_flagged} it flags" in text
    assert "the ranking below lists the others" in text


def _sensor_maps():
    """Your data on the sensor sample drawn as 2-D maps, with the KDE and MoM-KDE."""
    return open_app(
        PAGE,
        sample="sensors",
        plot=["temperature_c", "humidity_pct"],
        methods=["kde", "mom_kde"],
    )


def test_maps_circle_every_flag_when_few():
    at = _sensor_maps()
    (fig,) = density_figures(at)
    rings = [t for t in fig["data"] if t.get("legendgroup") == "flagged" and t["x"] != [None]]
    assert rings and all(len(t["customdata"]) == 96 for t in rings)
    assert rings[0]["name"] == "flagged (96)"
    assert "circled (every map): the 96 rows MoM-KDE flags" in caption(at, "h = ")


def test_tables_name_rows_by_the_files_row_numbers(downloads):
    """The tables' index is the file's 1-based data row, rows left out for a missing value
    included in the count (no 0-based index)."""
    lines = _csv(200).decode().splitlines()
    lines[1] = lines[1].split(",")[0] + ","  # data row 1: no y
    at = upload("gaps.csv", "\n".join(lines).encode(), methods=["kde"])
    csv = read_download(downloads, at)
    table = at.dataframe[0].value
    assert table.index.name == "row" and table.index.min() >= 2
    by_row = csv.set_index("row")
    assert np.allclose(table["percentile"], by_row.loc[table.index, "percentile_kde"])
    assert np.allclose(table["x"], by_row.loc[table.index, "x"])


def test_the_ranking_opens_on_the_method_that_flags():
    def opened(at: AppTest) -> str:
        from streamlit.proto.Block_pb2 import Block

        (container,) = [
            b
            for b in at.main.children.values()
            if isinstance(b.proto, Block) and b.proto.HasField("tab_container")
        ]
        return [t.label for t in at.tabs][container.proto.tab_container.default_tab_index]

    at = open_app(PAGE, sample="sensors", methods=["kde", "mom_kde", "rkde"])
    assert at.sidebar.selectbox(key="flag").value == "mom_kde"
    assert [t.label for t in at.tabs] == ["KDE", "MoM-KDE", "RKDE"]
    assert opened(at) == "MoM-KDE"
    at.sidebar.selectbox(key="flag").set_value("rkde").run()
    assert opened(at) == "RKDE"


def test_a_few_valued_numeric_column_is_scored_as_momkde_score_scores_it():
    from app_support.tables import guess_roles

    frame = pd.DataFrame(
        {
            "bill": np.linspace(30, 60, 40),
            "year": [2007, 2008, 2009, 2008] * 10,
            "flag": [0, 1] * 20,
            "count": np.arange(40) % 12,
        }
    )
    roles = guess_roles(frame)
    assert roles.features == ("bill", "year", "flag", "count") and roles.levels == ()
    assert roles.draw == ("bill",)  # the column with the most distinct values


def test_a_constant_column_is_left_out_with_its_reason_and_named_when_chosen(downloads):
    content = b"x,y\n1,2.5\n1,3.1\n1,4.7\n1,5.2\n"
    at = upload("constant.csv", content, methods=["kde"])
    assert not at.error  # not chosen by default: said why in the sidebar
    assert at.sidebar.multiselect(key="score").value == ["y"]
    assert "x (constant)" in caption(at, "Not scored by default")
    chosen = upload("constant.csv", content, methods=["kde"], score=["x", "y"], plot=["y"])
    (error,) = chosen.error
    assert "'x' are constant" in error.value and "goes on with 'y'" in error.value
    assert read_download(downloads, chosen)["score_kde"].notna().all()


def test_a_few_valued_numeric_column_is_scored_by_default(downloads):
    rng = np.random.default_rng(1)
    content = _csv(120, year=rng.choice([2007, 2008, 2009], size=120))
    at = upload("penguins.csv", content, methods=["kde"])
    assert at.sidebar.multiselect(key="score").value == ["x", "y", "year"]
    assert not at.error and "3 column(s)" in caption(at, "Score: ")


def test_rows_with_missing_values_stay_in_the_download(downloads):
    """Empty percentile, score and flag, and the reason, at their row number."""
    lines = _csv(150).decode().splitlines()
    lines[7] = "," + lines[7].split(",")[1]  # data row 7: no x
    at = upload("gaps.csv", "\n".join(lines).encode(), methods=["kde", "mom_kde"])
    csv = read_download(downloads, at)
    assert len(csv) == 150 and csv["row"].tolist() == list(range(1, 151))
    gap = csv[csv["row"] == 7].iloc[0]
    for method in ("kde", "mom_kde"):
        assert np.isnan(gap[f"percentile_{method}"]) and np.isnan(gap[f"score_{method}"])
        assert pd.isna(gap[f"is_outlier_{method}"])
    assert gap["note"] == "not scored: no value in x"
    assert csv.drop(index=6)["score_kde"].notna().all()


def test_a_text_column_chosen_is_scored_as_a_category(downloads):
    content = _csv(200, kind=["a", "b"] * 100)
    at = upload("text.csv", content, methods=["kde"], score=["x", "y", "kind"])
    assert not at.error and "3 column(s)" in caption(at, "Score: ")
    assert "kind (2 levels)" in caption(at, "Scored as categories")
    assert read_download(downloads, at)["score_kde"].notna().all()


def test_a_bad_cell_is_named_by_its_row_in_the_file(monkeypatch):
    """A file scored on a sample: the error names the file's data row, not the sample's."""
    import app_support.scoring as scoring

    monkeypatch.setattr(scoring, "MAX_SCORED_ROWS", 300)
    z = [f"{v:.3f}" for v in np.random.default_rng(2).normal(size=600)]
    z[449] = "oops"
    at = upload("big.csv", _csv(600, z=z), methods=["kde"], score=["x", "z"])
    assert "data row 450 holds 'oops'" in at.error[0].value
    assert len(density_figures(at)) == 1


def test_small_blocks_say_so_and_what_to_try():
    from app_support.captions.your_data import blocks_note

    note = blocks_note(344, 71, 0.1, True)
    assert "hold 4.8 rows each (n / S = 344 / 71)" in note
    assert "try ε = 0.04 (S auto = 29: 11.9 rows per block" in note
    assert "set S = 32 by hand (manual: 10.8 rows per block" in note
    assert blocks_note(2000, 161, 0.04, True) == ""
    assert "no S of 3 blocks or more" in blocks_note(25, 7, 0.1, True)
    assert "price of robustness" in blocks_note(960, 193, 0.1, True, n_outliers=60)
    at = upload("small.csv", _csv(75), methods=["kde", "mom_kde"])
    (note,) = [i.value for i in at.info if i.value.startswith("MoM-KDE's S = ")]
    assert "17 blocks hold 4.4 rows each" in note and "try ε = 0.04" in note
    smoother = upload("small.csv", _csv(75), methods=["kde", "mom_kde"], eps="0.04")
    assert not [i for i in smoother.info if i.value.startswith("MoM-KDE's S = ")]


def test_the_share_flagged_among_fitted_rows_and_the_others(downloads, monkeypatch):
    """Fitted on a sample: the flags are ε of the fitted rows; the caption gives both shares."""
    import app_support.scoring as scoring
    from app_support.compute import row_sample

    monkeypatch.setattr(scoring, "MAX_FIT", 300)
    at = upload("two.csv", _csv(1_200), methods=["kde", "mom_kde"])
    csv = read_download(downloads, at)
    fitted = np.zeros(1_200, bool)
    fitted[row_sample(1_200, 300, 0)] = True
    flags = csv["is_outlier_mom_kde"].to_numpy(bool)
    assert flags[fitted].sum() == 30  # ε of the fitted rows
    text = caption(at, "MoM-KDE flags")
    assert "10.0% of the 300 fitted rows" in text
    assert f"{flags[~fitted].mean():.1%} of the 900 others" in text


def test_drift_of_the_share_is_explained():
    """Many columns, a small h: the KDE flags far more of the rows it was not fitted on."""
    from app_support.captions.your_data import flag_share_note

    rng = np.random.default_rng(0)
    fit_rows = np.arange(200)
    kde = np.r_[rng.random(200) < 0.1, rng.random(600) < 0.4]
    mom = np.r_[rng.random(200) < 0.1, rng.random(600) < 0.1]
    note = flag_share_note("KDE", {"KDE": kde, "MoM-KDE": mom}, fit_rows, 0.1, 8)
    assert "flagged more often than sampling error explains" in note
    assert "counts its own kernel in its density" in note and "(here 8)" in note
    assert f"MoM-KDE {mom[200:].mean():.1%}" in note
    calm = flag_share_note("MoM-KDE", {"MoM-KDE": mom}, fit_rows, 0.1, 8)
    assert "within sampling error" in calm
    every = flag_share_note("KDE", {"KDE": kde[:200]}, fit_rows, 0.1, 2)
    assert every.endswith("up to ties.") and "others" not in every


def test_a_figure_without_scores_when_no_column_to_score():
    """Only a column of numbers and text to score, with a label: the figure stays, no AUC, no
    traceback."""
    bad = [str(k) if k % 3 else "unknown" for k in range(200)]
    content = _csv(200, bad=bad, label=[0] * 190 + [1] * 10)
    at = upload("text.csv", content, methods=["kde"], score=["bad"], label="label")
    assert "Left out of the columns scored: column 'bad'" in at.error[0].value
    assert len(figures(at)) == 1 and not at.get("download_button") and not at.table
    assert any("No column to score" in i.value for i in at.info)


def _shown(box) -> str:
    """The option a selectbox shows in the browser after a run that (re)mounts it: the value
    the script sent with it, else the option at its default index."""
    proto = box.proto
    return proto.raw_value if proto.set_value else proto.options[proto.default]


def test_the_flag_picker_shows_the_method_that_flags():
    """A sample, then "(upload a file)" (the picker is gone), then an upload: the picker shows
    the method the captions and the ranking use, and an unrelated change keeps it (the
    browser sends back what it shows)."""
    at = open_app(PAGE, sample="sensors", methods=["kde", "mom_kde"])
    at.sidebar.selectbox(key="sample").set_value("(upload a file)").run()
    content = _csv(300)
    at.sidebar.file_uploader(key="upload").set_value(("two.csv", content, "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    flag = at.sidebar.selectbox(key="flag")
    shown = _shown(flag)
    assert shown == flag.value == "mom_kde"
    assert caption(at, "MoM-KDE flags 30 of 300 rows")
    flag.set_value(shown)  # what the browser sends with the next change
    at.sidebar.multiselect(key="plot").set_value(["x"]).run()
    assert at.sidebar.selectbox(key="flag").value == "mom_kde"
    assert caption(at, "MoM-KDE flags 30 of 300 rows")
    # a choice made before the picker was hidden comes back shown as well
    at.sidebar.selectbox(key="flag").set_value("kde").run()
    at.sidebar.multiselect(key="score").set_value([]).run()  # no scores: no picker
    assert "flag" not in [box.key for box in at.sidebar.selectbox]
    at.sidebar.multiselect(key="score").set_value(["x", "y"]).run()
    flag = at.sidebar.selectbox(key="flag")
    assert _shown(flag) == flag.value == "kde" and caption(at, "KDE flags 30 of 300 rows")


def test_flags_from_other_columns_than_drawn_are_explained():
    """Scored on three columns, drawn on one: the caption names the columns the flags come
    from and says a flagged row can sit anywhere along the one drawn."""
    at = open_app(PAGE, sample="sensors", methods=["kde", "mom_kde"])
    (drawn,) = at.sidebar.multiselect(key="plot").value
    scored = at.sidebar.multiselect(key="score").value
    assert len(scored) == 3
    text = caption(at, "MoM-KDE ignores")  # behind the figure's expander
    assert (
        f"MoM-KDE flags rows by their density in the 3 columns scored ({scored[0]}, "
        f"{scored[1]} and {scored[2]}), not in the one drawn: a flagged row can sit anywhere "
        f"along {drawn}" in text
    )


def test_two_columns_are_drawn_together_by_default():
    """A file of exactly two columns to score is drawn in 2-D, so a row unusual only in y is
    circled where it is; a column chosen in the URL still wins."""
    rng = np.random.default_rng(3)
    xy = rng.normal(size=(300, 2)).round(4)
    xy[0] = [0.0, 7.0]  # data row 1: ordinary in x, far out in y
    content = pd.DataFrame(xy, columns=["x", "y"]).to_csv(index=False).encode()
    at = upload("two.csv", content, methods=["kde", "mom_kde"])
    assert at.sidebar.multiselect(key="plot").value == ["x", "y"]
    (fig,) = density_figures(at)
    rings = [t for t in fig["data"] if t.get("legendgroup") == "flagged" and t["x"] != [None]]
    assert rings and all("1" in t["customdata"] for t in rings)
    assert "flags rows by their density" not in caption(at, "h = ")  # the columns scored
    one = upload("two.csv", content, methods=["kde", "mom_kde"], plot="x")
    assert one.sidebar.multiselect(key="plot").value == ["x"]
    assert not any(t["type"] == "heatmap" for t in density_figures(one)[0]["data"])


def test_tied_aucs_name_every_best_method():
    from app_support.captions.your_data import auc_verdict

    tie = auc_verdict({"kde": 0.95, "mom_kde": 0.99612, "rkde": 0.99649, "spkde": 0.9951})
    assert tie == "MoM-KDE and RKDE rank the outliers best (AUC 0.996; the KDE 0.950)."
    assert auc_verdict({"kde": 1.0, "mom_kde": 0.99961, "rkde": 0.99}) == (
        "KDE and MoM-KDE rank the outliers best (AUC 1.000)."
    )
    assert auc_verdict({"kde": 0.9, "mom_kde": 0.99}) == (
        "MoM-KDE ranks the outliers best (AUC 0.990; the KDE 0.900)."
    )
    at = open_app(PAGE, sample="sensors")
    shown = {name: f"{float(v):.3f}" for name, v in at.table[0].value.iloc[0].items()}
    best = [name for name, v in shown.items() if v == max(shown.values())]
    verdict = next(c.value for c in at.caption if "the outliers best" in c.value)
    assert verdict.startswith(" and ".join([", ".join(best[:-1]), best[-1]] if best[1:] else best))


def test_the_2d_legend_shows_the_inliers_marker():
    """The inliers are faint dots on the map; their legend entry has a visible grey marker,
    in the same legend group (clicking it hides the dots)."""
    at = _sensor_maps()
    (fig,) = density_figures(at)
    inliers = [t for t in fig["data"] if t.get("legendgroup") == "inliers"]
    dots, entry = inliers
    assert dots["showlegend"] is False and len(values(dots["x"])) > 100  # the dots, on the map
    assert entry["name"] == dots["name"] and entry.get("showlegend", True)
    assert entry["x"] == [None] and entry["marker"]["color"] == "rgb(150,155,165)"
    # #36: the flagged rows' rings are light on the maps; their legend entry is in the flag
    # colour (it was white on the legend's white), and the axes say the units are standardised
    from momkde_core.plots import FLAG_COLOR

    ring = [t for t in fig["data"] if t.get("legendgroup") == "flagged" and t["x"] == [None]]
    assert len(ring) == 1 and ring[0]["marker"]["color"] == FLAG_COLOR
    assert (
        sum(t.get("showlegend", True) for t in fig["data"] if t.get("legendgroup") == "flagged")
        == 1
    )
    titles = [
        v["title"]["text"]
        for k, v in fig["layout"].items()
        if k.startswith(("xaxis", "yaxis")) and v.get("title")
    ]
    assert titles and all(t.endswith(" (standardised)") for t in titles), titles
    assert "axes in standard deviations from each column's mean" in caption(at, "h = ")


def test_the_page_opens_on_a_sample_with_its_numbers():
    """#36: the page opens on the sensor sample, its figure and ranking, not on an upload
    prompt; the picker names every sample by its short code, and its banner's outcome is
    the AUC table's numbers (it no longer says the KDE ranks the glitches as normal beside
    the KDE's AUC 0.971)."""
    at = open_app(PAGE)
    assert at.sidebar.selectbox(key="sample").value == "sensor_glitches.csv"
    assert figures(at) and at.dataframe and at.sidebar.file_uploader(key="upload")
    text = caption(at, "**sensors**: sensor_glitches.csv")
    for code, name, shows in [
        ("sensors", "sensor_glitches.csv", "where MoM-KDE wins"),
        ("spike", "spike_on_a_mode.csv", "where every density method fails"),
        ("cards", "card_transactions.csv", "a real-looking table"),
    ]:
        assert f"**{code}**: {name}, {shows}" in text
    auc = {name: f"{float(v):.3f}" for name, v in at.table[0].value.iloc[0].items()}
    banner = at.info[0].value
    assert banner.startswith("**Where MoM-KDE wins.**") and "ranks it as normal" not in banner
    assert (
        f"ranks the 60 rows labelled 'glitch' better than the KDE (AUC {auc['MoM-KDE']} "
        f"against {auc['KDE']})" in banner
    )


@pytest.mark.parametrize(
    ("linked", "opened", "shows"),
    [
        ("spike", "spike_on_a_mode.csv", "Where every density method fails"),
        ("cards", "card_transactions.csv", "A real-looking table"),
        # a link made before the codes
        ("card_transactions.csv", "card_transactions.csv", "A real-looking table"),
    ],
)
def test_the_url_names_the_sample_by_its_code(linked, opened, shows):
    at = open_app(PAGE, sample=linked)
    assert at.sidebar.selectbox(key="sample").value == opened
    assert at.info[0].value.startswith(f"**{shows}.**")


def test_an_upload_replaces_the_sample():
    """The uploader stays in the sidebar beside the sample; a file uploaded replaces it (the
    picker moves to the upload, the URL says so), and choosing "upload" without a file asks
    for one."""
    at = open_app(PAGE)
    at.sidebar.file_uploader(key="upload").set_value(("two.csv", _csv(300), "text/csv")).run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.sidebar.selectbox(key="sample").value == "(upload a file)"
    assert at.query_params["sample"] in ("upload", ["upload"])
    assert set(at.sidebar.multiselect(key="score").value) == {"x", "y"}
    assert not any("Where MoM-KDE wins" in i.value for i in at.info)
    empty = open_app(PAGE, sample="upload")
    assert not figures(empty) and any("Upload a CSV" in i.value for i in empty.info)


def test_a_link_without_a_source_opens_what_it_was_made_with():
    """The opening sample is the picker's default, left out of the URL: a link made on it
    with other columns holds no source and opens it; a link made with an upload before the
    page opened on a sample (columns the sample does not have) opens the upload's notice."""
    on_sample = open_app(PAGE, plot=["temperature_c", "humidity_pct"])
    assert on_sample.sidebar.selectbox(key="sample").value == "sensor_glitches.csv"
    assert len(density_figures(on_sample)) == 1
    uploaded = open_app(PAGE, plot="x")
    assert uploaded.sidebar.selectbox(key="sample").value == "(upload a file)"
    assert any("made with an uploaded file" in i.value for i in uploaded.info)


def test_empty_text_cells_show_empty_in_the_ranking():
    """#36: an empty text cell is read as None; the ranking shows it empty, not "None"."""
    from app_support.scoring import highlight_flagged, ranking_table

    data = pd.DataFrame({"x": [1.0, 2.0, 3.0], "kind": ["a", None, "c"]})
    found = {
        "order": np.array([1, 0, 2]),
        "percentile": np.array([0.1, 0.5, 0.9]),
        "flagged": np.array([True, False, False]),
        "score": np.array([-1.0, 0.0, 1.0]),
    }
    rows = ranking_table(data, found, pd.Index([1, 2, 3], name="row"), None, 3)
    assert rows["kind"].tolist() == ["", "a", "c"]
    assert ">None<" not in highlight_flagged(rows).to_html()


def test_the_page_flags_with_the_library_default_detector_by_default():
    """No method chosen: Your data scores with the library's default detector (DEFAULT_DETECTOR,
    labelled from the registry) and the paper's four, and flags with the default detector;
    Explore keeps its own methods, without it (#34)."""

    at = open_app(PAGE, sample="sensors")
    box = at.sidebar.multiselect(key="methods")
    assert DEFAULT_DETECTOR in box.options and box.value[0] == DEFAULT_DETECTOR
    assert {"kde", "mom_kde", "rkde", "spkde", "screened_kde"} <= set(box.options)
    flag = at.sidebar.selectbox(key="flag")
    assert flag.value == DEFAULT_DETECTOR == flag.options[0]
    assert caption(at, f"{method_label(DEFAULT_DETECTOR)} flags 96 of 960 rows")
    explore = open_app("app_pages/explore.py")
    assert DEFAULT_DETECTOR not in explore.sidebar.multiselect(key="methods").options


def test_a_one_row_file_gets_one_message_saying_what_to_do():
    at = upload("one.csv", b"a,b\n1,2\n")
    (error,) = at.error
    assert "1 data row" in error.value and "Upload a file with more rows" in error.value
    assert not at.warning and not at.info and not at.get("plotly_chart")


def test_no_label_column_reads_none():
    """A file without a label: the picker holds no column and reads "none", not Streamlit's
    "Choose an option" (its placeholder, shown when the value is None)."""
    at = upload("two.csv", _csv(200))
    picker = at.sidebar.selectbox(key="label")
    assert picker.value is None and picker.proto.placeholder == "none"


def test_a_move_of_the_share_refits_only_what_depends_on_it(monkeypatch):
    """With the CV h (which does not depend on ε), a move of ε refits MoM-KDE (S auto) and
    SPKDE (told ε) and re-thresholds the others' cached scores: the default detector, the
    KDE and RKDE are not scored again; their flags still follow ε."""
    import streamlit as st

    import app_support.scoring as scoring

    st.cache_data.clear()  # no fit at the new ε left by another test
    at = open_app(PAGE, sample="sensors", hmode="CV", eps="0.1")  # (the URL holds the label)
    assert next(c.value for c in at.sidebar.get("button_group") if c.label == "Bandwidth h") == "cv"
    scored: list[str] = []
    original = scoring.density_scores

    def counting(method, *args, **kwargs):
        scored.append(method)
        return original(method, *args, **kwargs)

    monkeypatch.setattr(scoring, "density_scores", counting)
    next(s for s in at.sidebar.slider if s.label.startswith("Expected share")).set_value(0.17).run()
    assert not at.exception
    assert sorted(scored) == ["mom_kde", "spkde"]
    said = caption(at, f"{method_label(DEFAULT_DETECTOR)} flags ")
    flagged = int(said.split(" flags ")[1].split(" of ")[0])
    assert abs(flagged - 0.17 * 960) <= 1  # the stated share, up to ties


# --- mixed tables (#45): text, bool and date columns scored as momkde score scores them ---

STAFF = "assets/staff.csv"


def _mixed_csv(n: int = 600, seed: int = 3) -> bytes:
    """A mixed table: a text id, a hiring date, a team that sets the pay, a country with a
    missing value now and then, a flag; its first 12 rows are paid another team's pay (odd
    only in the pair team, pay)."""
    rng = np.random.default_rng(seed)
    team = rng.choice(["ops", "sales", "dev"], n)
    pay = pd.Series(team).map({"ops": 30.0, "sales": 45.0, "dev": 70.0}) + rng.normal(0, 2, n)
    pay[:12] = 70.0 + rng.normal(0, 2, 12)
    team[:12] = "ops"
    country = rng.choice(["FR", "DE", None], n, p=[0.5, 0.45, 0.05])
    hired = pd.Timestamp("2015-01-01") + pd.to_timedelta(rng.integers(0, 3000, n), unit="D")
    return (
        pd.DataFrame(
            {
                "staff_code": [f"S{k:05d}" for k in range(n)],
                "hired": hired.strftime("%Y-%m-%d"),
                "team": team,
                "pay": pay.round(2),
                "country": country,
                "remote": rng.random(n) < 0.3,
            }
        )
        .to_csv(index=False)
        .encode()
    )


def test_the_page_scores_the_columns_momkde_score_scores():
    """The defaults are the command's column decisions (the label aside), from the library."""
    import argparse
    import contextlib
    import io

    from app_support.tables import guess_roles
    from momkde_core.cli._scan import _score_columns

    for content in (open(STAFF, "rb").read(), _mixed_csv()):
        frame = pd.read_csv(io.BytesIO(content))
        args = argparse.Namespace(columns=None, data="f.csv", chunksize=10**6)
        with contextlib.redirect_stderr(io.StringIO()):
            command, categorical, dates = _score_columns(frame, args, [])
        roles = guess_roles(frame)
        assert list(roles.features) == [c for c in command if c != roles.label]
        assert set(roles.categorical) >= set(categorical) and set(roles.dates) == set(dates)


def test_the_staff_sample_finds_its_planted_pairs_with_its_text_columns(downloads):
    at = open_app(PAGE, sample="staff")
    table = pd.read_csv(STAFF)
    scored = at.sidebar.multiselect(key="score").value
    assert scored == ["role", "salary_eur", "age", "country", "city", "remote"]
    assert at.sidebar.selectbox(key="label").value == "is_planted"
    left_out = caption(at, "Not scored by default")
    assert f"employee_id ({len(table):,} distinct values in {len(table):,} rows" in left_out
    kinds = caption(at, "Scored as categories")
    for column in ("role", "country", "city", "remote"):  # each count is the file's
        assert f"{column} ({table[column].nunique():,} levels)" in kinds
    # RKDE and SPKDE are not run (numbers only), said once
    assert any("read numeric columns only" in i.value for i in at.info)
    assert [t.label for t in at.tabs] == ["MoM-KDE (S = 21, Scott h)", "KDE", "MoM-KDE"]
    csv = read_download(downloads, at)
    planted = csv["is_planted"].to_numpy(bool)
    flagged = csv["is_outlier_mom_kde_21"].to_numpy(bool)
    assert (flagged & planted).sum() >= planted.sum() / 2  # 30 of the 48 at ε = 0.1
    blamed = set(csv.loc[flagged, "blame_1"]) | set(csv.loc[flagged, "blame_2"])
    assert {"role", "city"} <= blamed  # the planted pairs' text columns are named
    lesson = next(i.value for i in at.info if i.value.startswith("**Text columns"))
    aucs = at.table[0].value.iloc[0]  # the banner's numbers are the AUC table's
    assert f"AUC {float(aucs['MoM-KDE']):.3f} against {float(aucs['KDE']):.3f}" in lesson


def test_the_staff_lesson_text_columns_find_what_numbers_alone_miss():
    """The sample's lesson: scored with its text columns, the default detector ranks the
    planted rows far better than on the numbers alone (AUC 0.93 against 0.62 at seed 0;
    0.15 apart asked: the fit's blocks are random)."""
    from sklearn.metrics import roc_auc_score

    from app_support.compute import Settings
    from app_support.prepare import detector_input
    from app_support.scoring import density_scores
    from app_support.tables import guess_roles

    table = pd.read_csv(STAFF)
    roles = guess_roles(table)
    settings = Settings("robust", "gaussian", n_blocks=15, contamination=0.1, seed=0)
    every = np.arange(len(table))
    auc = {}
    for name, columns in (("all", list(roles.features)), ("numbers", ["salary_eur", "age"])):
        X = detector_input(table, columns, roles.categorical, roles.dates, True)
        found = density_scores(DEFAULT_DETECTOR, None, settings, X, every)
        auc[name] = roc_auc_score(table["is_planted"], -found["log_density"])
    assert auc["all"] > 0.85 and auc["all"] > auc["numbers"] + 0.15


def test_an_uploaded_mixed_csv_scores_its_text_and_dates(downloads):
    content = _mixed_csv()
    at = upload("mixed.csv", content)
    frame = pd.read_csv(io.BytesIO(content))
    assert at.sidebar.multiselect(key="score").value == [
        "hired",
        "team",
        "pay",
        "country",
        "remote",
    ]
    assert "staff_code (600 distinct values in 600 rows" in caption(at, "Not scored by default")
    kinds = caption(at, "Scored as categories")
    assert f"team ({frame['team'].nunique()} levels)" in kinds
    # the missing country is a level of its own: 2 countries + missing
    assert frame["country"].isna().any() and "country (3 levels)" in kinds
    assert "Read as dates, scored as days since 1970-01-01: hired." in kinds
    assert not at.error and not at.exception
    csv = read_download(downloads, at)
    assert csv["score_mom_kde_21"].notna().all()  # a missing country leaves no row out
    flagged = csv["is_outlier_mom_kde_21"].to_numpy(bool)
    assert flagged[:12].sum() >= 9  # the planted pay of another team
    assert set(csv.loc[:11, "blame_1"]) & {"team", "pay"}


def test_bad_mixed_input_is_named(downloads):
    rng = np.random.default_rng(0)
    n = 1500
    content = (
        pd.DataFrame(
            {
                "x": rng.normal(size=n).round(3),
                "code": [f"k{k}" for k in range(n)],  # thousands of levels
                "mixed": [str(k) if k % 3 else "unknown" for k in range(n)],  # text and numbers
            }
        )
        .to_csv(index=False)
        .encode()
    )
    at = upload("bad.csv", content, score=["x", "code", "mixed"], methods=["kde"])
    errors = " ".join(e.value for e in at.error)
    assert "'code' has 1,500 levels: a categorical column may have at most 1,000" in errors
    assert "mixed" in errors  # text among numbers: named with its row
    assert not at.exception and read_download(downloads, at)["score_kde"].notna().all()


def test_another_kernel_leaves_the_categorical_columns_out_with_a_notice(downloads):
    at = open_app(PAGE, sample="staff", kernel="epanechnikov", methods=["kde"])
    notice = next(i.value for i in at.info if "need the Gaussian kernel" in i.value)
    assert "'role', 'country', 'city', 'remote'" in notice
    assert "2 column(s)" in caption(at, "Score: ")  # salary_eur and age
    # the sidebar does not say they are scored as categories (it did, drawn before the kernel)
    assert not any(c.value.startswith("Scored as categories") for c in at.sidebar.caption)
    gaussian = open_app(PAGE, sample="staff", methods=["kde"])
    assert any(c.value.startswith("Scored as categories") for c in gaussian.sidebar.caption)
    assert not at.exception


def test_a_categorical_or_date_column_chosen_to_draw_is_named_and_still_scored():
    at = upload("mixed.csv", _mixed_csv(), plot=["team", "pay"], methods=["kde"])
    (error,) = at.error
    assert error.value.startswith("Left out of the columns drawn: 'team' is categorical")
    assert "The page goes on with 'pay'." in error.value
    assert "5 column(s)" in caption(at, "Score: ")  # hired, team, pay, country, remote
    dates = upload("mixed.csv", _mixed_csv(), plot=["hired"], methods=["kde"])
    assert "'hired' is a column of dates" in dates.error[0].value


def test_unstandardised_columns_of_unlike_spreads_are_warned_of():
    """The staff sample's salary and age, standardise off: one h cannot suit both, and the
    warning's ratio and spreads are those of the rows scored; standardised, no warning."""
    at = open_app(PAGE, sample="staff", std="false")
    (warning,) = [w.value for w in at.warning if w.value.startswith("Standardise is off")]
    staff = pd.read_csv(Path(__file__).resolve().parents[2] / "assets" / "staff.csv")
    spreads = staff[["salary_eur", "age"]].dropna().std()
    ratio = float(re.search(r"differ ([\d,]+)x", warning).group(1).replace(",", ""))
    assert ratio == pytest.approx(spreads["salary_eur"] / spreads["age"], abs=0.5)  # (rounded)
    at = open_app(PAGE, sample="staff")
    assert not [w for w in at.warning if w.value.startswith("Standardise is off")]

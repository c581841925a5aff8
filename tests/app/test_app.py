"""Every page of the app under Streamlit's AppTest: it runs without an exception, draws its
figures with the expected traces, and reports bad input with st.error, not a traceback."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from tests.app._apptest import (
    caption,
    density_figures,
    explore_text,
    figures,
    names,
    open_app,
    read_download,
    shown_bandwidth,
    shown_blocks,
    upload,
    values,
)


def test_home_shows_kde_and_mom_kde_and_links():
    """Home's Plotly figures (``fig=plotly``; the live figure is the default: its tests are in
    tests/app/test_live_lesson.py)."""
    at = open_app(fig="plotly")
    full, zoom = figures(at)
    assert {"True density", "KDE", "MoM-KDE"} <= set(names(full))
    assert zoom["layout"]["yaxis"]["range"][1] < 0.1  # the tails' bumps are visible there
    assert len(at.get("page_link")) == 5
    assert (
        "exactly 0 outside [-1.29, 1.31]" in at.caption[0].value
    )  # read off the curve, not [-1, 1]
    assert "S = 1: MoM-KDE is the KDE itself" in open_app(o="0", fig="plotly").caption[0].value


def test_explore_1d_all_methods_blocks_and_metrics():
    """Robust defaults: S auto = 2 ceil(0.1 n) + 1 = 113 for n = 556, the guide met, the
    robust h; switching S to manual shows the slider, whose maximum is n (the guide is reachable)."""
    at = open_app("app_pages/explore.py", blocks="true", n="500")
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    legend = names(fig)
    assert {"True density", "KDE", "MoM-KDE", "RKDE", "SPKDE"} <= set(legend)
    assert any(n.startswith("S = 113 block KDEs (grey)") for n in legend)
    assert "meets the guide S > 2|O| = 112" in caption(at, "S = 113")
    assert len(at.table) == 1
    at.segmented_control(key="Smode").set_value("manual").run()
    assert at.select_slider(key="S").options[-1] == "556"  # log-spaced values up to n
    at.select_slider(key="S").set_value(40).run()
    assert not at.exception
    assert any(n.startswith("S = 40 block KDEs") for n in names(figures(at)[0]))
    assert "S = 40 does not meet the guide" in explore_text(at)


@pytest.mark.parametrize(
    ("params", "says"),
    [
        (
            {"scheme": "thin"},
            ["closer to the true density than the KDE", "fewer than half, so the median"],
        ),
        (
            {"scheme": "thin", "hmode": "CV", "Smode": "manual", "S": "261"},
            ["further from the true density", "fitted the spike of outliers"],
        ),
        ({"scheme": "adversarial"}, ["further from the true density", "on an inlier mode"]),
        ({"scheme": "none"}, ["Without outliers there is nothing to resist"]),
    ],
)
def test_explore_caption_says_who_wins_and_why(params, says):
    """The walkthrough's contradictions: the caption follows the figure, failure modes included."""
    at = open_app("app_pages/explore.py", **params)
    text = explore_text(at)
    assert all(s in text for s in says), text


def test_explore_2d_and_kernel_without_spkde():
    at = open_app("app_pages/explore.py", dim="2", n="200", kernel="epanechnikov")
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    assert sum(t["type"] == "heatmap" for t in fig["data"]) == 4  # truth, KDE, MoM-KDE, RKDE
    assert any("SPKDE" in w.value for w in at.warning)
    text = explore_text(at)
    assert "orange" not in text and "pink" not in text and "JS to the truth" in text
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert any(t.startswith("KDE · JS ") for t in titles)


def test_sweep_draws_four_metrics():
    at = open_app("app_pages/sweep.py", reps="1", n="200")
    figs = figures(at)
    assert len(figs) == 4
    assert {"KDE", "MoM-KDE", "RKDE", "SPKDE"} <= set(names(figs[0]))
    assert len(at.get("download_button")) == 1
    assert any("**honest** protocol" in m.value for m in at.markdown)  # (behind an expander)
    auc = next(f for f in figs if f["layout"]["title"]["text"] == "ROC AUC")
    assert [s["y0"] for s in auc["layout"]["shapes"]] == [0.5]  # the chance line
    assert "beats the KDE at" in caption(at, "AUC of the density")


def test_sweep_adversarial_explains_the_loss():
    at = open_app("app_pages/sweep.py", reps="1", n="200", scheme="adversarial")
    assert at.info[0].value.startswith("(d) adversarial")
    why = at.expander[1]  # under the box: the scheme's mechanism
    assert why.label == "Why this scheme favours or defeats MoM-KDE"
    assert "MoM-KDE loses on this scheme" in why.markdown[0].value
    # behind the AUC figure's expander
    assert any("below 0.5 (chance)" in c.value for c in at.expander[-1].caption)


def test_real_data_iris_and_install_hint(monkeypatch, tmp_path):
    monkeypatch.setenv("MOMKDE_DATA_DIR", str(tmp_path))  # an empty data directory
    at = open_app("app_pages/real_data.py", live="true", reps="1", sets=["iris", "banana"])
    figs = figures(at)
    assert len(figs) == 1 and "MoM-KDE" in names(figs[0])  # the library default
    hints = [i.value for i in at.info]
    assert any("banana" in h and "not installed" in h and "MOMKDE_DATA_DIR" in h for h in hints)


def test_real_data_opens_on_the_stored_reproduction():
    """No computation: the newest docs/results/real_honest_*reps table, all ten ratios, the
    protocol stated, the chance line, and why iris falls below it."""
    from app_support.results import latest_results

    at = open_app("app_pages/real_data.py", sets=["iris", "digits"])
    figs = figures(at)
    assert len(figs) == 2 and not at.get("progress")
    assert [s["y0"] for s in figs[0]["layout"]["shapes"]] == [0.5]
    stored = caption(at, "Stored reproduction")
    assert latest_results("real_honest").name in stored and "at 10 ratios" in stored
    assert "setosa" in caption(at, "Best on average") and "Honest" in at.markdown[0].value


def test_latest_results_takes_the_most_repetitions(tmp_path):
    from app_support.results import latest_results

    for name in ("real_honest_10reps.csv.gz", "real_honest_50reps.csv.gz", "real_honest_x.csv.gz"):
        (tmp_path / name).write_bytes(b"")
    assert latest_results("real_honest", tmp_path).name == "real_honest_50reps.csv.gz"
    assert latest_results("synthetic", tmp_path) is None


def test_your_data_discrete_column_does_not_collapse_cv():
    """sensor_glitches.csv's hour column is discrete: drawn alone with CV (not the default),
    the leave-one-out search leaves each hour's copies out, so it no longer runs into its
    smallest h (the former k-fold search did, and warned). It is not what the page draws by
    default (the column with the most distinct values)."""
    default = open_app("app_pages/your_data.py", sample="sensors")
    assert default.sidebar.multiselect[0].value != ["hour"]
    at = open_app(
        "app_pages/your_data.py",
        sample="sensors",
        plot="hour",
        score="hour",
        hmode="CV",
    )
    assert not at.error, [e.value for e in at.error]
    assert not any("smallest" in w.value for w in at.warning), [w.value for w in at.warning]


def test_learn_smallest_bandwidth_many_blocks():
    """h = 0.05 with S up to 60: the block median vanishes for large S; no traceback."""
    at = open_app("app_pages/learn.py", o="5", h="0.05", S="60")
    assert not at.error, [e.value for e in at.error]
    # Example 1's two, curve against screen (the construction's step is drawn live)
    assert len(figures(at)) == 3


def test_learn_example_one():
    at = open_app("app_pages/learn.py", o="3", S="11")
    figs = figures(at)
    assert len(figs) == 3  # Example 1's two, curve against screen (the construction: live)
    errors = {t["name"]: t["y"] for t in figs[1]["data"]}
    assert "MoM-KDE" in errors and "KDE" in errors


@pytest.mark.parametrize("sample", ["sensors", "cards", "spike"])
def test_your_data_samples(sample):
    at = open_app("app_pages/your_data.py", sample=sample)
    assert not at.error, [e.value for e in at.error]
    assert len(density_figures(at)) == 1
    assert len(at.get("download_button")) == 1
    assert "2⌈εn⌉+1" in caption(at, "S = ") and "meets the guide" in caption(at, "S = ")


def _aucs(at: AppTest) -> dict[str, float]:
    return {name: float(v) for name, v in at.table[0].value.iloc[0].items()}


def test_sample_where_mom_kde_wins():
    at = open_app("app_pages/your_data.py", sample="sensors")
    aucs = _aucs(at)
    assert aucs["MoM-KDE"] > 0.99 and aucs["MoM-KDE"] > aucs["KDE"] + 0.02
    assert "Where MoM-KDE wins" in at.info[0].value
    # RKDE ties it at AUC 1.000 on this sample: both are named
    assert "MoM-KDE and RKDE rank the outliers best" in caption(at, "MoM-KDE and RKDE")


def test_sample_where_a_spike_defeats_every_density():
    at = open_app("app_pages/your_data.py", sample="spike")
    assert max(_aucs(at).values()) < 0.1
    assert "Every AUC is below 0.5" in caption(at, "Every AUC")


def test_real_looking_table_leaves_out_its_id_scores_text_and_dates_and_finds_the_label():
    at = open_app("app_pages/your_data.py", sample="cards")
    scored = ["timestamp", "merchant", "country", "amount_eur", "hour"]  # as momkde score
    assert at.sidebar.multiselect(key="score").value == scored
    assert at.sidebar.selectbox(key="label").value == "is_fraud"
    assert "row_id (an id)" in caption(at, "Not scored by default")
    assert "scored as days since 1970-01-01: timestamp" in caption(at, "Scored as categories")
    assert min(_aucs(at).values()) > 0.9
    top = at.dataframe[0].value
    assert top["is_fraud"].sum() >= 8  # the most anomalous rows are fraud


def test_continuous_label_gives_no_auc():
    at = open_app("app_pages/your_data.py", sample="cards", label="amount_eur")
    assert any("distinct values" in w.value for w in at.warning) and not at.table


def test_roles_of_columns():
    import pandas as pd

    from app_support.tables import guess_roles

    frame = pd.DataFrame(
        {
            "row_id": [3, 1, 2, 4],
            "x": [0.1, 0.5, 0.2, 0.9],
            "y": [1.5, 2.5, 0.5, 3.5],
            "customer_key": [11, 52, 7, 9],
        }
    )
    roles = guess_roles(frame)
    assert roles.label is None and roles.ids == ("row_id", "customer_key")
    assert roles.features == ("x", "y")
    wide = pd.DataFrame({f"c{i}": [0.0, 1.0, 2.5] for i in range(500)})
    assert len(guess_roles(wide).features) == 20 and guess_roles(wide).truncated


@pytest.mark.parametrize("eps", [0.05, 0.2])
def test_your_data_flags_the_stated_share(downloads, eps):
    """Every method flags round(ε n) rows (up to ties; n <= 2000 rows are all fitted on): in the
    figure's flag rug, the caption, the shaded tables and the download's is_outlier_<method>."""

    at = open_app("app_pages/your_data.py", sample="sensors", eps=str(eps), flag="kde")
    assert not at.error, [e.value for e in at.error]
    csv = read_download(downloads, at)
    n, expected = len(csv), round(eps * len(csv))
    scored = ("mom_kde_21", "kde", "mom_kde", "rkde", "spkde")  # the default detector first
    for method in scored:
        flags = csv[f"is_outlier_{method}"]
        assert abs(int(flags.sum()) - expected) <= 1, (method, int(flags.sum()), expected)
        assert ((csv[f"score_{method}"] < 0) == flags).all()
    n_kde = int(csv["is_outlier_kde"].sum())
    (fig,) = density_figures(at)
    assert f"flagged ({n_kde})" in names(fig)  # the figure marks the chosen method's flags
    assert f"KDE flags {n_kde:,} of {n:,} rows" in caption(at, "KDE flags")
    assert f"stated share ε = {eps:g}" in caption(at, "KDE flags")
    tables = [d.value for d in at.dataframe]
    assert len(tables) == len(scored)
    for table, method in zip(tables, scored):
        n_flagged = int(csv[f"is_outlier_{method}"].sum())
        assert list(table.columns[:3]) == ["percentile", "flagged", "score"]
        assert table["flagged"].tolist() == [True] * n_flagged + [False] * (len(table) - n_flagged)
        assert table["score"].is_monotonic_increasing
    styles = at.dataframe[0].proto.arrow_data.styler.styles
    assert "#F3E5F5" in styles  # the flagged rows are shaded


def test_your_data_flags_follow_the_chosen_method():
    """Without MoM-KDE among the methods, the figure marks the first chosen method's flags."""
    at = open_app("app_pages/your_data.py", sample="sensors", methods=["kde", "rkde"])
    assert at.sidebar.selectbox(key="flag").options == ["kde", "rkde"]
    assert caption(at, "KDE flags")


def test_method_codes_in_the_url_and_old_links():
    """The Methods pickers write method keys into the URL; a link holding the old display
    labels, or a method's former code, still selects the same methods."""
    at = open_app("app_pages/explore.py", methods=["kde", "mom_kde"])
    assert at.sidebar.multiselect(key="methods").value == ["kde", "mom_kde"]
    assert at.sidebar.multiselect(key="methods").options == [
        "kde",
        "mom_kde",
        "rkde",
        "spkde",
        "screened_kde",
    ]
    old = open_app(
        "app_pages/real_data.py", sets=["iris"], methods=["KDE", "MoM-KDE (S rule, CV h)"]
    )
    assert old.sidebar.multiselect(key="methods").value == ["kde", "mom_kde_rule"]
    assert set(names(figures(old)[0])) >= {"KDE", "MoM-KDE (S rule, CV h)"}
    renamed = open_app("app_pages/real_data.py", sets=["iris"], methods=["mom_kde_auto"])
    assert renamed.sidebar.multiselect(key="methods").value == ["mom_kde"]  # its former code
    assert "MoM-KDE" in names(figures(renamed)[0])


def test_screened_kde_settings_and_cache_keys():
    """The screened KDE is told the stated share and the seed, keeps its own CV h unless h is
    a number (the slider's), and ignores S: moving S leaves its cached fit alone."""
    from dataclasses import replace

    from app_support.compute import Settings, make_estimator, relevant

    s = Settings(bandwidth="robust", kernel="gaussian", n_blocks=21, contamination=0.1, seed=3)
    est = make_estimator("screened_kde", 0.4, relevant("screened_kde", s))
    assert (est.bandwidth, est.contamination, est.random_state) == ("cv", 0.1, 3)
    assert (
        make_estimator(
            "screened_kde", 0.4, relevant("screened_kde", replace(s, bandwidth=0.4))
        ).bandwidth
        == 0.4
    )
    key = relevant("screened_kde", s)
    assert relevant("screened_kde", replace(s, n_blocks=41, auto_blocks=True)) == key
    assert relevant("screened_kde", replace(s, bandwidth="scott")) == key  # its own rule either way
    for moved in (
        dict(contamination=0.2),
        dict(seed=4),
        dict(kernel="epanechnikov"),
        dict(bandwidth=0.4),
    ):
        assert relevant("screened_kde", replace(s, **moved)) != key, moved


def test_explore_screened_kde_1d():
    """Chosen on Explore: its own line (a colour no other curve has), its row in the metrics,
    and the note of the h it cross-validated on the rows it kept; the slider's h applies to it."""
    at = open_app(
        "app_pages/explore.py", n="500", scheme="thin", methods=["kde", "mom_kde", "screened_kde"]
    )
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    lines = {t["name"]: t["line"]["color"] for t in fig["data"] if t.get("mode") == "lines"}
    assert {"True density", "KDE", "MoM-KDE", "Screened KDE"} <= set(lines)
    assert list(lines.values()).count(lines["Screened KDE"]) == 1
    assert "Screened KDE" in at.table[0].value.index
    assert set(at.table[0].value.columns) >= {"JS", "AUC"}
    note = caption(at, "Screened KDE: h = ")
    assert "cross-validated on the" in note and "rows aside" in note
    manual = open_app(
        "app_pages/explore.py", n="500", hmode="slider", h="0.3", methods=["screened_kde"]
    )
    assert "h = 0.3, the slider's" in caption(manual, "Screened KDE: h = ")
    assert names(figures(manual)[0])[:2] == ["True density", "Screened KDE"]


def test_explore_screened_kde_2d():
    at = open_app("app_pages/explore.py", dim="2", n="200", methods=["kde", "screened_kde"])
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    assert [t["name"] for t in fig["data"] if t["type"] == "heatmap"] == [
        "True density",
        "KDE",
        "Screened KDE",
    ]
    titles = [a["text"] for a in fig["layout"]["annotations"]]
    assert any(t.startswith("Screened KDE · JS ") for t in titles)
    assert "Screened KDE" in at.table[0].value.index
    assert "cross-validated on the" in caption(at, "Screened KDE: h = ")


def test_sweep_screened_kde():
    at = open_app(
        "app_pages/sweep.py", reps="1", n="200", step="0.1", methods=["kde", "screened_kde"]
    )
    assert not at.error, [e.value for e in at.error]
    figs = figures(at)
    assert len(figs) == 4 and all({"KDE", "Screened KDE"} <= set(names(f)) for f in figs)
    assert any("the screened KDE are told" in m.value for m in at.markdown)


def test_your_data_screened_kde(downloads):
    """Offered as a detector: it flags the stated share, has its tab, AUC and download columns."""

    at = open_app(
        "app_pages/your_data.py",
        sample="sensors",
        methods=["kde", "screened_kde"],
        flag="screened_kde",
    )
    assert not at.error, [e.value for e in at.error]
    assert at.sidebar.selectbox(key="flag").options == ["kde", "screened_kde"]
    assert "Screened KDE" in _aucs(at)
    assert [tab.label for tab in at.tabs] == ["KDE", "Screened KDE"]
    csv = read_download(downloads, at)
    n_flagged = int(csv["is_outlier_screened_kde"].sum())
    assert abs(n_flagged - round(0.1 * len(csv))) <= 1
    assert f"Screened KDE flags {n_flagged:,} of {len(csv):,} rows" in caption(
        at, "Screened KDE flags"
    )
    assert "Screened KDE: h = " in caption(at, "MoM-KDE ignores")


def test_real_data_offers_the_stored_screened_kde():
    """The stored results hold the screened KDE (docs/results/real_honest_screened.csv.gz):
    it is offered, and a link asking for it draws it."""
    at = open_app("app_pages/real_data.py", sets=["iris"], methods=["kde", "screened_kde"])
    assert "screened_kde" in at.sidebar.multiselect(key="methods").options
    assert "Screened KDE" in names(figures(at)[0])


def test_learn_complexity_table_lists_the_screened_kde():
    at = open_app("app_pages/learn.py")
    costs = next(t.value for t in at.table if "Learning" in t.value.columns)
    assert list(costs.index) == ["KDE", "RKDE", "SPKDE", "MoM-KDE", "Screened KDE"]
    assert costs.loc["Screened KDE", "Iterative"] == "no"


def _two_columns(n: int, seed: int = 0) -> bytes:
    """A CSV of ``n`` rows: x, y Gaussian with a few far rows (no id, no label)."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(seed)
    xy = rng.normal(size=(n, 2)).round(4)
    xy[: max(n // 100, 1)] += 8.0
    return pd.DataFrame(xy, columns=["x", "y"]).to_csv(index=False).encode()


def test_your_data_scores_every_row_with_its_row_number(downloads, monkeypatch):
    """1,200 rows, the figure limited to 300: every row is scored and downloaded with its row
    number in the file; the figure's caption says it draws a sample; the table names rows by
    their 1-based row number, the same as the download's."""
    import io

    import numpy as np
    import pandas as pd

    import app_support.scoring as scoring

    monkeypatch.setattr(scoring, "MAX_DRAWN", 300)
    content = _two_columns(1_200)
    at = upload("two.csv", content, methods=["kde", "mom_kde"])
    assert not at.error, [e.value for e in at.error]
    csv = read_download(downloads, at)
    original = pd.read_csv(io.BytesIO(content))
    assert len(csv) == 1_200 and csv["row"].tolist() == list(range(1, 1_201))
    assert np.allclose(csv["x"], original["x"]) and "note" not in csv
    for method in ("kde", "mom_kde"):
        assert csv[f"score_{method}"].notna().all()
        assert ((csv[f"score_{method}"] < 0) == csv[f"is_outlier_{method}"]).all()
    (fig,) = density_figures(at)
    assert "sample (300)" in names(fig)  # the rug: 300 rows drawn
    text = caption(at, "h = ")
    assert (
        "Drawn from 300 of the 1,200 rows (a uniform sample); every row is scored in the tables "
        "and the download." in text
    )
    table = at.dataframe[0].value
    assert table.index.name == "row"
    lowest = csv.sort_values("score_kde", kind="stable")["row"].head(len(table)).tolist()
    assert table.index.tolist() == lowest
    assert np.allclose(table["score"], csv.set_index("row").loc[lowest, "score_kde"])
    assert "every one of the file's 1,200 rows" in caption(at, "Score: ")


def test_your_data_keeps_rows_with_missing_values_with_a_note(downloads):
    """Rows with a missing value are not scored, but stay in the download (empty score and
    flag, a note saying which column lacks a value), at their row number."""
    lines = _two_columns(200).decode().splitlines()
    lines[5] = lines[5].split(",")[0] + ","  # data row 5: no y
    lines[120] = "," + lines[120].split(",")[1]  # data row 120: no x
    at = upload("gaps.csv", "\n".join(lines).encode(), methods=["kde"])
    assert not at.error, [e.value for e in at.error]
    csv = read_download(downloads, at)
    assert len(csv) == 200 and csv["row"].tolist() == list(range(1, 201))
    gaps = csv[csv["score_kde"].isna()]
    assert gaps["row"].tolist() == [5, 120] and gaps["is_outlier_kde"].isna().all()
    assert gaps["note"].tolist() == ["not scored: no value in y", "not scored: no value in x"]
    assert csv.loc[csv["score_kde"].notna(), "note"].isna().all()
    assert "2 row(s) with a missing value" in caption(at, "2 row(s)")
    assert "the 2 row(s) not scored keep empty scores and a note" in caption(at, "Score: ")


def test_your_data_names_rows_by_the_id_column(downloads):
    """card_transactions.csv has an id (row_id): the tables and the download name rows by it."""
    at = open_app("app_pages/your_data.py", sample="cards", methods=["kde"])
    csv = read_download(downloads, at)
    assert "row" not in csv and len(csv) == 1_570 and csv["row_id"].is_unique
    table = at.dataframe[0].value
    assert table.index.name == "row_id" and "row_id" not in table.columns
    lowest = csv.sort_values("score_kde", kind="stable")["row_id"].head(len(table)).tolist()
    assert table.index.tolist() == lowest
    assert "named by 'row_id'" in caption(at, "Score: ")


def test_your_data_points_to_momkde_score_over_its_row_limit(downloads, monkeypatch):
    """A file over the rows the page scores: a notice with the `momkde score` command for the
    file and the page's choices; the page scores a sample, named by the file's row numbers."""
    import io

    import numpy as np
    import pandas as pd

    import app_support.scoring as scoring

    monkeypatch.setattr(scoring, "MAX_SCORED_ROWS", 500)
    content = _two_columns(1_000, seed=1)
    at = upload("big file.csv", content, methods=["kde"])
    notice = next(i.value for i in at.info if "momkde score" in i.value)
    assert "The file has 1,000 rows, more than the 500 this page scores" in notice
    assert (
        "momkde score 'big file.csv' --columns x y --method kde --contamination 0.1 "
        "--drop-missing --out scored.csv" in notice
    )
    csv = read_download(downloads, at)
    original = pd.read_csv(io.BytesIO(content))
    assert len(csv) == 500 and csv["row"].is_unique and csv["row"].between(1, 1_000).all()
    assert np.allclose(csv["x"], original["x"].to_numpy()[csv["row"] - 1])  # the file's rows
    assert "the 500 rows sampled from the file's 1,000" in caption(at, "Score: ")


def test_your_data_points_to_momkde_score_over_the_upload_limit(monkeypatch):
    """A file over the upload limit (Streamlit's uploader refuses it first; a raised
    server.maxUploadSize lets the page see it): an error with the command, no traceback."""
    import app_support.widgets as widgets

    monkeypatch.setattr(widgets, "upload_limit_bytes", lambda: 1_000)
    at = upload("huge.csv", _two_columns(200))
    (error,) = at.error
    assert "over this page's limit of 1,000 bytes" in error.value
    assert "momkde score huge.csv --out scored.csv" in error.value
    assert not figures(at) and not at.get("download_button")
    assert "momkde score FILE --out scored.csv" in caption(at, "A larger file")


def test_learn_timings_survive_a_rerun(monkeypatch):
    """Measured once, the timings come from the cache on every later run (the page reruns the
    fragment while the measure is remembered); the progress bar drawn from inside a cached
    function made that replay raise. Stand-in timings keep the test short."""
    import app_support.cache as cache

    monkeypatch.setattr(
        cache, "_fit_and_evaluate_seconds", lambda method, n, n_eval, seed: (n, 1e-3, 1e-3)
    )
    at = open_app("app_pages/learn.py")
    at.button(key="measure").click().run()
    assert not at.exception, [e.value for e in at.exception]
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("Measured fit slopes here" in c.value for c in at.caption)


def test_explore_2d_maps_show_small_masses_and_keep_markers_off_the_estimates():
    """#26: one log colour scale spanning several decades on every map (a KDE's plateau over
    uniform outliers, ~1e-3 of the peak, is not in the lowest step) and the sample's markers
    on the first map only, outliers hollow."""
    at = open_app("app_pages/explore.py", dim="2", n="200", scheme="uniform")
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    maps = [t for t in fig["data"] if t["type"] == "heatmap"]
    assert len(maps) == 5  # truth and the default four
    scales = {(c["zmin"], c["zmax"]) for c in maps}
    assert len(scales) == 1
    zmin, zmax = scales.pop()
    assert zmax - zmin >= 3  # z is log10: at least three decades
    # (the sample's markers; the locked point's cross and the click targets, #36, on every map)
    markers = [
        t for t in fig["data"] if t["type"] != "heatmap" and not t.get("name", "").startswith("x₀")
    ]
    markers = [t for t in markers if t.get("name") != "click"]
    assert markers and {t.get("xaxis", "x") for t in markers} == {"x"}
    assert all(
        t["marker"].get("symbol") == "circle-open" for t in markers if "outliers" in t["name"]
    )


def test_explore_s_and_h_always_shown_and_manual_starts_where_a_link_opens():
    """Issue #26: the S and h sliders are shown at the defaults (disabled, at the values in use,
    marked as automatic), S on log-spaced values. By hand (#43), each starts from the value a
    link without it opens at (h: the robust h; S: 21), so a copied link reproduces the view:
    a value set in the session state would not reach the URL until moved."""
    at = open_app("app_pages/explore.py")
    s = shown_blocks(at)
    assert s.disabled and s.value == 225 and "ε = 0.1: 225" in s.label
    assert "2000" not in s.options and len(s.options) < 100  # log-spaced, up to n = 1111
    h = shown_bandwidth(at)
    assert h.disabled and h.label.startswith("h (robust: ")
    h_auto = float(h.label.split(": ")[1].rstrip(")"))
    at.segmented_control(key="Smode").set_value("manual").run()
    assert not at.select_slider(key="S").disabled and at.select_slider(key="S").value == 21
    assert caption(at, "S = 21").startswith("S = 21 (log scale); below the guide")
    metrics = [t.value for t in at.table]
    assert metrics  # (the metric table under the figure)
    at.segmented_control(key="hmode").set_value("manual").run()
    assert not at.slider(key="h").disabled
    # by hand starts from the robust h itself (the label shows 3 digits of it), not rounded:
    # the same fits, so the same metrics, until the slider moves
    assert at.slider(key="h").value == pytest.approx(h_auto, rel=0.002)
    assert any(f"**h = {h_auto:.3g}** (slider)" in m.value for m in at.markdown)
    for before, after in zip(metrics, [t.value for t in at.table], strict=True):
        pd.testing.assert_frame_equal(before, after)


def test_explore_h_slider_holds_the_rules_h_beyond_one_dimension():
    """A 2-D tophat sample's robust h is above 2 (the kernel's finite reach): the disabled
    slider shows the h its label gives, and by hand starts from it, not from a cut-off."""
    at = open_app("app_pages/explore.py", kernel="tophat", k="30", dim="2")
    h = shown_bandwidth(at)
    h_auto = float(h.label.split(": ")[1].rstrip(")"))
    assert h_auto > 2.0  # the case this test is about
    assert h.disabled and h.value == pytest.approx(h_auto, rel=0.002)  # (3 digits shown)
    at.segmented_control(key="hmode").set_value("manual").run()
    assert at.slider(key="h").value == pytest.approx(h_auto, rel=0.002)


def test_explore_eps_follows_the_ratio_unless_decoupled():
    """ε is the true ratio by default (S auto = 2⌈0.3 n⌉+1 = 859 > 2|O| = 858); stating
    another share is explicit, and S <= 2|O| then gets a warning with the numbers. A link
    from before the switch (eps in the URL) states its ε."""
    at = open_app("app_pages/explore.py", ratio="0.3")
    assert not [s for s in at.slider if s.key == "eps"]
    assert at.checkbox(key="epsfree").value is False
    assert "ε = 0.3, the true outlier ratio." in [c.value for c in at.caption]
    assert shown_blocks(at).value == 859
    assert "meets the guide S > 2|O| = 858" in caption(at, "S = 859")
    assert not any("misses the guide" in w.value for w in at.warning)
    at.checkbox(key="epsfree").check().run()
    assert at.slider(key="eps").value == 0.1
    assert shown_blocks(at).value == 287
    (warning,) = [w.value for w in at.warning if "misses the guide" in w.value]
    assert "S auto = 2⌈εn⌉+1 = 287 follows the stated share ε = 0.1" in warning
    assert "S > 2|O| = 858" in warning and "not the true ratio 0.3" in warning
    old = open_app("app_pages/explore.py", ratio="0.3", eps="0.1")
    assert old.checkbox(key="epsfree").value is True
    assert shown_blocks(old).value == 287
    assert any("misses the guide" in w.value for w in old.warning)


def test_views_computed_ahead_are_the_pages_own(monkeypatch):
    """#26: the views the server computes at start (warm_views) are exactly those the page
    asks for at its opening view and one move away (ratio, scheme, kernel, in 1-D and 2-D):
    same arguments, so the same cache keys. The page's calls are recorded through a spy."""
    from app_support import cache, views
    from app_support.choices import KERNEL_CHOICES, MAX_SHARE

    asked = []
    real = cache.explore_view

    def spy(*args, **kwargs):
        asked.append((args, kwargs.get("with_blocks", False)))
        return real(*args, **kwargs)

    monkeypatch.setattr(cache, "explore_view", spy)
    warm = {args for args in views.default_views(MAX_SHARE, KERNEL_CHOICES)}
    assert len(warm) == 2 * (10 + 4 + 5)  # per dimension: 10 ratios, 4 more schemes, 5 kernels
    moves = {
        "ratio": 0.15000000000000002,  # a sum of steps: the page rounds it to 0.15
        "scheme": "thin_gaussian",
        "kernel": "epanechnikov",
        "dim": 2,
    }
    for key, value in moves.items():
        at = open_app("app_pages/explore.py")
        widget = {"ratio": at.slider, "dim": at.segmented_control}.get(key, at.selectbox)
        widget(key=key).set_value(value).run()
        assert not at.exception
    assert len(asked) == 2 * len(moves)  # each opening view, then the move
    for args, with_blocks in asked:
        assert args in warm and not with_blocks
    assert asked[1][0][2] == 0.15


def test_warm_views_fills_the_cache_and_is_off_in_the_tests(monkeypatch):
    """warm_views computes each view (a view the page would show as an error is skipped), and
    MOMKDE_APP_WARM=0 (set for the suite in conftest.py) turns it off."""
    from dataclasses import replace

    from app_support import cache, compute
    from app_support.views import default_settings

    assert cache.warm_views(0.45, ("gaussian",)) == 0  # off in the suite
    small = default_settings(110, 0.1)
    views = [
        ("uniform", 100, 0.1, 1, small, ("kde", "mom_kde")),
        ("uniform", 100, 0.1, 1, replace(small, bandwidth=-1.0), ("kde",)),  # h <= 0
    ]
    monkeypatch.setattr(cache, "default_views", lambda *a: iter(views))
    monkeypatch.setenv(cache.WARM_ENV, "1")
    assert cache.warm_views(0.45, ("gaussian",)) == 1
    calls = []
    monkeypatch.setattr(compute, "make_estimator", lambda *a: calls.append(a))
    cache.explore_view(*views[0])  # from the cache: no estimator built
    assert calls == []


def test_explore_1d_opens_on_a_log_density_axis():
    """#26: in 1-D the density axis is log by default (four decades below the peak), so the
    KDE's plateau over uniform outliers (~1 % of the peak) shows; "linear" restores the
    linear axis with the rug below zero."""
    at = open_app("app_pages/explore.py")
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    yaxis = fig["layout"]["yaxis"]
    assert yaxis["type"] == "log"
    low, high = yaxis["range"]
    assert high - low == pytest.approx(4.0)
    kde = next(t for t in fig["data"] if t.get("name") == "KDE")
    xs, ys = values(kde["x"]), values(kde["y"])
    plateau = ys[np.argmin(abs(xs - 3.0))]  # between the modes, where only outliers are
    assert 10**low < plateau < 10 ** (low + 3)  # drawn, well inside the axis
    rug = [s for s in fig["layout"]["shapes"] if s.get("type") == "path"]
    assert {s["yref"] for s in rug} == {"y2"}  # the rug's own strip (not the x0 line, #36)
    assert "log axis" in explore_text(at)
    at.segmented_control(key="yscale").set_value("linear").run()
    fig = figures(at)[0]
    assert fig["layout"]["yaxis"].get("type", "linear") == "linear"
    assert {s["yref"] for s in fig["layout"]["shapes"] if s.get("type") == "path"} == {"y"}


def test_explore_captions_agree_with_their_numbers():
    """The walkthrough's findings: blocks too small are a failure only where MoM-KDE does not
    win (at ratio 0.3, blocks of 1.7 points and MoM-KDE 10x closer), and the ratio stated reads
    off the numbers shown (three significant digits)."""
    from app_support.captions.density import compare_to_kde, reasons

    size_note = "too small"
    assert not any(size_note in r for r in reasons("uniform", 1429, 429, 859, 0.3, None, True))
    assert any(size_note in r for r in reasons("uniform", 1429, 429, 859, 0.3, None, False))
    text = compare_to_kde({"kde": 0.03704, "mom_kde": 0.01396})
    shown = [float(v) for v in text.split("(JS ")[1].rstrip(").").split(" vs ")]
    stated = float(text.split("MoM-KDE is ")[1].split("x")[0])
    assert shown == [0.014, 0.037] and stated == round(shown[1] / shown[0], 1)


def test_explore_1d_curves_that_coincide_are_dashed_and_named():
    """The walkthrough's finding: on the linear axis RKDE's curve hid under SPKDE's. A curve
    within 1.5 % of the axis' height of an earlier one is dashed, and the caption says so."""
    at = open_app("app_pages/explore.py", yscale="linear")
    fig = figures(at)[0]  # (the strip of the blocks at x0 below it)
    dash = {t["name"]: t["line"].get("dash", "solid") for t in fig["data"] if "line" in t}
    assert dash["SPKDE"] == "dash" and dash["RKDE"] == "solid" and dash["KDE"] == "solid"
    rkde, spkde = (
        values(next(t for t in fig["data"] if t.get("name") == m)["y"]) for m in ("RKDE", "SPKDE")
    )
    shown = ("True density", "KDE", "MoM-KDE", "RKDE", "SPKDE")
    peak = max(values(t["y"]).max() for t in fig["data"] if t.get("name") in shown)
    assert np.abs(rkde - spkde).max() < 0.015 * peak  # the rule the caption states
    assert "SPKDE's curve is dashed: it stays within 1.5% of the axis' height of RKDE's" in (
        explore_text(at)
    )


@pytest.mark.parametrize(
    ("page", "params"),
    [
        ("app_pages/explore.py", {"methods": ["spkde"], "kernel": "tophat"}),
        (
            "app_pages/your_data.py",
            {"sample": "card_transactions.csv", "methods": ["spkde"], "kernel": "tophat"},
        ),
    ],
)
def test_no_method_that_can_be_fitted_is_an_error_not_a_traceback(page, params):
    """The review's finding: SPKDE alone with another kernel than the Gaussian left nothing to
    draw, and the page raised (KeyError on Explore, ZeroDivisionError in the 2-D maps)."""
    at = open_app(page, **params)
    assert any("none of the chosen methods can be fitted" in e.value for e in at.error)
    assert any("SPKDE" in w.value for w in at.warning)


# ---- Explore, issue #53 (item 10): what a teacher met


def test_a_release_sets_k_without_a_default_beside_it(monkeypatch):
    """#53 g: the live figure's release writes k, the place and x₀ into the session state
    before the controls are drawn (``_apply_release``, a callback); the k slider, created with
    the default 0 as well, made Streamlit log "created with a default value but also had its
    value set via the Session State API". Here the figure switch, called before the controls,
    writes them as the release does; Streamlit's check runs only under a runtime, which
    AppTest has not, so it is made to run."""
    from types import SimpleNamespace

    import streamlit as st
    from streamlit.elements.lib import policies

    import app_support.live_lesson.mount as mount

    def releasing(container) -> bool:
        st.session_state.update({"k": 20, "at": 4.0, "x0": 4.0})
        return False  # (the Plotly figure)

    warned: list[str] = []
    monkeypatch.setattr(policies, "runtime", SimpleNamespace(exists=lambda: True))
    monkeypatch.setattr(policies, "_shown_default_value_warning", False)
    monkeypatch.setattr(
        policies._LOGGER, "warning", lambda msg, *args, **_: warned.append(msg % args)
    )
    at = open_app("app_pages/explore.py", scheme="none", k="12", at="3")
    monkeypatch.setattr(mount, "live_switch", releasing)
    at.run()
    assert not at.exception
    assert at.slider(key="k").value == 20
    assert not warned, warned


#: The app's links in its guide (``/explore?scheme=thin&ratio=0.2&hmode=cv``; ``?present=1``
#: names Home).
GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guide" / "app.md"
LINK = re.compile(r"`/?(?P<page>[a-z_]*)\?(?P<query>[^`\s]+)`")


def _guide_links() -> list[tuple[str, dict[str, str]]]:
    return sorted(
        {
            (m["page"], tuple(parse_qsl(m["query"], keep_blank_values=True)))
            for m in LINK.finditer(GUIDE.read_text(encoding="utf-8"))
        }
    )


@pytest.mark.parametrize(("page", "query"), _guide_links())
def test_every_link_of_the_guide_opens_what_it_says(page, query):
    """#53 e: the guide's `/explore?scheme=thin&ratio=0.2&hmode=cv` opened with the robust h
    (the URL held the label "CV", so Streamlit dropped "cv" as unknown). Every link of the
    guide opens with each of its values taken: Streamlit drops from the URL a value no
    control accepts (and one at its default, which a link made by the page leaves out)."""
    params = dict(query)
    at = open_app(f"app_pages/{page}.py" if page else None, **params)
    for key, value in params.items():
        if at.query_params.get(key) == value:
            continue  # (taken, and not the default)
        assert _url_value(at, key) == value, (page, key, value, at.query_params)


#: The AppTest element types of the controls a link can set.
CONTROLS = ("selectbox", "slider", "select_slider", "button_group", "number_input", "toggle")


def _url_value(at: AppTest, key: str) -> str | None:
    """What the control bound to ``key`` holds, as the URL writes it (its shown label: the
    value Streamlit would send), or None without such a control."""
    control = next((w for kind in CONTROLS for w in at.get(kind) if w.key == key), None)
    if control is None:
        return None
    state = control._widget_state  # (what the browser would send for it)
    value = getattr(state, state.WhichOneof("value"))
    value = list(value.data) if hasattr(value, "data") else [value]
    (one,) = value
    return f"{one:g}" if isinstance(one, float) else str(one)


def test_bandwidth_rules_are_codes_in_the_url_and_old_labels_still_open():
    """#53 e: hmode holds codes (robust, cv, scott, slider), which the control shows; links
    made before, with the labels "CV" and "Scott", open the same rule."""
    at = open_app("app_pages/explore.py", scheme="thin", ratio="0.2", hmode="cv")
    control = at.segmented_control(key="hmode")
    assert control.value == "cv" and control.options == ["robust", "cv", "scott", "slider"]
    assert any(m.value.startswith("**h = ") and "(cv)" in m.value for m in at.markdown)
    for label, rule in (("CV", "cv"), ("Scott", "scott")):
        old = open_app("app_pages/explore.py", scheme="thin", ratio="0.2", hmode=label)
        assert old.segmented_control(key="hmode").value == rule
        assert any(f"({rule})" in m.value for m in old.markdown if m.value.startswith("**h = "))


def test_the_segmented_controls_keep_a_value():
    """#53 f: a click on the option already chosen emptied a segmented control (Streamlit's
    default) and wrote ``hmode=&Smode=`` into the URL: the bandwidth rule and S's mode are
    required choices (the browser ignores that click)."""
    at = open_app("app_pages/explore.py")
    for key in ("hmode", "Smode"):
        assert at.segmented_control(key=key).proto.required, key
    # every segmented control of every page, in its opening view (and Explore's live one)
    for page, query in (
        ("app_pages/explore.py", {"fig": "live"}),
        ("app_pages/explore.py", {}),
        ("app_pages/sweep.py", {}),
        ("app_pages/real_data.py", {}),
        ("app_pages/learn.py", {"fig": "plotly"}),
    ):
        shown = open_app(page, **query)
        assert shown.segmented_control, page
        for control in shown.segmented_control:
            assert control.proto.required, (page, control.key)

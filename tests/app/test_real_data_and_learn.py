"""Real data and Learn under Streamlit's AppTest (#26): stored results shown without the data
sets installed, coinciding lines told apart, the methods below chance named with their ratios,
bands of one standard error, an intro that describes the lines drawn; the timing's legend clear
of Plotly's toolbar, Example 1's x₀ marked and its labels off the curves, the gain claimed
computed from the table shown, and the section on MoM-KDE as a curve and as a screen, its
caption read off its figure."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from app_support.captions.sweep import sweep_stats
from app_support.captions.text import ratio_list
from app_support.results import latest_results
from momkde_core import metrics
from momkde_core.plots import FLAG_COLOR
from tests.app._apptest import caption, figures, open_app, values


def _lines(fig: dict) -> dict[str, dict]:
    """The method lines of an AUC figure (not their bands), by legend name, in drawing order."""
    return {t["name"]: t for t in fig["data"] if t.get("mode") == "lines+markers"}


@pytest.fixture
def no_data(monkeypatch, tmp_path) -> Path:
    """An empty data directory: banana, german and titanic are not installed."""
    monkeypatch.setenv("MOMKDE_DATA_DIR", str(tmp_path))
    return tmp_path


def test_real_data_shows_the_stored_results_without_the_data(no_data):
    """The stored results of banana and german are drawn; the page says a new run needs their
    files and gives the library's message on how to install them."""
    at = open_app("app_pages/real_data.py", sets=["banana", "german"])
    titles = [f["layout"]["title"]["text"] for f in figures(at)]
    assert titles == ["banana: AUC", "german: AUC"]
    (info,) = [i.value for i in at.info]
    assert "**banana** and **german**: drawn from the stored results, which need no data" in info
    assert "A new run (*Re-run live*) needs their files, not installed here" in info
    (expander,) = at.expander
    assert expander.label == "How to install banana and german"
    steps = [m.value for m in expander.markdown]
    assert len(steps) == 2 and all("MOMKDE_DATA_DIR" in s and str(no_data) in s for s in steps)
    assert "banana.csv.gz" in steps[0] and "german.csv.gz" in steps[1]
    assert "they need no data set file" in caption(at, "Stored reproduction")


def test_real_data_live_run_needs_the_data(no_data):
    """Switched to a live run, a data set without its file is not run: no figure, the message."""
    at = open_app("app_pages/real_data.py", live="true", reps="1", sets=["banana"])
    assert not figures(at) and not at.get("progress")
    (info,) = [i.value for i in at.info]
    assert info.startswith("**banana** is not installed: a live run needs its file.")
    assert "MOMKDE_DATA_DIR" in info


def test_coinciding_lines_get_distinct_dashes_and_a_note(no_data):
    """On banana the KDE, RKDE and SPKDE mean AUCs coincide: each later line gets its own dash,
    the caption names them, and a line is dashed exactly when it stays within 0.015 of a line
    drawn before it at every ratio (read off the figure)."""
    at = open_app("app_pages/real_data.py", sets=["banana"])
    (fig,) = figures(at)
    lines = _lines(fig)
    dashes = {name: t["line"].get("dash", "solid") for name, t in lines.items()}
    assert dashes["KDE"] == "solid" and dashes["RKDE"] != "solid" and dashes["SPKDE"] != "solid"
    styled = [d for d in dashes.values() if d != "solid"]
    assert len(set(styled)) == len(styled) and "dot" not in styled  # dotted: the chance line
    names = list(lines)
    for i, name in enumerate(names):
        y = values(lines[name]["y"])
        hides = any(np.abs(y - values(lines[e]["y"])).max() < 0.015 for e in names[:i])
        assert (dashes[name] != "solid") == hides, name
    note = caption(at, "Best on average")
    assert "Dashed lines coincide with another: RKDE and SPKDE within 0.015 of KDE's" in note


def test_real_data_shows_the_stored_screened_kde():
    """The screened KDE's stored results (three ratios, the same samples) are offered and drawn;
    the best method is then named over the ratios every method shown has."""
    at = open_app("app_pages/real_data.py", sets=["iris"], methods=["kde", "screened_kde"])
    assert "screened_kde" in at.sidebar.multiselect(key="methods").options
    lines = _lines(figures(at)[0])
    assert list(values(lines["Screened KDE"]["x"])) == [0.1, 0.25, 0.5]
    assert len(values(lines["KDE"]["x"])) == 10
    assert "real_honest_screened.csv.gz" in caption(at, "Stored reproduction")
    best = caption(at, "Best on average")
    assert "(at the ratios every method shown has: 0.1, 0.25, 0.5)" in best


def test_iris_names_the_methods_below_chance_and_their_ratios():
    """On iris some methods fall below chance long before every method does: the caption names
    each method with the ratios its line is below 0.5 (read off the figure), and gives the reason
    at the ratios where every line is."""
    at = open_app("app_pages/real_data.py", sets=["iris"])
    lines = _lines(figures(at)[0])
    grid = sorted({x for t in lines.values() for x in values(t["x"])})
    below = {
        name: ratio_list(values(t["x"])[values(t["y"]) < 0.5], grid) for name, t in lines.items()
    }
    text = caption(at, "Best on average")
    assert "Below chance at ratio" not in text
    said = text.split("Mean AUC below 0.5 (chance): ")[1].split(". ")[0]
    named = {}
    for group in said.split("; "):
        labels, ratios = group.rsplit(" at ", 1)
        for label in labels.replace(" and ", ", ").split(", "):
            named[label] = ratios
    assert named == {name: ratios for name, ratios in below.items() if ratios}
    assert len(set(named.values())) > 1  # not every method from the same ratio
    everywhere = [
        r
        for r in grid
        if all(
            y < 0.5
            for t in lines.values()
            for x, y in zip(values(t["x"]), values(t["y"]))
            if x == r
        )
    ]
    assert f"Every method is below 0.5 at {ratio_list(everywhere, grid)}: setosa" in text


def test_real_data_bands_are_standard_errors_and_the_intro_describes_the_lines():
    """The band is ± the standard error of the stored means, as the caption says; the intro
    speaks of the methods drawn, and names the others as offered by the Methods box."""
    at = open_app("app_pages/real_data.py", sets=["iris"])
    kde = _lines(figures(at)[0])["KDE"]
    stored = pd.read_csv(latest_results("real_honest"))
    iris = stored[(stored["source"] == "iris") & (stored["method"] == "kde")]
    assert np.allclose(values(kde["customdata"]), sweep_stats(iris, "auc")["se"].to_numpy())
    assert any("± one standard error" in c.value for c in at.caption)
    assert not any("± std" in c.value for c in at.caption)
    intro = next(m.value for m in at.markdown if m.value.startswith("Kim & Scott"))
    drawn, offered = intro.split(" The Methods box also offers ")
    assert "the bandwidth of KDE, RKDE and SPKDE is cross-validated" in drawn
    assert "MoM-KDE and SPKDE are told a guessed share" in drawn
    assert not any(word in drawn for word in ("oracle", "S rule", "creened"))
    for label in ("MoM-KDE (S rule, CV h)", "MoM-KDE (oracle S)", "Screened KDE"):
        assert label in offered
    at = open_app("app_pages/real_data.py", sets=["iris"], methods=["kde", "mom_kde_oracle"])
    intro = next(m.value for m in at.markdown if m.value.startswith("Kim & Scott"))
    assert "the bandwidth of KDE and MoM-KDE (oracle S) is cross-validated" in intro
    assert "the oracle keeps the S of best AUC" in intro and "told a guessed share" not in intro


def _fake_seconds(method: str, n: int, n_eval: int, seed: int) -> tuple[int, float, float]:
    """Timings with known slopes: no learning for the KDE and MoM-KDE, n² for RKDE and SPKDE,
    n for the screened KDE; every evaluation linear."""
    power = {"kde": 0.0, "mom_kde": 0.0, "rkde": 2.0, "spkde": 2.0, "screened_kde": 1.0}[method]
    return n, 1e-3 * (n / 1000) ** power, 1e-3 * n / 1000


def test_learn_timing_legend_is_clear_of_the_toolbar(monkeypatch):
    """Timed from n = 1,000 (here with stand-in timings): the legend sits under the axis, and the
    caption gives the fit slopes of the methods that learn and the evaluation slopes."""
    import app_support.cache as cache

    monkeypatch.setattr(cache, "_fit_and_evaluate_seconds", _fake_seconds)
    at = open_app("app_pages/learn.py")
    at.button(key="measure").click().run()
    assert not at.exception, [e.value for e in at.exception]
    timing = next(f for f in figures(at) if f["layout"]["yaxis"].get("type") == "log")
    assert list(timing["layout"]["xaxis"]["tickvals"]) == [1000, 2000, 4000]
    legend = timing["layout"]["legend"]
    assert legend["yanchor"] == "top" and legend["y"] < 0  # the toolbar is at the top right
    text = caption(at, "Seconds against n")
    assert "Measured fit slopes here: RKDE 2.0, SPKDE 2.0, Screened KDE 1.0." in text
    assert "KDE and MoM-KDE learn nothing: their fit takes at most 1.0 ms" in text
    assert "Evaluation slopes (O(n) a point: 1 in theory): KDE 1.0, MoM-KDE 1.0" in text
    assert "The sizes stop at n = 7,745" in text
    for fig in figures(at):
        assert fig["layout"]["legend"]["y"] < 0, fig["layout"].get("title")


def _ticks(fig: dict, color: str) -> Counter:
    """The x positions of one rug row (the shape path drawn in ``color``)."""
    (path,) = [s["path"] for s in fig["layout"]["shapes"] if s["line"]["color"] == color]
    return Counter(seg.split(",")[0] for seg in path.split("M")[1:])


@pytest.mark.parametrize(
    ("scheme", "verdict"),
    [("thin", "The screened KDE is closer"), ("gaussian", "MoM-KDE's curve is closer")],
)
def test_learn_curve_and_screen_caption_matches_the_figure(scheme, verdict):
    """MoM-KDE's curve and the screened KDE against the truth: the caption's JS, rows set aside
    and true outliers among them are those of the figure; on (b) the screen keeps most of the
    outliers and says so."""
    at = open_app("app_pages/learn.py", screen=scheme)
    fig = next(f for f in figures(at) if "Screened KDE" in [t.get("name") for t in f["data"]])
    curves = {t["name"]: t for t in fig["data"] if t.get("mode") == "lines" and "y" in t}
    x = values(curves["True density"]["x"])
    truth = values(curves["True density"]["y"])
    js = {
        name: 1000 * metrics.js_divergence(values(curves[name]["y"]), truth, x[1] - x[0])
        for name in ("MoM-KDE", "Screened KDE")
    }
    text = caption(at, "JS to the true density")
    assert f"MoM-KDE {js['MoM-KDE']:.1f}, screened KDE {js['Screened KDE']:.1f}" in text
    flagged, outliers = _ticks(fig, FLAG_COLOR), _ticks(fig, "#D62728")
    n_rows = sum((_ticks(fig, "#5A6270") + outliers).values())
    caught = sum((flagged & outliers).values())
    assert (
        f"set aside {sum(flagged.values())} of the {n_rows} rows (purple ticks), {caught} of them "
        f"outliers, of the {sum(outliers.values())} in the sample" in text
    )
    assert verdict in text
    kept = re.search(r"the screen kept (\d+) outliers", text)
    assert scheme == "thin" or int(kept.group(1)) == sum(outliers.values()) - caught


def test_learn_example_one_marks_x0_and_keeps_its_labels_off_the_curves():
    """A dotted vertical line labelled x₀ at 2 on the density; both vertical lines' labels sit
    above the plot area (anchored at its top edge, from below), where no curve is drawn."""
    at = open_app("app_pages/learn.py")
    density, error = figures(at)[:2]
    (x0,) = density["layout"]["shapes"][-1:]
    assert x0["x0"] == x0["x1"] == 2 and x0["line"]["dash"] == "dot"
    for fig, text in ((density, "x₀ = 2"), (error, "S = 2|O|")):
        (label,) = [a for a in fig["layout"]["annotations"] if a["text"] == text]
        assert label["y"] == 1 and label["yanchor"] == "bottom", text


def test_learn_gain_is_computed_from_its_table():
    """The first bullet's "x lower JS" range is the least and the most KDE / MoM-KDE ratio of
    the table shown, over the schemes where MoM-KDE is lower at every ratio."""
    at = open_app("app_pages/learn.py")
    table = next(t.value for t in at.table if str(t.value.columns[0]).startswith("ratio"))
    gains = {}
    for scheme, row in table.iterrows():
        pairs = [re.match(r"(\d+) → (\d+)", cell).groups() for cell in row]
        if all(int(mom) < int(kde) for kde, mom in pairs):
            for column, (kde, mom) in zip(table.columns, pairs):
                gains[(scheme, column)] = int(kde) / int(mom)
    (low, lo), (high, hi) = (
        min(gains.items(), key=lambda kv: kv[1]),
        max(gains.items(), key=lambda kv: kv[1]),
    )
    text = next(m.value for m in at.markdown if "**It helps**" in m.value)
    assert "2-18x" not in text
    assert (
        f"{lo:.2g}x lower JS on {low[0]} at {low[1]} up to {hi:.2g}x on {high[0]} at {high[1]}"
        in text
    )


def test_real_data_shows_adbench_where_each_detector_wins(no_data):
    """The ADBench view: the stored results (no data set installed) as a table per detector
    and a dot plot of the AUC-ROC per set, the library's default highlighted, the source cited."""
    from app_support.results import ADBENCH_DEFAULT

    at = open_app("app_pages/real_data.py", view="ADBench")
    assert not at.exception
    assert [s.value for s in at.subheader] == ["ADBench: where each detector wins"]
    (table,) = at.table
    shown = table.value.set_index("detector")  # (a column: the index would be cut short)
    expected = {
        ADBENCH_DEFAULT,
        "momkde mom_kde (S, h from share 0.1)",
        "momkde kde (CV h)",
        "isolation_forest",
        "ecod",
        "copod",
        "hbos",
        "knn",
        "lof",
    }
    assert expected <= set(shown.index) and not any(d.startswith("rule_") for d in shown.index)
    assert list(shown.columns) == ["AUC-ROC", "AP", "rank", "time / IF"]
    assert shown.loc["isolation_forest", "time / IF"] == pytest.approx(1.0)
    (fig,) = figures(at)
    sets = fig["data"][0]["y"]  # in ADBench's order, by the number starting each name
    assert [int(name.split("_")[0]) for name in sets] == sorted(int(n.split("_")[0]) for n in sets)
    names = [t["name"] for t in fig["data"]]
    drawn = {d for name in names for d in name.split(" & ")}
    assert drawn == set(shown.index) and names[-1] == ADBENCH_DEFAULT  # drawn on top
    assert len(set(fig["data"][0]["y"])) == 21
    # the default's standing, computed from the table shown
    standing = caption(at, "Per detector, over the sets")
    place = int((shown["AUC-ROC"] > shown.loc[ADBENCH_DEFAULT, "AUC-ROC"]).sum()) + 1
    suffix = {1: "st", 2: "nd", 3: "rd"}.get(place, "th")
    assert (
        f"Of the {len(shown)} detectors, {ADBENCH_DEFAULT} is {place}{suffix} by mean AUC-ROC "
        f"({shown.loc[ADBENCH_DEFAULT, 'AUC-ROC']:.3f}" in standing
    )
    assert "by mean AP" in standing and "by average rank" in standing
    source = caption(at, "Source: ADBench")
    assert "ADBench (Han et al., NeurIPS 2022), 21 classical sets, 5 seeds" in source
    assert "docs/anomaly.md" in source


def test_adbench_markers_differ_and_equal_detectors_share_one(no_data):
    """Every marker of the dot plot has its own colour and symbol; detectors whose AUC-ROC
    is the same on every set are drawn as one marker, which the caption names, computed from
    the table the figure draws."""
    from app_support.cache import adbench_tables
    from app_support.results import ADBENCH_SAME, adbench_path

    at = open_app("app_pages/real_data.py", view="ADBench")
    (fig,) = figures(at)
    styles = [(t["marker"]["color"], t["marker"]["symbol"]) for t in fig["data"]]
    assert len(set(styles)) == len(styles)
    _, per_set, _ = adbench_tables(adbench_path())
    text = caption(at, "Mean AUC-ROC of each detector")
    for name in (t["name"] for t in fig["data"]):
        group = name.split(" & ")
        x = [values(t["x"]) for t in fig["data"] if t["name"] == name][0]
        for detector in group:  # the marker's AUCs are each detector's, within the rule
            assert np.abs(per_set[detector].to_numpy() - x).max() < ADBENCH_SAME
        if len(group) > 1:
            assert f"{' and '.join(group)} give the same AUC-ROC on all 21 sets" in text
            gap = (per_set[group].max(axis=1) - per_set[group].min(axis=1)).max()
            assert f"largest gap {gap:.4f}" in text
    # no two markers drawn apart are the same on every set
    columns = [name.split(" & ")[0] for name in (t["name"] for t in fig["data"])]
    for i, a in enumerate(columns):
        for b in columns[:i]:
            assert (per_set[a] - per_set[b]).abs().max() >= ADBENCH_SAME

"""The Contamination sweep's messages: computed from the table its figures draw (means and
standard errors over the repetitions), with ties, rivals and jumps named; the page's box
and captions agreeing with its figures, whose bands are the standard errors the captions judge
by and whose coinciding lines are dashed and said to be."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app_support import cache
from app_support.captions.coinciding import COINCIDE, coinciding_lines
from app_support.captions.sweep import RKDE_JUMP, below_chance, sweep_stats, sweep_verdicts
from app_support.captions.text import ratio_list
from momkde_core.plots import metric_vs_ratio_figure
from tests.app._apptest import caption, figures, open_app, values

RATIOS = (0.1, 0.2, 0.3)


def _rows(method: str, means: list[float], spread: float = 0.01, metric: str = "js"):
    """Three repetitions per ratio of RATIOS: mean - spread, mean, mean + spread."""
    values = [m + d for m in means for d in (-spread, 0.0, spread)]
    ratios = [r for r in RATIOS for _ in range(3)]
    return pd.DataFrame({"method": method, "metric": metric, "ratio": ratios, "value": values})


def _table(*parts: pd.DataFrame) -> pd.DataFrame:
    return pd.concat(parts, ignore_index=True)


def test_sweep_stats_is_the_figures_mean_and_standard_error():
    stats = sweep_stats(_rows("kde", [0.1, 0.2, 0.3], spread=0.03), "js")
    assert np.allclose(stats["mean"], [0.1, 0.2, 0.3])
    assert np.allclose(stats["se"], 0.03 / np.sqrt(3))  # std 0.03 over 3 repetitions
    assert (stats["count"] == 3).all()


def test_ratio_list_writes_runs():
    assert ratio_list([0.1, 0.3, 0.4, 0.5], [0.1, 0.2, 0.3, 0.4, 0.5]) == "0.1, 0.3-0.5"
    assert ratio_list([0.2], [0.1, 0.2]) == "0.2"


def test_a_clear_win_is_counted_at_every_ratio():
    said = sweep_verdicts(
        _table(_rows("kde", [0.2, 0.3, 0.4]), _rows("mom_kde", [0.05, 0.06, 0.07])), "js"
    )
    assert said.versus_kde == "On JS, MoM-KDE beats the KDE at 3 of 3 ratios."
    assert said.rivals == "" and said.jumps == ()


def test_a_gap_within_the_standard_error_is_a_tie():
    """AUC gaps of 0.003 with a spread of 0.02 over 3 repetitions: no win."""
    said = sweep_verdicts(
        _table(
            _rows("kde", [0.860, 0.865, 0.870], spread=0.02, metric="auc"),
            _rows("mom_kde", [0.863, 0.868, 0.873], spread=0.02, metric="auc"),
        ),
        "auc",
    )
    assert said.versus_kde == (
        "On AUC, MoM-KDE beats the KDE at 0 of 3 ratios and ties with it at 0.1-0.3 "
        "(gaps within the standard error of 3 repetitions)."
    )


def test_a_loss_and_the_methods_that_beat_the_challenger_are_named():
    said = sweep_verdicts(
        _table(
            _rows("kde", [0.20, 0.30, 0.40]),
            _rows("mom_kde", [0.05, 0.10, 0.50]),
            _rows("rkde", [0.01, 0.12, 0.30]),
            _rows("spkde", [0.30, 0.30, 0.30]),
        ),
        "js",
    )
    assert said.versus_kde == (
        "On JS, MoM-KDE beats the KDE at 2 of 3 ratios (0.1-0.2) and loses at 0.3."
    )
    assert said.rivals == (
        "RKDE beats MoM-KDE at 2 of 3 ratios (0.1, 0.3); SPKDE at 1 of 3 ratios (0.3)."
    )


def test_no_rival_is_said_so():
    said = sweep_verdicts(
        _table(
            _rows("kde", [0.20, 0.30, 0.40]),
            _rows("mom_kde", [0.05, 0.06, 0.07]),
            _rows("rkde", [0.15, 0.20, 0.25]),
        ),
        "js",
    )
    assert (
        said.rivals == "No other method beats MoM-KDE beyond the standard error of 3 repetitions."
    )


def test_rkdes_jump_from_the_kde_to_far_below_is_explained():
    """RKDE stays with the KDE (same h) at 0.1-0.2, then drops its outliers at 0.3."""
    said = sweep_verdicts(
        _table(
            _rows("kde", [0.20, 0.24, 0.25]),
            _rows("mom_kde", [0.05, 0.06, 0.07]),
            _rows("rkde", [0.19, 0.23, 0.01]),
        ),
        "js",
    )
    (jump,) = said.jumps
    assert jump.startswith("RKDE's JS drops from 0.23 to 0.01 between ratios 0.2 and 0.3, a jump")
    assert "the standard error of 3 repetitions" in jump
    assert "the jump is RKDE's weighting" in jump
    assert said.mechanisms == (RKDE_JUMP,)
    assert RKDE_JUMP in str(said)


def test_a_jump_without_a_known_mechanism_is_only_named():
    """RKDE rising above the KDE (a spike on a mode) is not the measured switch: no mechanism."""
    said = sweep_verdicts(
        _table(_rows("kde", [0.10, 0.15, 0.20]), _rows("rkde", [0.10, 0.15, 0.50])), "js"
    )
    (jump,) = said.jumps
    assert jump.startswith("RKDE's JS rises from 0.15 to 0.5 between ratios 0.2 and 0.3")
    assert said.mechanisms == ()


def test_a_steady_trend_or_a_noisy_step_is_no_jump():
    steady = _rows("kde", [0.20, 0.25, 0.30])
    noisy = _rows("spkde", [0.05, 0.25, 0.05], spread=0.2)  # steps within 3 standard errors
    assert sweep_verdicts(_table(steady, noisy), "js").jumps == ()


def test_one_repetition_says_there_is_no_standard_error():
    one = pd.DataFrame(
        {
            "method": ["kde", "mom_kde"] * 2,
            "metric": "js",
            "ratio": [0.1, 0.1, 0.2, 0.2],
            "value": [0.20, 0.10, 0.30, 0.29],
        }
    )
    said = sweep_verdicts(one, "js")
    assert said.versus_kde.startswith("On JS, MoM-KDE beats the KDE at 2 of 2 ratios.")
    assert "no standard error" in said.versus_kde


def test_the_progress_text_names_the_scheme(monkeypatch):
    texts: list[str] = []

    class Bar:
        def progress(self, value: float, text: str) -> None:
            texts.append(text)

        def empty(self) -> None:
            pass

    monkeypatch.setattr(cache.st, "progress", lambda value, text: Bar())
    monkeypatch.setattr(
        cache, "sweep_rows", lambda kind, source, ratio, *a, **k: pd.DataFrame({"method": []})
    )
    cache.run_sweep("synthetic", ["regular_gaussian"], [0.1], 1, 0, ("kde",))
    assert texts == ["(b) Gaussian outliers N(3, 0.5), between the modes, ratio 0.10 (1 of 1)"]


def test_the_band_is_the_standard_error_the_verdicts_use():
    """band="se": each band is the mean ± the standard error sweep_stats gives the verdicts."""
    table = _table(_rows("kde", [0.1, 0.2, 0.3], spread=0.03), _rows("rkde", [0.2, 0.2, 0.2]))
    fig = metric_vs_ratio_figure(table, "js", band="se")
    stats = sweep_stats(table, "js")
    for method, label in (("kde", "KDE"), ("rkde", "RKDE")):
        (band,) = [t for t in fig.data if t.name == f"{label} ± s.e."]
        (line,) = [t for t in fig.data if t.name == label]
        se = stats.loc[method, "se"].to_numpy()
        mean = np.asarray(line.y, dtype=float)
        assert np.allclose(np.asarray(line.customdata, dtype=float), se)
        assert np.allclose(np.asarray(band.y, dtype=float), np.r_[mean + se, (mean - se)[::-1]])


def test_coinciding_lines_are_dashed_relative_to_the_axis():
    """A line within 1.5 % of the axis of an earlier one is dashed and named: on the AUC that is
    0.015; on a divergence, 1.5 % of the highest mean."""
    auc = _table(
        _rows("kde", [0.80, 0.70, 0.60], metric="auc"),
        _rows("mom_kde", [0.90, 0.90, 0.90], metric="auc"),
        _rows("rkde", [0.81, 0.70, 0.59], metric="auc"),
        _rows("spkde", [0.80, 0.71, 0.60], metric="auc"),
    )
    lines = coinciding_lines(auc, "auc")
    assert lines.twins == {"rkde": "kde", "spkde": "kde"}
    assert lines.dashes == {"rkde": "dash", "spkde": "dashdot"}
    assert str(lines) == (
        "Dashed lines coincide with another: RKDE and SPKDE within 0.015 of KDE's mean AUC at "
        "every ratio shown (drawn solid, they would hide it)."
    )
    fig = metric_vs_ratio_figure(auc, "auc", dashes=lines.dashes)
    assert {t.name: t.line.dash for t in fig.data if t.mode == "lines+markers"} == {
        "KDE": "solid",
        "MoM-KDE": "solid",
        "RKDE": "dash",
        "SPKDE": "dashdot",
    }
    js = _table(_rows("kde", [0.1, 0.5, 1.0]), _rows("rkde", [0.11, 0.51, 1.01]))
    assert coinciding_lines(js, "js").tolerance == pytest.approx(COINCIDE * 1.01)  # highest mean
    assert "within 0.015 of KDE's mean JS at every ratio shown, under 1.5% of the axis" in str(
        coinciding_lines(js, "js")
    )
    apart = _table(_rows("kde", [0.1, 0.5, 1.0]), _rows("rkde", [0.12, 0.52, 1.02]))
    assert coinciding_lines(apart, "js").twins == {}  # 0.02 apart on an axis of 1.02
    assert coinciding_lines(apart.assign(value=apart["value"] * 10), "js").twins == {}


def test_below_chance_names_each_method_and_its_ratios():
    """Methods below chance at the same ratios go together; non-consecutive ratios are listed;
    the reason is given where every method is below chance."""
    table = _table(
        _rows("kde", [0.4, 0.6, 0.3], metric="auc"),
        _rows("rkde", [0.4, 0.6, 0.3], metric="auc"),
        _rows("mom_kde", [0.7, 0.6, 0.4], metric="auc"),
    )
    assert below_chance(table, "why") == (
        "Mean AUC below 0.5 (chance): KDE and RKDE at 0.1, 0.3; MoM-KDE at 0.3. "
        "Every method is below 0.5 at 0.3: why."
    )
    same = table[table["method"] != "mom_kde"]
    assert (
        below_chance(same, "why")
        == "Every method's mean AUC is below 0.5 (chance) at 0.1, 0.3: why."
    )
    assert below_chance(table.assign(value=0.9), "why") == ""


def _curves(at: AppTest, title: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The figure's lines: method label -> (means, standard errors) over the ratios."""
    fig = next(f for f in figures(at) if f["layout"]["title"]["text"] == title)
    return {
        t["name"]: (values(t["y"]), values(t["customdata"]))
        for t in fig["data"]
        if "customdata" in t
    }


@pytest.mark.parametrize("metric", ["js", "auc"])
def test_the_box_and_captions_count_what_the_figures_draw(metric):
    """Wins and ties of MoM-KDE against the KDE, recounted from the figure's lines
    (mean, standard error over 2 repetitions: the band), are those the box and the caption
    state."""
    reps = 2
    at = open_app("app_pages/sweep.py", reps=str(reps), n="200")
    title = {"js": "Jensen-Shannon divergence (base 2)", "auc": "ROC AUC"}[metric]
    curves = _curves(at, title)
    (kde, kde_se), (mom, mom_se) = curves["KDE"], curves["MoM-KDE"]
    gap = (kde - mom) if metric == "js" else (mom - kde)
    within = np.hypot(kde_se, mom_se)
    wins, ties = int((gap > within).sum()), int((np.abs(gap) <= within).sum())
    name = {"js": "JS", "auc": "AUC"}[metric]
    said = f"On {name}, MoM-KDE beats the KDE at {wins} of {len(gap)} ratios"
    box = at.info[0].value
    assert "at every measured ratio" not in box
    assert box.startswith("(a) uniform outliers on [−3, 9]. On JS, ")
    assert said in box
    start = {"js": "Jensen-Shannon divergence", "auc": "AUC of the density"}[metric]
    text = caption(at, start)
    assert said in text
    assert ("ties with it at" in text) == (ties > 0)
    if ties:
        assert f"within the standard error of {reps} repetitions" in text


def test_every_figure_dashes_the_lines_it_would_hide_and_says_so():
    """Read off each figure: a line is dashed exactly when it stays within 1.5 % of the axis
    (0.015 on the AUC, else of the highest mean) of a line drawn before it; the caption then
    names the dashed lines. The bands are ± the standard error, as the intro says."""
    at = open_app("app_pages/sweep.py", reps="2", n="200")
    intro = next(m.value for m in at.markdown if "protocol: for each outlier ratio" in m.value)
    assert "bands: ± one standard error of the mean" in intro and "std" not in intro
    starts = {
        "Jensen-Shannon divergence (base 2)": "Jensen-Shannon divergence",
        "KL(f̂ ‖ f)": "KL(f̂ ‖ f)",
        "KL(f ‖ f̂)": "KL(f ‖ f̂)",
        "ROC AUC": "AUC of the density",
    }
    dashed_somewhere = False
    for fig in figures(at):
        title = fig["layout"]["title"]["text"]
        lines = {t["name"]: t for t in fig["data"] if t.get("mode") == "lines+markers"}
        means = {name: values(t["y"]) for name, t in lines.items()}
        axis = 1.0 if title == "ROC AUC" else max(m.max() for m in means.values())
        names = list(lines)
        dashed = []
        for i, name in enumerate(names):
            hides = any(np.abs(means[name] - means[e]).max() < COINCIDE * axis for e in names[:i])
            assert (lines[name]["line"].get("dash", "solid") != "solid") == hides, (title, name)
            dashed += [name] if hides else []
        text = caption(at, starts[title])
        assert ("Dashed lines coincide with another" in text) == bool(dashed), title
        for name in dashed:
            assert name in text.split("Dashed lines coincide with another")[1]
        dashed_somewhere |= bool(dashed)
        for band in (t for t in fig["data"] if t.get("fill") == "toself"):
            line = lines[band["name"].removesuffix(" ± s.e.")]
            upper = values(line["y"]) + values(line["customdata"])
            assert np.allclose(values(band["y"])[: len(upper)], upper)
    assert dashed_somewhere  # the walkthrough's AUC lines lie on each other


def test_warm_sweep_computes_the_pages_own_opening_sweep(monkeypatch):
    """The server's warm-up computes the sweep the page opens on, with the very arguments the
    page passes (the same cache keys): both recorded through a spy, which answers each call
    with a small sweep (one repetition of 50 inliers) to keep the test short."""
    calls = []
    real = cache.sweep_rows

    def spy(kind, source, ratio, reps, seed, methods, **options):
        calls.append((kind, source, ratio, reps, seed, methods, tuple(sorted(options.items()))))
        return real(kind, source, ratio, 1, seed, methods, **{**options, "n_inliers": 50})

    monkeypatch.setattr(cache, "sweep_rows", spy)
    at = open_app("app_pages/sweep.py")
    assert not at.exception
    opened = list(calls)
    calls.clear()
    monkeypatch.setenv(cache.WARM_ENV, "1")
    cache.warm_sweep()
    assert calls == opened and len(opened) == len(cache.sweep_ratios(0.1))

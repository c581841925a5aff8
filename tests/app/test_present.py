"""Home and Learn under AppTest (#43): the presentation mode (``?present=1``) keeps the headline,
the figures and the controls and hides the rest; every sentence Home and Learn compute from a
figure agrees with that figure's numbers; the construction's frames share one x-range; the
table of measured JS is read from the stored run."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

from app_support.captions.learn import error_caption, x0_caption
from app_support.captions.median import step_caption
from app_support.lessons import (
    CLEAN_JS_FILE,
    MEASURED_JS_FILE,
    MEASURED_SCHEMES,
    _tophat_mom,
    example_one,
    example_one_errors,
    measured_js,
)
from app_support.mechanism import construction
from app_support.median_figures import STEPS, construction_figure
from app_support.present import PRESENT_FONT
from app_support.results import RESULTS_DIR
from tests.app._apptest import caption, figures, open_app, values

LEARN = "app_pages/learn.py"


def chart(at, key: str) -> dict:
    """The page's plotly figure drawn with the element key ``key``."""
    return next(
        json.loads(c.proto.spec) for c in at.get("plotly_chart") if c.proto.id.endswith(key)
    )


@pytest.mark.parametrize("page", [None, LEARN])
def test_presenting_keeps_the_headline_figures_and_controls(page):
    """With ``present=1`` the page keeps its title, its figures and every control (moved to
    the sidebar), hides its explanations and puts each caption in a collapsed expander (Home
    with its Plotly figures; its live figure holds its own slider)."""
    query = {"fig": "plotly"} if page is None else {}
    normal, shown = open_app(page, **query), open_app(page, present="1", **query)
    assert [t.value for t in shown.title] == [t.value for t in normal.title]
    assert len(figures(shown)) == len(figures(normal)) > 0
    sliders = [s.label for s in normal.slider]
    assert sorted(s.label for s in shown.sidebar.slider) == sorted(sliders)
    assert not shown.main.slider
    assert len(shown.markdown) < len(normal.markdown)  # the explanations are gone
    assert not normal.expander
    assert {c.value for c in shown.caption} <= {
        c.value for e in shown.expander for c in e.caption
    }  # every caption is in an expander, none left on the page
    assert all(not e.proto.expanded for e in shown.expander)
    assert all(f["layout"]["font"]["size"] == PRESENT_FONT for f in figures(shown))


def test_presenting_is_remembered_across_pages_until_turned_off():
    """A page switch drops the URL's parameters: the session keeps presenting and puts
    ``present=1`` back; ``present=0`` turns it off."""
    at = open_app(present="1")
    at.switch_page(LEARN).run()
    assert at.query_params["present"] == "1"
    assert at.sidebar.slider  # Learn's controls in the sidebar
    at.query_params["present"] = "0"
    at.run()
    assert not at.sidebar.slider and at.main.slider


#: Home's caption with outliers: counted, bump height, S, MoM-KDE's support.
HOME_SAYS = re.compile(
    r"(\d+) of the (\d+) outliers .*about ([\d.]+) high.* = (\d+) blocks is exactly 0 "
    r"outside \[([−\d.-]+), ([−\d.-]+)\]"
)


@pytest.mark.parametrize("n_outliers", [0, 1, 6, 13, 20])
def test_home_caption_agrees_with_its_figure(n_outliers):
    at = open_app(o=str(n_outliers), fig="plotly")
    text = at.caption[0].value
    curves = {t["name"]: t for t in chart(at, "home_figure")["data"] if t.get("mode") == "lines"}
    mom = next(t for name, t in curves.items() if name.startswith("MoM-KDE"))
    xs, ys = values(mom["x"]), values(mom["y"])
    if n_outliers == 0:
        kde = next(t for name, t in curves.items() if name.startswith("KDE"))
        assert np.allclose(ys, values(kde["y"]))  # S = 1: the same curve, to rounding
        assert text.startswith("Without outliers S = 1")
        return
    outside, total, height, blocks, low, high = (
        float(v.replace("−", "-")) for v in HOME_SAYS.search(text).groups()
    )
    ex = example_one(200, n_outliers, 0.4, 2.0, 0, 2 * n_outliers + 1)
    X, is_out = ex["X"][:, 0], ex["is_outlier"]
    assert total == n_outliers and blocks == 2 * n_outliers + 1
    assert outside == np.sum(is_out & (np.abs(X) > 1.4))
    assert height == pytest.approx(1 / (2 * 0.4 * len(X)), abs=5e-4)  # printed to 3 decimals
    support = xs[ys > 0]
    # printed to 2 decimals; the figure's grid is the caption's
    assert (low, high) == pytest.approx((support.min(), support.max()), abs=0.005)
    assert -1.4 - 1e-9 <= low and high <= 1.4 + 1e-9  # "up to the kernel's reach h"


@pytest.mark.parametrize(
    ("n_outliers", "h", "blocks", "seed"),
    [(10, 0.5, 11, 0), (10, 0.5, 1, 0), (3, 0.9, 4, 2), (20, 0.95, 60, 5), (0, 0.3, 7, 1)],
)
def test_learn_example_one_captions_agree_with_their_numbers(n_outliers, h, blocks, seed):
    ex = example_one(200, n_outliers, h, 2.0, seed, blocks)
    errors = example_one_errors(200, n_outliers, h, 60, 2.0, seed)
    text = x0_caption(ex, blocks, 2.0)
    # the blocks holding an outlier within h of x0, counted from the sample's own split
    X, is_out = ex["X"], ex["is_outlier"]
    mom = _tophat_mom(X, blocks, h, seed)
    near = int(np.unique(mom.block_of_[is_out & (np.abs(X[:, 0] - 2.0) <= h)]).size)
    assert text.startswith(f"With S = {blocks}, {near} of the {blocks} blocks")
    assert ("): at least half of them" in text) == (2 * near >= blocks)
    at_x0 = float(mom.pdf([[2.0]])[0])
    said = text.split("MoM-KDE at x₀ is ")[1].split(",")[0]
    assert (said == "0") == (at_x0 == 0)
    if at_x0 > 0:
        assert float(said) == pytest.approx(at_x0, rel=5e-3)  # 3 significant digits
        assert 2 * near >= blocks  # the median is non-zero only when half the blocks are
    words = error_caption(errors, n_outliers)
    nonzero = np.flatnonzero(errors["mom_kde"] > 0)
    if "from S = " in words:
        settles = int(words.split("from S = ")[1].split(" ")[0])
        assert np.all(errors["mom_kde"][errors["blocks"] >= settles] == 0)
        assert errors["mom_kde"][errors["blocks"] == settles - 1] > 0
        assert ("guarantees" in words) == (settles <= 2 * n_outliers + 1)
    elif "for every S shown" in words:
        assert not len(nonzero)
    else:
        assert errors["mom_kde"][-1] > 0


def test_learn_page_shows_the_captions_of_its_numbers():
    """The page shows the captions the functions compute, for the figures it draws."""
    at = open_app(LEARN, o="4", h="0.7", S="9", seed="3")
    ex = example_one(200, 4, 0.7, 2.0, 3, 9)
    assert caption(at, "With S = 9") == x0_caption(ex, 9, 2.0)
    errors = example_one_errors(200, 4, 0.7, 60, 2.0, 3)
    assert caption(at, "Error at x₀") == error_caption(errors, 4)
    mom = next(t for t in chart(at, "example_error")["data"] if t["name"].startswith("MoM-KDE"))
    assert np.allclose(values(mom["y"]), errors["mom_kde"])


@pytest.mark.parametrize("args", [(96, 4, 3.0, 9, 0.5, 0), (60, 3, 3.0, 7, 0.4, 0)])
def test_construction_frames_share_one_x_range_and_captions_agree(args):
    steps = construction(*args)
    ranges = {tuple(construction_figure(steps, step).layout.xaxis.range) for step in STEPS}
    assert len(ranges) == 1
    (low, high) = ranges.pop()
    assert low <= steps.X.min() and steps.X.max() <= high  # every row on every frame
    s, k = steps.n_blocks, int(steps.is_outlier.sum())
    bumped = int(np.unique(steps.block_of[steps.is_outlier]).size)
    sizes = np.bincount(steps.block_of, minlength=s)
    assert step_caption(steps, "sample").startswith(f"The sample: {len(steps.X) - k} inliers")
    assert f"{k} outliers placed at {steps.at:g}" in step_caption(steps, "sample")
    assert f"S = {s} blocks of {sizes.min()} to {sizes.max()} rows" in step_caption(steps, "split")
    assert f"{bumped} of them hold an outlier" in step_caption(steps, "split")
    node = int(np.argmin(np.abs(steps.xs - steps.at)))
    median = step_caption(steps, "median")
    assert ("fewer than half" in median) == (2 * bumped < s)
    value = median.split("the median there is ")[1].split(",")[0]
    assert (value == "≈ 0") == (steps.median[node] < 1e-4)
    compare = step_caption(steps, "compare")
    assert f"({steps.median_mass:.2f})" in compare
    kde_said = float(compare.split("keeps the outliers' bump (")[1].split(")")[0])
    assert kde_said == pytest.approx(steps.kde[node], rel=5e-3)  # 3 significant digits


def test_learn_step_frames_keep_their_x_range_on_the_page():
    """On the page, each step's figure has the same x-range (the Plotly figure, ``fig=plotly``)."""
    ranges = {
        tuple(
            chart(open_app(LEARN, step=step, fig="plotly"), "construction_figure")["layout"][
                "xaxis"
            ]["range"]
        )
        for step in STEPS
    }
    assert len(ranges) == 1


def test_measured_js_is_read_from_the_stored_run_and_its_sentences_hold():
    rows = pd.read_csv(RESULTS_DIR / MEASURED_JS_FILE)
    js = measured_js(rows)
    assert list(js["scheme"].unique()) == list(MEASURED_SCHEMES.values())
    one = rows[
        (rows["source"] == "uniform")
        & np.isclose(rows["ratio"], 0.1)
        & (rows["method"] == "mom_kde_auto")
        & (rows["metric"] == "js")
    ]
    row = js[(js["scheme"] == "(a) uniform") & np.isclose(js["ratio"], 0.1)].iloc[0]
    assert row["mom_kde"] == pytest.approx(1000 * one["value"].mean())
    at = open_app(LEARN)
    table = next(t.value for t in at.table if "ratio 0.1" in t.value.columns)
    assert table.loc["(a) uniform", "ratio 0.1"] == f"{row['kde']:.0f} → {row['mom_kde']:.0f}"
    # the page's fixed sentences about the table: MoM-KDE loses on (d), where the KDE with the
    # robust h wins; it wins on (a)-(c) at every ratio
    spike = js[js["scheme"] == MEASURED_SCHEMES["adversarial"]]
    assert (spike["mom_kde"] > spike["kde"]).all()
    assert (spike["kde_robust"] < spike[["kde", "mom_kde"]].min(axis=1)).all()
    others = js[js["scheme"] != MEASURED_SCHEMES["adversarial"]]
    assert (others["mom_kde"] < others["kde"]).all()
    # what MoM-KDE costs on clean data, read from the stored clean run
    clean = pd.read_csv(RESULTS_DIR / CLEAN_JS_FILE)
    clean = clean[clean["metric"] == "js"].groupby(["source", "method"])["value"].mean()
    ratios = [clean[s, "mom_kde_auto"] / clean[s, "kde"] for s in clean.index.levels[0]]
    bullets = next(m.value for m in at.markdown if "**It costs**" in m.value)
    assert f"{min(ratios):.2g}-{max(ratios):.2g}x the KDE's JS" in bullets


def test_warm_lessons_computes_the_pages_own_opening_views(monkeypatch):
    """The server's warm-up computes Home's and Learn's opening views with the very arguments
    the pages pass (the same cache keys): the pages' calls and the warm-up's are recorded
    through spies."""
    from app_support import cache

    calls = []

    def spy(name, real):
        return lambda *args: calls.append((name, args)) or real(*args)

    warmed = (
        "home_captions",
        "example_one",
        "example_one_errors",
        "construction",
        "curve_and_screen",
        "measured_js",
    )
    for name in warmed:
        monkeypatch.setattr(cache, name, spy(name, getattr(cache, name)))
    open_app()
    open_app(LEARN)
    asked = set(calls)
    calls.clear()
    monkeypatch.setenv(cache.WARM_ENV, "1")
    cache.warm_lessons()
    assert set(calls) == asked
    assert {name for name, _ in asked} == set(warmed)

"""The median at work (#36): outliers placed on Explore, the S block KDEs at a locked point
(the library's own blocks, the blocks holding an outlier), a click that sets either place,
and Learn's construction step by step; the compute layer against the library, the pages by
AppTest."""

from __future__ import annotations

import doctest

import numpy as np
import pytest

from app_support import mechanism, median_figures
from app_support.captions import median as median_captions
from app_support.compute import Settings
from app_support.mechanism import block_values, construction, placed_sample, point_from_click
from momkde_core import KDE, MoMKDE
from tests.app._apptest import caption, figures, names, open_app, values

EXPLORE = "app_pages/explore.py"


@pytest.mark.parametrize("module", [mechanism, median_figures, median_captions])
def test_examples_run(module) -> None:
    """The compute, figure and caption modules' Examples (app_support is not collected)."""
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and not result.failed


def test_block_values_are_the_librarys_blocks() -> None:
    """The values at x0 are the fitted MoM-KDE's block KDEs: their median over the median's
    integral is MoMKDE.pdf, their size-weighted mean is KDE.pdf, and a block is red exactly
    when block_of_ puts an outlier within reach of x0 in it."""
    data = placed_sample("none", 300, 0.0, 1, 0, 9, (3.0,))
    s = Settings(bandwidth=0.25, kernel="gaussian", n_blocks=21, contamination=0.0, seed=0)
    at = block_values(data.X, data.is_outlier, 0.25, s, (3.0,))
    mom = MoMKDE(n_blocks=21, bandwidth=0.25, random_state=0).fit(data.X)
    # (one sum per block at one point, then a median or a weighted mean: 1e-9 relative
    # covers the engine's linear and log paths, which differ by rounding only)
    assert np.isclose(at.median / np.exp(mom.log_norm_), mom.pdf([[3.0]])[0], rtol=1e-9)
    assert np.isclose(at.mean, KDE(bandwidth=0.25).fit(data.X).pdf([[3.0]])[0], rtol=1e-9)
    near = np.abs(data.X[:, 0] - 3.0) <= at.reach
    assert set(np.flatnonzero(at.near)) == set(mom.block_of_[data.is_outlier & near])
    assert at.sizes.sum() == len(data.X) and at.near.sum() <= 9 < 21 / 2
    assert at.median < 1e-3 * at.mean  # 9 outliers in at most 9 of 21 blocks: outvoted


def test_the_median_breaks_down_past_half_of_the_blocks() -> None:
    """Placing more outliers at x0 fills more blocks: once more than half of them hold one,
    the median is a red block's value, as the caption says."""
    s = Settings(bandwidth=0.25, kernel="gaussian", n_blocks=21, contamination=0.0, seed=0)
    seen = []
    for k in (5, 40):
        data = placed_sample("none", 300, 0.0, 1, 0, k, (3.0,))
        at = block_values(data.X, data.is_outlier, 0.25, s, (3.0,))
        seen.append((int(at.near.sum()), at.median, median_captions.middle_is_red(at)))
    (few, low, red_low), (many, high, red_high) = seen
    assert 2 * few < 21 < 2 * many and not red_low and red_high and high > 100 * max(low, 1e-12)


def test_a_click_names_a_point_in_the_controls_range() -> None:
    assert point_from_click([{"x": 2.97, "y": 0.01}], 1) == (2.95,)
    assert point_from_click([{"x": -8.0, "y": 4.04}], 2) == (-3.0, 4.05)
    assert point_from_click([{"curveNumber": 3}], 1) is None


def test_construction_frames_share_one_sample() -> None:
    steps = construction(96, 4, 3.0, 9, 0.5, 0)
    assert np.allclose(np.median(steps.blocks, axis=0), steps.median)
    for step in median_figures.STEPS:
        fig = median_figures.construction_figure(steps, step)
        assert fig.data and median_captions.step_caption(steps, step)
    split = median_figures.construction_figure(steps, "split")
    assert sum(len(t.x) for t in split.data if t.x is not None and t.x[0] is not None) == 100
    with pytest.raises(ValueError, match="unknown step"):
        median_figures.construction_figure(steps, "nine")


def test_explore_places_outliers_and_shows_the_blocks_at_x0() -> None:
    """A link places 12 outliers at 3 with S = 21 held: the KDE grows a bump there, the
    strip shows the 21 blocks with the red ones counted, and its caption says what it shows."""
    at = open_app(EXPLORE, scheme="none", Smode="manual", S="21", k="12", at="3", x0="3")
    main, strip = figures(at)[0], figures(at)[-1]
    assert "outliers (12)" in names(main)
    kde = next(t for t in main["data"] if t.get("name") == "KDE")
    xs, ys = values(kde["x"]), values(kde["y"])
    assert ys[np.argmin(np.abs(xs - 3.0))] > 0.01  # the cluster's bump
    shapes = main["layout"]["shapes"]
    assert any(s.get("x0") == 3.0 and s.get("line", {}).get("dash") == "dot" for s in shapes)
    dots = [t for t in strip["data"] if t.get("mode") == "markers"]
    assert sum(len(values(t["x"])) for t in dots) == 21
    red = int(names(strip)[-1].split()[0])
    assert 0 < red <= 12
    text = caption(at, "At x₀ = 3")
    assert f"the {red} blocks holding an outlier" in text and "is the KDE" in text
    assert "k ≥ S/2 = 10.5" in caption(at, "12 outliers placed at 3")
    assert at.session_state["k"] == 12
    assert not any("Without outliers" in c.value for c in at.caption)  # scheme none + placed


def test_explore_2d_point_and_place_by_link() -> None:
    at = open_app(EXPLORE, dim="2", n="200", k="20", at="3", aty="3", x0="3", y0="3")
    main = figures(at)[0]
    assert "x₀ (white cross)" in names(main)
    assert caption(at, "At x₀ = (3, 3)")
    assert at.slider(key="aty").value == 3.0 and at.slider(key="y0").value == 3.0


def test_a_click_sets_the_point_or_the_place() -> None:
    """The figure's selection (what a click sends) moves x0, or with click=place the
    outliers' place; the same selection is applied once."""
    at = open_app(EXPLORE, k="5")
    at.session_state["explore_figure"] = {"selection": {"points": [{"x": 5.02, "y": 0.1}]}}
    at.run()
    assert at.slider(key="x0").value == 5.0 and at.slider(key="at").value == 3.0
    at.slider(key="x0").set_value(1.0).run()
    assert at.slider(key="x0").value == 1.0  # the old click is not applied again
    at.segmented_control(key="click").set_value("place").run()
    at.session_state["explore_figure"] = {"selection": {"points": [{"x": 6.5, "y": 0.1}]}}
    at.run()
    assert at.slider(key="at").value == 6.5 and at.slider(key="x0").value == 1.0
    assert not at.exception


def test_learn_steps_through_the_construction() -> None:
    """With Plotly (``fig=plotly``; the live steps are tested in tests/app/test_live_lesson.py)."""
    at = open_app("app_pages/learn.py", step="median", fig="plotly")
    fig = next(f for f in figures(at) if "median of the 9 blocks" in names(f))
    assert len([n for n in names(fig) if n.startswith("block")]) == 9
    assert caption(at, "The pointwise median of the 9 block KDEs")
    at.segmented_control(key="step").set_value("compare").run()
    assert caption(at, "MoM-KDE is that median divided by its integral")
    assert not at.exception

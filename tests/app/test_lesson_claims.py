"""Explore's claims checked against the numbers they describe (#43): a grid of views (every
scheme x 1-D / 2-D x S small, auto and large x k = 0, below, at and above half of the blocks x
the locked point on and off the cluster), and for each the headline, the strip's caption and
S's guide note are read back and every verdict in them is recomputed here, independently of
the caption code, from the view's curves, the library's split and the metric table.

The thresholds are the captions' own stated ones (``app_support.captions.lesson``: KEPT,
REFUSED, the bump's floor; ``CLEARLY_CLOSER``); the test recomputes what they are applied to.
"""

from __future__ import annotations

import itertools
import json
import math
import re

import numpy as np
import pytest

from app_support.cache import explore_view
from app_support.captions import lesson
from app_support.captions.blocks import guide_note
from app_support.captions.density import CLEARLY_CLOSER, reasons
from app_support.captions.median import MOVED, NEGLIGIBLE, strip_caption
from app_support.choices import SCHEME_CODES
from app_support.compute import (
    DEFAULT_METHODS,
    Settings,
    make_estimator,
    metric_table,
    relevant,
)
from app_support.keys import ESTIMATOR, MEDIAN
from app_support.mechanism import block_values, kernel_reach
from momkde_core import KDE
from momkde_core.bandwidth import n_blocks_for
from momkde_core.synthetic import SCHEMES
from tests.app._apptest import caption, figures, open_app, shown_blocks

N_INLIERS = 200
RATIO = 0.1
METHODS = ("kde", "mom_kde")


def _views():
    """(scheme, dim, S's name, k's name, x0's name): the grid's cells."""
    return itertools.product(SCHEMES, (1, 2))


def _settings(n: int, eps: float, s_name: str) -> Settings:
    blocks = {"small": 5, "auto": n_blocks_for(n, eps), "large": 61}[s_name]
    return Settings(
        bandwidth="robust",
        kernel="gaussian",
        n_blocks=blocks,
        contamination=eps,
        seed=0,
        auto_blocks=s_name == "auto",
    )


def _node(axes, point):
    return tuple(int(np.argmin(np.abs(axis - v))) for axis, v in zip(axes, point))


def _check_headline(text, view, place, placed_k, n_blocks, table) -> None:
    """Every verdict of the headline against the view's numbers."""
    curves = {"truth": view.truth, **{m: r["grid"] for m, r in view.results.items()}}
    data = view.data
    if not data.n_outliers:
        assert text.startswith("**No outliers**")
    elif place is None:  # spread-out outliers: masses where the true density is ~0
        absent = view.truth < lesson.ABSENT * view.truth.max()
        mass = {m: curves[m][absent].sum() * view.grid.cell for m in ("truth", "kde", "mom_kde")}
        _check_bump(text, mass["truth"], mass["kde"], mass["mom_kde"], lesson.BUMP_FLOOR)
    else:
        node = _node(view.grid.axes, place)
        truth, kde, mom = (float(curves[m][node]) for m in ("truth", "kde", "mom_kde"))
        floor = max(lesson.BUMP_FLOOR * view.truth.max(), lesson.BUMP_OVER_TRUTH * truth)
        _check_bump(text, truth, kde, mom, floor)
        _check_blocks_there(text, view, place, n_blocks)
    _check_overall(text, table)


def _check_bump(text, truth, kde, mom, floor) -> None:
    if kde - truth <= floor:
        assert "no visible bump" in text
        return
    kept = max(mom - truth, 0.0) / (kde - truth)
    said = re.search(r"\*\*MoM-KDE (refuses|keeps part of|keeps) it\*\* \(.*?, (\d+) % of", text)
    assert said, text
    verdict, percent = said.group(1), int(said.group(2))
    assert abs(percent - 100 * kept) <= 0.5 + 1e-9, (percent, kept)
    if verdict == "refuses":
        assert kept < lesson.REFUSED
    elif verdict == "keeps":
        assert kept >= lesson.KEPT
    else:
        assert lesson.REFUSED <= kept < lesson.KEPT


def _split(view, n_blocks):
    """The library's own split of the view's sample (the page's MoM-KDE: same S, h, seed)."""
    s = Settings(bandwidth=view.h, kernel="gaussian", n_blocks=n_blocks, contamination=0.0, seed=0)
    mom = make_estimator("mom_kde", view.h, s).set_params(normalize=False).fit(view.data.X)
    return mom


def _check_blocks_there(text, view, place, n_blocks) -> None:
    said = re.search(
        r": (\d+) of its (\d+) blocks hold an outlier there, (fewer than half|half or more)[,;] (?:so )?the median is an? (red|clean) block's value",
        text,
    )
    if "no visible bump" in text:
        return
    assert said, text
    red, s, half, colour = int(said.group(1)), int(said.group(2)), said.group(3), said.group(4)
    mom = _split(view, n_blocks)
    data = view.data
    close = data.is_outlier & (
        np.linalg.norm(data.X - np.asarray(place), axis=1) <= kernel_reach("gaussian", view.h)
    )
    near = np.bincount(mom.block_of_[close], minlength=mom.n_blocks_) > 0
    assert (red, s) == (int(near.sum()), mom.n_blocks_)
    assert (half == "fewer than half") == (2 * red < s)
    values = np.exp(mom.block_score_samples(np.asarray(place, float)[None, :])[:, 0])
    order = np.argsort(values, kind="stable")
    middle = {int(order[(s - 1) // 2]), int(order[s // 2])}
    assert (colour == "red") == any(near[i] for i in middle)


def _check_overall(text, table) -> None:
    said = re.search(r"MoM-KDE is ([\d.]+)x (closer to|further from)", text)
    mom, kde = (float(f"{table.loc[m, 'JS']:.3g}") for m in ("mom_kde", "kde"))
    if said is None:
        assert "about as close" in text or "holds only" in text, text
        return
    ratio, way = float(said.group(1)), said.group(2)
    if way == "closer to":
        assert mom < CLEARLY_CLOSER * kde
        assert ratio == pytest.approx(kde / mom, abs=0.051)
    else:
        assert mom > kde / CLEARLY_CLOSER
        assert ratio == pytest.approx(mom / kde, abs=0.051)
    if "price of robustness" in text:
        assert way == "further from" and "refuses it" in text


def _without_outliers(view, n_blocks, point) -> tuple[np.ndarray, np.ndarray]:
    """Each block's KDE at ``point`` with its rows, and with its inliers alone (a KDE of them,
    weighing the block's size): the library's split, the KDE's own scoring, not the page's
    kernel shares."""
    mom = _split(view, n_blocks)
    y = np.asarray(point, float)[None, :]
    sizes = np.bincount(mom.block_of_, minlength=mom.n_blocks_)
    clean = np.zeros(mom.n_blocks_)
    for b in range(mom.n_blocks_):
        rows = view.data.X[(mom.block_of_ == b) & ~view.data.is_outlier]
        if len(rows):
            density = np.exp(KDE(bandwidth=view.h).fit(rows).score_samples(y)[0])
            clean[b] = density * len(rows) / sizes[b]
    return np.exp(mom.block_score_samples(y)[:, 0]), clean


def _stated(text: str) -> float:
    """A density as a caption writes it (3 significant digits, or "≈ 0")."""
    return 0.0 if text == "≈ 0" else float(text)


#: A caption's density has 3 significant digits: it is within half a unit of the third of
#: the value (0.5 %), and the page's value and this test's differ by rounding alone.
SHOWN = 5e-3


def _check_strip(caption, at, view, n_blocks) -> None:
    s, red = len(at.values), int(at.near.sum())
    if at.values.max() < NEGLIGIBLE:
        assert "is ≈ 0" in caption
        return
    assert "= ≈" not in caption
    values, clean = _without_outliers(view, n_blocks, at.point)
    median, clean_median = float(np.median(values)), float(np.median(clean))
    moved = median >= NEGLIGIBLE and median - clean_median > MOVED * clean_median
    # the median follows the outliers only where removing their kernels lowers it materially
    assert ("follows the outliers" in caption) == (bool(red) and moved), caption
    if "breakdown" in caption and "no breakdown" not in caption:
        assert moved and 2 * red >= s
    if red:
        without = re.search(
            r"without (?:the outliers'|their) kernels(?: it would be | \()(≈ 0|[\d.e+-]+)", caption
        )
        assert without, caption
        shown = _stated(without.group(1))
        assert shown == pytest.approx(clean_median, rel=SHOWN, abs=NEGLIGIBLE), caption
        rise = re.search(r"is (\d+) % above what it would be", caption)
        if rise:  # (a whole per cent: within half of one)
            percent = 100 * (median / clean_median - 1)
            assert int(rise.group(1)) == pytest.approx(percent, abs=0.5 + 1e-6)
    if "fewer than half" in caption:
        assert 2 * red < s
    if "half or more" in caption:
        assert 2 * red >= s
    if red:
        assert f"the {red} red block" in caption or f"{red} of the {s}" in caption


def _check_why(headline, view, n_blocks, held) -> None:
    """#53 b: the Why box's count of the blocks holding an outlier, what it concludes from it,
    and the headline's count there agree."""
    n_outliers = view.data.n_outliers
    why = reasons("x", len(view.data.X), n_outliers, n_blocks, view.h, None, False, held)
    (below,) = [w for w in why if "does not meet the guide" in w] or [None]
    if below is None:
        return
    said = re.search(
        r"here (\d+) of the (\d+) blocks hold one, (fewer than half|half or more)", below
    )
    assert said and (int(said.group(1)), int(said.group(2))) == (held, n_blocks), below
    if said.group(3) == "fewer than half":
        assert 2 * held < n_blocks and "can follow them" not in below.split("(")[0]
        # (the blocks near the outliers' place are among these: fewer than half there too)
        assert "hold an outlier there, half or more" not in headline
    else:
        assert 2 * held >= n_blocks


@pytest.mark.parametrize(("scheme", "dim"), list(_views()))
def test_every_claim_of_explore_matches_its_numbers(scheme, dim) -> None:
    ratio = 0.0 if scheme == "none" else RATIO
    for s_name in ("small", "auto", "large"):
        n0 = N_INLIERS + (
            0 if scheme == "none" else math.floor(RATIO * N_INLIERS / (1 - RATIO) + 0.5)
        )
        n_blocks = _settings(n0, ratio, s_name).n_blocks
        for k in sorted({0, max(1, n_blocks // 4), math.ceil(n_blocks / 2), n_blocks + 2}):
            at = (3.0,) * dim
            placed = (k, at if k else ())
            settings = _settings(n0 + k, ratio, s_name)
            for x0 in (at, (-2.5,) * dim):
                view = explore_view(scheme, N_INLIERS, ratio, dim, settings, METHODS, placed=placed)
                table = metric_table(view.results, view.truth, view.grid.cell, None)
                blocks_at = lambda p: block_values(  # noqa: E731
                    view.data.X, view.data.is_outlier, view.h, relevant("mom_kde", settings), p
                )
                text = lesson.view_headline(
                    view, scheme, placed, settings.n_blocks, table["JS"].to_dict(), blocks_at
                )
                place = lesson.outlier_place(scheme, placed, view.data.n_outliers - k, dim)
                _check_headline(text, view, place, k, settings.n_blocks, table)
                at_x0 = blocks_at(x0)
                _check_strip(
                    strip_caption(at_x0, view.results["mom_kde"]["median_mass"]),
                    at_x0,
                    view,
                    settings.n_blocks,
                )
                _check_why(text, view, settings.n_blocks, int(at_x0.holds.sum()))
                note = guide_note(settings.n_blocks, view.data.n_outliers)
                if view.data.n_outliers:
                    assert ("meets" in note) == (settings.n_blocks > 2 * view.data.n_outliers)


# ---- the page: what it shows is what these functions say, and the defects seen in a browser


def _headline_shown(at) -> str:
    return next(i.value for i in at.info if "Over the whole axis" in i.value)


def test_the_lecture_view_says_the_median_refuses_the_bump() -> None:
    """The tester's view (12 outliers at 3, S = 21): the strip shows 10 of 21 blocks red and
    the median a clean block's value; the headline says MoM-KDE refuses the bump, tells the
    global JS apart from it, and no sentence says the median keeps it."""
    at = open_app("app_pages/explore.py", scheme="none", Smode="manual", k="12", at="3", x0="3")
    text = _headline_shown(at)
    assert "**MoM-KDE refuses it**" in text and "so the median is a clean block's value" in text
    strip = caption(at, "At x₀ = 3")
    red = int(re.search(r"the (\d+) blocks holding an outlier", strip).group(1))
    assert f"{red} of its 21 blocks hold an outlier there" in text
    assert "is what it would be without the outliers' kernels (≈ 0)" in strip
    assert "= ≈" not in strip  # (#53: "the median / its integral 0.929 = ≈ 0")
    # #53 b: the Why box counts the same blocks and draws the headline's conclusion from
    # them, not "so where they gather the median can follow them"
    (why,) = [m.value for m in at.markdown if m.value.startswith("- S = 21 does not meet")]
    assert f"here {red} of the 21 blocks hold one, fewer than half" in why
    assert "can follow them" not in why.split("(")[0]
    shown = (
        [m.value for m in at.markdown]
        + [c.value for c in at.caption]
        + [w.value for w in at.warning]
    )
    assert not any("keeps their bump" in t for t in shown)
    # the guide, worded as a guarantee
    assert "a guarantee whatever the split" in caption(at, "S = 21")


def test_the_strip_says_the_median_follows_the_outliers_only_where_they_move_it() -> None:
    """#53 a: with 40 outliers placed at 8.7 and x₀ at -0.8 (uniform outliers, S auto = 233),
    24 of the 233 blocks are red there and one reaches the middle rank: the strip said the
    median "follows the outliers (its breakdown)", while without the outliers' kernels it is
    still 0.063; the gap to the mean is the blocks of ~5 rows. The strip now compares the
    median with the blocks' median without the outliers' kernels (recomputed here from the
    inliers of each block of the library's split)."""
    at = open_app("app_pages/explore.py", k="40", at="8.7", x0="-0.8")
    strip = caption(at, "At x₀ = -0.8")
    assert "follows the outliers" not in strip and "breakdown" not in strip, strip
    settings = Settings(
        bandwidth="robust",
        kernel="gaussian",
        n_blocks=n_blocks_for(1151, 0.1),
        contamination=0.1,
        seed=0,
        auto_blocks=True,
    )
    view = explore_view("uniform", 1000, 0.1, 1, settings, DEFAULT_METHODS, placed=(40, (8.7,)))
    values, clean = _without_outliers(view, settings.n_blocks, (-0.8,))
    median, clean_median = np.median(values), np.median(clean)
    assert median - clean_median < MOVED * clean_median  # (the case: they barely move it)
    said = re.search(r"Their median, ([\d.]+), is (\d+) % above what it would be", strip)
    assert float(said.group(1)) == pytest.approx(median, rel=SHOWN)
    without = re.search(r"without the outliers' kernels \(([\d.]+)\)", strip)
    assert float(without.group(1)) == pytest.approx(clean_median, rel=SHOWN)
    assert "blocks of about 4.9 rows" in strip  # (1151 rows in 233 blocks)


def test_the_placement_note_bounds_what_it_counts() -> None:
    """#53 c: "at most 40 of the S = 233 blocks can hold one" was shown beside 111 blocks
    holding an outlier (the scheme's and the placed ones): the note's bound is the placed
    outliers', and says so."""
    at = open_app("app_pages/explore.py", k="40", at="8.7", x0="-0.8")
    note = caption(at, "40 outliers placed at 8.7")
    strip = caption(at, "At x₀ = -0.8")
    anywhere = int(re.search(r"of (\d+) holding one anywhere", strip).group(1))
    bound = re.search(r"[Aa]t most (\d+) of the S = \d+ blocks can hold one\b", note)
    assert bound is None or int(bound.group(1)) >= anywhere, (note, anywhere)
    assert "These 40 can be in at most 40 of the S = 233 blocks" in note
    assert "the scheme's outliers, if any, come on top" in note


def test_explore_words_match_what_is_drawn_and_computed() -> None:
    """#53 d: the placed outliers are red circles in 2-D, not ticks; S auto grows with k (n
    counts the placed rows), which the note and the k slider's help say; the adversarial
    headline names MoM-KDE's blocks after "RKDE is closest"."""
    flat = open_app("app_pages/explore.py", scheme="none", k="30", at="3", dim="2")
    note = caption(flat, "30 outliers placed at (3, 3)")
    assert "red circles on the first map" in note and "red ticks" not in note
    assert "counts the scheme's outliers only" not in note
    assert "counts their rows in n but not in the share ε" in note
    help_k = flat.slider(key="k").help
    assert "red circles" in help_k and "count the scheme's outliers only" not in help_k
    s_auto = {
        k: int(shown_blocks(open_app("app_pages/explore.py", k=k, at="3")).value)
        for k in ("0", "40")
    }
    assert s_auto["40"] > s_auto["0"]  # (S auto = 2⌈εn⌉+1, n counting the 40 rows)
    adversarial = _headline_shown(open_app("app_pages/explore.py", scheme="adversarial"))
    closest = adversarial.split("is closest")
    assert len(closest) == 2 and ": its blocks" not in closest[1], adversarial
    assert "MoM-KDE's blocks of about" in closest[1]


def test_the_h_label_is_the_h_the_metrics_use() -> None:
    """#43: the h slider's label gave the rule's h of the sample without the placed outliers;
    the S label said "auto: 1" without ε (the browser test checks that disabled sliders stay
    out of the URL)."""
    at = open_app("app_pages/explore.py", scheme="none", k="12", at="3")
    h_used = float(
        re.search(
            r"\*\*h = ([\d.]+)\*\*",
            next(m.value for m in at.markdown if m.value.startswith("**h =")),
        ).group(1)
    )
    (h_slider,) = [s for s in at.slider if s.label.startswith("h (robust")]
    assert float(re.search(r"robust: ([\d.]+)", h_slider.label).group(1)) == pytest.approx(
        h_used, rel=1e-2
    )
    (s_slider,) = [s for s in at.select_slider if s.label.startswith("S (auto")]
    assert "ε = 0: 1" in s_slider.label and s_slider.disabled
    at.segmented_control(key="hmode").set_value("manual").run()
    assert at.slider(key="h").value == pytest.approx(h_used, abs=0.006)  # starts from the h in use


def test_an_infinite_kl_is_explained_and_a_point_far_from_every_block_reads_zero() -> None:
    """The tophat kernel's finite reach makes KL(f‖f̂) infinite: the table shows ∞ and the
    note says which methods and why; at x₀ far from the data every block is ≈ 0, and the
    strip says so instead of spreading 1e-21 values over its axis."""
    at = open_app("app_pages/explore.py", kernel="tophat", scheme="none", k="2", at="2", x0="-3")
    note = caption(at, "JS and both KLs")
    assert "∞: KL(f‖f̂) is infinite because" in note
    strip = caption(at, "At x₀ = -3")
    assert "is ≈ 0" in strip
    axis = figures(at)[-1]["layout"]["xaxis"]["range"]
    assert axis[1] >= 1e-4


def test_presenting_explore_shows_the_headline_and_the_figures() -> None:
    """#43: ?present=1 keeps Explore's headline and figures in view and puts the controls,
    the figure's caption and the metrics behind expanders."""
    at = open_app(
        "app_pages/explore.py", present="1", scheme="none", Smode="manual", k="12", at="3"
    )
    assert "**MoM-KDE refuses it**" in _headline_shown(at)
    assert len(figures(at)) == 2  # the densities and the strip
    labels = [e.label for e in at.expander]
    assert {"h and S", "The outliers placed and x₀", "The metrics"} <= set(labels)


# ---- live states (#53): the page after a release of the live figure


@pytest.mark.parametrize(("scheme", "dim"), [("uniform", 1), ("none", 1), ("thin_gaussian", 2)])
def test_the_claims_hold_after_a_live_release(scheme, dim) -> None:
    """Before the sync the browser's words are its own numbers' (tests/app/test_live_lesson.py
    reads them back, and marks the server's words as updating); after it, the page's run of
    the release (k, the place and x₀ written into the controls, the drag's h kept by hand, as
    ``live_lesson.mount._apply_release`` writes them) says of the synced view what its
    numbers say: the headline and the strip, recomputed here from that view."""
    at = open_app(
        "app_pages/explore.py", fig="live", scheme=SCHEME_CODES[scheme], dim=str(dim), n="200"
    )
    sent = json.loads(
        next(e for e in at.main if getattr(e, "key", None) == "_live_lesson").proto.json
    )
    k, place, x0 = 12, (4.5,) * dim, (4.4,) * dim
    at.session_state[MEDIAN.k] = k
    for key, value in zip((MEDIAN.at, MEDIAN.at_y), place):
        at.session_state[key] = value
    for key, value in zip((MEDIAN.x0, MEDIAN.y0), x0):
        at.session_state[key] = value
    at.session_state[ESTIMATOR.h_mode] = "manual"
    at.session_state[ESTIMATOR.h] = sent["h"]
    at.run()
    assert not at.exception
    ratio = 0.0 if scheme == "none" else RATIO
    n = N_INLIERS + (0 if scheme == "none" else math.floor(ratio * N_INLIERS / (1 - ratio) + 0.5))
    settings = Settings(
        bandwidth=sent["h"],
        kernel="gaussian",
        n_blocks=n_blocks_for(n + k, ratio),
        contamination=ratio,
        seed=0,
        auto_blocks=True,
    )
    view = explore_view(scheme, N_INLIERS, ratio, dim, settings, DEFAULT_METHODS, placed=(k, place))
    table = metric_table(
        view.results,
        view.truth,
        view.grid.cell,
        view.data.is_outlier if view.data.n_outliers else None,
    )
    blocks_at = lambda p: block_values(  # noqa: E731
        view.data.X, view.data.is_outlier, view.h, relevant("mom_kde", settings), p
    )
    shown = next(i.value for i in at.info)
    assert shown == lesson.view_headline(
        view, scheme, (k, place), settings.n_blocks, table["JS"].to_dict(), blocks_at
    )
    place_said = lesson.outlier_place(scheme, (k, place), view.data.n_outliers - k, dim)
    _check_headline(shown, view, place_said, k, settings.n_blocks, table)
    at_x0 = blocks_at(x0)
    strip = strip_caption(at_x0, view.results["mom_kde"]["median_mass"])
    assert strip in [c.value for c in at.caption]
    _check_strip(strip, at_x0, view, settings.n_blocks)

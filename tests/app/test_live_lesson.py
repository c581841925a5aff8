"""Explore's live figure (app_support/live_lesson): what it is sent, that AppTest mounts it
with the page's values, and in headless Chromium that the browser's numbers are the
library's, that a drag redraws it without a server run and syncs the URL on release, and
that the arrow keys move the focused handle."""

from __future__ import annotations

import doctest
import json
import urllib.parse
from dataclasses import replace

import numpy as np
import pytest

from app_support.captions.learn import home_caption
from app_support.captions.median import step_caption
from app_support.compute import Settings, choose_bandwidth, make_estimator
from app_support.lessons import BUILD, HOME_H, HOME_OUTLIERS, X0, example_one
from app_support.live_lesson import payload
from app_support.live_lesson.payload import cluster_draws, live_payload, mesh_axes
from app_support.mechanism import block_values, construction, placed_sample
from app_support.median_figures import STEPS
from app_support.views import drawn_ratio
from benchmarks.browser import wait_until_idle
from momkde_core import KDE
from momkde_core.synthetic import make_contaminated, outlier_count
from tests.app._apptest import EXPLORE, open_app

LIVE = '[data-testid="live-lesson"]'
LEARN_PAGE = "app_pages/learn.py"
#: The live h slider's positions (js/controls.js: H_STEPS, evenly in log h).
H_STEPS = 400
#: Below this density the library's sums (in log space) and the browser's (linear, terms
#: under exp(-745) lost) may part: the terms reach the subnormal range, where a double
#: keeps few digits. Above it both are sums of normal floats.
FLOOR = 1e-250
#: The browser's sums and the library's add the same terms in other orders, and the browser
#: builds a Gaussian term from its neighbour's (exact every 64 nodes): ~1e-13 apart.
RTOL = 1e-9
#: Waits for the page's next animation frame (the browser merges pointer moves that come
#: within one frame into one event).
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => done()))"


def _settings(h: float, n_blocks: int, seed: int = 0, eps: float = 0.1) -> Settings:
    return Settings(bandwidth=h, kernel="gaussian", n_blocks=n_blocks, contamination=eps, seed=seed)


def test_payload_examples_run():
    """The payload module's Examples (app_support is not collected for doctests)."""
    result = doctest.testmod(payload, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted and not result.failed


def test_payload_rebuilds_the_pages_sample():
    """The rows survive JSON to the last digit, and the draws rebuild the placed rows as
    with_cluster adds them."""
    data = placed_sample("thin_gaussian", 300, 0.1, 1, 3, 15, (4.5,))
    base = make_contaminated("thin_gaussian", 300, 0.1, 1, 3)
    sent = json.loads(
        json.dumps(
            live_payload(
                base, _settings(0.3, 21, 3), 0.3, (15, 4.5), 2.0, s_options=[1, 21], max_placed=200
            )
        )
    )
    assert np.array_equal(np.array(sent["rows"]), data.X[:-15, 0])
    rebuilt = sent["at"] + sent["clusterSd"] * np.array(sent["draws"][:15])
    np.testing.assert_allclose(rebuilt, data.X[-15:, 0], rtol=1e-15)
    assert sent["rowOutlier"] == data.is_outlier[:-15].astype(int).tolist()
    assert np.array_equal(cluster_draws(3, 200)[:15], np.array(sent["draws"][:15]))


@pytest.mark.parametrize(("dim", "kernel"), [(3, "gaussian"), (1, "epanechnikov")])
def test_payload_refuses_what_the_script_does_not_draw(dim, kernel):
    base = make_contaminated("none", 50, 0.0, 1, 0)
    if dim == 3:  # (no scheme draws 3-D samples: three copies of the column)
        base = replace(base, X=np.repeat(base.X, 3, axis=1))
    s = Settings(bandwidth=0.3, kernel=kernel, n_blocks=5, contamination=0.1, seed=0)
    with pytest.raises(ValueError, match="1-D and 2-D samples only|kernel"):
        live_payload(base, s, 0.3, (0, (3.0,) * dim), (3.0,) * dim, s_options=[5], max_placed=200)


def test_payload_rebuilds_the_pages_plane():
    """2-D: the rows row-major, the draws rebuild the placed rows as with_cluster adds them,
    the mesh holds the place's range, and the colour scale is the Plotly maps' (their
    shared_colour_cap: 1.25 x the truth's peak under a spike of another map)."""
    data = placed_sample("uniform", 300, 0.1, 2, 3, 15, (4.5, 1.0))
    base = make_contaminated("uniform", 300, 0.1, 2, 3)
    sent = json.loads(
        json.dumps(
            live_payload(
                base,
                _settings(0.3, 21, 3),
                0.3,
                (15, (4.5, 1.0)),
                (2.0, 2.0),
                s_options=[21],
                max_placed=200,
                colour_surfaces={"truth": np.array([0.2]), "kde": np.array([55.0])},
            )
        )
    )
    assert np.array_equal(np.array(sent["rows"]).reshape(-1, 2), data.X[:-15])
    rebuilt = np.array(sent["at"]) + sent["clusterSd"] * np.array(sent["draws"]).reshape(-1, 2)
    np.testing.assert_allclose(rebuilt[:15], data.X[-15:], rtol=1e-15)
    lo, hi, count = sent["mesh"]["x"]
    assert lo <= -3.0 and hi >= 9.0 and count * count == len(sent["truth"])
    assert sent["colour"] == {"top": pytest.approx(np.log10(0.25)), "decades": 4, "capped": True}


def test_explore_mounts_the_live_figure_with_the_pages_values():
    """AppTest holds the component as an unknown element: its data are the page's sample
    (the placed rows sent apart), k, the place, x0, h and S; the Plotly figure and strip are
    not drawn, the metrics and captions are."""
    at = open_app(EXPLORE, fig="live", n="200", k="12", at="7.5", x0="2.5")
    live = [e for e in at.main if getattr(e, "key", None) == "_live_lesson"]
    assert len(live) == 1
    sent = json.loads(live[0].proto.json)
    assert (sent["k"], sent["at"], sent["x0"]) == (12, 7.5, 2.5)
    assert len(sent["rows"]) == 200 + outlier_count(200, 0.1)  # the placed rows apart
    said = next(m.value for m in at.markdown if m.value.startswith("**h = "))
    assert f"**h = {sent['h']:.3g}**" in said and f"S = {sent['S']} " in said
    assert not at.get("plotly_chart")
    assert len(at.table) == 1


# ---------------------------------------------------------------- in headless Chromium

from tests.app import test_browser as browser_test  # noqa: E402  (skips without Chromium)

server, browser, page = browser_test.server, browser_test.browser, browser_test.page


def _live(page) -> dict:
    return page.evaluate(
        """() => { const l = window.__liveLesson;
                  const blocks = l.blocks && [0, l.S >> 1, l.S - 1].map((s) => l.blocks(s));
                  return {...l, blocks}; }"""
    )


def _open(page, server: str, query: str) -> dict:
    page.goto(f"{server}/explore?{query}")
    wait_until_idle(page)
    page.wait_for_selector(LIVE, timeout=60_000)
    wait_until_idle(page)
    # (2-D: the first frame comes from the worker, after the mount)
    page.wait_for_function("() => window.__liveLesson && window.__liveLesson.frame > 0")
    page.locator(LIVE).scroll_into_view_if_needed()
    return _live(page)


def _assert_close(browser_values, library_values) -> None:
    """Equal to RTOL where the library's value is a normal density above FLOOR; tiny
    where it is not."""
    got, want = np.asarray(browser_values, float), np.asarray(library_values, float)
    kept = want > FLOOR
    assert kept.sum() > len(want) // 4
    np.testing.assert_allclose(got[kept], want[kept], rtol=RTOL)
    assert np.all(got[~kept] < 1e3 * FLOOR)


def _assert_library(shown: dict, scheme: str, n: int, ratio: float, eps: float) -> None:
    """The browser's MoM-KDE, block KDEs, KDE, integral and strip against the library's fit
    of the same sample (the page's), split (its seed) and h."""
    model = shown["model"]
    data = placed_sample(
        scheme, n, drawn_ratio(scheme, ratio), 1, model["seed"], model["k"], (model["at"],)
    )
    h, S = model["h"], model["S"]
    assert shown["n"] == len(data.X)
    s = _settings(h, S, model["seed"], eps)
    mom = make_estimator("mom_kde", h, s).fit(data.X)
    raw = make_estimator("mom_kde", h, s).set_params(normalize=False).fit(data.X)
    nodes = np.array(shown["nodes"])[:, None]
    np.testing.assert_allclose(shown["integral"], np.exp(mom.log_norm_), rtol=RTOL)
    _assert_close(shown["mom"], np.exp(mom.score_samples(nodes)))
    _assert_close(shown["kde"], np.exp(KDE(bandwidth=h).fit(data.X).score_samples(nodes)))
    blocks = np.exp(raw.block_score_samples(nodes))
    for values, s_index in zip(shown["blocks"], [0, S >> 1, S - 1]):
        _assert_close(values, blocks[s_index])
    at = block_values(data.X, data.is_outlier, h, s, (model["x0"],))
    np.testing.assert_allclose(shown["strip"]["values"], at.values, rtol=RTOL)
    np.testing.assert_allclose(
        [shown["strip"]["median"], shown["strip"]["mean"]], [at.median, at.mean], rtol=RTOL
    )
    assert shown["strip"]["near"] == at.near.astype(int).tolist()
    red = int(at.near.sum())
    says = f"no block of the {S} holds" if red == 0 else f"{red} of the {S} blocks hold"
    assert f"At x₀ = {model['x0']:.2f}, {says} an outlier within reach" in shown["readout"]
    assert ("at least half" in shown["readout"]) == (2 * red >= S)


@pytest.mark.browser
@pytest.mark.parametrize(
    ("query", "scheme", "n", "ratio"),
    [
        (
            "scheme=thin&n=500&k=20&at=3&x0=3&hmode=slider&h=0.3&Smode=manual&S=40",
            "thin_gaussian",
            500,
            0.1,
        ),
        ("n=200&k=12&at=7.5&x0=2", "uniform", 200, 0.1),
    ],
)
def test_browser_values_equal_the_library(server, page, query, scheme, n, ratio):
    """An even S set by hand, and S auto with the robust h: the page's numbers are the
    library's, normalisation included."""
    shown = _open(page, server, query)
    if "hmode=slider" in query:
        assert shown["model"]["h"] == 0.3
    _assert_library(shown, scheme, n, ratio, 0.1)
    assert page.console_errors == []


def _query(page) -> dict[str, str]:
    return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(page.url).query))


@pytest.mark.browser
def test_a_drag_redraws_in_the_page_and_the_url_follows_on_release(server, page):
    """20 pointer moves of the cluster's handle: frames drawn before release, no message to
    the server meanwhile, the browser's numbers mid-drag still the library's; on release the
    URL holds the new place and the server's run draws the same place."""
    _open(page, server, "scheme=none&n=200&k=12&at=3&x0=3&Smode=manual&S=21")
    sent, before = _drag_cluster(page, 6, 0)
    assert _frame(page) - before >= 15
    assert page.locator('[data-testid="stStatusWidget"]').count() == 0
    assert sent == []  # no rerun asked for during the drag
    artifacts = browser_test.REPO / "tests" / "_artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=str(artifacts / "live_drag.png"))
    mid = _live(page)
    assert mid["model"]["at"] > 3.0
    _assert_library(mid, "none", 200, 0.0, 0.1)
    frame = _frame(page)
    page.mouse.up()
    _synced(page, f"at={mid['model']['at']:g}", frame)
    assert _live(page)["model"]["at"] == float(_query(page)["at"])
    # "keep h" (ticked by default): the drag's h, set by hand, not the rule's on the new sample
    assert _query(page)["hmode"] == "slider"
    assert float(_query(page)["h"]) == pytest.approx(mid["model"]["h"], rel=1e-12)
    assert page.console_errors == []


def _drag_cluster(page, dx: int, dy: int, moves: int = 20) -> tuple[list, int]:
    """Press the cluster's handle and move it ``moves`` times by (dx, dy) pixels, one move a
    frame (as a hand's pointer events come), the button still down: the websocket frames the
    page sent from the press on, and the figure's frame before the press."""
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", sent.append))
    box = page.locator('[data-role="cluster-handle"]').bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    before = _frame(page)
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(moves):
        page.mouse.move(x + dx * (i + 1), y + dy * (i + 1))
        page.evaluate(NEXT_FRAME)
    return sent, before


def _frame(page) -> int:
    return int(page.locator(LIVE).get_attribute("data-frame"))


def _synced(page, says: str, frame: int) -> None:
    """Wait until the URL says ``says`` and the server's run drew the figure after its
    ``frame``-th redraw (the last one in the page before the release)."""
    page.wait_for_function(
        "([says, frame]) => location.search.includes(says) && window.__liveLesson.frame > frame",
        arg=[says, frame],
    )
    wait_until_idle(page)


@pytest.mark.browser
def test_arrow_keys_move_the_focused_handle(server, page):
    """ArrowLeft on x0's handle: a redraw at x0 - 0.05 while the key is down, the URL on
    its release; Shift+ArrowRight on the cluster's: 10 steps."""
    _open(page, server, "scheme=none&n=200&k=12&at=3&x0=3")
    before = _frame(page)
    page.locator('[data-role="x0-handle"]').focus()
    page.keyboard.down("ArrowLeft")
    assert _frame(page) == before + 1
    assert _live(page)["model"]["x0"] == pytest.approx(2.95)
    frame = _frame(page)
    page.keyboard.up("ArrowLeft")
    _synced(page, "x0=2.95", frame)
    page.locator('[data-role="cluster-handle"]').focus()
    frame = _frame(page) + 1  # (the key's own redraw)
    page.keyboard.press("Shift+ArrowRight")
    _synced(page, "at=3.5", frame)
    assert _live(page)["model"]["at"] == pytest.approx(3.5)
    assert _live(page)["model"]["x0"] == pytest.approx(2.95)
    assert page.console_errors == []


@pytest.mark.browser
def test_the_h_and_s_sliders_redraw_and_set_them_by_hand(server, page):
    """A key on the live figure's h slider redraws at the next step of its log scale and, on
    release, sets h by hand; one on its S slider sets S by hand (the next value offered); the
    S block KDEs are drawn when the page shows them."""
    shown = _open(page, server, "scheme=thin&n=200&k=12&at=3&x0=3&blocks=true")
    assert page.locator(f"{LIVE} path.blocks").count() == 1
    h = shown["model"]["h"]
    frame = _frame(page) + 1
    page.locator('[data-role="h-slider"]').press("ArrowRight")
    _synced(page, "hmode=slider", frame)  # (the URL holds the label)
    low, high = payload.H_RANGE[:2]
    position = round(np.log(h / low) / np.log(high / low) * H_STEPS) + 1
    assert _live(page)["model"]["h"] == float(f"{low * (high / low) ** (position / H_STEPS):.3g}")
    S = _live(page)["S"]
    frame = _frame(page) + 1
    page.locator('[data-role="s-slider"]').press("ArrowRight")
    _synced(page, "Smode=manual", frame)
    assert _live(page)["S"] > S and _query(page)["S"] == str(_live(page)["S"])
    artifacts = browser_test.REPO / "tests" / "_artifacts"
    artifacts.mkdir(exist_ok=True)
    page.locator(LIVE).screenshot(path=str(artifacts / "live_blocks.png"))
    assert page.console_errors == []


def _assert_plane(shown: dict, scheme: str, n: int, ratio: float, eps: float) -> None:
    """The browser's 2-D maps (MoM-KDE, KDE), integral and strip against the library's fit
    of the same sample, split and h, on the page's mesh."""
    model = shown["model"]
    data = placed_sample(
        scheme, n, drawn_ratio(scheme, ratio), 2, model["seed"], model["k"], tuple(model["at"])
    )
    h, S = model["h"], model["S"]
    assert shown["n"] == len(data.X)
    s = _settings(h, S, model["seed"], eps)
    mom = make_estimator("mom_kde", h, s).fit(data.X)
    xs, ys = mesh_axes([tuple(shown["mesh"]["x"]), tuple(shown["mesh"]["y"])])
    nodes = np.stack([g.ravel() for g in np.meshgrid(xs, ys, indexing="ij")], axis=1)
    assert shown["normalisedAsLibrary"]
    np.testing.assert_allclose(shown["integral"], np.exp(mom.log_norm_), rtol=RTOL)
    _assert_close(shown["mom"], np.exp(mom.score_samples(nodes)))
    _assert_close(shown["kde"], np.exp(KDE(bandwidth=h).fit(data.X).score_samples(nodes)))
    at = block_values(data.X, data.is_outlier, h, s, tuple(model["x0"]))
    np.testing.assert_allclose(shown["strip"]["values"], at.values, rtol=RTOL)
    assert shown["strip"]["near"] == at.near.astype(int).tolist()


@pytest.mark.browser
def test_the_plane_is_live_and_the_library_s(server, page):
    """2-D: the maps open with the library's numbers; 20 pointer moves of the cluster's
    handle redraw them (computed in a Web Worker) with no message to the server, mid-drag
    still the library's; on release the URL holds both coordinates of the place."""
    shown = _open(page, server, "dim=2&n=200&k=10&at=4&aty=4&x0=3&y0=3")
    assert shown["dim"] == 2 and shown["inWorker"]
    _assert_plane(shown, "uniform", 200, 0.1, 0.1)
    sent, before = _drag_cluster(page, -5, 3)
    page.wait_for_function("(f) => window.__liveLesson.frame > f + 5", arg=before)
    assert sent == []
    assert page.locator(f"{LIVE}.pending").count() == 1  # the words marked as updating
    artifacts = browser_test.REPO / "tests" / "_artifacts"
    artifacts.mkdir(exist_ok=True)
    page.screenshot(path=str(artifacts / "live_drag_2d.png"))
    page.wait_for_function("() => window.__liveLesson.current()")  # the last move's frame
    mid = _live(page)
    assert mid["model"]["at"][0] < 4.0 and mid["model"]["at"][1] < 4.0
    _assert_plane(mid, "uniform", 200, 0.1, 0.1)
    frame = _frame(page)
    page.mouse.up()
    ax, ay = mid["model"]["at"]
    _synced(page, f"aty={ay:g}", frame)
    assert float(_query(page)["at"]) == pytest.approx(ax)
    assert page.locator(f"{LIVE}.pending").count() == 0
    assert page.console_errors == []


def test_explore_mounts_the_live_plane_with_the_pages_values():
    """2-D: the component's data are the page's plane (rows row-major, the place and x0 as
    pairs, the mesh and the colour scale); the Plotly maps are not drawn, the metrics are."""
    at = open_app(EXPLORE, fig="live", dim="2", n="200", k="6", at="4", aty="5", x0="1", y0="2")
    live = [e for e in at.main if getattr(e, "key", None) == "_live_lesson"]
    assert len(live) == 1
    sent = json.loads(live[0].proto.json)
    assert (sent["dim"], sent["k"], sent["at"], sent["x0"]) == (2, 6, [4.0, 5.0], [1.0, 2.0])
    assert len(sent["rows"]) == 2 * (200 + outlier_count(200, 0.1))
    assert {c["method"] for c in sent["curves"]} == {"rkde", "spkde"}
    assert not at.get("plotly_chart")
    assert len(at.table) == 1


def test_a_kernel_the_browser_does_not_compute_keeps_the_servers_figure_and_says_so():
    at = open_app(EXPLORE, fig="live", kernel="epanechnikov")
    assert not [e for e in at.main if getattr(e, "key", None) == "_live_lesson"]
    assert at.get("plotly_chart")
    said = " ".join(c.value for c in at.caption)
    assert "computes the gaussian kernel only: with the epanechnikov kernel" in said


# ---------------------------------------------------------------- Home: Example 1, live


def test_home_mounts_example_one_with_every_caption():
    """Home's live figure is sent the sample of the largest |O|, the URL's |O| and the
    caption of every |O| (the server's rule), the one shown first that of the URL's |O|."""
    at = open_app(o="9")
    live = [e for e in at.main if getattr(e, "key", None) == "_live_example"]
    assert len(live) == 1 and not at.get("plotly_chart")
    sent = json.loads(live[0].proto.json)
    assert (sent["kind"], sent["outliers"], len(sent["draws"])) == ("example", 9, 20)
    expected = [
        home_caption(example_one(200, o, HOME_H, X0, 0, 2 * o + 1), o, HOME_H) for o in range(21)
    ]
    assert sent["captions"] == expected


@pytest.mark.browser
def test_home_follows_its_slider_in_the_page(server, page):
    """Home: a key on the |O| slider redraws both panels with the library's Example 1 and the
    caption of the new |O|, with no message to the server until the release, which writes
    |O| into the URL."""
    page.goto(server)
    wait_until_idle(page)
    page.wait_for_selector(LIVE, timeout=60_000)
    page.wait_for_function("() => window.__liveLesson && window.__liveLesson.kind === 'example'")
    sent = []
    page.on("websocket", lambda ws: ws.on("framesent", sent.append))
    slider = page.locator('[data-role="outliers-slider"]')
    frame = _frame(page)
    slider.focus()
    page.keyboard.down("ArrowRight")
    page.wait_for_function("(f) => window.__liveLesson.frame > f", arg=frame)
    shown = _live(page)
    outliers = shown["model"]["outliers"]
    # (drawn by the key's handler: its release, a message, may follow on the same keydown)
    assert outliers == HOME_OUTLIERS + 1
    ex = example_one(200, outliers, HOME_H, X0, 0, 2 * outliers + 1)
    # (counts over 2 h n: the same integers, divided alike)
    np.testing.assert_allclose(shown["mom"], ex["curves"]["mom_kde"], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(shown["kde"], ex["curves"]["kde"], rtol=1e-12, atol=1e-300)
    assert shown["readout"] == home_caption(ex, outliers, HOME_H)
    page.keyboard.up("ArrowRight")
    page.wait_for_function("(o) => location.search.includes('o=' + o)", arg=outliers)
    assert page.console_errors == []


# ---------------------------------------------------------------- Learn: the construction


def test_learn_mounts_the_construction_with_every_steps_caption():
    """Learn's live construction is sent the library's frames and each step's caption (the
    server's rule); the URL's step is shown first."""
    at = open_app(LEARN_PAGE, step="median")
    live = [e for e in at.main if getattr(e, "key", None) == "_live_steps"]
    assert len(live) == 1
    sent = json.loads(live[0].proto.json)
    steps = construction(*BUILD)
    assert sent["step"] == "median" and len(sent["blocks"]) == steps.n_blocks
    assert sent["captions"] == {k: step_caption(steps, k) for k in STEPS}
    assert not [c for c in at.get("plotly_chart") if c.proto.id.endswith("construction_figure")]


@pytest.mark.browser
def test_learn_steps_redraw_in_the_page(server, page):
    """A click on a step redraws the construction and its caption at once (before any server
    run: the frame is drawn in the click's handler); the URL follows."""
    page.goto(f"{server}/learn")
    wait_until_idle(page)
    page.wait_for_selector('[data-kind="steps"]', timeout=60_000)
    steps = construction(*BUILD)
    for step in ("split", "blocks", "median", "compare"):
        page.locator(f'[data-step="{step}"]').click()
        shown = page.evaluate("() => window.__liveLesson")
        assert shown["step"] == step and shown["readout"] == step_caption(steps, step)
        page.wait_for_function("(s) => location.search.includes('step=' + s)", arg=step)
    assert page.locator(f"{LIVE} .line.block-faint").count() == 0  # (compare: no blocks)
    assert page.console_errors == []


@pytest.mark.browser
def test_unticking_keep_h_lets_the_rule_run_again_on_release(server, page):
    """With "keep h" unticked, a release leaves h to the robust rule (no h in the URL): the
    server's run searches it again on the moved sample and the figure draws that h."""
    _open(page, server, "scheme=none&n=200&k=12&at=3&x0=3&Smode=manual&S=21")
    page.locator('[data-role="keep-h"]').uncheck()
    frame = _frame(page) + 1
    page.locator('[data-role="cluster-handle"]').focus()
    page.keyboard.press("Shift+ArrowRight")
    _synced(page, "at=3.5", frame)
    assert "h" not in _query(page) and _query(page).get("hmode", "robust") == "robust"
    data = placed_sample("none", 200, 0.0, 1, 0, 12, (3.5,))
    rule = choose_bandwidth(data.X, "robust", "gaussian", 0, 0.0).h  # (ε follows the true 0)
    assert _live(page)["model"]["h"] == pytest.approx(rule, rel=1e-12)
    assert page.console_errors == []


@pytest.mark.browser
def test_the_plane_without_web_workers(server, page):
    """A browser without Web Workers: the 2-D frames are computed on the main thread, by the
    same functions, with the same numbers."""
    page.add_init_script("delete window.Worker;")
    shown = _open(page, server, "dim=2&n=100&k=5&at=4&aty=4&x0=3&y0=3")
    assert shown["dim"] == 2 and not shown["inWorker"]
    _assert_plane(shown, "uniform", 100, 0.1, 0.1)
    assert page.console_errors == []


@pytest.mark.browser
def test_a_bandwidth_the_library_normalises_by_sampling_is_said(server, page):
    """2-D at h = 0.02: the library's normalising grid would exceed its size (it samples
    instead), the page sums on a capped grid and its words say so."""
    shown = _open(page, server, "dim=2&n=100&hmode=slider&h=0.02&k=0")
    assert not shown["normalisedAsLibrary"]
    assert "estimates that integral by importance sampling" in shown["readout"]
    assert page.console_errors == []


def test_x0_opens_on_the_schemes_outliers():
    """#53: under the adversarial scheme (its spike on the inlier mode at 0) x₀ opens at 0,
    where the strip shows blocks holding an outlier, not at 3, where it was empty."""
    at = open_app(EXPLORE, fig="live", scheme="adversarial")
    sent = json.loads(
        next(e for e in at.main if getattr(e, "key", None) == "_live_lesson").proto.json
    )
    assert sent["x0"] == 0.0
    assert open_app(EXPLORE, fig="live", scheme="uniform").slider(key="x0").value == 3.0

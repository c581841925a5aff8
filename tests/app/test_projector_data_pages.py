"""Your data, Real data and the Contamination sweep fit a projector: at 1024 x 768 and
1280 x 800, in headless Chromium, no table, legend, widget label, text or figure of these
pages runs past the main column, and no table or label is cut.

Every expander is opened first, so what it holds is measured too (the ranking's tabs other
than the one open are hidden: the open one is measured). A data frame (the ranking) keeps its
own frame inside the column and scrolls its columns inside it, with its index fixed, as
Streamlit draws every data frame: the frame is measured, not the columns it scrolls through.
Screenshots of each page and size go to tests/_artifacts/projector/ (to look at).

Needs Debian's /usr/bin/chromium (never a downloaded browser); skipped when it is missing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, free_port, wait_until_idle

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO / "tests" / "_artifacts" / "projector"
#: The two projector screens.
VIEWPORTS = [(1024, 768), (1280, 800)]
#: The views measured: a name for the screenshot -> the page's URL path and query.
VIEWS = {
    "your_data_1d": "your_data",
    "your_data_2d": "your_data?plot=temperature_c&plot=humidity_pct",
    "your_data_staff": "your_data?sample=staff",  # text columns scored as categories
    "real_data": "real_data?sets=iris&sets=breast_cancer",
    "real_data_adbench": "real_data?view=ADBench",
    "sweep_adversarial": "sweep?scheme=adversarial&reps=2&n=200",
}
#: What a page's figures draw once they are drawn (curves, markers, maps, bars).
DRAWN = (
    ".js-plotly-plot .scatterlayer .trace, .js-plotly-plot .heatmaplayer image, "
    ".js-plotly-plot .barlayer .trace"
)
#: The elements whose right edge is compared with the main column's, and those that must
#: not be cut (their content wider than their box): JavaScript returning the offenders.
MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const box = main.getBoundingClientRect();
  const style = getComputedStyle(main);
  const right = box.right - parseFloat(style.paddingRight) + 1;  // the column's content edge
  const left = box.left + parseFloat(style.paddingLeft) - 1;
  const name = (el) => {
    const owner = el.closest('[data-testid]');
    return (owner ? owner.getAttribute('data-testid') + ' > ' : '')
      + (el.getAttribute('data-testid') || el.getAttribute('class') || el.tagName).toString().slice(0, 60)
      + ': ' + (el.textContent || '').trim().slice(0, 60);
  };
  const shown = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const past = [], cut = [];
  // every element of the column, but a data frame's scrolled columns and a figure's insides
  for (const el of main.querySelectorAll('*')) {
    const frame = el.closest('[data-testid="stDataFrameResizable"]');  // (with its resize handles)
    if (!shown(el) || (frame && el.getAttribute('data-testid') !== 'stDataFrame')
        || el.closest('.js-plotly-plot')) continue;
    const r = el.getBoundingClientRect();
    if (r.right > right || r.left < left) past.push(name(el) + ` [${Math.round(r.left)}, ${Math.round(r.right)}]`);
  }
  // a figure's legend inside its own figure
  for (const plot of main.querySelectorAll('.js-plotly-plot')) {
    if (!shown(plot)) continue;
    const frame = plot.getBoundingClientRect();
    if (frame.right > right) past.push('figure: ' + Math.round(frame.right));
    for (const legend of plot.querySelectorAll('.legend')) {
      const r = legend.getBoundingClientRect();
      if (r.width && (r.right > frame.right + 1 || r.left < frame.left - 1 || r.bottom > frame.bottom + 1))
        past.push('legend: ' + (legend.textContent || '').slice(0, 60) + ` [${Math.round(r.left)}, ${Math.round(r.right)}, ${Math.round(r.bottom)}]`);
    }
  }
  // tables and labels that scroll or clip their content
  for (const el of main.querySelectorAll(
      '[data-testid="stTable"], [data-testid="stTable"] table, [data-testid="stWidgetLabel"] p, '
      + '[data-testid="stTab"] p, [data-testid="stExpander"] summary')) {
    if (shown(el) && el.scrollWidth > el.clientWidth + 1) cut.push(name(el) + ` (${el.scrollWidth} > ${el.clientWidth})`);
  }
  return {past, cut};
}"""

# skipped only for a missing optional component, named
if not CHROMIUM.exists():
    pytest.skip(
        f"{CHROMIUM} is missing: Debian's chromium package runs these", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="pip install -e '.[test]'")

from benchmarks.bench_app_redraw import start_server, stop_server  # noqa: E402


@pytest.fixture(scope="module")
def app() -> Iterator[tuple[str, object]]:
    """The app served on a free port (``streamlit run app.py``) and Debian's Chromium, both
    stopped when the module's tests are done."""
    port = free_port()
    proc = start_server(port)
    try:
        with sync_api.sync_playwright() as pw:
            chromium = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            yield f"http://127.0.0.1:{port}", chromium
            chromium.close()
    finally:
        stop_server(proc)


def _open_every_expander(tab) -> None:
    """Click every closed expander of the main column open, then wait for the page."""
    tab.evaluate(
        """() => document.querySelectorAll('[data-testid="stMainBlockContainer"] '
               + '[data-testid="stExpander"] details:not([open]) > summary')
               .forEach(summary => summary.click())"""
    )
    wait_until_idle(tab, 180_000)
    tab.wait_for_timeout(1_000)  # the opened content laid out


@pytest.mark.parametrize("size", VIEWPORTS, ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("view", list(VIEWS))
def test_nothing_runs_past_the_main_column(app, view, size):
    base, browser = app
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    tab = context.new_page()
    try:
        tab.goto(f"{base}/{VIEWS[view]}")
        wait_until_idle(tab, 180_000)
        tab.wait_for_selector(DRAWN, timeout=180_000)  # the figures drawn, not only laid out
        wait_until_idle(tab, 180_000)
        _open_every_expander(tab)
        found = tab.evaluate(MEASURE)
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        # the page scrolls inside its main section: a view as tall as it shows all of it
        tall = tab.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
        tab.set_viewport_size({"width": width, "height": max(height, tall)})
        tab.wait_for_timeout(500)
        tab.screenshot(path=str(ARTIFACTS / f"{view}_{width}x{height}.png"))
        assert tab.locator('[data-testid="stMainBlockContainer"] .js-plotly-plot').count() > 0
        assert found["past"] == [], found["past"]
        assert found["cut"] == [], found["cut"]
    finally:
        context.close()

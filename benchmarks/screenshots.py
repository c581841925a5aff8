"""Screenshots of app pages for the README, at 1400 x 1000 in Debian's headless Chromium.

Run from anywhere: ``python benchmarks/screenshots.py [your_data ...]`` (default: every page
photographed in ``assets/`` by this script; a part of a page below its first screen, the
median at work's, is scrolled to the top of a taller view: :data:`PARTS`). Starts ``streamlit run app.py`` on a free port
(stopped at the end), opens each page, waits until its figures are drawn and the script run
is over, and writes ``assets/<name>.png``. Look at the images before committing them. The
server and browser helpers are the redraw benchmark's and the browser test's.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.bench_app_redraw import start_server, stop_server  # noqa: E402
from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, free_port, wait_until_idle  # noqa: E402

#: Image name -> the page's URL path (with the query that shows what the README says).
PAGES = {
    "home": "",
    "explore": "explore",
    "explore_2d": "explore?dim=2",
    "sweep": "sweep",
    "your_data": "your_data?sample=sensor_glitches.csv",
    "real_data": "real_data",
    "learn": "learn",
    "median_at_work": "explore?scheme=none&Smode=manual&k=12&at=3&x0=3",
    "median_breakdown": "explore?scheme=none&Smode=manual&k=24&at=3&x0=3",
    "learn_steps": "learn?step=median",
}
#: Image name -> what is scrolled to the top of the view (a CSS selector, or else a text), and
#: the view's height, for the images of a part of a page below its first screen.
PARTS = {
    "median_at_work": ('[data-testid="live-lesson"]', 1150),
    "median_breakdown": ('[data-testid="live-lesson"]', 1150),
    "learn_steps": ("MoM-KDE built step by step", 1000),
}
VIEWPORT = {"width": 1400, "height": 1000}
FIGURE = (
    ".js-plotly-plot .scatterlayer .trace, .js-plotly-plot .heatmaplayer image, "
    '[data-testid="live-lesson"] svg path'
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "names", nargs="*", choices=[*PAGES, []], help="pages to photograph (default: all)"
    )
    names = parser.parse_args().names or list(PAGES)
    port = free_port()
    server = start_server(port)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            tab = browser.new_page(viewport=VIEWPORT)
            for name in names:
                tab.goto(f"http://127.0.0.1:{port}/{PAGES[name]}")
                wait_until_idle(tab)
                tab.wait_for_selector(FIGURE, timeout=120_000)
                wait_until_idle(tab)
                if name in PARTS:
                    text, height = PARTS[name]
                    tab.set_viewport_size({**VIEWPORT, "height": height})
                    target = (
                        tab.locator(text)
                        if text.startswith("[")
                        else tab.get_by_text(text, exact=True)
                    )
                    target.first.evaluate("e => e.scrollIntoView({block: 'start'})")
                else:
                    tab.set_viewport_size(VIEWPORT)
                tab.wait_for_timeout(800)  # let the figures finish their transitions
                path = REPO / "assets" / f"{name}.png"
                tab.screenshot(path=str(path))
                print(f"wrote {path}")
            browser.close()
    finally:
        stop_server(server)


if __name__ == "__main__":
    main()

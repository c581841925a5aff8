"""How long each page of the app takes to settle when a fresh browser opens it on a warm server.

Run from anywhere: ``python benchmarks/bench_cold_open.py [--reps 5] [--repo PATH]
[--label NAME] [--json FILE] [--write-docs BEFORE.json AFTER.json]``.

Starts ``streamlit run app.py`` from ``--repo`` (default: this repository; another checkout
measures that code) on a free port, opens every page once and waits until the server is idle
(its background warm-up done), then, ``--reps`` times over, opens each page of :data:`PAGES`
in a new browser context (no cookie, no cache, a new session) of Debian's headless Chromium
at 1280 x 800. A page's time runs from the navigation until it settles: its text and its
figures (every drawn curve, contour path and heatmap image) stop changing for 0.4 s once the
script run is over (:func:`benchmarks.bench_app_redraw.settle`); the time of the last change
is the page's. A benchmark, not a test: it prints median (max) per page and asserts nothing.
``--json`` keeps the results; ``--write-docs`` puts two such files side by side (before,
after) into docs/benchmarks.md, section ``cold-open``.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks._docs_tables import checkout_parser, run_or_write  # noqa: E402
from benchmarks.bench_app_redraw import (  # noqa: E402
    settle,
    start_server,
    stop_server,
    wait_server_idle,
)
from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, free_port  # noqa: E402

#: The pages, by name: the path and query each opens on (its defaults).
PAGES = {
    "Home": "",
    "Explore 1-D": "explore",
    "Explore 2-D": "explore?dim=2",
    "Sweep": "sweep",
    "Your data": "your_data",
    "Real data": "real_data",
    "Learn": "learn",
}
VIEWPORT = {"width": 1280, "height": 800}


def open_page(browser, base: str, path: str) -> float:
    """Seconds until ``path`` settles in a new browser context (a fresh browser's visit)."""
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    start = time.perf_counter()
    tab.goto(f"{base}/{path}")
    seconds = settle(tab, start)
    context.close()
    return seconds


def measure(repo: Path, reps: int) -> dict:
    """The server's first page and the seconds it then stays busy (its own warm-up), each
    page's first visit once it is idle, then every page's times over ``reps`` rounds."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(port, repo)
    result: dict = {"pages": {name: [] for name in PAGES}}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                # the server's first page: the imports, and the start of its warm-up thread
                result["start_s"] = open_page(browser, base, PAGES["Home"])
                result["server_warm_s"] = wait_server_idle(server.pid)
                result["first"] = {
                    name: open_page(browser, base, path) for name, path in PAGES.items()
                }
                wait_server_idle(server.pid)
                for rep in range(reps):
                    for name, path in PAGES.items():
                        result["pages"][name].append(open_page(browser, base, path))
                    print(
                        f"round {rep + 1}: "
                        + ", ".join(f"{n} {v[-1]:.2f}" for n, v in result["pages"].items())
                    )
            finally:
                browser.close()
    finally:
        stop_server(server)
    return result


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({max(values):.2f})"


def docs_table(before: dict, after: dict) -> str:
    """The before/after table of two runs: each page's first visit, then median (max) seconds
    on the warm server and the ratio of the medians."""
    lines = [
        "| page | first visit before | after | warm server before | after | after / before |",
        "|---|---|---|---|---|---|",
    ]
    for name in PAGES:
        old, new = before["pages"][name], after["pages"][name]
        ratio = statistics.median(new) / statistics.median(old)
        first = [f"{run['first'][name]:.2f}" for run in (before, after)]
        lines.append(f"| {name} | {' | '.join(first)} | {cell(old)} | {cell(new)} | {ratio:.2f} |")
    return "\n".join(lines)


def describe(before: dict, after: dict) -> str:
    """The docs' text of two runs: what they are, the table, the machine of each."""
    return (
        f"Before: {before['label']}; after: {after['label']}. Median (max) seconds over "
        f"{len(after['pages']['Home'])} fresh browser contexts per page, at 1280 x 800.\n\n"
        + docs_table(before, after)
        + "\n\n"
        + " ".join(
            f"{which}: the server's first page {run['start_s']:.1f} s, then busy "
            f"{run['server_warm_s']:.0f} s warming up; {run['machine']}"
            for which, run in (("Before", before), ("After", after))
        )
    )


def main() -> None:
    parser = checkout_parser(__doc__.split("\n\n")[0], REPO)
    parser.add_argument("--reps", type=int, default=5, help="rounds over the pages (default 5)")
    args = parser.parse_args()
    result = run_or_write(args, "cold-open", describe, lambda repo: measure(repo, args.reps))
    for name, values in (result or {}).get("pages", {}).items():
        print(f"{name:<12} {cell(values)}")


if __name__ == "__main__":
    main()

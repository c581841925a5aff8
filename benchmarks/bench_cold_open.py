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
is the page's. In the same rounds it opens Streamlit's own floor (:data:`FLOOR`), two pages
of a tiny app served beside it with the repository's ``.streamlit/config.toml``: one holding
a title alone (its time: until the title shows and the script run is over) and one holding a
title and one small Plotly chart (settled as the app's pages). A benchmark, not a test: it
prints median (max) per page and asserts nothing. ``--json`` keeps the results;
``--write-docs`` puts two such files side by side (before, after) into docs/benchmarks.md,
section ``cold-open``.
"""

from __future__ import annotations

import shutil
import statistics
import sys
import tempfile
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
from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, free_port, wait_until_idle  # noqa: E402

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
#: Streamlit's floor, by name: the path each opens on in :data:`FLOOR_APP`.
FLOOR = {"Floor: a title": "", "Floor: a title, one Plotly chart": "plotly"}
#: The floor's app: a page of a title alone, and a page of a title and one small Plotly chart.
FLOOR_APP = """import plotly.graph_objects as go
import streamlit as st


def plotly_page():
    st.title("A title, one Plotly chart")
    st.plotly_chart(go.Figure(go.Scatter(y=[1, 3, 2])))


st.navigation(
    [
        st.Page(lambda: st.title("A title"), title="Title", default=True),
        st.Page(plotly_page, title="Plotly", url_path="plotly"),
    ]
).run()
"""
VIEWPORT = {"width": 1280, "height": 800}


def open_page(browser, base: str, path: str, drawn: bool = True) -> float:
    """Seconds until ``path`` settles in a new browser context (a fresh browser's visit); a
    page that draws no figure (``drawn`` False: the floor's title), until its run is over."""
    context = browser.new_context(viewport=VIEWPORT)
    tab = context.new_page()
    start = time.perf_counter()
    tab.goto(f"{base}/{path}")
    if drawn:
        seconds = settle(tab, start)
    else:
        wait_until_idle(tab)
        seconds = time.perf_counter() - start
    context.close()
    return seconds


def floor_server(repo: Path, folder: Path) -> tuple:
    """:data:`FLOOR_APP` served on a free port from ``folder``, with ``repo``'s
    ``.streamlit/config.toml``: the server and its address."""
    (folder / "app.py").write_text(FLOOR_APP)
    (folder / ".streamlit").mkdir()
    shutil.copy(repo / ".streamlit" / "config.toml", folder / ".streamlit" / "config.toml")
    port = free_port()
    return start_server(port, folder), f"http://127.0.0.1:{port}"


def rounds(browser, sites: dict, reps: int) -> dict:
    """``reps`` rounds over ``sites`` (each group's address and pages, as
    :data:`PAGES`): every page's seconds per round, by group and name."""
    times = {group: {name: [] for name in pages} for group, (_, pages) in sites.items()}
    for rep in range(reps):
        for group, (base, pages) in sites.items():
            for name, path in pages.items():
                drawn = group == "pages" or bool(path)  # (the floor's title draws nothing)
                times[group][name].append(open_page(browser, base, path, drawn))
        shown = {name: v[-1] for group in times.values() for name, v in group.items()}
        print(f"round {rep + 1}: " + ", ".join(f"{n} {v:.2f}" for n, v in shown.items()))
    return times


def measure(repo: Path, reps: int) -> dict:
    """The server's first page and the seconds it then stays busy (its own warm-up), each
    page's first visit once it is idle, then every page's and the floor's times over
    ``reps`` rounds (the floor's server started once the app's is idle)."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = start_server(port, repo)
    result: dict = {}
    try:
        with sync_playwright() as pw, tempfile.TemporaryDirectory() as folder:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                # the server's first page: the imports, and the start of its warm-up thread
                result["start_s"] = open_page(browser, base, PAGES["Home"])
                result["server_warm_s"] = wait_server_idle(server.pid)
                result["first"] = {
                    name: open_page(browser, base, path) for name, path in PAGES.items()
                }
                floor, floor_base = floor_server(repo, Path(folder))
                try:
                    for path in FLOOR.values():  # (the floor server's imports)
                        open_page(browser, floor_base, path, bool(path))
                    wait_server_idle(server.pid)
                    sites = {"pages": (base, PAGES), "floor": (floor_base, FLOOR)}
                    result.update(rounds(browser, sites, reps))
                finally:
                    stop_server(floor)
            finally:
                browser.close()
    finally:
        stop_server(server)
    return result


def cell(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({max(values):.2f})"


def docs_table(before: dict, after: dict) -> str:
    """The before/after table of two runs: each page's first visit, then median (max) seconds
    on the warm server and the ratio of the medians; then the floor's rows (a run without
    them shows a dash)."""
    lines = [
        "| page | first visit before | after | warm server before | after | after / before |",
        "|---|---|---|---|---|---|",
    ]
    for name in PAGES:
        old, new = before["pages"][name], after["pages"][name]
        ratio = statistics.median(new) / statistics.median(old)
        first = [f"{run['first'][name]:.2f}" for run in (before, after)]
        lines.append(f"| {name} | {' | '.join(first)} | {cell(old)} | {cell(new)} | {ratio:.2f} |")
    for name in FLOOR:
        old, new = (run.get("floor", {}).get(name) for run in (before, after))
        ratio = f"{statistics.median(new) / statistics.median(old):.2f}" if old and new else "—"
        shown = [cell(v) if v else "—" for v in (old, new)]
        lines.append(f"| {name} | — | — | {' | '.join(shown)} | {ratio} |")
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
    for name, values in {
        **(result or {}).get("pages", {}),
        **(result or {}).get("floor", {}),
    }.items():
        print(f"{name:<32} {cell(values)}")


if __name__ == "__main__":
    main()

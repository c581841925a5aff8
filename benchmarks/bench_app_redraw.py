"""How long the Explore page takes to redraw its figure after one slider move, in a real browser.

Run from anywhere: ``python benchmarks/bench_app_redraw.py [--moves 10] [--dim 2]``.
``--dim 2`` opens the 2-D view (``dim=2``: four contour maps of n = 1000 inliers on the
110 x 110 plot grid) and watches the maps' contour paths instead of the MoM-KDE curve.

Starts ``streamlit run app.py`` on a free port (stopped at the end), opens
``/explore?n=1000&ratio=0.1&Smode=manual`` in Debian's headless Chromium (``/usr/bin/chromium``, driven
by Playwright's sync API; never a downloaded browser), waits for the Plotly traces, then for
each slider moves it by one step (focus its thumb, one ArrowRight) and measures the wall
time from the key press until the drawn SVG path of the MoM-KDE curve changes (polled every
~10 ms), and until the script run is over (no running indicator):

- S, number of blocks: only MoM-KDE is refitted (the other estimators come from the cache);
- Outlier ratio: a new sample, so CV bandwidth and all four estimators are recomputed. The
  slider stops at 0.5, so after it the moves go left; a value already visited at the same S
  is a cache hit, reported apart.

A benchmark, not a test: it prints median and max per slider and asserts nothing on time.
The browser helpers (Chromium path and flags, free port, idle wait) are the browser test's
(:mod:`benchmarks.browser`).
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks.browser import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TRACE,
    curve_path,
    free_port,
    is_path_probe,
    streamlit_command,
    wait_until_idle,
)

URL_PATH = "explore?n=1000&ratio=0.1&Smode=manual"  # S on its slider (default: auto)
# each control's label: exact, or a pattern for the S slider (its label names S auto)
SLIDERS = {"S": re.compile(r"^S \(auto: \d+; log scale\)"), "ratio": "Outlier ratio |O| / n"}
MOM_KDE_STROKE = (
    "rgb(194, 24, 91)"  # METHOD_COLORS["mom_kde"] (#C2185B); the block KDEs are rgba(…, 0.25)
)
POLL_S = 0.010
TIMEOUT_S = 120.0

MOM_KDE_PATH_JS = """(stroke) => {
    const lines = Array.from(document.querySelectorAll('.js-plotly-plot .scatterlayer .trace path.js-line'));
    const mom = lines.find(p => p.style.stroke === stroke);
    return mom ? mom.getAttribute('d') : null;
}"""


def start_server(port: int) -> subprocess.Popen:
    """``streamlit run app.py`` from the repository root; returns once it answers its health check."""
    proc = subprocess.Popen(
        streamlit_command(port),
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    )
    for _ in range(240):
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {proc.returncode}")
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
            return proc
        except OSError:
            time.sleep(0.25)
    stop_server(proc)
    raise RuntimeError("streamlit did not start within 60 s")


def stop_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


CONTOUR = ".js-plotly-plot .contourlayer path"
# a digest (length and ends of each path), not the paths: 135 paths of ~10 kB each, read
# every 10 ms, would load the browser being timed
CONTOUR_PATHS_JS = f"""() => Array.from(document.querySelectorAll('{CONTOUR}'))
    .map(p => {{ const d = p.getAttribute('d') || ''; return d.length + d.slice(0, 40) + d.slice(-40); }})
    .join('|')"""


def drawn_path(tab, dim: int = 1) -> str:
    """The MoM-KDE curve's ``d`` attribute (all curves joined if it is not drawn); in 2-D
    a digest of the contour paths of all maps."""
    if dim == 2:
        return tab.evaluate(CONTOUR_PATHS_JS)
    d = tab.evaluate(MOM_KDE_PATH_JS, MOM_KDE_STROKE)
    return d if d is not None else curve_path(tab)


def slider_thumb(tab, label: str | re.Pattern):
    """The focusable thumb of the slider whose label is exactly ``label`` (or matches it)."""
    control = tab.locator('[data-testid="stSlider"]').filter(has=tab.get_by_text(label, exact=True))
    thumb = control.locator('[role="slider"]')
    return thumb if thumb.count() else control.get_by_role("slider")


def slider_value(thumb) -> str:
    return thumb.get_attribute("aria-valuetext") or thumb.input_value()


def at_max(thumb) -> bool:
    value, top = thumb.get_attribute("aria-valuenow"), thumb.get_attribute("aria-valuemax")
    if value is None or top is None:
        value, top = thumb.input_value(), thumb.get_attribute("max")
    return value is not None and top is not None and float(value) >= float(top)


def one_move(tab, label: str | re.Pattern, key: str, dim: int = 1) -> dict:
    """Press ``key`` once on the slider ``label``; seconds until the path changes and until idle."""
    thumb = slider_thumb(tab, label)
    thumb.focus()
    before_value = slider_value(thumb)
    before = drawn_path(tab, dim)
    start = time.perf_counter()
    tab.keyboard.press(key)
    redraw = None
    while time.perf_counter() - start < TIMEOUT_S:
        if drawn_path(tab, dim) != before:
            redraw = time.perf_counter() - start
            break
        time.sleep(POLL_S)
    wait_until_idle(tab, timeout=TIMEOUT_S * 1000)
    idle = time.perf_counter() - start
    after_value = slider_value(slider_thumb(tab, label))
    tab.wait_for_timeout(300)  # let the frontend settle before the next move
    return {"from": before_value, "to": after_value, "redraw": redraw, "idle": idle}


def summary(name: str, moves: list[dict]) -> str:
    drawn = [m["redraw"] for m in moves if m["redraw"] is not None]
    missed = len(moves) - len(drawn)
    idle = [m["idle"] for m in moves]
    text = (
        f"{name:<28} n={len(moves):2d}  redraw median {statistics.median(drawn):6.3f} s  "
        f"max {max(drawn):6.3f} s"
        if drawn
        else f"{name:<28} n={len(moves):2d}  no redraw seen"
    )
    text += f"  | run over: median {statistics.median(idle):6.3f} s  max {max(idle):6.3f} s"
    return text + (f"  ({missed} move(s) without a redraw)" if missed else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--moves", type=int, default=10, help="slider moves per slider (default 10)"
    )
    parser.add_argument("--query", default="", help="more URL parameters, e.g. hmode=cv")
    parser.add_argument(
        "--dim",
        type=int,
        choices=[1, 2],
        default=1,
        help="the 1-D view (curves) or the 2-D one (contour maps)",
    )
    args = parser.parse_args()
    port = free_port()
    server = start_server(port)
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                tab = browser.new_context(viewport={"width": 1400, "height": 900}).new_page()
                errors: list[str] = []
                tab.on(
                    "console",
                    lambda msg: (
                        errors.append(msg.text)
                        if msg.type == "error" and not is_path_probe(msg.location.get("url", ""))
                        else None
                    ),
                )
                t0 = time.perf_counter()
                url_path = (
                    URL_PATH
                    + ("&dim=2" if args.dim == 2 else "")
                    + (f"&{args.query}" if args.query else "")
                )
                drawn = CONTOUR if args.dim == 2 else TRACE
                tab.goto(f"http://127.0.0.1:{port}/{url_path}")
                wait_until_idle(tab, timeout=TIMEOUT_S * 1000)
                tab.wait_for_selector(drawn, timeout=TIMEOUT_S * 1000)
                tab.wait_for_function(f"() => document.querySelectorAll('{drawn}').length > 0")
                wait_until_idle(tab, timeout=TIMEOUT_S * 1000)
                print(
                    f"first load of /{url_path}: {time.perf_counter() - t0:.2f} s "
                    f"({tab.locator(drawn).count()} {'contour paths' if args.dim == 2 else 'traces'})"
                )
                results: dict[str, list[dict]] = {}
                for name, label in SLIDERS.items():
                    results[name], seen, key = (
                        [],
                        {slider_value(slider_thumb(tab, label))},
                        "ArrowRight",
                    )
                    for _ in range(args.moves):
                        if key == "ArrowRight" and at_max(slider_thumb(tab, label)):
                            key = "ArrowLeft"
                        move = one_move(tab, label, key, args.dim)
                        move["cached"] = move["to"] in seen
                        seen.add(move["to"])
                        results[name].append(move)
                        redraw = "   none" if move["redraw"] is None else f"{move['redraw']:7.3f}"
                        print(
                            f"  {name:>5} {move['from']:>5} -> {move['to']:<5} redraw {redraw} s  "
                            f"run over {move['idle']:7.3f} s{'  (cached)' if move['cached'] else ''}"
                        )
                print()
                for name, moves in results.items():
                    print(summary(f"{name} (all moves)", moves))
                    fresh = [m for m in moves if not m["cached"]]
                    if len(fresh) < len(moves):
                        print(summary(f"{name} (new values only)", fresh))
                if errors:
                    print("console errors:", *errors, sep="\n  ")
            finally:
                browser.close()
    finally:
        stop_server(server)


if __name__ == "__main__":
    main()

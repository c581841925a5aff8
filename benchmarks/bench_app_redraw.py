"""How long Explore takes to redraw after one move of a control, and to load, in a real browser.

Run from anywhere: ``python benchmarks/bench_app_redraw.py [--moves 5] [--repo PATH]
[--label NAME] [--json FILE] [--write-docs BEFORE.json AFTER.json]``.

Starts ``streamlit run app.py`` from ``--repo`` (default: this repository; another checkout,
e.g. a ``git worktree`` of an older commit, measures that code with this benchmark) on a free
port, with ``PYTHONPATH`` at that checkout, and drives Debian's headless Chromium
(``/usr/bin/chromium``, Playwright's sync API; never a downloaded browser) at 1400 x 1000:

- **cold load**: the first ``/explore`` of the fresh server (imports included), then, once the
  server is idle (it may compute views ahead after its first page: the time it stays busy is
  reported), a new session on ``/explore`` (1-D) and on ``/explore?dim=2``;
- **moves**, each from a new session on the opening view (1-D, then 2-D): ``--moves`` presses
  of ArrowRight on the outlier ratio (0.1 -> 0.15 -> ...), the other schemes and kernels picked
  in turn from their select boxes, and ArrowRight on S and on h with ``Smode=manual`` /
  ``hmode=slider`` in the URL (so their sliders move), and ArrowRight on the outliers placed
  (k, from 10) and on the locked point x0 (the median at work's moves: the strip redraws);
- the same moves with ``seed=1`` in the URL: views no server computes ahead.

A move is timed from the key press (or the click on the option) until the page settles: the
figure (every drawn curve, contour path and heatmap image) and the page's text stop changing
for 0.4 s once the script run is over; the time of the last change is the move's. A benchmark,
not a test: it prints median (max) per move and asserts nothing on time. ``--json`` keeps the
results; ``--write-docs`` puts two such files side by side (before, after) into
docs/benchmarks.md, section ``app-redraw``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks._docs_tables import checkout_parser, run_or_write  # noqa: E402
from benchmarks.browser import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    RUNNING_JS,
    free_port,
    streamlit_command,
)

#: The opening view (the load test's too): Explore at its defaults.
URL_PATH = "explore?fig=plotly"
#: Each slider's label: exact, or its start (the S and h sliders name their automatic value).
SLIDERS = {
    "ratio": "Outlier ratio |O| / n",
    "S": "S (auto: ",
    "h": "h",
    "k": "Place k outliers",
    "x0": "Locked point x₀",
}
SELECTS = {"scheme": "Contamination scheme", "kernel": "Kernel"}
#: Moves, in the order run: (name, control, extra URL parameters).
MOVES = (
    ("outlier ratio", "ratio", ""),
    ("scheme", "scheme", ""),
    ("kernel", "kernel", ""),
    ("S", "S", "Smode=manual"),
    ("h", "h", "hmode=slider"),  # the URL holds the option's label
    ("outliers placed k", "k", "k=10"),  # (the median at work: the strip redraws too)
    ("locked point x0", "x0", "k=10"),
)
VIEWPORT = {"width": 1400, "height": 1000}
POLL_S = 0.025
SETTLE_S = 0.4
TIMEOUT_S = 120.0

#: The elements matching a selector in the page and in its components' shadow roots (the
#: live figures are drawn in one).
FIND_JS = """(selector) => [document, ...Array.from(document.querySelectorAll('*'), e => e.shadowRoot)
    .filter(Boolean)].flatMap(root => Array.from(root.querySelectorAll(selector)))"""
#: A digest of what the page shows: the figure's drawn elements (length and ends of each: the
#: paths and images are long) and the main area's text (metrics, captions).
DIGEST_JS = f"""() => {{
    const drawn = ({FIND_JS})(
        '.js-plotly-plot .scatterlayer path.js-line, .js-plotly-plot .contourlayer path, '
        + '.js-plotly-plot .heatmaplayer image, .js-plotly-plot .scatterlayer path.point, '
        + '[data-testid="live-lesson"] svg path')
        .map(e => {{ const d = e.getAttribute('d') || e.getAttribute('href') || '';
                    return d.length + d.slice(0, 30) + d.slice(-60); }});
    const main = document.querySelector('[data-testid="stMain"]');
    return drawn.length + ':' + drawn.join('|') + '#' + (main ? main.innerText : '');
}}"""
DRAWN_JS = f"""() => ({FIND_JS})(
    '.js-plotly-plot .scatterlayer .trace, .js-plotly-plot .heatmaplayer image, '
    + '.js-plotly-plot .contourlayer path, [data-testid="live-lesson"] svg path').length > 0"""


def start_server(port: int, repo: Path = REPO) -> subprocess.Popen:
    """``streamlit run app.py`` from ``repo``; returns once it answers its health check."""
    proc = subprocess.Popen(
        streamlit_command(port),
        cwd=repo,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env={**os.environ, "PYTHONPATH": str(repo)},
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


def cpu_seconds(pid: int) -> float:
    """The process's CPU time so far (user + system, all its threads), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wait_server_idle(pid: int, timeout: float = 300.0) -> float:
    """Seconds until the server uses less than 5 % of a core over one second."""
    start = time.perf_counter()
    before = cpu_seconds(pid)
    while time.perf_counter() - start < timeout:
        time.sleep(1.0)
        now = cpu_seconds(pid)
        if now - before < 0.05:
            break
        before = now
    return time.perf_counter() - start


def settle(tab, start: float) -> float:
    """Seconds from ``start`` to the last change of the page, once it stopped changing for
    SETTLE_S after its script run (TIMEOUT_S at most)."""
    last, changed = tab.evaluate(DIGEST_JS), start
    quiet_since = None
    while time.perf_counter() - start < TIMEOUT_S:
        time.sleep(POLL_S)
        now = time.perf_counter()
        digest = tab.evaluate(DIGEST_JS)
        if digest != last:
            last, changed, quiet_since = digest, now, None
            continue
        if tab.evaluate(RUNNING_JS):
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        elif now - quiet_since >= SETTLE_S and tab.evaluate(DRAWN_JS):
            break
    return changed - start


def open_view(browser, port: int, query: str):
    """A new session on Explore with ``query``; its page and the seconds until it settled."""
    tab = browser.new_context(viewport=VIEWPORT).new_page()
    start = time.perf_counter()
    tab.goto(f"http://127.0.0.1:{port}/{URL_PATH}" + (f"&{query}" if query else ""))
    return tab, settle(tab, start)


def slider_thumb(tab, control: str):
    label = SLIDERS[control]
    sliders = tab.locator('[data-testid="stSlider"]')
    exact = sliders.filter(has=tab.get_by_text(label, exact=True))
    box = exact if exact.count() else sliders.filter(has_text=label)
    thumb = box.first.locator('[role="slider"]')
    return thumb if thumb.count() else box.first.get_by_role("slider")


def press(tab, control: str) -> float:
    thumb = slider_thumb(tab, control)
    thumb.focus()
    start = time.perf_counter()
    tab.keyboard.press("ArrowRight")
    return start


def _combobox(tab, control: str):
    """The select box ``control``'s text field (Streamlit's combobox)."""
    box = tab.locator('[data-testid="stSelectbox"]').filter(has_text=SELECTS[control]).first
    return box.locator('input[role="combobox"]')


def _open_list(tab, control: str) -> None:
    """Click the select box ``control`` until its options show (a click while the page
    reruns may be lost)."""
    for _ in range(10):
        _combobox(tab, control).click()
        try:
            tab.get_by_role("option").first.wait_for(timeout=3000)
            return
        except PlaywrightTimeout:
            tab.keyboard.press("Escape")
    raise RuntimeError(f"the {control} select box did not open")


def pick(tab, control: str, option: str) -> float:
    """Open the select box ``control`` and click ``option``; the time of the click."""
    _open_list(tab, control)
    item = tab.get_by_role("option", name=option, exact=True)
    start = time.perf_counter()
    item.click()
    return start


def options(tab, control: str) -> list[str]:
    """The select box's options but its current one (opened, read, closed)."""
    field = _combobox(tab, control)
    current = field.input_value()
    _open_list(tab, control)
    names = [o.strip() for o in tab.get_by_role("option").all_inner_texts()]
    tab.keyboard.press("Escape")
    tab.wait_for_timeout(200)
    return [n for n in names if n and n != current]


def run_moves(browser, port: int, dim: int, seed: int, n_moves: int) -> dict[str, list[float]]:
    """Each move of MOVES, ``n_moves`` times, from a new session on the view (dim, seed)."""
    times: dict[str, list[float]] = {}
    for name, control, extra in MOVES:
        query = "&".join(
            q for q in (extra, "dim=2" if dim == 2 else "", f"seed={seed}" if seed else "") if q
        )
        tab, _ = open_view(browser, port, query)
        times[name] = []
        sliders = tab.locator('[data-testid="stSlider"]')
        if control in SLIDERS and not sliders.filter(has_text=SLIDERS[control]).count():
            tab.context.close()  # a checkout without this control (an older one): no move
            print(f"  {dim}-D seed {seed} {name:<14} (no such control)")
            continue
        todo = options(tab, control)[:n_moves] if control in SELECTS else [None] * n_moves
        for option in todo:
            start = pick(tab, control, option) if option else press(tab, control)
            times[name].append(settle(tab, start))
            tab.wait_for_timeout(300)
        tab.context.close()
        print(f"  {dim}-D seed {seed} {name:<14} " + " ".join(f"{t:.2f}" for t in times[name]))
    return times


def measure(repo: Path, n_moves: int) -> dict:
    """The cold loads and every move, on a fresh server serving ``repo``."""
    port = free_port()
    t0 = time.perf_counter()
    server = start_server(port, repo)
    result: dict = {"server_start_s": time.perf_counter() - t0}
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            try:
                tab, result["first_load_s"] = open_view(browser, port, "")
                tab.context.close()
                result["busy_after_first_s"] = wait_server_idle(server.pid)
                for query, key in (("", "load_1d_s"), ("dim=2", "load_2d_s")):
                    tab, result[key] = open_view(browser, port, query)
                    tab.context.close()
                print({k: round(v, 2) for k, v in result.items()})
                result["moves"] = {
                    f"{dim}-D seed {seed}": run_moves(browser, port, dim, seed, n_moves)
                    for seed in (0, 1)
                    for dim in (1, 2)
                }
            finally:
                browser.close()
    finally:
        stop_server(server)
    return result


def cell(values: list[float]) -> str:
    if not values:
        return "—"
    return f"{statistics.median(values):.2f} ({max(values):.2f})"


def docs_table(before: dict, after: dict) -> str:
    """The before/after table of two runs' results (median (max) seconds)."""
    lines = [
        "| move | 1-D before | 1-D after | 2-D before | 2-D after |",
        "|---|---|---|---|---|",
    ]
    for seed, what in ((0, "from the opening view"), (1, "at seed 1 (not computed ahead)")):
        for name, *_ in MOVES:
            cells = [
                cell(run["moves"][f"{dim}-D seed {seed}"].get(name, []))
                for dim in (1, 2)
                for run in (before, after)
            ]
            lines.append(f"| {name}, {what} | " + " | ".join(cells) + " |")
    first = [f"{run['first_load_s']:.2f}" for run in (before, after)]
    lines.append(
        "| cold load: first page of a fresh server (1-D) | " + " | ".join(first) + " | | |"
    )
    cells = [f"{run[key]:.2f}" for key in ("load_1d_s", "load_2d_s") for run in (before, after)]
    lines.append("| cold load: new session, running server | " + " | ".join(cells) + " |")
    lines.append(
        f"| server busy after its first page | {before['busy_after_first_s']:.0f} s | "
        f"{after['busy_after_first_s']:.0f} s | | |"
    )
    return "\n".join(lines)


def describe(before: dict, after: dict) -> str:
    """The docs' text of two runs: what they are, the table, the machine."""
    return (
        f"Before: {before['label']}; after: {after['label']}. Median (max) seconds over "
        f"{len(next(iter(after['moves'].values()))['h'])} moves.\n\n"
        + docs_table(before, after)
        + "\n\n"
        + after["machine"]
    )


def main() -> None:
    parser = checkout_parser(__doc__.split("\n\n")[0], REPO)
    parser.add_argument("--moves", type=int, default=5, help="moves per control (default 5)")
    args = parser.parse_args()
    result = run_or_write(args, "app-redraw", describe, lambda repo: measure(repo, args.moves))
    for key, moves in (result or {}).get("moves", {}).items():
        for name, values in moves.items():
            print(f"{key:<12} {name:<14} {cell(values)}")


if __name__ == "__main__":
    main()

"""Load test of the app: concurrent browser sessions on Explore, each with its own seed, each
moving a slider a few times; every session must render and redraw without an error.

Run from anywhere: ``python benchmarks/load_test.py [--sessions 10] [--moves 5] [--slider ratio]
[--timeout 180] [--query n=200&dim=2] [--out DIR]`` (``--query`` replaces parameters of the view).

Starts ``streamlit run app.py`` from the repository root on a free port (so
``.streamlit/config.toml`` applies: headless, no usage statistics), launches one Debian
headless Chromium (``/usr/bin/chromium``, driven by Playwright's asyncio API; never a
downloaded browser) and opens one browser context per session, all at once, each on the redraw
benchmark's Explore view (1-D, 1000 inliers, all four methods, S on its slider) with
``seed=<session number>`` in the URL. Every request the pages make to another host than the
server is aborted and counted as an error: nothing leaves the machine.

Per session it measures

- the first render: from ``goto`` until the Plotly traces are drawn and the script run is over
  (the app's ``data-test-script-state`` is ``notRunning`` and the running indicator is gone); a
  page that shows an error instead fails at once;
- each redraw: one key press on the chosen slider's thumb (ArrowRight, as a user would;
  ArrowLeft at the slider's end: the ratio stops at 0.45, 7 steps from 0.1), then the time until
  the drawn curves differ from those before the press *and* the run is over;

and collects the exception boxes (``stException``), ``st.error`` messages and console errors
seen after the render and after every move, and checks that the Seed box shows the session's
seed. Meanwhile the resident memory and CPU time of the server process and its children are
sampled every 0.25 s (psutil when installed, else ``/proc``), with those of this program and its
browser, and the whole machine's busy time: on a shared machine the times say little without
them. Every wait is bounded by ``--timeout`` seconds, the whole run by ``--timeout`` x (moves + 2).

It prints median / p90 / max of the render and redraw times, the errors, the server's memory and
who used the CPU (the server, the browsers, other processes), and the BLAS thread variables the
server inherited (``OPENBLAS_NUM_THREADS=1`` makes a difference under load: see the README);
it writes ``load_test.json`` (everything, per session) and ``load_test.csv`` (one row a session)
into ``--out``, and exits with 1 when a session failed to render or redraw, or showed an error.
A benchmark, not a test: it asserts nothing on time. The server helpers and the view are the
redraw benchmark's, the browser's path and flags the browser test's.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import csv
import hashlib
import json
import os
import sys
import time
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.async_api import async_playwright  # noqa: E402

from benchmarks.bench_app_redraw import SLIDERS, start_server, stop_server  # noqa: E402
from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, TRACE, free_port, is_path_probe  # noqa: E402

try:
    import psutil
except ImportError:  # the /proc fallback below
    psutil = None
GONE = (
    (OSError, psutil.Error) if psutil else (OSError,)
)  # what reading a process that has exited raises

VIEWPORT = {"width": 1400, "height": 900}
#: The sessions' view: Explore with S on its slider (held at 21 while the ratio moves).
URL_PATH = "explore?n=1000&ratio=0.1&Smode=manual&fig=plotly"
SAMPLE_EVERY_S = 0.25
#: Environment variables that set the server's BLAS threads (it inherits them): recorded with the figures.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
POLL_MS = 50  # how often the pages check for the redraw (in the page: cheap, ~10 checks per move and second)

#: The drawn curves (every line's SVG path; in 2-D the maps' images), joined: they change when
#: the plot's data changes.
CURVES_JS = """() => Array.from(document.querySelectorAll(
                         '.js-plotly-plot .scatterlayer .trace path.js-line, .js-plotly-plot .heatmaplayer image'))
                     .map(p => p.getAttribute('d') || p.getAttribute('href')).join('|')"""
#: The script run is over: the app says so, and its running indicator is gone.
IDLE_JS = """() => { const app = document.querySelector('[data-testid="stApp"]');
                     return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
                            && !document.querySelector('[data-testid="stStatusWidget"]'); }"""
#: What the page shows as an error: exception boxes and st.error messages.
ERRORS_JS = """() => Array.from(document.querySelectorAll(
                         '[data-testid="stException"], [data-testid="stAlertContentError"]'))
                     .map(e => e.innerText.trim())"""
#: The first render is over: the run is, and the figure is drawn (or an error shown instead).
RENDERED_JS = (
    f"() => ({IDLE_JS})() && (document.querySelectorAll('{TRACE}, .js-plotly-plot .heatmaplayer image')"
    f".length > 0 || ({ERRORS_JS})().length > 0)"
)
REDRAWN_JS = f"(before) => ({CURVES_JS})() !== before && ({IDLE_JS})()"


def _own_usage(pid: int) -> tuple[int, float, list[int]]:
    """Resident memory (bytes), CPU time (seconds: user and system, its own and that of the
    children it has waited for) and the child pids of one process (psutil, else /proc)."""
    if psutil is not None:
        proc = psutil.Process(pid)
        with proc.oneshot():
            return (
                proc.memory_info().rss,
                sum(proc.cpu_times()[:4]),
                [c.pid for c in proc.children()],
            )
    status = Path(f"/proc/{pid}/status").read_text()
    stat = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    children = " ".join(p.read_text() for p in Path(f"/proc/{pid}/task").glob("*/children")).split()
    rss = next(
        (int(line.split()[1]) * 1024 for line in status.splitlines() if line.startswith("VmRSS:")),
        0,
    )
    return rss, sum(map(int, stat[11:15])) / os.sysconf("SC_CLK_TCK"), [int(c) for c in children]


def usage(pid: int, skip: int | None = None) -> tuple[int, float]:
    """Resident memory (bytes) and CPU time (seconds) of process ``pid`` and its descendants,
    leaving out the tree of process ``skip``; a process that is gone counts 0."""
    try:
        rss, cpu, children = _own_usage(pid)
    except GONE:
        return 0, 0.0
    for child in children:
        if child != skip:
            more = usage(child, skip)
            rss, cpu = rss + more[0], cpu + more[1]
    return rss, cpu


def machine_busy() -> float:
    """CPU seconds the whole machine has been busy since boot (all cores, from /proc/stat)."""
    ticks = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    return (sum(ticks) - ticks[3] - ticks[4]) / os.sysconf("SC_CLK_TCK")  # minus idle and iowait


async def sample_usage(server_pid: int, samples: list[dict], t0: float) -> None:
    """Append the server's and this program's usage (with Playwright and Chromium) to ``samples``
    every ``SAMPLE_EVERY_S`` until cancelled."""
    while True:
        server, client = usage(server_pid), usage(os.getpid(), skip=server_pid)
        samples.append(
            {
                "t_s": round(time.perf_counter() - t0, 3),
                "server_rss": server[0],
                "server_cpu_s": server[1],
                "client_rss": client[0],
                "client_cpu_s": client[1],
                "machine_cpu_s": machine_busy(),
            }
        )
        await asyncio.sleep(SAMPLE_EVERY_S)


def is_local(url: str) -> bool:
    """A request to this machine (the server) or with no host (data:, blob:, about:)."""
    return urlsplit(url).hostname in (None, "", "127.0.0.1", "localhost")


async def local_context(browser, result: dict):
    """A new browser context whose requests to another host than this machine are aborted
    and recorded in ``result["external_requests"]``: nothing leaves the machine."""
    context = await browser.new_context(viewport=VIEWPORT)

    async def refuse(route):
        result["external_requests"].append(route.request.url)
        await route.abort()

    await context.route(lambda url: not is_local(url), refuse)
    return context


async def record_errors(tab, result: dict) -> None:
    """Add the page's exception boxes and st.error messages not seen before to ``result``."""
    for text in await tab.evaluate(ERRORS_JS):
        if text not in result["page_errors"]:
            result["page_errors"].append(text)


async def run_session(
    browser, base: str, result: dict, moves: int, args: argparse.Namespace
) -> None:
    """One user: open Explore at ``result["url"]``, then move the slider ``moves`` times.
    Fills ``result`` as it goes, so a session cut by the global time limit keeps what it did."""
    timeout_ms = args.timeout * 1000
    context = await local_context(browser, result)
    try:
        tab = await context.new_page()
        tab.set_default_timeout(timeout_ms)
        tab.on(
            "console",
            lambda msg: (
                result["console_errors"].append(msg.text)
                if msg.type == "error" and not is_path_probe(msg.location.get("url", ""))
                else None
            ),
        )
        tab.on("pageerror", lambda err: result["console_errors"].append(str(err)))

        start = time.perf_counter()
        await tab.goto(f"{base}/{result['url']}")
        await tab.wait_for_function(RENDERED_JS, polling=POLL_MS, timeout=timeout_ms)
        await record_errors(tab, result)
        if result["page_errors"]:
            raise RuntimeError("the page shows an error instead of its figure")
        result["render_s"] = time.perf_counter() - start
        figure = await tab.evaluate(CURVES_JS)
        result["figure"] = hashlib.sha1(figure.encode()).hexdigest()[:12]
        seed = (
            await tab.locator('[data-testid="stNumberInput"]')
            .filter(has_text="Seed")
            .locator("input")
            .input_value()
        )
        if seed != str(result["seed"]):
            result["page_errors"].append(
                f"the Seed box shows {seed}, not the URL's {result['seed']}"
            )

        thumb = (
            tab.locator('[data-testid="stSlider"]')
            .filter(has_text=SLIDERS[args.slider])
            .first.locator('input[type="range"]')
        )
        result["values"].append(await thumb.input_value())
        for _ in range(moves):
            await thumb.focus()
            at_end = float(await thumb.input_value()) >= float(await thumb.get_attribute("max"))
            before = await tab.evaluate(CURVES_JS)
            start = time.perf_counter()
            await tab.keyboard.press("ArrowLeft" if at_end else "ArrowRight")
            await tab.wait_for_function(REDRAWN_JS, arg=before, polling=POLL_MS, timeout=timeout_ms)
            result["redraws_s"].append(time.perf_counter() - start)
            result["values"].append(await thumb.input_value())
            await record_errors(tab, result)
    except Exception as err:  # a timeout or a closed page: this session failed, the others go on
        result["failure"] = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        with contextlib.suppress(Exception):  # what the page showed when it failed, if it still can
            await record_errors(tab, result)
    finally:
        await context.close()


def view_url(query: str, seed: int) -> str:
    """The redraw benchmark's view, its parameters replaced by those of ``query`` (``n=200&dim=2``),
    with ``seed``."""
    path, _, view = URL_PATH.partition("?")
    params = {**dict(parse_qsl(view)), **dict(parse_qsl(query)), "seed": str(seed)}
    return f"{path}?{urlencode(params)}"


def new_result(session: int, query: str) -> dict:
    """What a session collects: session ``k`` opens the view with ``seed=k``."""
    return {
        "session": session,
        "seed": session,
        "url": view_url(query, session),
        "render_s": None,
        "redraws_s": [],
        "values": [],
        "figure": None,
        "page_errors": [],
        "console_errors": [],
        "external_requests": [],
        "failure": None,
    }


async def run_all(
    base: str, server_pid: int, args: argparse.Namespace
) -> tuple[dict, list[dict], list]:
    """A warm-up session (seed 0, no move: the server imports the app's modules), then all
    sessions at once in one Chromium (one context each), while the server's memory is sampled."""
    warmup, results = (
        new_result(0, args.query),
        [new_result(k, args.query) for k in range(1, args.sessions + 1)],
    )
    samples: list[dict] = []
    limit = args.timeout * (args.moves + 2)
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        sampler = asyncio.create_task(sample_usage(server_pid, samples, time.perf_counter()))
        try:
            await run_session(browser, base, warmup, 0, args)
            sessions = [run_session(browser, base, r, args.moves, args) for r in results]
            await asyncio.wait_for(asyncio.gather(*sessions), timeout=limit)
        except TimeoutError:
            for r in results:
                if r["failure"] is None and len(r["redraws_s"]) < args.moves:
                    r["failure"] = f"not finished within the whole run's limit of {limit:g} s"
        finally:
            sampler.cancel()
            await browser.close()
    return warmup, results, samples


def problems(r: dict) -> list[str]:
    """Everything that went wrong in session ``r``, one line each."""
    return (
        ([r["failure"]] if r["failure"] else [])
        + r["page_errors"]
        + r["console_errors"]
        + [f"external request {url}" for url in r["external_requests"]]
    )


def session_ok(r: dict, moves: int) -> bool:
    """Rendered, redrawn ``moves`` times, and no error of any kind."""
    return r["render_s"] is not None and len(r["redraws_s"]) == moves and not problems(r)


def stats(values: list[float]) -> dict:
    """Count, median, 90th percentile and maximum (None when there are no values)."""
    if not values:
        return {"n": 0, "median": None, "p90": None, "max": None}
    return {
        "n": len(values),
        "median": float(np.median(values)),
        "p90": float(np.percentile(values, 90)),
        "max": float(np.max(values)),
    }


def summarise(
    warmup: dict,
    results: list[dict],
    samples: list[dict],
    started: int,
    args: argparse.Namespace,
    load: dict,
) -> dict:
    """The figures of the run: times, errors, memory (MiB), CPU seconds and the machine's load."""
    first, last = samples[0], samples[-1]
    wall = last["t_s"] - first["t_s"]
    cpu = {
        who: last[f"{who}_cpu_s"] - first[f"{who}_cpu_s"] for who in ("server", "client", "machine")
    }
    runs = 1 + sum((r["render_s"] is not None) + len(r["redraws_s"]) for r in results)
    return {
        "sessions": args.sessions,
        "moves": args.moves,
        "slider": SLIDERS[args.slider],
        "timeout_s": args.timeout,
        "query": args.query,
        "warmup_ok": session_ok(warmup, 0),
        "cold_render_s": warmup["render_s"],
        "sessions_ok": sum(session_ok(r, args.moves) for r in results),
        "distinct_first_figures": len({r["figure"] for r in results if r["figure"]}),
        "render_s": stats([r["render_s"] for r in results if r["render_s"] is not None]),
        "redraw_s": stats([t for r in results for t in r["redraws_s"]]),
        "errors": sum(len(problems(r)) for r in [warmup, *results]),
        "server_rss_mib": {
            "started": started / 2**20,
            "peak": max(x["server_rss"] for x in samples) / 2**20,
            "end": last["server_rss"] / 2**20,
        },
        "client_rss_peak_mib": max(x["client_rss"] for x in samples) / 2**20,
        "wall_s": wall,
        "script_runs": runs,
        "cpu_s": {
            **cpu,
            "others": cpu["machine"] - cpu["server"] - cpu["client"],
            "capacity": wall * os.cpu_count(),
        },
        "load_average": load,
        "cpus": os.cpu_count(),
        "thread_settings": {k: os.environ[k] for k in THREAD_VARIABLES if k in os.environ},
    }


def report(summary: dict, warmup: dict, results: list[dict]) -> str:
    """The printed table, then one line per problem."""

    def row(name: str, s: dict) -> str:
        if not s["n"]:
            return f"{name:<14} n=0"
        return f"{name:<14} n={s['n']:<3} median {s['median']:6.2f} s   p90 {s['p90']:6.2f} s   max {s['max']:6.2f} s"

    rss, cpu, cold = summary["server_rss_mib"], summary["cpu_s"], summary["cold_render_s"]
    lines = [
        f"{summary['sessions']} sessions x {summary['moves']} moves of '{summary['slider']}' "
        f"({summary['cpus']} CPUs, load average before {summary['load_average']['before']}, "
        f"after {summary['load_average']['after']}"
        + "".join(f", {k}={v}" for k, v in summary["thread_settings"].items())
        + ")",
        "warm-up        "
        + (f"{cold:.2f} s (one session, seed 0, cold server)" if cold else "failed"),
        row("first render", summary["render_s"]),
        row("redraw", summary["redraw_s"]),
        f"sessions ok    {summary['sessions_ok']} of {summary['sessions']}, errors {summary['errors']}, "
        f"{summary['distinct_first_figures']} distinct first figures",
        f"server RSS     {rss['started']:.0f} MiB when started, peak {rss['peak']:.0f} MiB, "
        f"{rss['end']:.0f} MiB at the end (browsers: peak {summary['client_rss_peak_mib']:.0f} MiB)",
        f"CPU seconds    {summary['wall_s']:.0f} s wall x {summary['cpus']} CPUs = {cpu['capacity']:.0f}: "
        f"server {cpu['server']:.0f} ({cpu['server'] / summary['script_runs']:.2f} per script run), "
        f"browsers and driver {cpu['client']:.0f}, other processes {cpu['others']:.0f}",
    ]
    return "\n".join(
        lines
        + [
            f"  session {r['session']} (seed {r['seed']}): {p}"
            for r in [warmup, *results]
            for p in problems(r)
        ]
    )


def write(out: Path, summary: dict, warmup: dict, results: list[dict], samples: list[dict]) -> None:
    """``load_test.json`` (summary, every session, the usage samples) and ``load_test.csv``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "load_test.json").write_text(
        json.dumps(
            {"summary": summary, "warmup": warmup, "sessions": results, "samples": samples},
            indent=1,
        )
    )
    moves = summary["moves"]
    with open(out / "load_test.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(
            [
                "session",
                "seed",
                "ok",
                "render_s",
                *(f"redraw_{i + 1}_s" for i in range(moves)),
                "errors",
            ]
        )
        for r in results:
            redraws = [f"{t:.3f}" for t in r["redraws_s"]] + [""] * (moves - len(r["redraws_s"]))
            render = "" if r["render_s"] is None else f"{r['render_s']:.3f}"
            writer.writerow(
                [
                    r["session"],
                    r["seed"],
                    session_ok(r, moves),
                    render,
                    *redraws,
                    " | ".join(problems(r)),
                ]
            )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--sessions", type=int, default=10, help="concurrent browser sessions (default 10)"
    )
    parser.add_argument("--moves", type=int, default=5, help="slider moves per session (default 5)")
    parser.add_argument(
        "--slider",
        choices=list(SLIDERS),
        default="ratio",
        help="the slider moved: ratio (a new sample, everything refitted; default) or S "
        "(only MoM-KDE refitted)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=180.0,
        help="seconds allowed for a first render or a redraw (default 180)",
    )
    parser.add_argument("--query", default="", help="more URL parameters, e.g. n=200 or hmode=cv")
    parser.add_argument(
        "--out",
        type=Path,
        default=REPO / "benchmarks" / "results",
        help="folder for load_test.json and load_test.csv (default benchmarks/results)",
    )
    args = parser.parse_args()
    if args.sessions < 1 or args.moves < 0 or args.timeout <= 0:
        parser.error("--sessions must be >= 1, --moves >= 0 and --timeout > 0")
    load = {"before": [round(x, 2) for x in os.getloadavg()]}
    port = free_port()
    server = start_server(port)
    try:
        started = usage(server.pid)[0]
        warmup, results, samples = asyncio.run(
            run_all(f"http://127.0.0.1:{port}", server.pid, args)
        )
    finally:
        stop_server(server)
    load["after"] = [round(x, 2) for x in os.getloadavg()]
    summary = summarise(warmup, results, samples, started, args, load)
    print(report(summary, warmup, results))
    write(args.out, summary, warmup, results, samples)
    print(f"wrote {args.out / 'load_test.json'} and {args.out / 'load_test.csv'}")
    return 0 if summary["warmup_ok"] and summary["sessions_ok"] == args.sessions else 1


if __name__ == "__main__":
    sys.exit(main())

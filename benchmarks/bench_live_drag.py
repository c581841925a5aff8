"""Explore's live figure under the hand: a drag of the outliers' place, redrawn in the page.

Run from anywhere: ``python benchmarks/bench_live_drag.py [--moves 20] [--sessions 30]
[--dims 1 2] [--timeout 300] [--out DIR]``.

Starts ``streamlit run app.py`` on a free port (loopback only) and one Debian headless
Chromium (Playwright's asyncio API; never a downloaded browser; every request to another
host is aborted and counted), then runs

1. **one session**: Explore's lesson in 1-D and in 2-D (``--dims``; 1000 inliers, 20
   outliers placed at 3 (at (3, 3) in 2-D), the live figure), ``--moves`` pointer moves of
   the cluster's handle (along the axis in 1-D, diagonally in 2-D), one per animation frame
   (as a hand's pointer events come: the browser merges the moves of one frame). It counts the
   redraws (the figure's ``data-frame``), reads the page's own pointer-event-to-redraw
   latencies (``window.__liveLesson.latencies``: ``performance.now()`` at the end of the
   redraw minus the event's ``timeStamp``), counts the messages the page sent to the server
   during the drag (websocket frames: a rerun would send one), the running indicator seen
   and the page's main-thread tasks over 50 ms (a ``longtask`` PerformanceObserver), then
   lets go and times the sync: until the URL holds the new place, the server's run is over
   and the figure was drawn again with its data;
2. **a class**: ``--sessions`` sessions at once (one browser context each, seed = session
   number), loaded first, then all dragging together, then all letting go; the server's
   CPU time during the drags and during the syncs (per drag), the slowest session's latency
   in the page and its slowest sync.

3. **Home and Learn**: Home's |O| slider moved 12 steps by its arrow key, and Learn's
   construction stepped through 8 times by its buttons, in a new session each: the page's
   own latencies from the key or click to the end of the redraw.

Every wait is bounded by ``--timeout`` seconds, the class run by 3 x ``--timeout``. Writes
``live_drag.json`` into ``--out`` and prints a summary. A benchmark: it asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from playwright.async_api import async_playwright  # noqa: E402

from benchmarks.bench_app_redraw import start_server, stop_server  # noqa: E402
from benchmarks.browser import CHROMIUM, CHROMIUM_ARGS, free_port  # noqa: E402
from benchmarks.load_test import IDLE_JS, local_context, usage  # noqa: E402

#: The lesson's view by dimension: the live figure, 20 outliers placed at 3, x0 at 3.
QUERY = {
    1: "explore?fig=live&k=20&at=3&x0=3",
    2: "explore?fig=live&dim=2&k=20&at=3&aty=3&x0=2&y0=2",
}
#: The page's main-thread tasks over 50 ms, recorded from its start.
LONG_TASKS_JS = """window.__longTasks = [];
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) window.__longTasks.push(e.duration);
}).observe({ type: "longtask", buffered: true });"""
LIVE = '[data-testid="live-lesson"]'
HANDLE = '[data-role="cluster-handle"]'
STEP_PX = 6  # one move: ~0.15 of the axis' units on a 1400-pixel window
NEXT_FRAME = "() => new Promise((done) => requestAnimationFrame(() => done()))"
FRAME_JS = "() => window.__liveLesson.frame"  # (data-frame's value; the figure is in a shadow root)
SYNCED_JS = f"""([says, frame]) => location.search.includes(says)
                  && ({FRAME_JS})() > frame && ({IDLE_JS})()"""
MAX_SESSIONS = 40


async def _open(browser, base: str, seed: int, result: dict, timeout_ms: float, dim: int):
    """A new session on the lesson in ``dim`` with ``seed``, loaded: its tab, with the
    websocket frames it sends recorded in ``result["sent"]``."""
    context = await local_context(browser, result)
    await context.add_init_script(LONG_TASKS_JS)
    tab = await context.new_page()
    tab.set_default_timeout(timeout_ms)
    tab.on("pageerror", lambda err: result["errors"].append(str(err)))
    tab.on("websocket", lambda ws: ws.on("framesent", lambda _: result["sent"].append(1)))
    await tab.goto(f"{base}/{QUERY[dim]}&seed={seed}")
    await tab.wait_for_selector(LIVE)
    await tab.wait_for_function(IDLE_JS)
    await tab.wait_for_function("() => window.__liveLesson && window.__liveLesson.frame > 0")
    await tab.locator(LIVE).scroll_into_view_if_needed()
    return tab


async def _drag(tab, moves: int, result: dict, dim: int) -> tuple[str, int]:
    """``moves`` pointer moves of the cluster's handle, one a frame, button held: fills the
    redraws, latencies, messages sent, running indicators seen and long tasks; returns what
    the URL says of the place reached, and the frame."""
    box = await tab.locator(HANDLE).bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    before, sent = await tab.evaluate(FRAME_JS), len(result["sent"])
    seen = len(await tab.evaluate("() => window.__liveLesson.latencies"))
    tasks = len(await tab.evaluate("() => window.__longTasks"))
    await tab.mouse.move(x, y)
    await tab.mouse.down()
    for i in range(moves):
        dy = -STEP_PX * (i + 1) / 2 if dim == 2 else 0
        await tab.mouse.move(x + STEP_PX * (i + 1), y + dy)
        await tab.evaluate(NEXT_FRAME)
        result["status_seen"] += await tab.locator('[data-testid="stStatusWidget"]').count()
    # the frame of the last move (2-D: the worker's answer may come later)
    await tab.wait_for_function("() => window.__liveLesson.current()", polling=20)
    frame = await tab.evaluate(FRAME_JS)
    result["redraws"] = frame - before
    result["latencies_ms"] = (await tab.evaluate("() => window.__liveLesson.latencies"))[seen:]
    result["long_tasks_ms"] = (await tab.evaluate("() => window.__longTasks"))[tasks:]
    result["sent_during_drag"] = len(result["sent"]) - sent
    place = await tab.evaluate("() => window.__liveLesson.model.at")
    says = f"aty={place[1]:g}" if dim == 2 else f"at={place:g}"
    return says, frame


async def _release(tab, says: str, frame: int, result: dict) -> None:
    """Let go; the seconds until the URL ``says`` the place and the server's run drew again."""
    start = time.perf_counter()
    await tab.mouse.up()
    await tab.wait_for_function(SYNCED_JS, arg=[says, frame], polling=20)
    result["sync_s"] = time.perf_counter() - start


def _new(session: int) -> dict:
    return {
        "session": session,
        "sent": [],
        "errors": [],
        "external_requests": [],
        "status_seen": 0,
        "redraws": None,
        "latencies_ms": [],
        "long_tasks_ms": [],
        "sent_during_drag": None,
        "sync_s": None,
        "failure": None,
    }


async def one_session(browser, base: str, moves: int, timeout_ms: float, dim: int) -> dict:
    """The single drag of the lesson, then its release."""
    result = _new(0)
    tab = await _open(browser, base, 0, result, timeout_ms, dim)
    says, frame = await _drag(tab, moves, result, dim)
    await _release(tab, says, frame, result)
    await tab.context.close()
    return result


async def a_class(
    browser, base: str, server_pid: int, sessions: int, moves: int, timeout_ms: float, dim: int
) -> tuple[list[dict], dict]:
    """``sessions`` sessions loaded, then dragging together, then letting go together; the
    server's CPU seconds during the drags and during the syncs."""
    results = [_new(k) for k in range(1, sessions + 1)]
    loaded, dragged = asyncio.Barrier(sessions + 1), asyncio.Barrier(sessions + 1)
    released = asyncio.Barrier(sessions + 1)

    async def student(result: dict) -> None:
        tab, passed = None, 0
        try:
            tab = await _open(browser, base, result["session"], result, timeout_ms, dim)
            await loaded.wait()
            passed = 1
            says, frame = await _drag(tab, moves, result, dim)
            await dragged.wait()
            passed = 2
            await _release(tab, says, frame, result)
        except Exception as err:  # this student failed, the class goes on
            result["failure"] = (
                f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            )
        finally:
            for barrier in (loaded, dragged)[passed:]:
                await barrier.wait()
            await released.wait()
            if tab is not None:
                await tab.context.close()

    async def teacher() -> dict:
        await loaded.wait()
        cpu0 = usage(server_pid)[1]
        await dragged.wait()
        cpu1 = usage(server_pid)[1]
        await released.wait()
        return {"drag_cpu_s": cpu1 - cpu0, "sync_cpu_s": usage(server_pid)[1] - cpu1}

    *_, cpu = await asyncio.gather(*(student(r) for r in results), teacher())
    return results, cpu


async def home_and_learn(browser, base: str, timeout_ms: float) -> dict:
    """Home's slider and Learn's steps, redrawn in the page: their latencies."""
    out = {}
    for name, path, kind, act in (
        ("home", "", "example", None),
        ("learn", "learn", "steps", ["split", "blocks", "median", "compare", "sample"] * 2),
    ):
        result = _new(0)
        context = await local_context(browser, result)
        tab = await context.new_page()
        tab.set_default_timeout(timeout_ms)
        tab.on("websocket", lambda ws, r=result: ws.on("framesent", lambda _: r["sent"].append(1)))
        await tab.goto(f"{base}/{path}")
        await tab.wait_for_selector(f'[data-kind="{kind}"]')
        await tab.wait_for_function(IDLE_JS)
        if act is None:
            await tab.locator('[data-role="outliers-slider"]').focus()
            for _ in range(12):
                await tab.keyboard.press("ArrowRight")
                await tab.wait_for_timeout(60)
        else:
            for step in act:
                await tab.locator(f'[data-step="{step}"]').click()
                await tab.wait_for_timeout(60)
        latencies = await tab.evaluate("() => window.__liveLesson.latencies")
        out[name] = {"redraws": len(latencies), "latency_ms": _stats(latencies)}
        await context.close()
    return out


def _stats(values: list[float]) -> dict:
    values = np.asarray(values, dtype=float)
    if not len(values):
        return {}
    return {
        "median": float(np.median(values)),
        "p95": float(np.percentile(values, 95)),
        "max": float(values.max()),
    }


async def run(args: argparse.Namespace) -> dict:
    port = free_port()
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    timeout_ms = args.timeout * 1000
    out = {"moves": args.moves}
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            out["home_and_learn"] = await asyncio.wait_for(
                home_and_learn(browser, base, timeout_ms), args.timeout
            )
            for dim in args.dims:
                single = await asyncio.wait_for(
                    one_session(browser, base, args.moves, timeout_ms, dim), args.timeout
                )
                sessions = min(args.sessions, MAX_SESSIONS)
                results, cpu = (
                    await asyncio.wait_for(
                        a_class(browser, base, server.pid, sessions, args.moves, timeout_ms, dim),
                        3 * args.timeout,
                    )
                    if sessions
                    else ([], {"sync_cpu_s": 0.0, "drag_cpu_s": 0.0})
                )
                out[f"{dim}-D"] = _summary(single, results, cpu, sessions)
            await browser.close()
    finally:
        stop_server(server)
    return out


def _summary(single: dict, results: list[dict], cpu: dict, sessions: int) -> dict:
    """One dimension's figures: the single session's, and the class's."""
    done = [r for r in results if r["failure"] is None]
    return {
        "single": {
            **{k: single[k] for k in ("redraws", "sent_during_drag", "status_seen", "sync_s")},
            "latency_ms": _stats(single["latencies_ms"]),
            "longest_task_ms": max(single["long_tasks_ms"], default=0.0),
            "errors": single["errors"] + single["external_requests"],
        },
        "class": {
            "sessions": sessions,
            "finished": len(done),
            "failures": [r["failure"] for r in results if r["failure"]],
            "errors": [e for r in results for e in r["errors"] + r["external_requests"]],
            "server_cpu_per_drag_s": cpu["sync_cpu_s"] / max(len(done), 1),
            "server_cpu_during_drags_s": cpu["drag_cpu_s"],
            "redraws_min": min((r["redraws"] for r in done), default=None),
            "sent_during_drag_max": max((r["sent_during_drag"] for r in done), default=None),
            "slowest_latency_ms": max(
                (_stats(r["latencies_ms"])["p95"] for r in done if r["latencies_ms"]), default=None
            ),
            "latency_ms": _stats([v for r in done for v in r["latencies_ms"]]),
            "sync_s": _stats([r["sync_s"] for r in done]),
        },
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=20)
    parser.add_argument("--sessions", type=int, default=30)
    parser.add_argument("--dims", type=int, nargs="+", choices=(1, 2), default=[1, 2])
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--out", type=Path, default=REPO / "benchmarks" / "results")
    args = parser.parse_args()
    summary = asyncio.run(run(args))
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "live_drag.json").write_text(json.dumps(summary, indent=2))
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

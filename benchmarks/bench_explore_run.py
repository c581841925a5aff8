"""Explore's server run after a move, computation by computation, without Streamlit's caches.

Run: ``python benchmarks/bench_explore_run.py [--repeats 5] [--quick] [--label NAME]
[--json FILE] [--repo CHECKOUT]``; ``--profile CASE`` prints where one case's run spends its
time (cProfile, one thread), ``--write-docs BEFORE.json AFTER.json`` puts two runs side by
side in the section ``explore-run`` of docs/benchmarks.md.

What is timed: the pure computations that :func:`app_support.cache.explore_view` and the page
call after a move that draws a new sample (a step of the outlier ratio, a release of k, a new
seed): the sample (:func:`app_support.mechanism.placed_sample`), the robust h
(:func:`app_support.compute.choose_bandwidth`, the page's default rule), each default method's
fit, grid and scores (:func:`~app_support.compute.fit_evaluate` with the settings it depends on,
:func:`~app_support.compute.relevant`), the true density on the grid, the metric table
(:func:`~app_support.compute.metric_table`) and the S block values at x0 = 3
(:func:`~app_support.mechanism.block_values`), each once per run, in that order, on the
process's default threads. The page's defaults: the robust h, S auto and ε the true ratio, the
Gaussian kernel, seed 0; k outliers placed at 3 (every coordinate). A run after a move of S
alone refits MoM-KDE and the block values only (the other fits are cache hits); a run after a
move of x0 the block values only: their costs are in the table's rows.

Each case runs once to warm numba's and the engine's caches, then ``--repeats`` times; the
table holds the median seconds per computation and of the run, with the load average before
and after. ``--repo`` imports ``momkde_core`` and ``app_support`` from another checkout (the
commit before a change, in a ``git worktree``), so that two runs compare code, not machines.
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "benchmarks"))

from _docs_tables import machine_line, write_section  # noqa: E402

#: The computations of one run, in the order the run makes them (the methods: the page's
#: defaults, :data:`app_support.compute.DEFAULT_METHODS`).
STEPS = ("sample", "robust h", "kde", "mom_kde", "rkde", "spkde", "truth", "metrics", "blocks")
#: The cases: (scheme, inliers, ratio, dimension, k placed at 3).
CASES = [
    (scheme, n, ratio, dim, k)
    for dim in (1, 2)
    for n in (1000, 2000)
    for ratio in (0.1, 0.2)
    for scheme in ("uniform", "thin_gaussian")
    for k in (0, 40)
]
QUICK = [c for c in CASES if c[0] == "uniform" and c[2] == 0.1]


def _name(case: tuple) -> str:
    scheme, n, ratio, dim, k = case
    return f"{scheme} {n} {ratio:g} {dim}-D k={k}"


def _one_run(case: tuple) -> dict[str, float]:
    """The computations of one Explore run for ``case``: seconds per step."""
    from app_support import compute, mechanism
    from app_support.views import default_settings

    scheme, n_inliers, ratio, dim, k = case
    at = (3.0,) * dim if k else ()
    spent = {}
    clock = time.perf_counter()

    def lap(step: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        spent[step] = now - clock
        clock = now

    data = mechanism.placed_sample(scheme, n_inliers, ratio, dim, 0, k, at)
    s = default_settings(len(data.X), ratio)
    lap("sample")
    h = compute.choose_bandwidth(data.X, s.bandwidth, s.kernel, s.seed, s.contamination).h
    grid = compute.plot_grid(data.X, h)
    lap("robust h")
    results = {}
    for method in compute.DEFAULT_METHODS:
        results[method] = compute.fit_evaluate(
            method, data.X, grid.axes, h, compute.relevant(method, s)
        )
        lap(method)
    truth = data.true_pdf(grid.points).reshape(grid.shape)
    lap("truth")
    compute.metric_table(results, truth, grid.cell, data.is_outlier if data.n_outliers else None)
    lap("metrics")
    mechanism.block_values(data.X, data.is_outlier, h, compute.relevant("mom_kde", s), (3.0,) * dim)
    lap("blocks")
    return spent


def measure(cases: list[tuple], repeats: int) -> dict:
    """Median seconds per step and per run, for each case; the load around each case."""
    out = {}
    for case in cases:
        load = os.getloadavg()[0]
        _one_run(case)  # numba's compilation, the engine's first calls
        runs = [_one_run(case) for _ in range(repeats)]
        median = {step: statistics.median(r[step] for r in runs) for step in STEPS}
        median["run"] = statistics.median(sum(r.values()) for r in runs)
        median["load"] = [load, os.getloadavg()[0]]
        out[_name(case)] = median
        print(
            f"{_name(case):32s} run {median['run']:.3f} s  "
            + "  ".join(f"{step} {median[step]:.3f}" for step in STEPS)
            + f"  (load {load:.1f}-{os.getloadavg()[0]:.1f})",
            flush=True,
        )
    return out


def profile(case: tuple, top: int = 30) -> None:
    """Where one run of ``case`` spends its time: cProfile on one thread, by own time."""
    from momkde_core import config_context

    with config_context(n_threads=1):
        _one_run(case)
        profiler = cProfile.Profile()
        profiler.runcall(_one_run, case)
    pstats.Stats(profiler).sort_stats("tottime").print_stats(top)


def _cell(before: dict, after: dict, key: str) -> str:
    return f"{before[key]:.3f} → {after[key]:.3f}"


def write_docs(before_file: Path, after_file: Path) -> None:
    """docs/benchmarks.md, section ``explore-run``: two runs' medians side by side."""
    runs = [json.loads(path.read_text()) for path in (before_file, after_file)]
    before, after = (run["cases"] for run in runs)
    names = [name for name in after if name in before]
    steps = [s for s in STEPS if s not in ("sample", "truth")]
    lines = [
        f"Before: {runs[0]['label']}; after: {runs[1]['label']}. Median seconds over "
        f"{runs[1]['repeats']} runs per case (before → after), one thread pool of the "
        "process's default size; the sample and the true density take under 2 ms each and "
        "are left out of the columns, not of the run.",
        "",
        "| case (scheme, inliers, ratio, d, k) | run | "
        + " | ".join(steps)
        + " | load before, after |",
        "|---|" + "---|" * (len(steps) + 2),
        *(
            f"| {name} | **{_cell(before[name], after[name], 'run')}** | "
            + " | ".join(_cell(before[name], after[name], s) for s in steps)
            + f" | {before[name]['load'][0]:.1f}, {after[name]['load'][0]:.1f} |"
            for name in names
        ),
        "",
        f"Before: {runs[0]['machine']}",
        f"After: {runs[1]['machine']}",
    ]
    write_section("explore-run", "\n".join(lines))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="the uniform cases at 0.1 only")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout to import")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--json", type=Path)
    parser.add_argument("--profile", type=int, metavar="CASE", help="index into the cases")
    parser.add_argument("--write-docs", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    args = parser.parse_args()
    if args.write_docs:
        write_docs(*args.write_docs)
        return
    sys.path.insert(0, str(args.repo.resolve()))  # that checkout's momkde_core, app_support
    if args.profile is not None:
        profile(CASES[args.profile])
        return
    machine = machine_line()
    cases = measure(QUICK if args.quick else CASES, args.repeats)
    if args.json:
        run = {"label": args.label, "machine": machine, "repeats": args.repeats, "cases": cases}
        args.json.write_text(json.dumps(run, indent=1))


if __name__ == "__main__":
    main()

"""Grid speed on the grids users draw, against KDEpy's FFTKDE and statsmodels' FFT KDE.

The grids span the data's range widened by 15 bandwidths on every side (h = 0.2: 3 units),
as plots and integrals need; 1024 nodes in 1-D, 128 x 128 in 2-D; standard normal data.
Every row times what a user runs, ``fit`` then ``pdf_grid`` (MoM-KDE's fit includes the
normalisation), beside one KDE of the same data on the same grid by KDEpy's ``FFTKDE``
(fit + evaluate) and, in 1-D, statsmodels' ``KDEUnivariate(fft=True)`` (``cut=15`` gives
the same grid), all in the same run, each the median of ``--repeat`` calls after a
warm-up. The engine's replay memo is emptied before every call of ours. MoM-KDE rows also
time the same estimator built from KDEpy (:func:`kdepy_mom`: 20 FFTKDEs and a median),
the fastest peer for that job.

Run: ``python benchmarks/bench_grid_speed.py`` (the table), ``--big`` adds 1-D n = 1e7
(time), 2-D n = 1e7 (time and peak memory, each in a fresh child process, timed after one
call on 1e4 points that loads the compiled kernels: that one-time cost is printed apart)
and exact scoring in d = 10 (n = m = 1e5). ``--only NAME`` runs one row (names as printed). ``--gram`` times RKDE and
SPKDE fits in 2-D at n = 20 000 (Gram products by the grid path) against the dense path's
product time times the products the fit took (the dense fits themselves take minutes to
hours: 883 s and more for SPKDE in issue #10; ``--gram-dense`` runs them too).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc

import numpy as np
import statsmodels.api as sm
from _docs_tables import machine_line, write_section  # (a sibling: run as a script)
from KDEpy import FFTKDE

from momkde_core import KDE, RKDE, SPKDE, MoMKDE
from momkde_core._engine import GramOperator, _gram, _memo
from momkde_core.kernels import get_kernel

H = 0.2
WIDEN = 15 * H
S = 20


def median_time(fn, repeat: int) -> tuple[float, float]:
    """Median wall-clock and median CPU time (all threads of the process) of ``repeat``
    calls after one warm-up, the memo emptied first. On a shared machine the CPU time is
    the steadier of the two: wall time also counts the waits for a free core."""
    _memo._MEMO.clear()
    fn()
    walls, cpus = [], []
    for _ in range(repeat):
        _memo._MEMO.clear()
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return float(np.median(walls)), float(np.median(cpus))


def wide_axes(X: np.ndarray, nodes: int) -> list[np.ndarray]:
    return [
        np.linspace(X[:, k].min() - WIDEN, X[:, k].max() + WIDEN, nodes) for k in range(X.shape[1])
    ]


def ours(method: str, X: np.ndarray, axes: list[np.ndarray]):
    def run():
        est = (
            KDE(bandwidth=H) if method == "kde" else MoMKDE(n_blocks=S, bandwidth=H, random_state=0)
        )
        return est.fit(X).pdf_grid(*axes)

    return run


def kdepy(X: np.ndarray, axes: list[np.ndarray]):
    if len(axes) == 1:
        points = axes[0]
    else:
        points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    return lambda: FFTKDE(kernel="gaussian", bw=H).fit(X).evaluate(points)


def kdepy_mom(X: np.ndarray, axes: list[np.ndarray]):
    """MoM-KDE as a KDEpy user would build it: a random split into S blocks, one FFTKDE
    per block evaluated on the grid, the median over the blocks, divided by its Riemann
    sum on the grid (which spans the data and 15 h beyond). The same estimator, without
    exact tails (FFT round-off there, ~1e-17 of the peak, instead of the true values)."""
    if len(axes) == 1:
        points = axes[0]
    else:
        points = np.stack([m.ravel() for m in np.meshgrid(*axes, indexing="ij")], axis=1)
    cell = float(np.prod([a[1] - a[0] for a in axes]))

    def run():
        shuffled = X[np.random.default_rng(0).permutation(len(X))]
        values = np.stack(
            [
                FFTKDE(kernel="gaussian", bw=H).fit(block).evaluate(points)
                for block in np.array_split(shuffled, S)
            ]
        )
        median = np.median(values, axis=0)
        return median / (median.sum() * cell)

    return run


def statsmodels_fft(X: np.ndarray, nodes: int):
    def run():
        kde = sm.nonparametric.KDEUnivariate(X[:, 0])
        kde.fit(kernel="gau", bw=H, fft=True, gridsize=nodes, cut=WIDEN / H)
        return kde.density

    return run


def data(n: int, d: int) -> np.ndarray:
    return np.random.default_rng(n + d).standard_normal((n, d))


TABLE = [  # (name, method, n, d)
    ("KDE 1-D, n = 1e5", "kde", 10**5, 1),
    ("KDE 1-D, n = 1e6", "kde", 10**6, 1),
    ("MoM-KDE S=20, 1-D, n = 1e5", "mom", 10**5, 1),
    ("MoM-KDE S=20, 1-D, n = 1e6", "mom", 10**6, 1),
    ("KDE 2-D, n = 1e4", "kde", 10**4, 2),
    ("KDE 2-D, n = 1e5", "kde", 10**5, 2),
    ("MoM-KDE S=20, 2-D, n = 1e4", "mom", 10**4, 2),
    ("MoM-KDE S=20, 2-D, n = 1e5", "mom", 10**5, 2),
]


def table_row(name: str, method: str, n: int, d: int, repeat: int) -> str:
    X = data(n, d)
    nodes = 1024 if d == 1 else 128
    axes = wide_axes(X, nodes)
    ours_t = median_time(ours(method, X, axes), repeat)
    kdepy_t = median_time(kdepy(X, axes), repeat)
    sm_t = median_time(statsmodels_fft(X, nodes), repeat) if d == 1 else None
    mom_t = median_time(kdepy_mom(X, axes), repeat) if method == "mom" else None

    def cell(t):
        return f"{t[0] * 1e3:.1f} ms ({t[1] * 1e3:.1f})"

    return (
        f"| {name} | {cell(ours_t)} | {cell(kdepy_t)} | "
        f"{cell(sm_t) if sm_t else '(no 2-D FFT)'} | {ours_t[0] / kdepy_t[0]:.1f}x "
        f"({ours_t[1] / kdepy_t[1]:.1f}x) | "
        + (f"{cell(mom_t)} | {ours_t[0] / mom_t[0]:.2f}x |" if mom_t else "| |")
    )


def big_grid(d: int) -> dict:
    """MoM-KDE S = 20 on n = 1e7 points: fit + pdf_grid time, and its peak memory (traced
    numpy allocations, and the process's maximum resident size, data included)."""
    warm0 = time.perf_counter()  # the compiled kernels' first call (loading numba's cache)
    ours("mom", data(10**4, d), wide_axes(data(10**4, d), 1024 if d == 1 else 128))()
    warm_up = time.perf_counter() - warm0
    X = data(10**7, d)
    axes = wide_axes(X, 1024 if d == 1 else 128)
    run = ours("mom", X, axes)
    c0, t0 = time.process_time(), time.perf_counter()
    est = MoMKDE(n_blocks=S, bandwidth=H, random_state=0).fit(X)
    t1 = time.perf_counter()
    est.pdf_grid(*axes)
    seconds, cpu = time.perf_counter() - t0, time.process_time() - c0
    fit_seconds, grid_seconds = t1 - t0, time.perf_counter() - t1
    _memo._MEMO.clear()
    tracemalloc.start()
    run()
    traced = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "seconds": seconds,
        "cpu": cpu,
        "fit": fit_seconds,
        "pdf_grid": grid_seconds,
        "warm_up": warm_up,
        "traced_peak_gib": traced / 2**30,
        "max_rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def scoring(d: int = 10, n: int = 10**5) -> dict:
    """Exact log densities of m = n fresh points in d dimensions: KDE and MoM-KDE S = 20
    (wall clock and CPU time of score_samples)."""
    rng = np.random.default_rng(d)
    X, Y = rng.standard_normal((n, d)), rng.standard_normal((n, d))
    out = {}
    for label, est in (("kde", KDE(bandwidth=0.5)), ("mom", MoMKDE(S, 0.5, random_state=0))):
        est.fit(X)
        c0, t0 = time.process_time(), time.perf_counter()
        est.score_samples(Y)
        out[label] = time.perf_counter() - t0
        out[label + "_cpu"] = time.process_time() - c0
    return out


def gram_fits(n: int = 20_000, dense_fits: bool = False) -> list[str]:
    """RKDE (Hampel, scale from the absolute loss) and SPKDE (contamination 0.1) in 2-D on
    n points (10 % uniform outliers on [-6, 6]^2, Scott's bandwidth): fit time (wall, CPU),
    Gram products and path; beside them the dense path's time per product (median of 3)
    times those products, or with ``dense_fits`` the dense fit itself."""
    rng = np.random.default_rng(n)
    m = n // 10
    X = np.vstack([rng.standard_normal((n - m, 2)), rng.uniform(-6, 6, (m, 2))])
    lines = []
    for est, products, gram_h in (
        (RKDE(), lambda e: e.scale_n_iter_ + e.n_iter_ + 2, lambda e: e._fitted.h),
        (SPKDE(), lambda e: e.n_iter_ + 3, lambda e: np.sqrt(2) * e._fitted.h),
    ):
        _memo._MEMO.clear()
        c0, t0 = time.process_time(), time.perf_counter()
        est.fit(X)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        dtype = np.float32 if isinstance(est, SPKDE) else np.float64
        Z, kernel = est._frame.inner(X), get_kernel("gaussian")
        path = GramOperator(Z, kernel, gram_h(est), dtype=dtype).method  # the fit's
        dense = GramOperator(Z, kernel, gram_h(est), dtype=dtype, method="dense")
        v = np.full(n, 1.0 / n)
        per_product = []
        for _ in range(3):
            t1 = time.perf_counter()
            dense.matvec(v)
            per_product.append(time.perf_counter() - t1)
        line = (
            f"{type(est).__name__} 2-D, n = {n}: fit {wall:.2f} s (CPU {cpu:.2f} s), "
            f"{products(est)} Gram products, {path} path; dense path: "
            f"{np.median(per_product):.2f} s per product, x {products(est)} = "
            f"{np.median(per_product) * products(est):.0f} s"
        )
        if dense_fits:
            with_dense = type(est)(**est.get_params())
            t1 = time.perf_counter()
            original = _gram.GRAM_GRID_MIN_PAIRS
            _gram.GRAM_GRID_MIN_PAIRS = n * n  # "auto" keeps the dense path
            try:
                with_dense.fit(X)
            finally:
                _gram.GRAM_GRID_MIN_PAIRS = original
            line += f" (measured dense fit: {time.perf_counter() - t1:.0f} s)"
        lines.append(line)
    return lines


def in_child(what: str) -> dict:
    """Run ``--child WHAT`` in a fresh process (its own peak memory) and read its JSON."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", what],
        capture_output=True,
        text=True,
        check=True,
        cwd=os.getcwd(),
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--big", action="store_true")
    parser.add_argument("--only", default=None)
    parser.add_argument("--gram", action="store_true")
    parser.add_argument("--gram-dense", action="store_true")
    parser.add_argument("--child", choices=["grid1d", "grid2d", "score"], default=None)
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="write the results into docs/benchmarks.md (sections grid-speed, large-cases, gram)",
    )
    args = parser.parse_args()
    if args.child:
        result = {"grid1d": lambda: big_grid(1), "grid2d": lambda: big_grid(2), "score": scoring}[
            args.child
        ]()
        print(json.dumps(result))
        return
    print(f"load before: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    machine = machine_line()
    sections: dict[str, list[str]] = {}

    def out(section: str, line: str) -> None:
        print(line, flush=True)
        sections.setdefault(section, []).append(line)

    if args.gram or args.gram_dense:
        for line in gram_fits(dense_fits=args.gram_dense):
            out("gram", f"- {line}")
    else:
        out(
            "grid-speed",
            "| task | momkde fit + pdf_grid, wall (CPU) | KDEpy FFTKDE (one KDE) | statsmodels "
            "FFT (one KDE) | ratio to KDEpy | MoM-KDE from 20 KDEpy FFTKDEs | ratio to it |",
        )
        out("grid-speed", "|---|---|---|---|---|---|---|")
        for name, method, n, d in TABLE:
            if args.only is None or args.only == name:
                out("grid-speed", table_row(name, method, n, d, args.repeat))
    if args.big:
        for what in ("grid1d", "grid2d"):
            r = in_child(what)
            out(
                "large-cases",
                f"- MoM-KDE S=20, {what[-2:]}, n = 1e7: fit + pdf_grid {r['seconds']:.2f} s "
                f"(CPU {r['cpu']:.2f} s; fit {r['fit']:.2f} s, pdf_grid {r['pdf_grid']:.2f} s), "
                f"after a warm-up of {r['warm_up']:.2f} s on 1e4 points; traced peak "
                f"{r['traced_peak_gib']:.2f} GiB, max RSS {r['max_rss_gib']:.2f} GiB",
            )
        r = in_child("score")
        out(
            "large-cases",
            f"- score_samples d = 10, n = m = 1e5: KDE {r['kde']:.1f} s (CPU "
            f"{r['kde_cpu']:.1f} s), MoM-KDE S=20 {r['mom']:.1f} s (CPU {r['mom_cpu']:.1f} s)",
        )
    print(f"load after: {os.getloadavg()[0]:.2f}", file=sys.stderr)
    if args.write_docs:
        for section, lines in sections.items():
            if section != "grid-speed" or len(lines) > 2:  # (--only none: no row, no table)
                write_section(section, "\n".join(lines) + "\n\n" + machine)


if __name__ == "__main__":
    main()

"""Speed and memory of the core, each beside the straightforward way, measured in one run.

Run: ``python benchmarks/bench_core.py [--write-docs]`` (prints the Markdown tables; with
``--write-docs`` they replace the sections ``core`` and ``robust-defaults`` of
docs/benchmarks.md).
Times are the best of several repeats (wall clock); peak memory is traced separately with
tracemalloc (numpy allocations), so tracing does not slow the timed runs.
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from _docs_tables import machine_line, write_section  # (a sibling: run as a script)
from sklearn.datasets import load_digits
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.neighbors import KernelDensity

from momkde_core import KDE, RKDE, SPKDE, MoMKDE
from momkde_core._engine import _memo
from momkde_core.bandwidth import cv_grid, select_bandwidth
from momkde_core.estimators._kirwls import hampel_psi, project_simplex
from momkde_core.kernels import get_kernel

S = 20


def best_time(fn, repeat: int = 5) -> float:
    """Best wall-clock time of ``repeat`` calls (after one warm-up call), each cold: the
    engine's replay memo is emptied first, so no call reuses the kernel values of another."""
    fn()
    times = []
    for _ in range(repeat):
        _memo._MEMO.clear()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peak_mib(fn) -> float:
    _memo._MEMO.clear()
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def sklearn_mom(X: np.ndarray, points: np.ndarray, h: float, block_of: np.ndarray) -> np.ndarray:
    """The straightforward MoM-KDE: one scikit-learn KernelDensity per block, then the median."""
    logs = [
        KernelDensity(bandwidth=h).fit(X[block_of == s]).score_samples(points) for s in range(S)
    ]
    return np.median(np.exp(logs), axis=0)


def naive_rkde(X: np.ndarray, h: float, iters: int) -> np.ndarray:
    """RKDE's KIRWLS with an explicit n x n Gram matrix (the straightforward way)."""
    n, d = X.shape
    G = rbf_kernel(X, gamma=0.5 / h**2) / (2 * np.pi * h**2) ** (d / 2)
    w = np.full(n, 1 / n)
    r = np.sqrt(np.maximum(np.diag(G) - 2 * G @ w + w @ G @ w, 0))
    a, b, c = np.percentile(r, [50, 75, 95])
    for _ in range(iters):
        phi = hampel_psi(r, a, b, c) / r
        w = phi / phi.sum()
        r = np.sqrt(np.maximum(np.diag(G) - 2 * G @ w + w @ G @ w, 0))
    return w


def naive_spkde(X: np.ndarray, h: float, beta: float, iters: int) -> np.ndarray:
    """SPKDE's projected gradient with an explicit n x n L2 Gram matrix."""
    n, d = X.shape
    hq = np.sqrt(2) * h
    Q = rbf_kernel(X, gamma=0.5 / hq**2) / (2 * np.pi * hq**2) ** (d / 2)
    step = 1 / (2 * np.linalg.eigvalsh(Q)[-1])
    a, t = np.full(n, 1 / n), np.full(n, beta / n)
    for _ in range(iters):
        a = project_simplex(a - step * 2 * Q @ (a - t))
    return a


def row(label: str, ours, peer, peer_label: str, memory_of=None) -> str:
    t_ours, t_peer = best_time(ours), best_time(peer, repeat=2)
    mem = f"{peak_mib(memory_of or ours):.1f}"
    return (
        f"| {label} | {t_ours * 1e3:.1f} ms | {mem} MiB | {peer_label}: "
        f"{t_peer * 1e3:.1f} ms | {t_peer / t_ours:.1f}x |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="write the tables into docs/benchmarks.md (sections core, robust-defaults)",
    )
    args = parser.parse_args()
    machine = machine_line()
    rng = np.random.default_rng(0)
    lines = [
        "| task | ours | peak memory | straightforward way | speed-up |",
        "|---|---|---|---|---|",
    ]
    xs = np.linspace(-3, 9, 1024)
    for n in (10**3, 10**4, 10**5):
        X = np.r_[rng.normal(0, 0.5, n // 2), rng.normal(6, 0.5, n - n // 2)][:, None]
        est = MoMKDE(n_blocks=S, bandwidth=0.2, random_state=0, normalize=False).fit(X)
        lines.append(
            row(
                f"MoM-KDE S=20, 1-D grid of 1024, n={n:,}",
                lambda: est.pdf_grid(xs),
                lambda: sklearn_mom(X, xs[:, None], 0.2, est.block_of_),
                "KernelDensity per block",
            )
        )
    g = np.linspace(-3, 6, 128)
    mesh = np.stack([m.ravel() for m in np.meshgrid(g, g, indexing="ij")], 1)
    for n in (10**3, 10**4):
        X = np.r_[rng.normal(0, 0.5, (n // 2, 2)), rng.normal(3, 0.5, (n - n // 2, 2))]
        est = MoMKDE(n_blocks=S, bandwidth=0.3, random_state=0, normalize=False).fit(X)
        lines.append(
            row(
                f"MoM-KDE S=20, 2-D grid 128x128, n={n:,}",
                lambda: est.pdf_grid(g, g),
                lambda: sklearn_mom(X, mesh, 0.3, est.block_of_),
                "KernelDensity per block",
            )
        )
    digits = load_digits().data
    # one h for all 64 features (scikit-learn's KernelDensity takes a scalar): Scott's rule
    # on the pooled standard deviation
    h_digits = select_bandwidth(digits, "scott", get_kernel("gaussian"))
    est = MoMKDE(n_blocks=S, bandwidth=h_digits, random_state=0).fit(digits)
    lines.append(
        row(
            "MoM-KDE S=20, score Digits (n=1797, d=64)",
            lambda: est.score_samples(digits),
            lambda: sklearn_mom(digits, digits, est.bandwidth_, est.block_of_),
            "KernelDensity per block",
        )
    )
    for n in (1000, 5000):
        X = np.r_[rng.normal(0, 0.5, (int(n * 0.9), 2)), rng.uniform(-3, 6, (n // 10, 2))]
        rk = RKDE(bandwidth=0.3).fit(X)
        lines.append(
            row(
                f"RKDE fit, 2-D, n={n:,} ({rk.n_iter_} iterations)",
                lambda: RKDE(bandwidth=0.3).fit(X),
                lambda: naive_rkde(X, 0.3, rk.n_iter_),
                "n x n Gram, same iterations",
            )
        )
        sp = SPKDE(bandwidth=0.3, contamination=0.1).fit(X)
        lines.append(
            row(
                f"SPKDE fit, 2-D, n={n:,} ({sp.n_iter_} iterations)",
                lambda: SPKDE(bandwidth=0.3, contamination=0.1).fit(X),
                lambda: naive_spkde(X, 0.3, 1 / 0.9, sp.n_iter_),
                "n x n Gram, plain projected gradient, same iterations",
            )
        )
    for n in (1000, 10**4):
        X = np.r_[rng.normal(0, 0.5, n // 2), rng.normal(6, 0.5, n - n // 2)][:, None]
        grid = cv_grid(X)
        search = GridSearchCV(KernelDensity(), {"bandwidth": grid}, cv=5)
        lines.append(
            row(
                f'bandwidth "cv" (leave-one-out, refined), 1-D, n={n:,}',
                lambda: KDE(bandwidth="cv").fit(X),
                lambda: search.fit(X),
                "GridSearchCV(KernelDensity), 25 values, 5 folds",
            )
        )
    print("\n".join(lines), flush=True)
    defaults = robust_defaults_cost()
    print("\n" + "\n".join(defaults))
    if args.write_docs:
        write_section("core", "\n".join(lines) + "\n\n" + machine)
        write_section("robust-defaults", "\n".join(defaults) + "\n\n" + machine)


def robust_defaults_cost() -> list[str]:
    """What ``MoMKDE().fit`` spends choosing S and h: CPU time (all threads) of
    ``MoMKDE(random_state=0).fit`` on standard normal data, best of 3."""
    rng = np.random.default_rng(1)
    lines = ["| d, n | S | CPU time of MoMKDE().fit |", "|---|---|---|"]
    for d, n in ((1, 2000), (1, 20_000), (2, 500), (2, 2000), (2, 20_000)):
        X = rng.standard_normal((n, d))
        times = []
        for _ in range(3):
            _memo._MEMO.clear()
            t0 = time.process_time()
            est = MoMKDE(random_state=0).fit(X)
            times.append(time.process_time() - t0)
        lines.append(f"| {d}-D, {n:,} | {est.n_blocks_} | {min(times):.2f} s |")
    return lines


if __name__ == "__main__":
    main()

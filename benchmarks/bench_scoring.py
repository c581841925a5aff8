"""Scoring throughput against the detectors an analyst would pick instead, in the same run.

Run: ``python benchmarks/bench_scoring.py [--write-docs] [--cli] [--huge]``.

Detectors: momkde's default (``make_detector()``: MoMKDE(n_blocks=21, bandwidth="scott"),
``OutlierDetector()``'s estimator), ``make_detector("mom_kde")`` (MoM-KDE with S and h from
the contamination) and ``make_detector("kde")`` (the KDE with the cross-validated bandwidth),
against scikit-learn's IsolationForest, LocalOutlierFactor(novelty=True) and KernelDensity
(Scott's bandwidth, tree-based), and PyOD's KDE and ECOD when PyOD is installed. Data:
standard normal with 10 % uniform outliers on [-6, 6]^d (standardised, as ``momkde score``
fits), contamination 0.1; each detector is fitted on ``n_fit`` rows and scores 1e5 new
rows; wall clock, one run each (after a warm-up fit on 1000 rows that loads the compiled
code). The ratio is to IsolationForest's fit + score in the same run.

``--cli``: ``momkde score`` end to end on CSV files of 3e5 and 1e6 rows x 3 (default method
and ``--method kde``) against a pandas + IsolationForest script doing the same (read, fit on
20,000 rows, score every row, write), and the seconds to the first progress line on a
non-terminal stderr. ``--huge``: 1e7 rows x 10 through ``momkde score`` (minutes), its time
and peak memory.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from _docs_tables import machine_line, write_section  # (a sibling: run as a script)
from sklearn.ensemble import IsolationForest
from sklearn.neighbors import KernelDensity, LocalOutlierFactor

from momkde_core import make_detector
from momkde_core.methods import DEFAULT_DETECTOR

N_SCORE = 100_000
CONTAMINATION = 0.1
SCRIPT = """
import sys, pandas as pd
from sklearn.ensemble import IsolationForest
df = pd.read_csv(sys.argv[1])
X = df[["a", "b", "c"]].to_numpy()
fit = X[pd.Series(range(len(X))).sample(min(20000, len(X)), random_state=0).to_numpy()]
forest = IsolationForest(contamination=0.1, random_state=0).fit(fit)
df["score"] = forest.decision_function(X)
df["is_outlier"] = df["score"] < 0
df.to_csv(sys.argv[2], index=False)
"""


def sample(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    n_out = int(CONTAMINATION * n)
    X = np.vstack([rng.standard_normal((n - n_out, d)), rng.uniform(-6, 6, (n_out, d))])
    return X[rng.permutation(n)]


def peers() -> dict:
    out = {
        "momkde default (mom_kde_21)": lambda: make_detector(
            contamination=CONTAMINATION, random_state=0
        ),
        "momkde mom_kde (S, h from the share)": lambda: make_detector("mom_kde", CONTAMINATION, 0),
        "momkde kde (CV bandwidth)": lambda: make_detector("kde", CONTAMINATION, 0),
        "IsolationForest": lambda: IsolationForest(contamination=CONTAMINATION, random_state=0),
        "LocalOutlierFactor(novelty=True)": lambda: LocalOutlierFactor(
            novelty=True, contamination=CONTAMINATION
        ),
        "KernelDensity (Scott)": lambda: KernelDensity(bandwidth="scott"),
    }
    try:
        from pyod.models.ecod import ECOD
        from pyod.models.kde import KDE as PyodKDE

        out["PyOD KDE"] = lambda: PyodKDE(contamination=CONTAMINATION)
        out["PyOD ECOD"] = lambda: ECOD(contamination=CONTAMINATION)
    except ImportError:
        print("PyOD is not installed: its rows are left out (pip install pyod)", file=sys.stderr)
    return out


def score_of(model, Y: np.ndarray) -> np.ndarray:
    if hasattr(model, "decision_function"):
        return model.decision_function(Y)
    return model.score_samples(Y)


def time_detectors(d: int, n_fit: int, rng: np.random.Generator) -> list[str]:
    X, Y = sample(n_fit, d, rng), sample(N_SCORE, d, rng)
    rows, base = [], None
    for name, make in peers().items():
        make().fit(X[:1000])  # warm-up: compiled code, imports
        t0 = time.perf_counter()
        model = make().fit(X)
        t1 = time.perf_counter()
        score_of(model, Y)
        t2 = time.perf_counter()
        total = t2 - t0
        base = total if name == "IsolationForest" else base
        rows.append((name, t1 - t0, t2 - t1, total))
        print(
            f"d={d} n_fit={n_fit:,} {name}: fit {t1 - t0:.2f} s, score {t2 - t1:.2f} s", flush=True
        )
    lines = []
    for name, fit, score, total in rows:
        lines.append(
            f"| d = {d}, {n_fit:,} fitted | {name} | {fit:.2f} s | {score:.2f} s | "
            f"{N_SCORE / score:,.0f} | {total / base:.1f}x |"
        )
    return lines


def run_cli(args: list[str], stderr_path: Path) -> tuple[float, float | None]:
    """(seconds, seconds to the first stderr line) of ``momkde`` with ``args``."""
    t0 = time.perf_counter()
    first = None
    with open(stderr_path, "w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "momkde_core.cli", *args], stderr=subprocess.PIPE, text=True
        )
        for line in proc.stderr:
            if first is None:
                first = time.perf_counter() - t0
            err.write(line)
        proc.wait()
    if proc.returncode:
        raise RuntimeError(f"momkde {' '.join(args)} failed: {stderr_path.read_text()[-2000:]}")
    return time.perf_counter() - t0, first


def time_cli(folder: Path, rng: np.random.Generator) -> list[str]:
    lines = []
    script = folder / "iforest.py"
    script.write_text(SCRIPT)
    for n in (300_000, 1_000_000):
        data = folder / f"data_{n}.csv"
        np.savetxt(data, sample(n, 3, rng), delimiter=",", header="a,b,c", comments="", fmt="%.6g")
        t0 = time.perf_counter()
        subprocess.run([sys.executable, str(script), data, folder / "if.csv"], check=True)
        base = time.perf_counter() - t0
        for method in (DEFAULT_DETECTOR, "kde"):
            seconds, first = run_cli(
                ["score", str(data), "--method", method, "--out", str(folder / "s.csv")],
                folder / "stderr.txt",
            )
            lines.append(
                f"| {n:,} x 3 | momkde score --method {method} | {seconds:.1f} s | "
                f"{'-' if first is None else f'{first:.1f} s'} | pandas + IsolationForest: "
                f"{base:.1f} s | {seconds / base:.1f}x |"
            )
            print(lines[-1], flush=True)
    return lines


def time_huge(folder: Path, rng: np.random.Generator) -> str:
    data = folder / "huge.csv"
    with open(data, "w") as fh:
        fh.write(",".join(f"x{k}" for k in range(10)) + "\n")
        for _ in range(100):
            np.savetxt(fh, sample(100_000, 10, rng), delimiter=",", fmt="%.6g")
    seconds, _ = run_cli(["score", str(data), "--out", str(folder / "s.csv")], folder / "e.txt")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 2**20
    return (
        f"- `momkde score` on 1e7 rows x 10 (default method): {seconds:.0f} s, peak {peak:.2f} GiB"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write-docs", action="store_true", help="write docs/benchmarks.md")
    parser.add_argument("--cli", action="store_true", help="also momkde score on CSV files")
    parser.add_argument("--huge", action="store_true", help="also 1e7 rows x 10 (minutes)")
    args = parser.parse_args()
    machine = machine_line()
    rng = np.random.default_rng(0)
    table = [
        "| data | detector | fit | score 1e5 rows | rows/s | fit + score, ratio to "
        "IsolationForest |",
        "|---|---|---|---|---|---|",
    ]
    for d in (2, 10):
        table += time_detectors(d, 20_000, rng)
    fit_large = []
    for n_fit in (100_000,):
        X = sample(n_fit, 2, rng)
        t0 = time.perf_counter()
        make_detector(contamination=CONTAMINATION, random_state=0).fit(X)
        fit_large.append(
            f"- Default detector fit on {n_fit:,} rows in 2-D: {time.perf_counter() - t0:.2f} s"
        )
        print(fit_large[-1], flush=True)
    sections = {"scoring": "\n".join(table) + "\n\n" + "\n".join(fit_large)}
    with tempfile.TemporaryDirectory() as tmp:
        if args.cli:
            cli = [
                "| file | command | total | first progress line | the same with | ratio |",
                "|---|---|---|---|---|---|",
                *time_cli(Path(tmp), rng),
            ]
            sections["scoring-cli"] = "\n".join(cli)
        if args.huge:
            sections["scoring-cli"] = (
                sections.get("scoring-cli", "") + "\n\n" + time_huge(Path(tmp), rng)
            )
    if args.write_docs:
        for name, text in sections.items():
            write_section(name, text + "\n\n" + machine)
    print(f"load after: {os.getloadavg()[0]:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()

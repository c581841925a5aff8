"""What explaining a flag costs against scoring it, and the sampled method's error.

Run: ``python benchmarks/bench_explain.py [--write-docs] [--repeats 7]``.

Speed: ``OutlierDetector()`` (the default: MoMKDE(n_blocks=21, bandwidth="scott") on at most
2,688 of the training rows, scored by the mean of its blocks' log densities) fitted on 20,000
rows in d = 10 (standard normal with features 0 and 1 correlated at 0.9, 10 % uniform
outliers on [-6, 6]^10); 1,000 flagged rows (the lowest
scores of 10,000 new rows of the same law) are scored (``score_samples``) and explained
(``explain``, exact at d = 10: every one of the 1,024 subsets). Wall clock, the best of
``--repeats`` (7) interleaved runs each, after a warm-up; the ratio is explain's time over
score's, and its range over the rounds.

Accuracy of the sampled orders (``method="permutation"``, used above 10 features): against
the exact values at d = 10 on 200 of the flagged rows, the mean, 99th percentile and largest
absolute error (nats) for 64, 256 (the default) and 1,024 orders, seeded.

``--write-docs`` writes the table into docs/benchmarks.md (section ``explain``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _docs_tables import machine_line, write_section  # (a sibling: run as a script)

from momkde_core import OutlierDetector

D = 10
N_FIT = 20_000
N_FLAGGED = 1_000
N_ACCURACY = 200
ORDERS = (64, 256, 1024)


def sample(n: int, rng: np.random.Generator) -> np.ndarray:
    """n rows: 90 % standard normal (features 0 and 1 correlated at 0.9), 10 % uniform."""
    X = rng.standard_normal((n, D))
    X[:, 1] = 0.9 * X[:, 0] + np.sqrt(1 - 0.81) * X[:, 1]
    outliers = rng.random(n) < 0.1
    X[outliers] = rng.uniform(-6, 6, (int(outliers.sum()), D))
    return X


def interleaved_times(calls, repeats: int) -> tuple[np.ndarray, np.ndarray]:
    """(wall clock, CPU time of the process) in seconds, shape (calls, repeats): ``repeats``
    rounds of one call after the other, so that every call meets the machine's other work
    alike."""
    wall, cpu = np.zeros((len(calls), repeats)), np.zeros((len(calls), repeats))
    for r in range(repeats):
        for c, call in enumerate(calls):
            start, start_cpu = time.perf_counter(), time.process_time()
            call()
            wall[c, r] = time.perf_counter() - start
            cpu[c, r] = time.process_time() - start_cpu
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write-docs", action="store_true")
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    detector = OutlierDetector(random_state=0).fit(sample(N_FIT, rng))
    pool = sample(10 * N_FLAGGED, rng)
    flagged = pool[np.argsort(detector.score_samples(pool))[:N_FLAGGED]]
    detector.explain(flagged[:10])  # (warm-up)
    wall, cpu = interleaved_times(
        [lambda: detector.score_samples(flagged), lambda: detector.explain(flagged)],
        args.repeats,
    )
    (score, explain), (score_cpu, explain_cpu) = wall.min(axis=1), cpu.min(axis=1)
    ratios = wall[1] / wall[0]
    fitted = len(detector.estimator_._fitted.X)
    lines = [
        f"Default detector fitted on {N_FIT:,} rows in d = {D} ({fitted:,} rows fitted), "
        f"{N_FLAGGED:,} flagged rows:",
        "",
        "| step | wall clock (s) | ratio to scoring | CPU time (s) | ratio to scoring |",
        "|---|---:|---:|---:|---:|",
        f"| score_samples | {score:.3f} | 1.0 | {score_cpu:.3f} | 1.0 |",
        f"| explain (exact, 1,024 subsets) | {explain:.3f} | {explain / score:.1f} "
        f"| {explain_cpu:.3f} | {explain_cpu / score_cpu:.1f} |",
        "",
        f"The best of {args.repeats} runs each, one after the other; the wall-clock ratio "
        f"within each of the {args.repeats} rounds ranged from {ratios.min():.1f} to "
        f"{ratios.max():.1f} (median {np.median(ratios):.1f}).",
    ]
    rows = flagged[:N_ACCURACY]
    exact = detector.explain(rows, method="exact")
    lines += [
        "",
        f"Sampled orders against the exact values at d = {D} ({N_ACCURACY} flagged rows of mean "
        f"abnormality {exact.sum(axis=1).mean():.1f} nats, mean absolute contribution "
        f"{np.abs(exact).mean():.2f} nats; errors in nats):",
        "",
        "| orders | mean abs. error | 99th percentile | largest | mean abs. error / mean abs. "
        "contribution |",
        "|---:|---:|---:|---:|---:|",
    ]
    for n in ORDERS:
        approx = detector.explain(rows, method="permutation", n_permutations=n, random_state=0)
        err = np.abs(approx - exact)
        lines.append(
            f"| {n:,} | {err.mean():.4f} | {np.percentile(err, 99):.4f} | {err.max():.4f} "
            f"| {err.mean() / np.abs(exact).mean():.2%} |"
        )
    text = "\n".join(lines) + "\n\n" + machine_line() + "\n"
    print(text)
    if args.write_docs:
        write_section("explain", text)


if __name__ == "__main__":
    main()

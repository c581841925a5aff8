"""Outlier detection on the paper's six real data sets: ROC AUC, average precision and time.

    python benchmarks/bench_anomaly.py [--reps 10] [--ratios 0.05 0.1 0.2] [--jobs 2]
                                       [--datasets ...] [--out results.csv.gz]

Protocol (Kim & Scott's, as in the paper's section 5): one class is the outlier class; it is
subsampled to each ratio |O|/n and every feature standardised (``datasets.contaminated_sample``,
seeded per data set, ratio and repetition exactly like ``momkde reproduce real``). Every method
is label-free and is told the same share of outliers, the true ratio (what a user who knows
the share would state); the scores are ranked against the labels only afterwards.

Methods: our density estimators wrapped in :class:`momkde_core.OutlierDetector` (KDE with
the CV bandwidth, MoM-KDE with the robust defaults, MoM-KDE with a fixed S = 21 and the CV
bandwidth (the app's former default), RKDE and SPKDE with the CV bandwidth (one CV per sample,
shared), ScreenedKDE with the stated share and its own CV bandwidth on the rows its screen
keeps) and scikit-learn's IsolationForest, LocalOutlierFactor (n_neighbors=20, scores of the
training points) and OneClassSVM (RBF, gamma="scale", nu = the stated share). Time: fit +
scoring of the sample, wall clock, the CV included in each method that uses it, one process
per sample (``--jobs`` samples at once, so times are measured on a shared machine).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.ensemble import IsolationForest
from sklearn.metrics import average_precision_score
from sklearn.neighbors import LocalOutlierFactor
from sklearn.svm import OneClassSVM

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from momkde_core import KDE, RKDE, SPKDE, MoMKDE, OutlierDetector, ScreenedKDE, metrics  # noqa: E402
from momkde_core.datasets import (  # noqa: E402
    DATASETS,
    DatasetNotFoundError,
    contaminated_sample,  # noqa: E402
)
from momkde_core.experiments import task_seed  # noqa: E402
from momkde_core.experiments._tasks import _dataset  # noqa: E402

FIXED_S = 21


def _detector(estimator) -> Callable[[np.ndarray, float, int, float], np.ndarray]:
    """Scores (high = normal) of an OutlierDetector around ``estimator(share, seed, h_cv)``."""

    def score(X: np.ndarray, share: float, seed: int, h_cv: float) -> np.ndarray:
        return (
            OutlierDetector(estimator(share, seed, h_cv), contamination=share)
            .fit(X)
            .score_samples(X)
        )

    return score


# each method gets (X, stated share, seed, the sample's CV bandwidth): as in the runner, one
# CV bandwidth per sample is shared by the density estimators that use it
METHODS: dict[str, Callable[[np.ndarray, float, int, float], np.ndarray]] = {
    "kde": _detector(lambda c, s, h: KDE(h)),
    "mom_kde_auto": _detector(lambda c, s, h: MoMKDE(contamination=c, random_state=s)),
    f"mom_kde_S{FIXED_S}": _detector(lambda c, s, h: MoMKDE(FIXED_S, h, random_state=s)),
    "rkde": _detector(lambda c, s, h: RKDE(h)),
    "spkde": _detector(lambda c, s, h: SPKDE(h, contamination=c)),
    "screened_kde": _detector(lambda c, s, h: ScreenedKDE(contamination=c, random_state=s)),
    "isolation_forest": lambda X, c, s, h: IsolationForest(random_state=s).fit(X).score_samples(X),
    "lof": lambda X, c, s, h: LocalOutlierFactor(n_neighbors=20).fit(X).negative_outlier_factor_,
    "one_class_svm": lambda X, c, s, h: OneClassSVM(nu=c, gamma="scale").fit(X).score_samples(X),
}
USES_CV = ("kde", f"mom_kde_S{FIXED_S}", "rkde", "spkde")


def run_sample(name: str, ratio: float, rep: int, seed: int, methods: list[str]) -> list[dict]:
    """Every method on one contaminated sample: AUC, AP and time."""
    X, is_outlier = contaminated_sample(_dataset(name, None), ratio, random_state=seed)
    start = time.perf_counter()
    h_cv = KDE("cv", random_state=seed % 2**31).fit(X).bandwidth_
    cv_seconds = time.perf_counter() - start
    rows = []
    for method in methods:
        start = time.perf_counter()
        scores = METHODS[method](X, ratio, seed % 2**31, h_cv)
        seconds = time.perf_counter() - start + (cv_seconds if method in USES_CV else 0.0)
        rows.append(
            {
                "source": name,
                "ratio": ratio,
                "rep": rep,
                "seed": seed,
                "method": method,
                "n": len(X),
                "d": X.shape[1],
                "auc": metrics.auc(scores, is_outlier),
                "average_precision": average_precision_score(is_outlier, -scores),
                "seconds": seconds,
            }
        )
    return rows


def markdown_table(table: pd.DataFrame, digits: int) -> str:
    """A pivot table as a Markdown table (index levels as the first columns)."""
    names = list(table.index.names) + [str(c) for c in table.columns]
    lines = ["| " + " | ".join(names) + " |", "|" + "---|" * len(names)]
    for key, row in table.iterrows():
        keys = key if isinstance(key, tuple) else (key,)
        lines.append(
            "| " + " | ".join([str(k) for k in keys] + [f"{v:.{digits}f}" for v in row]) + " |"
        )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--ratios", type=float, nargs="+", default=[0.05, 0.1, 0.2])
    parser.add_argument("--datasets", nargs="+", choices=DATASETS, default=list(DATASETS))
    parser.add_argument("--methods", nargs="+", choices=list(METHODS), default=list(METHODS))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()

    names = []
    for name in args.datasets:
        try:
            _dataset(name, None)
        except DatasetNotFoundError as err:
            print(f"skipping {name}: {err}", file=sys.stderr)
        else:
            names.append(name)
    jobs = [
        (n, r, k, task_seed(args.seed, n, r, k))
        for n in names
        for r in args.ratios
        for k in range(args.reps)
    ]
    start = time.perf_counter()
    results = Parallel(n_jobs=args.jobs)(delayed(run_sample)(*job, args.methods) for job in jobs)
    wall = time.perf_counter() - start
    df = pd.DataFrame([row for rows in results for row in rows])
    if args.out is not None:
        from momkde_core.io import write_csv

        write_csv(df, args.out)
    print(f"{len(jobs)} samples in {wall:.0f} s ({args.jobs} jobs)\n")
    for metric in ("auc", "average_precision", "seconds"):
        table = df.pivot_table(
            index=["source", "ratio"], columns="method", values=metric, aggfunc="mean"
        )[args.methods]
        print(f"mean {metric}\n{markdown_table(table, 3 if metric != 'seconds' else 4)}\n")


if __name__ == "__main__":
    main()

"""Why the median of 21 block KDEs beats the full-sample KDE where S > 2|O| does not hold.

    MOMKDE_ADBENCH_DIR=../shared/data/adbench python benchmarks/studies/adbench_isolation.py

Issue #47's isolation step. On the sets where the default gains most over the same KDE at the
same bandwidth (musk, wine, Hepatitis, Stamps: ``bench_adbench.py``'s protocol, seeds 0-4),
each variant below is scored on the test rows and ranked against the labels (mean AUC-ROC
and AP over the seeds). Every variant uses Scott's per-feature bandwidth h_n computed on the
n training rows, unless its name says otherwise, and the default's 21 blocks (a seeded
random partition of the training rows):

``kde``              the KDE of all n rows at h_n (= the mean of the 21 block densities).
``median_21``        the median of the 21 block log densities (the default's ranking).
``mean_log_21``      their mean (a geometric mean of the block densities).
``one_block``        a single block's KDE (n / 21 rows, the first block) at h_n.
``kde_h_block``      the KDE of all n rows at Scott's h for n / 21 rows (wider).
``kde_h/2``, ``kde_h/4``  the KDE of all n rows at h_n / 2, h_n / 4 (narrower).
``knn_21``           minus the squared scaled distance to the 21st nearest training row
                     (in units of h_n): the rank-21 neighbour a median of 21 blocks of
                     single kernels would see.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import average_precision_score, roc_auc_score

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from adbench_rules import _log_kde, _scott_h  # noqa: E402
from bench_adbench import SEEDS, data_dir, split  # noqa: E402

SETS = ("15_Hepatitis", "25_musk", "37_Stamps", "45_wine")
S = 21


def variants(X: np.ndarray, T: np.ndarray, seed: int) -> dict[str, np.ndarray]:
    """Each variant's score of T (high = normal), fitted on X."""
    n, d = X.shape
    h = _scott_h(X)
    blocks = np.array_split(np.random.default_rng(seed).permutation(n), S)
    logs = np.stack([_log_kde(T, X[b], h) for b in blocks])
    block_factor = (n / S) ** (-1.0 / (d + 4)) / n ** (-1.0 / (d + 4))
    sq = ((T[:, None, :] - X[None, :, :]) / h) ** 2
    dist = np.sort(sq.sum(axis=2), axis=1)
    return {
        "kde": _log_kde(T, X, h),
        "median_21": np.median(logs, axis=0),
        "mean_log_21": logs.mean(axis=0),
        "one_block": logs[0],
        "kde_h_block": _log_kde(T, X, h * block_factor),
        "kde_h/2": _log_kde(T, X, h / 2),
        "kde_h/4": _log_kde(T, X, h / 4),
        "knn_21": -dist[:, min(S, n) - 1],
    }


def main() -> pd.DataFrame:
    folder = data_dir()
    rows = []
    for name in SETS:
        for seed in SEEDS:
            X, T, y_train, y = split(folder / f"{name}.npz", seed)
            for variant, score in variants(X, T, seed).items():
                rows.append(
                    {
                        "set": name,
                        "seed": seed,
                        "variant": variant,
                        "auc_roc": roc_auc_score(y, -score),
                        "average_precision": average_precision_score(y, -score),
                        "train_anomalies": int(y_train.sum()),
                    }
                )
    results = pd.DataFrame(rows)
    table = results.groupby(["variant", "set"])["auc_roc"].mean().unstack("set")
    table["mean"] = table.mean(axis=1)
    print(table.sort_values("mean", ascending=False).to_markdown(floatfmt=".3f"))
    ap = results.groupby(["variant", "set"])["average_precision"].mean().unstack("set")
    ap["mean"] = ap.mean(axis=1)
    print(ap.sort_values("mean", ascending=False).to_markdown(floatfmt=".3f"))
    print(results.groupby("set")["train_anomalies"].mean().to_string())
    return results


if __name__ == "__main__":
    main()

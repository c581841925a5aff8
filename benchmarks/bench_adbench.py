"""momkde's detectors against the field's on ADBench's classical tabular sets.

    MOMKDE_ADBENCH_DIR=../shared/data/adbench python benchmarks/bench_adbench.py \
        [--sets 15_Hepatitis 45_wine ...] [--seeds 0 1 2 3 4] [--rules] \
        [--out docs/results/adbench.csv.gz] [--write-docs]

The protocol is ADBench's unsupervised setting (Han et al., "ADBench: Anomaly Detection
Benchmark", NeurIPS 2022), as ``../shared/data/adbench/README.md`` states it: for each set
and seed, at most 10,000 rows drawn without replacement (``RandomState(seed)``), every
feature min-max scaled over those rows, a 70 / 30 split stratified on the labels and
shuffled with the seed; each detector is fitted on the 70 % without labels (the anomalies
stay in it) and scores the 30 %, ranked against the labels only then (AUC-ROC and average
precision). Time: the detector's fit + scoring, wall clock, one detector at a time in this
process, after one untimed warm-up fit of each on a small random matrix (compiled code,
ours and PyOD's, is compiled once per process, not once per data set), so every ratio to IsolationForest is measured in the same run on the same machine.

Detectors: momkde's (``OutlierDetector()``, ``make_detector("kde")``, ``make_detector
("mom_kde")``), scikit-learn's IsolationForest and PyOD's IForest, ECOD, COPOD, HBOS, KNN and
LOF at their defaults (PyOD is in the ``bench`` extra). ``--rules`` adds the candidate
defaults preregistered in ``benchmarks/adbench_rules.py``, ``--pace`` the default's options of
fitting on fewer rows (``PACE_RULES`` there), ``--round-two`` issue #47's candidates
(``ROUND_TWO_RULES`` there).

Per set the mean over seeds, then over sets: mean AUC-ROC, mean average precision, average
rank (1 = best AUC-ROC on a set, ties averaged), and each detector's time summed over all
runs as a ratio to IsolationForest's. ``--write-docs`` writes that table, the date and the
machine into the ``adbench`` section of ``docs/anomaly.md``.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.ensemble import IsolationForest
from sklearn.metrics import average_precision_score, roc_auc_score
from sklearn.model_selection import train_test_split

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks._docs_tables import machine_line, write_section  # noqa: E402
from momkde_core import OutlierDetector, make_detector  # noqa: E402

DATA_ENV = "MOMKDE_ADBENCH_DIR"
MAX_ROWS = 10_000
TEST_SHARE = 0.3
SEEDS = (0, 1, 2, 3, 4)
REFERENCE = "isolation_forest"
DOCS = ROOT / "docs" / "anomaly.md"
SECTION = "adbench"  # the section of docs/anomaly.md that --write-docs replaces


class _Flipped:
    """A PyOD detector as a scorer with high = normal (PyOD's decision_function is high =
    abnormal)."""

    def __init__(self, detector):
        self.detector = detector

    def fit(self, X):
        self.detector.fit(X)
        return self

    def score_samples(self, X):
        return -self.detector.decision_function(X)


def _pyod(name: str) -> Callable[[int], object]:
    def make(seed: int):
        module, cls = {
            "pyod_iforest": ("iforest", "IForest"),
            "ecod": ("ecod", "ECOD"),
            "copod": ("copod", "COPOD"),
            "hbos": ("hbos", "HBOS"),
            "knn": ("knn", "KNN"),
            "lof": ("lof", "LOF"),
        }[name]
        klass = getattr(importlib.import_module(f"pyod.models.{module}"), cls)
        kwargs = {"random_state": seed} if name == "pyod_iforest" else {}
        return _Flipped(klass(**kwargs))

    return make


def detectors(
    with_rules: bool = False, with_pace: bool = False, with_round_two: bool = False
) -> dict[str, Callable[[int], object]]:
    """Name -> factory(seed) of a scorer with ``fit`` and ``score_samples`` (high = normal)."""
    out: dict[str, Callable[[int], object]] = {
        "momkde_default": lambda seed: OutlierDetector(random_state=seed),
        "momkde_kde": lambda seed: make_detector("kde", random_state=seed),
        "momkde_mom_kde": lambda seed: make_detector("mom_kde", random_state=seed),
        REFERENCE: lambda seed: IsolationForest(random_state=seed),
    }
    for name in ("pyod_iforest", "ecod", "copod", "hbos", "knn", "lof"):
        out[name] = _pyod(name)
    if with_rules or with_pace or with_round_two:
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from adbench_rules import PACE_RULES, ROUND_TWO_RULES, RULES

        if with_rules:
            out.update({f"rule_{k}": v for k, v in RULES.items()})
        if with_round_two:
            out.update({f"rule_{k}": v for k, v in ROUND_TWO_RULES.items()})
        if with_pace:
            out.update({f"pace_{k}": v for k, v in PACE_RULES.items()})
    return out


def data_dir() -> Path:
    """The folder of ADBench's .npz files (``MOMKDE_ADBENCH_DIR``)."""
    folder = os.environ.get(DATA_ENV)
    if not folder or not Path(folder).is_dir():
        raise SystemExit(
            f"set {DATA_ENV} to the folder of ADBench's .npz files (in CI: ../shared/data/adbench)"
        )
    return Path(folder)


def split(path: Path, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One run's (X_train, X_test, y_train, y_test), by ADBench's protocol."""
    data = np.load(path)
    X, y = np.asarray(data["X"], dtype=float), np.asarray(data["y"]).astype(int)
    if len(X) > MAX_ROWS:
        rows = np.random.RandomState(seed).choice(len(X), MAX_ROWS, replace=False)
        X, y = X[rows], y[rows]
    low, span = X.min(axis=0), np.ptp(X, axis=0)
    X = (X - low) / np.where(span > 0, span, 1.0)
    return train_test_split(X, y, test_size=TEST_SHARE, stratify=y, shuffle=True, random_state=seed)


def run(
    sets: list[Path], seeds, makers: dict[str, Callable[[int], object]], progress=print
) -> pd.DataFrame:
    """One row per (set, seed, detector): AUC-ROC, average precision and seconds."""
    warm = np.random.default_rng(0).random((300, 4))
    with warnings.catch_warnings():  # first calls compile (numba, in PyOD and in momkde)
        warnings.simplefilter("ignore")
        for make in makers.values():
            make(0).fit(warm).score_samples(warm)
    rows = []
    for path in sets:
        for seed in seeds:
            X_train, X_test, _, y_test = split(path, seed)
            for name, make in makers.items():
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    scores = make(seed).fit(X_train).score_samples(X_test)
                seconds = time.perf_counter() - start
                abnormality = -np.asarray(scores, dtype=float)
                abnormality = np.nan_to_num(abnormality, nan=0.0, posinf=1e308, neginf=-1e308)
                rows.append(
                    {
                        "set": path.stem,
                        "seed": seed,
                        "detector": name,
                        "auc_roc": roc_auc_score(y_test, abnormality),
                        "average_precision": average_precision_score(y_test, abnormality),
                        "seconds": seconds,
                    }
                )
            progress(f"{path.stem} seed {seed}: done")
    return pd.DataFrame(rows)


def summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per detector: mean AUC-ROC and AP over sets (each the mean over its seeds), average
    rank of the per-set AUC-ROC (1 = best), time summed over runs / IsolationForest's."""
    per_set = results.groupby(["set", "detector"])[["auc_roc", "average_precision"]].mean()
    auc = per_set["auc_roc"].unstack("detector")
    ranks = auc.rank(axis=1, ascending=False).mean()
    seconds = results.groupby("detector")["seconds"].sum()
    table = pd.DataFrame(
        {
            "mean AUC-ROC": auc.mean(),
            "mean AP": per_set["average_precision"].unstack("detector").mean(),
            "average rank": ranks,
            "time / IsolationForest": seconds / seconds[REFERENCE],
        }
    )
    return table.sort_values("mean AUC-ROC", ascending=False)


def per_set_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean AUC-ROC over seeds, sets x detectors."""
    return results.groupby(["set", "detector"])["auc_roc"].mean().unstack("detector")


def paired_bootstrap(
    results: pd.DataFrame, detector: str, peer: str, n_resamples: int = 10_000, seed: int = 0
) -> pd.DataFrame:
    """How sure a difference over the sets is: per measure (AUC-ROC, AP), the mean over sets
    of ``detector``'s per-set value (mean over seeds) minus ``peer``'s, the 2.5 and 97.5
    percentiles of that mean over ``n_resamples`` resamples of the sets with replacement
    (seeded), and the number of sets where ``detector`` is higher."""
    per_set = results.groupby(["set", "detector"])[["auc_roc", "average_precision"]].mean()
    rng = np.random.default_rng(seed)
    rows = {}
    for measure in ("auc_roc", "average_precision"):
        table = per_set[measure].unstack("detector")
        diff = (table[detector] - table[peer]).to_numpy()
        picks = rng.integers(0, len(diff), (n_resamples, len(diff)))
        means = diff[picks].mean(axis=1)
        rows[measure] = {
            "difference": diff.mean(),
            "low (2.5 %)": np.percentile(means, 2.5),
            "high (97.5 %)": np.percentile(means, 97.5),
            "sets higher": int((diff > 0).sum()),
        }
    return pd.DataFrame(rows).T


def write_docs(results: pd.DataFrame, path: Path = DOCS) -> None:
    """The summary and per-set tables into ``path``'s section ``adbench``, with the date and
    the machine."""
    seeds = ", ".join(map(str, sorted(results["seed"].unique())))
    text = "\n".join(
        [
            f"{results['set'].nunique()} sets x seeds {seeds}, by "
            "`benchmarks/bench_adbench.py --write-docs`.",
            "",
            summary(results).to_markdown(floatfmt=".3f"),
            "",
            "Mean AUC-ROC per set (over the seeds):",
            "",
            per_set_table(results).to_markdown(floatfmt=".3f"),
            "",
            machine_line(),
        ]
    )
    write_section(SECTION, text, path)


def selection(results: pd.DataFrame) -> str:
    """The preregistered rule's pick among the ``rule_*`` detectors of ``results``
    (``adbench_rules.select``), on every set and on each half of the sets sorted by ADBench's
    number (taken alternately), with the pick's mean AUC-ROC on the other half."""
    from adbench_rules import select  # (benchmarks/ is on sys.path once detectors() ran)

    rules = sorted(d for d in results["detector"].unique() if d.startswith("rule_"))
    sets = sorted(results["set"].unique(), key=lambda name: int(name.split("_")[0]))
    lines = [f"winner on every set: {select(summary(results), rules)}"]
    for name, picked_on, checked_on in (
        ("A", sets[0::2], sets[1::2]),
        ("B", sets[1::2], sets[0::2]),
    ):
        winner = select(summary(results[results["set"].isin(picked_on)]), rules)
        held_out = summary(results[results["set"].isin(checked_on)])
        lines.append(
            f"picked on half {name}: {winner}; on the other half mean AUC-ROC "
            f"{held_out.loc[winner, 'mean AUC-ROC']:.3f}, "
            f"{list(held_out.index).index(winner) + 1} of {len(held_out)}"
        )
    return "\n".join(lines)


def round_two_selection(results: pd.DataFrame) -> str:
    """Issue #47's preregistered pick (``adbench_rules.select_round_two``) on every set and
    on each half of the sets (as :func:`selection`), with each candidate's standing against
    the peers."""
    from adbench_rules import select_round_two

    sets = sorted(results["set"].unique(), key=lambda name: int(name.split("_")[0]))
    winner, table = select_round_two(summary, results)
    lines = [table.to_markdown(floatfmt=".3f"), f"round two, winner on every set: {winner}"]
    for name, picked_on, checked_on in (
        ("A", sets[0::2], sets[1::2]),
        ("B", sets[1::2], sets[0::2]),
    ):
        pick, _ = select_round_two(summary, results[results["set"].isin(picked_on)])
        _, other = select_round_two(summary, results[results["set"].isin(checked_on)])
        row = other.loc[pick]
        lines.append(
            f"picked on half {name}: {pick}; on the other half AUC-ROC "
            f"{row['mean AUC-ROC']:.3f}, AP {row['mean AP']:.3f}, rank "
            f"{row['average rank']:.2f} among the peers, firsts {int(row['firsts'])}"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> pd.DataFrame:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="*", help="set names (file stems); default: all")
    parser.add_argument("--seeds", nargs="*", type=int, default=list(SEEDS))
    parser.add_argument("--rules", action="store_true", help="add the preregistered rules")
    parser.add_argument("--pace", action="store_true", help="add the default's pace options")
    parser.add_argument(
        "--round-two", action="store_true", help="add issue #47's preregistered candidates"
    )
    parser.add_argument("--only", nargs="*", help="run only these detectors (and the reference)")
    parser.add_argument("--out", type=Path, help="write every run's row here (CSV)")
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args(argv)
    folder = data_dir()
    sets = sorted(folder.glob("*.npz"), key=lambda p: int(p.stem.split("_")[0]))
    if args.sets:
        unknown = set(args.sets) - {p.stem for p in sets}
        if unknown:
            raise SystemExit(f"unknown set(s) {sorted(unknown)} in {folder}")
        sets = [p for p in sets if p.stem in args.sets]
    makers = detectors(args.rules, args.pace, args.round_two)
    if args.only:
        makers = {k: v for k, v in makers.items() if k in args.only or k == REFERENCE}
    results = run(sets, args.seeds, makers, lambda line: print(line, file=sys.stderr, flush=True))
    if args.out:
        results.to_csv(args.out, index=False)
    print(summary(results).to_markdown(floatfmt=".3f"))
    if args.rules:
        print(selection(results))
    if args.round_two:
        print(round_two_selection(results))
    if args.write_docs:
        write_docs(results)
    return results


if __name__ == "__main__":
    main()

"""The experiment tables of the Sweep and Real data pages: run by the library's runner, or read
from the repository's stored reproduction. Without Streamlit: :mod:`app_support.cache`
caches them for the pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from momkde_core.methods import METHODS, with_registry_names

from .compute import one_at_a_time

#: The repository's stored reproduction results (``momkde reproduce ... --out``).
RESULTS_DIR = Path(__file__).resolve().parent.parent / "docs" / "results"
#: The methods the Sweep and Real data pages offer, in the order of their Methods box (the
#: registry's names: :data:`momkde_core.methods.METHODS`).
SWEEP_METHODS: tuple[str, ...] = (
    "kde",
    "mom_kde",
    "kde_robust",
    "mom_kde_rule",
    "mom_kde_oracle",
    "rkde",
    "spkde",
    "screened_kde",
)
#: The methods those pages draw until the user picks others.
SWEEP_DEFAULTS: tuple[str, ...] = ("kde", "mom_kde", "rkde", "spkde")


@one_at_a_time
def sweep_rows(
    kind: str,
    source: str,
    ratio: float,
    reps: int,
    seed: int,
    methods: tuple[str, ...],
    dim: int = 1,
    n_inliers: int = 1000,
    data_dir: str | None = None,
    protocol: str = "honest",
    contamination: float | None | str = "guess",
) -> pd.DataFrame:
    """The experiment runner's rows for one source at one ratio (all repetitions).
    ``protocol`` and ``contamination`` (the share stated to SPKDE and the robust defaults:
    "guess" for 0.2, None for the true ratio) are those of ``make_tasks``."""
    from momkde_core.experiments import make_tasks, run_experiments

    tasks = make_tasks(
        kind,
        [source],
        ratios=[ratio],
        reps=reps,
        seed=seed,
        methods=methods,
        dim=dim,
        n_inliers=n_inliers,
        data_dir=data_dir,
        protocol=protocol,
        contamination=contamination,
    )
    return run_experiments(tasks)


def display_names(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` (a runner's or a stored table) with its methods in the registry's names
    (:func:`momkde_core.methods.with_registry_names`): the tables' ``mom_kde``, the held-out S
    rule with the shared CV h, is ``mom_kde_rule``, apart from the app's MoM-KDE."""
    return with_registry_names(results)


def runner_methods(methods: Iterable[str]) -> tuple[str, ...]:
    """The experiment runner's names of the registry's ``methods`` (each one's
    :attr:`~momkde_core.methods.Method.table_name`): the inverse of :func:`display_names`."""
    return tuple(METHODS[m].table_name or m for m in methods)


def latest_results(prefix: str, directory: Path = RESULTS_DIR) -> Path | None:
    """The stored results file ``<prefix>_<k>reps.csv.gz`` with the most repetitions k (the
    newest reproduction: a 50-repetition run replaces a 10-repetition one), or None."""
    found = {
        int(m.group(1)): path
        for path in directory.glob(f"{prefix}_*reps.csv.gz")
        if (m := re.fullmatch(re.escape(prefix) + r"_(\d+)reps\.csv\.gz", path.name))
    }
    return found[max(found)] if found else None


def dataset_problem(name: str) -> str | None:
    """None when the data set ``name`` loads from where the library looks for it
    ($MOMKDE_DATA_DIR, else the user data folder), else the library's message: the folder it
    searched and why, and how to install the file."""
    from momkde_core.datasets import load_dataset

    try:
        load_dataset(name)
    except ValueError as err:
        return str(err)
    return None


#: The stored ADBench results: the benchmark's run of the library's three detectors and the
#: peers (``benchmarks/bench_adbench.py --out``), preferred when present; else the run of the
#: preregistered rules (:data:`ADBENCH_RULES`) of the first round, whose winner, MoM-KDE with
#: S = 21 and Scott's h, is not today's default (round two changed its score).
ADBENCH_RESULTS = RESULTS_DIR / "adbench.csv.gz"
ADBENCH_RULES = RESULTS_DIR / "adbench_rules.csv.gz"
#: The library's default detector as the tables name it (highlighted in the figure).
ADBENCH_DEFAULT = "momkde default (21 blocks, Scott h, mean of logs)"
#: The detectors' display names, from either table (the rules not listed are left out).
ADBENCH_NAMES: dict[str, str] = {
    "momkde_default": ADBENCH_DEFAULT,
    "momkde_mom_kde": "momkde mom_kde (S, h from share 0.1)",
    "momkde_kde": "momkde kde (CV h)",
    "rule_mom_s21_scott": "momkde MoM-KDE (S = 21, Scott h)",
    "rule_mom_default": "momkde mom_kde (S, h from share 0.1)",
    "rule_kde_cv": "momkde kde (CV h)",
}
#: The time reference: scikit-learn's IsolationForest.
ADBENCH_REFERENCE = "isolation_forest"


def adbench_path(directory: Path = RESULTS_DIR) -> Path | None:
    """The stored ADBench table to show: ``adbench.csv.gz`` when present, else
    ``adbench_rules.csv.gz``, else None."""
    for name in (ADBENCH_RESULTS.name, ADBENCH_RULES.name):
        if (directory / name).exists():
            return directory / name
    return None


def adbench_rows(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` (a stored ADBench table: set, seed, detector, auc_roc, average_precision,
    seconds) with the library's detectors renamed (:data:`ADBENCH_NAMES`) and the other
    ``rule_*`` candidates left out; the peers keep their names."""
    kept = results[
        ~results["detector"].str.startswith("rule_") | results["detector"].isin(list(ADBENCH_NAMES))
    ]
    return kept.assign(detector=kept["detector"].replace(ADBENCH_NAMES))


def adbench_per_set(results: pd.DataFrame) -> pd.DataFrame:
    """Mean AUC-ROC over the seeds, sets x detectors (:func:`adbench_rows`' table), the sets in
    ADBench's order (by the number their names start with: "2_annthyroid" before "11_donors").

    Examples
    --------
    >>> rows = pd.DataFrame({"set": ["11_donors", "2_annthyroid"], "seed": 0,
    ...                      "detector": "lof", "auc_roc": [0.6, 0.7]})
    >>> list(adbench_per_set(rows).index)
    ['2_annthyroid', '11_donors']
    """
    table = results.groupby(["set", "detector"])["auc_roc"].mean().unstack("detector")
    number = table.index.str.extract(r"^(\d+)_", expand=False).astype(float)
    return table.iloc[np.lexsort((table.index.to_numpy(dtype=str), number.to_numpy()))]


#: Two detectors whose mean AUC-ROC differs by less than this on every set draw one marker
#: (the table shows 3 decimals: they read the same there too).
ADBENCH_SAME = 5e-4


def adbench_twins(per_set: pd.DataFrame) -> dict[str, str]:
    """Each detector whose AUC-ROC is within :data:`ADBENCH_SAME` of an earlier column's on
    every set of ``per_set`` (:func:`adbench_per_set`), mapped to the first such column.

    Examples
    --------
    >>> per_set = pd.DataFrame({"a": [0.5, 0.9], "b": [0.7, 0.8], "c": [0.5, 0.9001]})
    >>> adbench_twins(per_set)
    {'c': 'a'}
    """
    twins: dict[str, str] = {}
    for i, detector in enumerate(per_set.columns):
        for earlier in per_set.columns[:i]:
            gap = (per_set[detector] - per_set[earlier]).abs()
            if earlier not in twins and gap.notna().any() and (gap < ADBENCH_SAME).all():
                twins[detector] = earlier
                break
    return twins


def adbench_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per detector: mean AUC-ROC and average precision over the sets (each the mean over its
    seeds), the average rank of the per-set AUC-ROC (1 = best) and the time summed over the
    runs as a ratio to IsolationForest's; sorted by mean AUC-ROC, best first.

    Examples
    --------
    >>> rows = pd.DataFrame({
    ...     "set": ["a", "a", "b", "b"], "seed": 0,
    ...     "detector": ["isolation_forest", "lof"] * 2,
    ...     "auc_roc": [0.9, 0.7, 0.6, 0.8], "average_precision": [0.5, 0.3, 0.2, 0.4],
    ...     "seconds": [1.0, 2.0, 1.0, 2.0]})
    >>> adbench_summary(rows)["average rank"].tolist()
    [1.5, 1.5]
    """
    per_set = results.groupby(["set", "detector"])[["auc_roc", "average_precision"]].mean()
    auc = per_set["auc_roc"].unstack("detector")
    seconds = results.groupby("detector")["seconds"].sum()
    reference = seconds.get(ADBENCH_REFERENCE)
    table = pd.DataFrame(
        {
            "mean AUC-ROC": auc.mean(),
            "mean AP": per_set["average_precision"].unstack("detector").mean(),
            "average rank": auc.rank(axis=1, ascending=False).mean(),
            "time / IsolationForest": seconds / reference if reference else float("nan"),
        }
    )
    table.index.name = "detector"
    return table.sort_values("mean AUC-ROC", ascending=False)

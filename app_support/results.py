"""The experiment tables of the Sweep and Real data pages: run by the library's runner, or read
from the repository's stored reproduction. Without Streamlit: :mod:`app_support.cache`
caches them for the pages.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from momkde_core.methods import METHODS, with_registry_names

#: The repository's stored reproduction results (``momkde reproduce ... --out``).
RESULTS_DIR = Path(__file__).resolve().parent.parent / "docs" / "results"
#: The methods the Sweep and Real data pages offer, in the order of their Methods box (the
#: registry's names: :data:`momkde_core.methods.METHODS`).
SWEEP_METHODS: tuple[str, ...] = (
    "kde",
    "mom_kde_auto",
    "kde_robust",
    "mom_kde_rule",
    "mom_kde_oracle",
    "rkde",
    "spkde",
    "screened_kde",
)
#: The methods those pages draw until the user picks others.
SWEEP_DEFAULTS: tuple[str, ...] = ("kde", "mom_kde_auto", "rkde", "spkde")


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

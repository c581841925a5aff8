"""The paper's experiments (section 5): tasks, the runner, and the sweep file.

Layer 6 of the package (``docs/architecture.md``). A task is one sample (a contamination
scheme or a real data set, a ratio, a repetition, its seed); :func:`run_experiments` runs
every method on every task, locally or on a Dask cluster, and :class:`SweepFile` appends
the results to a CSV that a rerun resumes. ``momkde reproduce`` is the command line over it.

Constants: ``COLUMNS``, the columns of a results table (source, ratio, rep, seed, method,
n_blocks, bandwidth, metric, value); ``DEFAULT_SWEEP_METHODS``, the methods run by default
(kde, mom_kde, mom_kde_oracle, mom_kde_auto, rkde, spkde, screened_kde, by their tables'
names); ``BLOCKH_METHODS``, MoM-KDE with
the block-aware bandwidth (:func:`block_bandwidth`); ``ALL_METHODS``, every method a task
accepts; ``PROTOCOLS`` ("honest", the default, and "paper"); ``RATIOS``, the swept shares of
outliers 0.05, 0.10, ..., 0.50; ``SYNTHETIC_SCHEMES``, the paper's four contamination schemes;
``CONTAMINATION_GUESS`` = 0.2, the share stated to the methods that ask for one under the
honest protocol (the middle of the swept range), and ``CLEAN_CONTAMINATION`` = 0.01, the share
stated on clean densities.

The methods are the registry's (:mod:`momkde_core.methods`), named as results tables name
them: ``mom_kde`` here is the registry's ``mom_kde_rule`` (the held-out S rule with the shared
CV h), not the detectors' MoM-KDE. The modules: ``_tasks`` (tasks, seeds, protocols),
``_n_blocks`` (S by the oracle and the rule, the block-aware h), ``_estimate`` (one task's
rows: the methods fitted, the metrics), ``_runner`` (tasks run locally or on Dask, the tidy
table) and ``_sweep_file`` (the CSV a rerun resumes).
"""

from ._estimate import run_task
from ._n_blocks import block_bandwidth, oracle_grid, select_n_blocks
from ._runner import COLUMNS, dask_client, iter_sources, run_experiments, summarize
from ._sweep_file import SweepFile, SweepIncomplete
from ._tasks import (
    ALL_METHODS,
    BLOCKH_METHODS,
    CLEAN_CONTAMINATION,
    CONTAMINATION_GUESS,
    DEFAULT_SWEEP_METHODS,
    PROTOCOLS,
    RATIOS,
    SYNTHETIC_SCHEMES,
    Task,
    make_tasks,
    regenerate_sample,
    task_key,
    task_seed,
)

__all__ = [
    "ALL_METHODS",
    "BLOCKH_METHODS",
    "CLEAN_CONTAMINATION",
    "COLUMNS",
    "CONTAMINATION_GUESS",
    "DEFAULT_SWEEP_METHODS",
    "PROTOCOLS",
    "RATIOS",
    "SYNTHETIC_SCHEMES",
    "SweepFile",
    "SweepIncomplete",
    "Task",
    "block_bandwidth",
    "dask_client",
    "iter_sources",
    "make_tasks",
    "oracle_grid",
    "regenerate_sample",
    "run_experiments",
    "run_task",
    "select_n_blocks",
    "summarize",
    "task_key",
    "task_seed",
]

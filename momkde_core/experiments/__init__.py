"""The paper's experiments (section 5): tasks, the runner, and the sweep file.

Layer 6 of the package (``docs/architecture.md``). A task is one sample (a contamination
scheme or a real data set, a ratio, a repetition, its seed); :func:`run_experiments` runs
every method on every task, locally or on a Dask cluster, and :class:`SweepFile` appends
the results to a CSV that a rerun resumes. ``momkde reproduce`` is the command line over it.
"""

from ._runner import (
    ALL_METHODS,
    BLOCKH_METHODS,
    CLEAN_CONTAMINATION,
    COLUMNS,
    CONTAMINATION_GUESS,
    METHODS,
    PROTOCOLS,
    RATIOS,
    SYNTHETIC_SCHEMES,
    SweepFile,
    SweepIncomplete,
    Task,
    block_bandwidth,
    dask_client,
    iter_sources,
    make_tasks,
    oracle_grid,
    regenerate_sample,
    run_experiments,
    run_task,
    select_n_blocks,
    summarize,
    task_key,
    task_seed,
)

__all__ = [
    "ALL_METHODS",
    "BLOCKH_METHODS",
    "CLEAN_CONTAMINATION",
    "COLUMNS",
    "CONTAMINATION_GUESS",
    "METHODS",
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

"""The paper's experiments (section 5): sweeps of schemes or data sets x ratios x repetitions x
methods, with MoM-KDE's number of blocks S chosen by an oracle or by a rule, as a tidy table.

The tasks (:mod:`~momkde_core.experiments._tasks`) run in parallel with joblib, locally or on
a Dask cluster, and give the same table either way: each task's rows depend on its seed
alone (:func:`~momkde_core.experiments.run_task`).

The table has exactly the columns :data:`COLUMNS`; ``n_blocks`` is 1 for kde, rkde and spkde,
``bandwidth`` the one the method used (the geometric mean of its per-feature bandwidths where a
rule in d > 1 gave one per feature). The protocol is in ``df.attrs["protocol"]``.
"""

from __future__ import annotations

import ctypes
import sys
from collections.abc import Iterator, Sequence

import numpy as np
import pandas as pd

from .._config import config_context
from .._progress import Progress
from ._estimate import run_task
from ._tasks import Task

COLUMNS: tuple[str, ...] = (
    "source",
    "ratio",
    "rep",
    "seed",
    "method",
    "n_blocks",
    "bandwidth",
    "metric",
    "value",
)


def _attempt(index: int, task: Task) -> tuple[int, list[tuple] | None, Exception | None]:
    """(index, rows, None) of one task, or (index, None, the exception) if it failed: one
    failed sample does not stop the others, and the caller decides what a failure means."""
    try:
        return index, run_task(task), None
    except Exception as err:  # noqa: BLE001 - handed to the caller, which reports or raises it
        return index, None, err


def _attempt_in_worker(index: int, task: Task) -> tuple[int, list[tuple] | None, Exception | None]:
    """:func:`_attempt` in a worker process, which then gives back the memory the task used.

    A task keeps up to 512 MiB of kernel values for its refits (``RUNNER_REPLAY``), of a
    sample no later task draws again; at its end they are dropped (the worker's ``memo_size``
    is 0, which the memo is trimmed to when the task's replay limits end) and the heap's free
    pages are returned to the system (:func:`_return_free_memory`). Kept, the worker's
    resident memory grew by 300-500 MB from the first task to the next ones (glibc keeps
    freed pages): past 300 MB loky takes it for a leak, stops the worker between two tasks
    and starts another, with the warning "A worker stopped while some jobs were given to the
    executor" and a fresh interpreter to import. The rows are the same either way.
    """
    try:
        with config_context(memo_size=0):
            return _attempt(index, task)
    finally:
        _return_free_memory()


def _return_free_memory() -> None:
    """Hand the free pages of the process' heap back to the system: glibc's ``malloc_trim``
    (other C libraries return large blocks when they are freed; nothing to do there)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):  # not glibc (musl has no malloc_trim)
        pass


def _iter_results(
    tasks: Sequence[Task], n_jobs: int, scheduler: str | None, progress: bool
) -> Iterator[tuple[int, list[tuple] | None, Exception | None]]:
    """:func:`_attempt` over the tasks with joblib (local processes, or Dask when
    ``scheduler`` is given), each result as soon as it is done (locally in the order the
    samples finish; on Dask in task order)."""
    from joblib import Parallel, delayed, effective_n_jobs, parallel_config

    # n_jobs=1 runs the tasks here, where the memo may hold the caller's kernel values
    attempt = _attempt_in_worker if scheduler or effective_n_jobs(n_jobs) != 1 else _attempt

    def results() -> Iterator[tuple[int, list[tuple] | None, Exception | None]]:
        order = "generator" if scheduler is not None else "generator_unordered"
        done = Parallel(n_jobs=n_jobs, return_as=order)(
            delayed(attempt)(i, t) for i, t in enumerate(tasks)
        )
        with Progress("running", "samples", total=len(tasks), enabled=progress) as bar:
            for result in done:
                bar.update()
                yield result

    if scheduler is None:
        yield from results()
        return
    client = dask_client(scheduler)
    try:
        with parallel_config(backend="dask"):
            yield from results()
    finally:
        client.close()


def dask_client(address: str):
    """A ``distributed.Client`` on ``address``.

    Parameters
    ----------
    address : str
        The Dask scheduler's address (``tcp://host:8786``).

    Returns
    -------
    client : distributed.Client
        The connected client.

    Raises
    ------
    ImportError
        With the install command (``pip install 'momkde[distributed]'``) if dask.distributed
        is missing.

    Examples
    --------
    >>> from momkde_core.experiments import dask_client
    >>> client = dask_client("tcp://127.0.0.1:8786")  # doctest: +SKIP
    """
    try:
        from distributed import Client
    except ImportError:
        raise ImportError(
            "running on a Dask cluster needs dask.distributed: pip install 'momkde[distributed]'"
        ) from None
    return Client(address)


def _table(rows: Sequence[tuple], protocol: str) -> pd.DataFrame:
    """The tidy table of rows in :data:`COLUMNS` order, with its column types."""
    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    df = df.astype(
        {
            "source": str,
            "ratio": float,
            "rep": "int64",
            "seed": "int64",
            "method": str,
            "n_blocks": "int64",
            "bandwidth": float,
            "metric": str,
            "value": float,
        }
    )
    df.attrs["protocol"] = protocol
    return df


def run_experiments(
    tasks: Sequence[Task], n_jobs: int = 1, scheduler: str | None = None, progress: bool = False
) -> pd.DataFrame:
    """Run the tasks (see :func:`make_tasks`) and return the tidy results table.

    The table is the same, row for row, whatever ``n_jobs`` and ``scheduler``. To keep the
    finished samples of a long sweep on disk, and resume it, use :class:`SweepFile`.

    Parameters
    ----------
    tasks : sequence of Task
        The samples to run.
    n_jobs : int, default 1
        As in joblib (-1: all cores).
    scheduler : str, optional
        The address of a Dask scheduler (``tcp://host:8786``) to run on instead.
    progress : bool, default False
        Show the progress on stderr.

    Returns
    -------
    results : DataFrame
        Exactly the columns :data:`COLUMNS`, the rows in task order; the protocol is in
        ``results.attrs["protocol"]``. ``n_blocks`` is 1 for kde, rkde and spkde,
        ``bandwidth`` the one the method used (the geometric mean of its per-feature
        bandwidths where a rule in d > 1 gave one per feature).

    Raises
    ------
    Exception
        The first failed sample raises its exception.

    See Also
    --------
    summarize : Mean (std) per source, method and ratio.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, run_experiments
    >>> tasks = make_tasks(
    ...     "synthetic", sources=["uniform"], ratios=[0.1], reps=1, n_inliers=50, methods=["kde"]
    ... )
    >>> results = run_experiments(tasks)
    >>> results.shape, results.attrs["protocol"]
    ((7, 9), 'honest')
    """
    by_task: list[list[tuple]] = [[] for _ in tasks]
    for index, rows, error in _iter_results(tasks, n_jobs, scheduler, progress):
        if error is not None:
            raise error
        by_task[index] = rows
    return _table(
        [row for rows in by_task for row in rows], tasks[0].protocol if tasks else "honest"
    )


def summarize(df: pd.DataFrame, metric: str, ratios: Sequence[float] | None = None) -> pd.DataFrame:
    """Mean (std) of ``metric`` per source x method, one column per ratio, as text cells.

    Parameters
    ----------
    df : DataFrame
        A results table (:func:`run_experiments`).
    metric : str
        One of the table's metrics (``"js"``, ``"auc"``, ...).
    ratios : sequence of float, optional
        Only these ratios (default: all).

    Returns
    -------
    table : DataFrame
        Indexed by (source, method), one column per ratio; cells ``"mean (std)"`` with three
        decimals (std over the repetitions; ``nan`` for one repetition).

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.experiments import summarize
    >>> df = pd.DataFrame({
    ...     "source": ["uniform"] * 2, "method": ["kde"] * 2, "ratio": [0.1] * 2,
    ...     "metric": ["js"] * 2, "value": [0.1, 0.3],
    ... })
    >>> summarize(df, "js").loc[("uniform", "kde"), 0.1]
    '0.200 (0.141)'
    """
    part = df[df["metric"] == metric]
    if ratios is not None:
        part = part[np.isclose(part["ratio"].to_numpy()[:, None], np.asarray(ratios)).any(axis=1)]
    stats = part.groupby(["source", "method", "ratio"], sort=False)["value"].agg(["mean", "std"])
    cells = stats.apply(lambda r: f"{r['mean']:.3f} ({r['std']:.3f})", axis=1)
    return cells.unstack("ratio")


def iter_sources(df: pd.DataFrame) -> Iterator[tuple[str, pd.DataFrame]]:
    """(source, its rows) in the order the sources appear in the table.

    Parameters
    ----------
    df : DataFrame
        A results table.

    Yields
    ------
    source : str
        The source's name.
    rows : DataFrame
        Its rows.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.experiments import iter_sources
    >>> df = pd.DataFrame({"source": ["b", "a", "b"], "value": [1.0, 2.0, 3.0]})
    >>> [(source, len(rows)) for source, rows in iter_sources(df)]
    [('b', 2), ('a', 1)]
    """
    for source in pd.unique(df["source"]):
        yield source, df[df["source"] == source]

"""The second pass of ``momkde score``: each partition scored by the same code in this
process, on local processes (``--jobs``) or on a Dask cluster's workers (``--scheduler``).

The fitted scaler and detectors travel once: in a :class:`Model` handed to each local
process when it starts (loky's ``initializer``), or scattered to every Dask worker
(``Client.scatter(..., broadcast=True)``); a task carries only its :class:`Part` (and its
rows when the client reads the file). A task writes its scored rows as a part file in a
folder beside ``--out`` (the workers must see the client's file system); the client copies
the parts into the output in the file's order as they finish, and removes the folder in the
end, whether the run succeeded or not.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler

from .._config import config_context
from .._progress import Progress
from ..detector import OutlierDetector
from ..io import float_columns, write_csv
from ._partitions import CsvSource, Part
from ._scan import dates_as_days

_WORKER: dict = {}  # the Model of a local worker process, set when it starts


class PartitionFailed(Exception):
    """A partition's task raised on a worker (or the worker died)."""

    def __init__(self, part: Part, n_parts: int, error: BaseException):
        self.part, self.n_parts, self.error = part, n_parts, error
        text = str(error).strip().splitlines()[0] if str(error).strip() else ""
        hint = (
            " (the workers need the data file and the folder of --out at the same paths)"
            if isinstance(error, OSError)
            else ""
        )
        super().__init__(
            f"partition {part.index + 1} of {n_parts} ({part.rows()}) failed: "
            f"{type(error).__name__}{': ' + text if text else ''}{hint}"
        )


@dataclass(frozen=True)
class Model:
    """What scoring a partition needs: how to read it, the fit, the output's columns.

    ``config`` holds the engine's knobs of the process that fitted (``n_threads`` resolved to
    a number): every task runs with them, since the engine's choice of paths and chunks (and
    so the last bits of a score) may depend on them.
    """

    source: CsvSource
    dtypes: dict[Hashable, object]
    columns: list[Hashable]
    scaler: StandardScaler | None  # (None: no numeric column)
    detectors: dict[str, OutlierDetector]
    outputs: dict[str, tuple[str, str]]  # method -> (score column, flag column)
    config: dict[str, object]
    categorical: tuple[Hashable, ...] = ()  # of ``columns``, the categorical ones
    dates: tuple[Hashable, ...] = ()  # ... and the dates (as days since 1970-01-01)

    @property
    def numeric(self) -> list[Hashable]:
        """The columns scored as numbers (the dates among them), standardised."""
        return [c for c in self.columns if c not in self.categorical]

    def features(self, X: np.ndarray, text: np.ndarray) -> np.ndarray | pd.DataFrame:
        """What the detectors read: the numeric columns' values X standardised, and with
        categorical columns (their values ``text``) a DataFrame of every scored column in
        the file's order, the categorical ones as strings (missing: a level)."""
        Z = self.scaler.transform(X) if X.shape[1] else X
        if not self.categorical:
            return Z
        table = pd.DataFrame(Z, columns=self.numeric)
        for k, column in enumerate(self.categorical):
            table[column] = pd.Series(text[:, k], dtype=object).astype("string")
        return table[list(self.columns)]

    def score(self, rows: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
        """``rows`` without those with a missing value in a numeric column (all, without
        --drop-missing), with a score and a flag per method; and the rows flagged per
        method."""
        X = float_columns(dates_as_days(rows, list(self.dates)), self.numeric)
        complete = np.isfinite(X).all(axis=1)
        kept, columns, flagged = rows[complete], {}, {}
        Z = (  # (none: blank lines)
            self.features(X[complete], kept[list(self.categorical)].to_numpy(dtype=object))
            if complete.any()
            else None
        )
        with config_context(**self.config):
            for method, detector in self.detectors.items():
                score = np.empty(0) if Z is None else detector.decision_function(Z)
                name, flag = self.outputs[method]
                columns[name], columns[flag] = score, score < 0
                flagged[method] = int(np.sum(score < 0))
        return kept.assign(**columns), flagged


def part_file(folder: str | Path, index: int) -> Path:
    """The part file of partition ``index`` in ``folder``."""
    return Path(folder) / f"{index:07d}.csv"


def score_part(
    model: Model, part: Part, rows: pd.DataFrame | None, folder: str
) -> tuple[int, int, dict[str, int]]:
    """Read (unless ``rows`` is given), score and write one partition as its part file:
    with the header for the first. Returns (index, rows read, rows flagged per method).
    Raises where the folder is gone (a failed run removed it): nothing is left behind."""
    if rows is None:
        rows = model.source.read(part, model.dtypes)
    scored, flagged = model.score(rows)
    with open(part_file(folder, part.index), "w", encoding="utf-8", newline="") as fh:
        write_csv(scored, fh, header=part.index == 0)
    return part.index, len(rows), flagged


def _start_worker(model: Model) -> None:
    _WORKER["model"] = model


def _score_in_worker(part: Part, rows: pd.DataFrame | None, folder: str):
    return score_part(_WORKER["model"], part, rows, folder)


def worker_problem(data: str, size: int, folder: str) -> str | None:
    """Run on each Dask worker before the first pass: what keeps it from reading ``data``
    (of ``size`` bytes) or writing in ``folder``, or None."""
    if not os.path.isfile(data):
        return f"cannot see {data}"
    if os.path.getsize(data) != size:
        return f"sees another file at {data} (its size differs)"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"cannot write in {folder}"
    return None


def _bounded(
    submit, tasks: Iterator[tuple[Part, pd.DataFrame | None]], limit: int, wait_one, running: dict
):
    """Keep at most ``limit`` tasks in flight (in ``running``: future -> part): yield (part,
    future) of each task as it finishes. ``submit(part, rows)`` starts one, and
    ``wait_one(futures)`` returns one finished future among them."""
    for part, rows in tasks:
        running[submit(part, rows)] = part
        while len(running) >= limit:
            done = wait_one(running)
            yield running.pop(done), done
    while running:
        done = wait_one(running)
        yield running.pop(done), done


def run_local(
    model: Model,
    tasks: Iterator[tuple[Part, pd.DataFrame | None]],
    folder: str,
    n_workers: int,
    n_parts: int,
) -> Iterator[tuple[int, int, dict[str, int]]]:
    """The tasks on ``n_workers`` local processes (loky, started for this run), each
    result as it finishes; PartitionFailed for the first that failed. The processes are
    killed in the end (a failure, an interrupt)."""
    from joblib import cpu_count
    from joblib.externals.loky import FIRST_COMPLETED, ProcessPoolExecutor, wait

    blas = str(max(1, cpu_count() // n_workers))  # BLAS threads per process, as joblib sets
    env = {name: blas for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    executor = ProcessPoolExecutor(
        max_workers=n_workers, initializer=_start_worker, initargs=(model,), env=env
    )

    def wait_one(running):
        return next(iter(wait(list(running), return_when=FIRST_COMPLETED).done))

    def submit(part, rows):
        return executor.submit(_score_in_worker, part, rows, folder)

    try:
        for part, future in _bounded(submit, tasks, 2 * n_workers, wait_one, {}):
            try:
                yield future.result()
            except Exception as err:  # noqa: BLE001 - reported as the partition's failure
                raise PartitionFailed(part, n_parts, err) from None
    finally:
        executor.shutdown(wait=True, kill_workers=True)


def run_dask(
    client,
    model: Model,
    tasks: Iterator[tuple[Part, pd.DataFrame | None]],
    folder: str,
    n_parts: int,
) -> Iterator[tuple[int, int, dict[str, int]]]:
    """The tasks on the Dask cluster of ``client`` (the model scattered once to every
    worker), each result as it finishes; PartitionFailed for the first that failed. The
    tasks not finished are cancelled in the end."""
    from distributed import as_completed

    threads = sum(client.nthreads().values())
    shared = client.scatter(model, broadcast=True, hash=False)
    running: dict = {}
    finished = as_completed(loop=client.loop)  # (not Dask's default client: ours)

    def submit(part, rows):
        future = client.submit(score_part, shared, part, rows, folder, pure=False)
        finished.add(future)
        return future

    def wait_one(running):
        return next(finished)

    try:
        for part, future in _bounded(submit, tasks, max(2, 2 * threads), wait_one, running):
            try:
                yield future.result()
            except Exception as err:  # noqa: BLE001 - reported as the partition's failure
                raise PartitionFailed(part, n_parts, err) from None
    finally:
        client.cancel([*running, shared])


def write_in_order(
    results: Iterator[tuple[int, int, dict[str, int]]],
    folder: str,
    out: BinaryIO,
    bar: Progress,
) -> dict[str, int]:
    """Append the part files to ``out`` in the file's order as the tasks finish (a part
    waits for those before it), removing each; the rows flagged per method in all."""
    finished: dict[int, dict[str, int]] = {}
    flagged: dict[str, int] = {}
    following = 0
    for index, n_rows, counts in results:
        finished[index] = counts
        bar.update(n_rows)
        while following in finished:
            for method, k in finished.pop(following).items():
                flagged[method] = flagged.get(method, 0) + k
            path = part_file(folder, following)
            with open(path, "rb") as part:
                shutil.copyfileobj(part, out)
            path.unlink()
            following += 1
    return flagged

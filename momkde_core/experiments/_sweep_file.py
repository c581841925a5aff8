"""A sweep written to a CSV file as it runs (:class:`SweepFile`), resumed after a stop."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict
from io import StringIO
from pathlib import Path

import numpy as np
import pandas as pd

from ..io import LINE_END, write_csv
from ._estimate import METRICS
from ._runner import COLUMNS, _iter_results, _table
from ._tasks import Task, task_key


def _keys(df: pd.DataFrame) -> list[tuple[str, float, int, int]]:
    """The :func:`task_key` of every row of a table (as Python scalars)."""
    return list(
        zip(df["source"].tolist(), df["ratio"].tolist(), df["rep"].tolist(), df["seed"].tolist())
    )


class SweepIncomplete(RuntimeError):
    """Some samples of a sweep failed; the others' rows are kept in the partial file.

    Raised by :meth:`SweepFile.run`; its message names how many samples failed and the
    first one, with its error. Running the same sweep again computes only the missing
    samples.

    Attributes
    ----------
    failures : list of (Task, Exception)
        The failed samples in task order, with their errors.
    partial : Path
        The partial file that holds the finished samples.
    """

    def __init__(self, failures: list[tuple[Task, Exception]], partial: Path):
        self.failures, self.partial = failures, partial
        task, err = failures[0]
        first_line = (str(err).strip().splitlines() or [""])[0]
        super().__init__(
            f"{len(failures)} sample(s) failed, the first {task.source} ratio "
            f"{task.ratio:g} rep {task.rep} (seed {task.seed}): "
            f"{type(err).__name__}: {first_line}"
        )


class SweepFile:
    """A sweep written to a CSV file as it runs, so that no finished sample is lost.

    The rows of each finished sample are appended to ``<out>.partial`` (and flushed to the
    disk) as soon as it is done; the sweep's settings (kind, protocol, methods, dimension,
    sample size, stated contamination) are kept beside it in ``<out>.partial.json``. When all
    samples are done, the table is written in task order to a temporary file renamed to
    ``out`` (never a half-written ``out``), and the partial files are removed.

    Run again after an interruption (Ctrl-C, a killed process, a failed sample), the same
    sweep reads the partial file, keeps the samples whose rows are all there (a row cut
    short by a kill, and the other rows of its sample, are dropped) and computes only the
    others: the final table is the same, byte for byte, as that of an uninterrupted run
    (each sample's rows depend on its seed alone). A partial file of other settings is
    refused (ValueError), never mixed in. Every CSV is written by
    :func:`momkde_core.io._csv_safety.write_csv` (formula-like cells escaped).

    Parameters
    ----------
    out : str or path-like
        The CSV file to write.
    tasks : sequence of Task
        The sweep (:func:`make_tasks`), at least one task; its settings are those of the
        first.

    Raises
    ------
    ValueError
        When ``tasks`` is empty.

    See Also
    --------
    run_experiments : The same table, in memory only.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from momkde_core.experiments import SweepFile, make_tasks
    >>> tasks = make_tasks(
    ...     "synthetic", sources=["uniform"], ratios=[0.1], reps=1, n_inliers=50, methods=["kde"]
    ... )
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     sweep = SweepFile(Path(folder) / "results.csv", tasks)
    ...     done = sweep.open()
    ...     results = sweep.run()
    ...     written = sorted(p.name for p in Path(folder).iterdir())
    >>> done, results.shape, written
    (0, (7, 9), ['results.csv'])
    """

    SUFFIX = ".partial"

    def __init__(self, out: str | os.PathLike[str], tasks: Sequence[Task]):
        if not tasks:
            raise ValueError("a sweep needs at least one task")
        self.out = Path(out)
        self.tasks = list(tasks)
        self.partial = self.out.with_name(self.out.name + self.SUFFIX)
        self.meta = self.out.with_name(self.out.name + self.SUFFIX + ".json")
        settings = asdict(self.tasks[0])
        for field in ("source", "ratio", "rep", "seed", "data_dir"):
            del settings[field]
        settings["methods"] = list(settings["methods"])
        self.settings = settings
        self._done: set[tuple] = set()

    def _expected_rows(self) -> int:
        """Rows of one finished sample: one per method and metric (real data: AUC only)."""
        return len(self.settings["methods"]) * (
            1 if self.settings["kind"] == "real" else len(METRICS)
        )

    def _read(self) -> pd.DataFrame:
        """The complete rows of the partial file (a last line cut short is left out)."""
        text = self.partial.read_bytes().decode("utf-8")
        if not text.endswith(LINE_END):
            text = text[: text.rfind(LINE_END) + len(LINE_END)] if LINE_END in text else ""
        if not text:
            return _table([], self.settings["protocol"])
        # read as text and parsed by Python's float (exact round trip of what was written,
        # whatever pandas' own float parser does)
        df = pd.read_csv(StringIO(text), dtype=str, keep_default_na=False)
        if tuple(df.columns) != COLUMNS:
            raise ValueError(f"{self.partial} is not a partial results table of momkde")
        for column in ("ratio", "bandwidth", "value"):
            df[column] = [float(v) if v else np.nan for v in df[column]]
        for column in ("rep", "seed", "n_blocks"):
            df[column] = [int(v) for v in df[column]]
        return _table(df.itertuples(index=False, name=None), self.settings["protocol"])

    def _write_atomically(self, df: pd.DataFrame, path: Path) -> None:
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "w", encoding="utf-8", newline="") as fh:
                write_csv(df, fh)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise

    def open(self, restart: bool = False) -> int:
        """Start the partial file, or take up the one left by an interrupted run of the same sweep.

        Parameters
        ----------
        restart : bool, default False
            Discard the partial file of an earlier run instead of taking it up.

        Returns
        -------
        n_done : int
            The number of this sweep's samples already done.

        Raises
        ------
        ValueError
            If the partial file is of another sweep (its settings file missing or
            different).
        """
        if restart or not self.partial.exists():
            self.meta.write_text(json.dumps(self.settings, indent=1), encoding="utf-8")
            self._write_atomically(_table([], self.settings["protocol"]), self.partial)
            self._done = set()
            return 0
        try:
            found = json.loads(self.meta.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            found = None
        if found != self.settings:
            differ = (
                "its settings file is missing"
                if found is None
                else "its "
                + ", ".join(k for k in self.settings if found.get(k) != self.settings[k])
                + " differ"
            )
            raise ValueError(
                f"{self.partial} holds another sweep ({differ}); rerun with "
                "--restart to discard it, or write to another --out"
            )
        df = self._read()
        keys = _keys(df)
        complete = {k for k, n in Counter(keys).items() if n == self._expected_rows()}
        kept = np.array([k in complete for k in keys], dtype=bool)
        if not kept.all() or not self.partial.read_bytes().endswith(LINE_END.encode()):
            self._write_atomically(df[kept], self.partial)  # drop what a kill cut short
        self._done = complete
        return sum(task_key(t) in complete for t in self.tasks)

    def todo(self) -> list[Task]:
        """The tasks whose rows are not in the partial file yet, repetition by repetition.

        Every source and ratio of repetition 0, then of 1, ...: a sweep stopped early holds
        whole repetitions of every cell, not all repetitions of the first sources. (The
        table is written in task order whatever the order of computing.)

        Returns
        -------
        tasks : list of Task
            The tasks left.
        """
        left = [t for t in self.tasks if task_key(t) not in self._done]
        return sorted(left, key=lambda t: t.rep)  # stable: task order within a repetition

    def _append(self, rows: list[tuple]) -> None:
        with open(self.partial, "a", encoding="utf-8", newline="") as fh:
            write_csv(_table(rows, self.settings["protocol"]), fh, header=False)
            fh.flush()
            os.fsync(fh.fileno())

    def run(
        self, n_jobs: int = 1, scheduler: str | None = None, progress: bool = False
    ) -> pd.DataFrame:
        """Compute the samples not done yet; then write ``out`` and return the table.

        Each sample is appended to the partial file when it finishes.

        Parameters
        ----------
        n_jobs, scheduler, progress
            As for :func:`run_experiments`.

        Returns
        -------
        results : DataFrame
            The table of the whole sweep, in task order (as :func:`run_experiments`).

        Raises
        ------
        SweepIncomplete
            If some samples failed (the others are kept: run again to compute only the
            missing ones).
        """
        todo = self.todo()
        failures = []
        for index, rows, error in _iter_results(todo, n_jobs, scheduler, progress):
            if error is None:
                self._append(rows)
                self._done.add(task_key(todo[index]))
            else:
                failures.append((todo[index], error))
        if failures:
            raise SweepIncomplete(
                sorted(failures, key=lambda f: self.tasks.index(f[0])), self.partial
            )
        return self._finish()

    def finished(self) -> pd.DataFrame:
        """The rows of this sweep's samples finished so far, in task order.

        Read from the partial file without changing it (a running sweep may be appending to
        it).

        Returns
        -------
        results : DataFrame
            The complete samples' rows.
        """
        df = self._read()
        keys = _keys(df)
        complete = {k for k, n in Counter(keys).items() if n == self._expected_rows()}
        position = {task_key(t): i for i, t in enumerate(self.tasks)}
        order = np.array(
            [position[k] if k in complete and k in position else -1 for k in keys], dtype=np.int64
        )
        df = df[order >= 0].iloc[np.argsort(order[order >= 0], kind="stable")]
        df = df.reset_index(drop=True)
        df.attrs["protocol"] = self.settings["protocol"]
        return df

    def _finish(self) -> pd.DataFrame:
        df = self.finished()
        self._write_atomically(df, self.out)
        self.partial.unlink()
        self.meta.unlink()
        return df

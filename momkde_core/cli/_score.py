"""``momkde score``: flag the anomalous rows of a CSV file of any size, in two passes."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
import warnings
from collections.abc import Hashable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.preprocessing import StandardScaler

from .._config import config_context, get_config
from .._config import n_threads as engine_threads
from .._progress import Progress, note, phase
from ..detector import OutlierDetector, make_detector, most_blamed
from ..io import float_columns, sniff_csv_file, write_csv
from ..methods import ALIASES, DEFAULT_DETECTOR, DETECTOR_METHODS, METHODS
from ._common import (
    UsageError,
    _check_out,
    _check_scheduler,
    _first_line,
    _integer,
    _jobs,
    _positive_int,
    _seed,
    _stop_on_signals,
)
from ._parallel import Model, run_dask, run_local, worker_problem, write_in_order
from ._partitions import client_parts, open_source
from ._scan import _Scan, _scan, dates_as_days

CHUNKSIZE = 50_000  # rows read, scored and written at a time by `momkde score`
FIT_ROWS = 20_000  # rows `momkde score` fits on (RKDE and SPKDE learn in O(n^2) memory/time)
PARTS_GRACE_SECONDS = 30.0  # a cancelled Dask task may still write its part this long
SCHEDULER_TIMEOUT = 30.0  # seconds to reach a Dask scheduler, and for a worker to join it
#: The methods of ``score`` that need a stated share below one half (a median screen).
_BELOW_HALF = " and ".join(m for m in DETECTOR_METHODS if METHODS[m].share == "below_half")


def _method(text: str) -> str:
    """A method's name, a former one (the registry's ALIASES) read as the name that replaced
    it; argparse then checks it against the choices."""
    return ALIASES.get(text, text)


def _share(text: str) -> float:
    """The expected share of outliers of ``score``: a number in (0, 0.5]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    try:  # the detector's own rule
        OutlierDetector(contamination=value)._validate_params()
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


def _fit_rows(text: str) -> int:
    value = _integer(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be >= 2 (a density needs two rows), got {text}")
    return value


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``score`` subcommand and its options."""
    sc = sub.add_parser(
        "score",
        help="flag the anomalous rows of a CSV file (any size: read in chunks)",
        description="Write the rows of a CSV with, per method, a score (the detector's "
        "decision function: the log density, for the default the mean of its blocks' log "
        "densities, minus the threshold; negative = outlier, the lower the more anomalous) "
        "and is_outlier (True for the contamination share of lowest scores). The detector "
        "is fitted on a "
        "uniform random sample of --fit-rows rows, with the columns standardised "
        "on that sample (so one bandwidth suits them all), and scores every row.",
    )
    sc.add_argument(
        "data",
        type=Path,
        help="CSV file with a header line (read like the app's "
        "upload: encoding, separator and decimal mark "
        "are detected)",
    )
    sc.add_argument(
        "--columns",
        nargs="+",
        default=None,
        help="columns to score (default: every numeric column)",
    )
    sc.add_argument(
        "--method",
        nargs="+",
        type=_method,
        choices=DETECTOR_METHODS,
        default=[DEFAULT_DETECTOR],
        help="; ".join(f"{name}: {METHODS[name].description}" for name in DETECTOR_METHODS)
        + f". Default {DEFAULT_DETECTOR}; several give score_<method> and is_outlier_<method>",
    )
    sc.add_argument(
        "--contamination",
        type=_share,
        default=0.1,
        help=f"expected share of outliers (the methods' stated share), in (0, 0.5] "
        f"({_BELOW_HALF}: below 0.5); default 0.1",
    )
    sc.add_argument("--out", required=True, type=Path, help="CSV file to write")
    sc.add_argument(
        "--chunksize",
        type=_positive_int,
        default=CHUNKSIZE,
        help=f"rows read and scored at a time (default {CHUNKSIZE})",
    )
    sc.add_argument(
        "--fit-rows",
        type=_fit_rows,
        default=FIT_ROWS,
        help=f"fit on at most this many rows, drawn uniformly while reading (default {FIT_ROWS})",
    )
    sc.add_argument("--seed", type=_seed, default=0, help="seed of the sample, blocks and folds")
    sc.add_argument(
        "--drop-missing",
        action="store_true",
        help="leave out the rows with a missing or infinite value in the scored "
        "columns (default: such rows are an error)",
    )
    where = sc.add_mutually_exclusive_group()
    where.add_argument(
        "--jobs",
        type=_jobs,
        default=1,
        help="score the partitions of --chunksize rows on this many local processes "
        "(-1: all cores; default 1: in this process)",
    )
    where.add_argument(
        "--scheduler",
        default=None,
        help="address of a Dask scheduler (tcp://host:8786) whose workers score the "
        "partitions; they must see the data file and the folder of --out at the same "
        "paths (needs dask.distributed)",
    )
    sc.add_argument(
        "--explain",
        type=_positive_int,
        default=None,
        metavar="K",
        help="add, for each flagged row, its K most-blamed features and their "
        "contributions to its abnormality (-log density, in nats, in the standardised "
        "columns; a row's contributions over all columns sum to it): columns blame_1, "
        "blame_1_nats, ..., blame_K, blame_K_nats, empty for the rows not flagged. K is "
        "between 1 and the number of scored columns. Exact up to 10 columns, estimated "
        "from 256 sampled orders of the columns above (seeded by --seed). With several "
        "methods, the first one's flags are explained",
    )
    sc.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="no progress lines on stderr (warnings, errors and the final summary remain)",
    )


@dataclass(frozen=True)
class _ExplainingModel(Model):
    """A :class:`Model` that adds, for the rows its first method flags, their ``top``
    most-blamed features (:meth:`~momkde_core.OutlierDetector.explain`) and contributions
    (``seed``: the orders sampled above 10 columns)."""

    top: int = 1
    seed: int = 0

    def score(self, rows: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
        scored, flagged = super().score(rows)
        method = next(iter(self.detectors))
        mask = scored[self.outputs[method][1]].to_numpy(dtype=bool)
        columns = {
            name: np.full(len(scored), np.nan)
            if name.endswith("_nats")
            else np.full(len(scored), "", dtype=object)
            for name in _blame_names(self.top)
        }
        if mask.any():
            flagged_rows = scored[mask]
            Z = self.features(
                float_columns(dates_as_days(flagged_rows, list(self.dates)), self.numeric),
                flagged_rows[list(self.categorical)].to_numpy(dtype=object),
            )
            with config_context(**self.config):
                blame = self.detectors[method].explain(Z, random_state=self.seed)
            for name, values in most_blamed(blame, self.columns, self.top).items():
                columns[name][mask] = values
        return scored.assign(**columns), flagged


def _blame_names(top: int) -> list[str]:
    """The columns of ``--explain top``: blame_k, blame_k_nats for k = 1 .. top (those of
    :func:`~momkde_core.detector.most_blamed`)."""
    return [name for k in range(1, top + 1) for name in (f"blame_{k}", f"blame_{k}_nats")]


def _check_paths(data: Path, out: Path) -> None:
    """UsageError unless ``data`` is a file and ``out`` a writable file path that is not it."""
    if not data.is_file():
        raise UsageError(
            f"cannot read {data}: {'it is a folder' if data.is_dir() else 'no such file'}"
        )
    _check_out(out)
    if out.exists() and out.samefile(data):
        raise UsageError("--out is the input file; write the scores to another file")


def _fit_detectors(detectors: dict[str, OutlierDetector], X: np.ndarray, show: bool) -> None:
    """Fit every detector on X; their warnings as one line each, failures as UsageError."""
    for method, detector in detectors.items():
        with (
            phase(f"fitting {method} on {len(X):,} rows", f"{method} fitted", show),
            warnings.catch_warnings(record=True) as caught,
        ):
            warnings.simplefilter("always")
            try:
                detector.fit(X)
            except (ValueError, ArithmeticError) as err:
                raise UsageError(f"{method} could not be fitted: {err}") from None
        for message in dict.fromkeys(str(w.message) for w in caught):
            print(f"momkde: warning: {method}: {message}", file=sys.stderr)


def _check_categorical_methods(
    detectors: dict[str, OutlierDetector], categorical: list[Hashable]
) -> None:
    """UsageError for a method that reads numbers only when categorical columns are scored."""
    for method, detector in detectors.items():
        estimator = detector.estimator
        if (
            categorical
            and estimator is not None
            and "categorical_features" not in estimator.get_params()
        ):
            raise UsageError(
                f"{method} reads numeric columns only, and {', '.join(map(repr, categorical))} "
                f"{'is' if len(categorical) == 1 else 'are'} categorical: use "
                f"{DEFAULT_DETECTOR}, mom_kde or kde, or name numeric columns with --columns"
            )


def _n_processes(args: argparse.Namespace, n_parts: int) -> int:
    """Local processes of the second pass: --jobs (-1: the cores), at most one per partition."""
    from joblib import cpu_count

    return max(1, min(cpu_count() if args.jobs == -1 else args.jobs, n_parts))


def _write_scores(
    args: argparse.Namespace, model: Model, scan: _Scan, client, show: bool
) -> dict[str, int]:
    """Second pass: score every partition and write it, in the file's order, to a temporary
    file next to --out, renamed to --out at the end (no half-written file is ever left).
    In this process, one partition at a time; or on local processes or Dask workers, which
    write part files in a folder next to --out, copied in order as they finish and removed
    in the end (on success and on failure). Returns the number of rows flagged per method."""
    source, n_parts = model.source, len(scan.parts)
    processes = 0 if client is not None else _n_processes(args, n_parts)
    tmp = args.out.with_name(f".{args.out.name}.{os.getpid()}.part")
    folder = args.out.absolute().with_name(f".{args.out.name}.{os.getpid()}.parts")
    if client is not None:
        workers = client.nthreads()
        where = (
            f" on the Dask cluster at {args.scheduler} ({len(workers)} worker(s), "
            f"{sum(workers.values())} thread(s))"
        )
    else:
        where = f" on {processes} local processes" if processes > 1 else ""
    note(
        f"scoring {scan.n_rows:,} rows in {n_parts:,} partition(s) of at most "
        f"{args.chunksize:,} rows{where} ...",
        show,
    )
    try:
        source.check_unchanged()
        with Progress("scoring", "rows", total=scan.n_rows, enabled=show, summary=True) as bar:
            if processes == 1:
                flagged = dict.fromkeys(model.detectors, 0)
                with open(tmp, "w", encoding="utf-8", newline="") as fh:
                    for part, rows in _second_pass(model, scan, args.chunksize):
                        scored, counts = model.score(rows)
                        write_csv(scored, fh, header=part.index == 0)
                        for method, k in counts.items():
                            flagged[method] += k
                        bar.update(len(rows))
            else:
                folder.mkdir()
                tasks = (
                    ((part, None) for part in scan.parts)
                    if source.ranged
                    else client_parts(source, args.chunksize, model.dtypes)
                )
                results = (
                    run_dask(client, model, tasks, str(folder), n_parts)
                    if client is not None
                    else run_local(model, tasks, str(folder), processes, n_parts)
                )
                # (closed at once on any exit: the workers stop before the folder goes)
                with closing(results), open(tmp, "wb") as fh:
                    flagged = write_in_order(results, str(folder), fh, bar)
        os.replace(tmp, args.out)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    finally:
        _remove_parts(folder)
    return flagged


def _remove_parts(folder: Path) -> None:
    """Remove the parts folder. A Dask task that was running when the run stopped cannot be
    stopped by cancelling it and may still write its part while the folder is removed
    (which then fails, the folder not empty): remove again until it is gone, for at most
    PARTS_GRACE_SECONDS (once gone it stays gone: a part is written into the folder,
    never creating it)."""
    deadline = time.monotonic() + PARTS_GRACE_SECONDS
    while True:
        shutil.rmtree(folder, ignore_errors=True)
        if not folder.exists() or time.monotonic() > deadline:
            return
        time.sleep(0.05)


def _second_pass(model: Model, scan: _Scan, chunksize: int):
    """The first pass's partitions again, with their rows, read in this process."""
    if not model.source.ranged:
        return client_parts(model.source, chunksize, model.dtypes)
    return ((part, model.source.read(part, model.dtypes)) for part in scan.parts)


def _connect(args: argparse.Namespace, show: bool):
    """A client of the Dask scheduler at --scheduler whose workers see the data file and
    the folder of --out; UsageError when it cannot be reached, has no worker, or a worker
    does not see the files."""
    from distributed import Client

    note(f"connecting to the Dask scheduler at {args.scheduler} ...", show)
    try:
        client = Client(args.scheduler, timeout=SCHEDULER_TIMEOUT, set_as_default=False)
    except OSError as err:
        raise UsageError(
            f"cannot reach the Dask scheduler at {args.scheduler}: {_first_line(err)}"
        ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=SCHEDULER_TIMEOUT)
        except TimeoutError:
            raise UsageError(
                f"the Dask scheduler at {args.scheduler} has no worker after "
                f"{SCHEDULER_TIMEOUT:g} s; start one with: dask worker {args.scheduler}"
            ) from None
        problems = client.run(
            worker_problem,
            str(args.data.absolute()),
            args.data.stat().st_size,
            str(args.out.absolute().parent),
        )
        for worker, problem in sorted(problems.items()):
            if problem:
                raise UsageError(
                    f"the Dask worker {worker} {problem}: the workers need this machine's "
                    "files (the data file and the folder of --out) at the same paths"
                )
    except BaseException:
        client.close()
        raise
    return client


def score(args: argparse.Namespace) -> None:
    """Score every row of ``args.data`` with the chosen methods and write ``args.out``.

    Two passes over the file, each by partitions of --chunksize rows: the first checks the
    data, draws the rows to fit on and finds the partitions; after the fit (here), the
    second scores and writes them, here or on workers (--jobs, --scheduler). Every argument
    and the output path are checked first (and the Dask cluster reached), every property of
    the data before any fit, and the data before the output.
    """
    methods = list(dict.fromkeys(args.method))
    try:
        detectors = {m: make_detector(m, args.contamination, args.seed) for m in methods}
    except ValueError as err:
        raise UsageError(str(err)) from None
    _check_paths(args.data, args.out)
    if args.scheduler is not None:
        _check_scheduler(args.scheduler)
    names = {
        m: ("score", "is_outlier") if len(methods) == 1 else (f"score_{m}", f"is_outlier_{m}")
        for m in methods
    }
    show = not args.quiet
    _stop_on_signals()  # SIGTERM too ends in the clean-up: no temporary or part file is left
    client = _connect(args, show) if args.scheduler is not None else None
    try:
        _score(args, detectors, names, client, show)
    finally:
        if client is not None:
            client.close()


def _score(
    args: argparse.Namespace,
    detectors: dict[str, OutlierDetector],
    names: dict[str, tuple[str, str]],
    client,
    show: bool,
) -> None:
    note(f"reading {args.data} ...", show)
    try:
        fmt = sniff_csv_file(args.data)
        source = open_source(args.data.absolute(), fmt)
        outputs = [name for pair in names.values() for name in pair]
        if args.explain is not None:
            outputs += _blame_names(args.explain)
        scan = _scan(args, source, outputs, show)
    except OSError as err:
        raise UsageError(f"cannot read {args.data}: {err.strerror or err}") from None
    except ValueError as err:
        raise UsageError(f"{args.data}: {err}") from None
    if args.explain is not None and args.explain > len(scan.columns):
        raise UsageError(
            f"--explain {args.explain}: at most the number of scored columns "
            f"({len(scan.columns)}) can be blamed"
        )
    _check_categorical_methods(detectors, scan.categorical)
    scaler = StandardScaler().fit(scan.sample) if scan.sample.shape[1] else None
    config = {**get_config(), "n_threads": engine_threads()}
    parts = (source, scan.dtypes, scan.columns, scaler, detectors, names, config)
    mixed = {"categorical": tuple(scan.categorical), "dates": tuple(scan.dates)}
    if args.explain is None:
        model = Model(*parts, **mixed)
    else:
        model = _ExplainingModel(*parts, **mixed, top=args.explain, seed=args.seed)
    _fit_detectors(detectors, model.features(scan.sample, scan.text_sample), show)
    try:
        flagged = _write_scores(args, model, scan, client, show)
    except OSError as err:
        raise UsageError(f"cannot write {args.out}: {err.strerror or err}") from None
    except ValueError as err:  # the file changed since the first pass
        raise UsageError(f"{args.data}: {err}") from None
    dropped = scan.n_rows - scan.n_scored
    shares = ", ".join(f"{m} {k:,} ({k / scan.n_scored:.1%})" for m, k in flagged.items())
    print(
        f"scored {scan.n_scored:,} rows"
        + (f" ({dropped:,} with missing values left out)" if dropped else "")
        + f" on {len(scan.columns)} column(s), fitted on {len(scan.sample):,}; flagged: "
        f"{shares}; wrote {args.out}",
        file=sys.stderr,
    )

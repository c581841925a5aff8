"""The ``momkde`` command: reproduce the paper's experiments, draw its figures, score a CSV.

::

    momkde reproduce synthetic|clean|real [--reps N] [--ratios R ...]
                     [--schemes S ... | --densities D ... | --datasets D ...]
                     [--methods M ...] [--protocol honest|paper] [--contamination C|true]
                     [--jobs N] [--scheduler ADDR] [--seed S] [--dim 1|2] --out results.csv
    momkde figures results.csv --out DIR [--format html|png|svg] [--methods M ...]
    momkde score data.csv [--columns C ...] [--method kde|mom_kde|rkde|spkde ...]
                 [--contamination C] [--chunksize N] [--fit-rows N] [--seed S]
                 [--drop-missing] [--jobs N | --scheduler ADDR] [--quiet] --out scored.csv

Errors a person can fix (bad arguments, unknown names, unreadable files) end with one line on
stderr and exit code 2, never a traceback. Real data sets that are not installed are skipped
with a warning that says how to install them. Every CSV written has its formula-like cells
escaped (:mod:`momkde_core.io._csv_safety`).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
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

from .. import experiments as ex
from .._config import get_config
from .._config import n_threads as engine_threads
from .._progress import Progress, note, phase
from ..bandwidth._robust import MAX_CONTAMINATION
from ..datasets import DATASETS
from ..detector import OutlierDetector, make_detector
from ..io import (
    check_data_rows,
    check_enough_rows,
    check_has_numeric_column,
    check_not_constant,
    check_numeric_columns,
    float_columns,
    missing_values_error,
    sniff_csv_file,
    text_in_numeric_columns,
    write_csv,
)
from ..methods import DETECTOR_METHODS, with_registry_names
from ..synthetic import CLEAN_DENSITIES
from ._parallel import Model, PartitionFailed, run_dask, run_local, worker_problem, write_in_order
from ._partitions import CsvSource, Part, client_parts, open_source, scan_parts

FIGURE_METRICS: tuple[str, ...] = ("js", "kl_fhat_f", "kl_f_fhat", "auc")
NUMERIC_COLUMNS: tuple[str, ...] = ("ratio", "rep", "seed", "n_blocks", "bandwidth", "value")
FIGURE_FORMATS: tuple[str, ...] = ("html", "png", "svg")
IMAGE_SIZE = (760, 420, 1.5)  # width, height (CSS pixels), scale of static images
EXIT_USAGE = 2
EXIT_FAILED = 1  # a sample of a sweep failed (its finished samples are kept)
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT
CHUNKSIZE = 50_000  # rows read, scored and written at a time by `momkde score`
FIT_ROWS = 20_000  # rows `momkde score` fits on (RKDE and SPKDE learn in O(n^2) memory/time)
PARTS_GRACE_SECONDS = 30.0  # a cancelled Dask task may still write its part this long
SCHEDULER_TIMEOUT = 30.0  # seconds to reach a Dask scheduler, and for a worker to join it


class UsageError(Exception):
    """An error in the user's input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (``momkde: error: ...``) with exit code 2."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"ratio must be in (0, 1), got {text}")
    return value


def _integer(text: str, all_cores: bool = False) -> int:
    """An integer >= 1 (or -1, "all cores", when ``all_cores``); ArgumentTypeError otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1 and not (all_cores and value == -1):
        raise argparse.ArgumentTypeError(
            f"must be >= 1{' or -1 (all cores)' if all_cores else ''}, got {text}"
        )
    return value


def _contamination(text: str) -> float | None | str:
    """'true' (None: the true ratio), 'guess' (the default) or a number in [0, 0.5)."""
    if text in ("true", "guess"):
        return None if text == "true" else text
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'true': {text!r}") from None
    if not 0.0 <= value < 0.5:
        raise argparse.ArgumentTypeError(f"contamination must be in [0, 0.5), got {text}")
    return value


def _seed(text: str) -> int:
    """A seed or a repetition number: an integer >= 0 (what numpy's SeedSequence takes)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    return _integer(text)


def _share(text: str) -> float:
    """The expected share of outliers of ``score``: a number in (0, 0.5]."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value <= MAX_CONTAMINATION:
        raise argparse.ArgumentTypeError(f"contamination must be in (0, 0.5], got {text}")
    return value


def _fit_rows(text: str) -> int:
    value = _integer(text)
    if value < 2:
        raise argparse.ArgumentTypeError(f"must be >= 2 (a density needs two rows), got {text}")
    return value


def _jobs(text: str) -> int:
    return _integer(text, all_cores=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``momkde`` (sub-commands ``reproduce``, ``figures``, ``score``)."""
    parser = _Parser(
        prog="momkde",
        description="Reproduce the MoM-KDE paper's experiments; "
        "find the anomalous rows of a CSV file.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    rep = sub.add_parser("reproduce", help="run a sweep and write the tidy results CSV")
    rep.add_argument(
        "kind",
        choices=("synthetic", "clean", "real"),
        help="synthetic: the paper's contamination schemes; clean: densities "
        "without outliers (what robustness costs); real: the six data sets",
    )
    rep.add_argument(
        "--reps",
        type=_positive_int,
        default=None,
        help="repetitions per source and ratio (default 10 synthetic, 50 real)",
    )
    rep.add_argument(
        "--first-rep",
        type=_seed,
        default=0,
        help="number of the first repetition (default 0): --reps 40 --first-rep 10 "
        "draws repetitions 10..49, the samples a 50-repetition sweep draws "
        "there, to extend a stored table of repetitions 0..9",
    )
    rep.add_argument(
        "--ratios",
        type=_ratio,
        nargs="+",
        default=list(ex.RATIOS),
        help="outlier ratios |O|/n (default 0.05 0.10 ... 0.50)",
    )
    group = rep.add_mutually_exclusive_group()
    group.add_argument(
        "--schemes",
        nargs="+",
        choices=ex.SYNTHETIC_SCHEMES,
        help="synthetic schemes (default all four)",
    )
    group.add_argument(
        "--datasets", nargs="+", choices=DATASETS, help="real data sets (default all six)"
    )
    group.add_argument(
        "--densities", nargs="+", choices=CLEAN_DENSITIES, help="clean densities (default all four)"
    )
    rep.add_argument(
        "--methods",
        nargs="+",
        choices=ex.ALL_METHODS,
        default=list(ex.METHODS),
        help=f"default: the paper's four, MoM-KDE with both S rules ({' '.join(ex.METHODS)})",
    )
    rep.add_argument(
        "--block-bandwidth",
        action="store_true",
        help="also run MoM-KDE with the block-aware bandwidth h * S^(1/(4+d)), "
        f"both S rules ({' '.join(ex.BLOCKH_METHODS)}); about doubles the time",
    )
    rep.add_argument(
        "--protocol",
        choices=ex.PROTOCOLS,
        default="honest",
        help="honest (default): CV on the contaminated sample, label-free S, "
        "SPKDE given a guess; paper: CV on the inliers, SPKDE given the "
        "true ratio",
    )
    rep.add_argument(
        "--contamination",
        type=_contamination,
        default="guess",
        help="share of outliers stated to SPKDE and MoM-KDE's robust defaults "
        "under --protocol honest: a number in [0, 0.5) or 'true' (the true "
        f"ratio); default {ex.CONTAMINATION_GUESS} "
        f"(clean: {ex.CLEAN_CONTAMINATION})",
    )
    rep.add_argument("--jobs", type=_jobs, default=1, help="parallel processes (-1: all cores)")
    rep.add_argument(
        "--scheduler", default=None, help="address of a Dask scheduler to run on (tcp://host:8786)"
    )
    rep.add_argument("--seed", type=_seed, default=0, help="master seed")
    rep.add_argument(
        "--dim", type=int, choices=(1, 2), default=1, help="dimension of the synthetic data"
    )
    rep.add_argument(
        "--n-inliers",
        type=_positive_int,
        default=1000,
        help="inliers per synthetic sample (the paper: 1000)",
    )
    rep.add_argument(
        "--data-dir",
        default=None,
        help="folder of banana/german/titanic .csv.gz (else $MOMKDE_DATA_DIR)",
    )
    rep.add_argument(
        "--out",
        required=True,
        type=Path,
        help="CSV file to write; each finished sample is kept in <out>.partial "
        "as the sweep runs, so the same command run again after an "
        "interruption or a failure computes only the missing samples",
    )
    rep.add_argument(
        "--restart",
        action="store_true",
        help="discard the <out>.partial of an earlier, unfinished run instead of resuming it",
    )

    fig = sub.add_parser("figures", help="write the figures of a results CSV (HTML, PNG or SVG)")
    fig.add_argument("results", type=Path)
    fig.add_argument("--out", required=True, type=Path, help="folder for the figure files")
    fig.add_argument(
        "--format",
        choices=FIGURE_FORMATS,
        default="html",
        help="html (interactive, offline; default), or png / svg static images "
        "for documents (need kaleido and a Chrome/Chromium: "
        "pip install 'momkde[docs]')",
    )
    fig.add_argument(
        "--methods",
        nargs="+",
        default=None,
        help="only these methods (default: every method in the table)",
    )

    sc = sub.add_parser(
        "score",
        help="flag the anomalous rows of a CSV file (any size: read in chunks)",
        description="Write the rows of a CSV with, per method, a score (the detector's "
        "decision function: the log density minus the threshold; negative = "
        "outlier, the lower the more anomalous) and is_outlier (True for the "
        "contamination share of lowest densities). The detector is fitted on a "
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
        choices=DETECTOR_METHODS,
        default=["mom_kde"],
        help="mom_kde (default: MoM-KDE with S and h from the contamination), kde, "
        "rkde (cross-validated bandwidth), spkde (CV bandwidth, told the "
        "contamination); several give score_<method> and is_outlier_<method>",
    )
    sc.add_argument(
        "--contamination",
        type=_share,
        default=0.1,
        help="expected share of outliers, in (0, 0.5] (mom_kde: below 0.5); default 0.1",
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
        "-q",
        "--quiet",
        action="store_true",
        help="no progress lines on stderr (warnings, errors and the final summary remain)",
    )
    return parser


def _available_datasets(names: list[str], data_dir: str | None) -> list[str]:
    """The data sets that load; a warning on stderr (with how to install) for the others."""
    from ..datasets import load_dataset

    kept = []
    for name in names:
        try:
            load_dataset(name, data_dir=data_dir)
        except FileNotFoundError as err:
            print(f"momkde: warning: skipping {name}: {err}", file=sys.stderr)
        else:
            kept.append(name)
    if not kept:
        raise UsageError("none of the requested data sets is available (see the warnings above)")
    return kept


def reproduce(args: argparse.Namespace) -> None:
    """Run the sweep the arguments describe and write its table to ``args.out``."""
    option = {"synthetic": "--schemes", "clean": "--densities", "real": "--datasets"}
    given = {kind: getattr(args, name[2:]) for kind, name in option.items()}
    misplaced = [option[kind] for kind, value in given.items() if value and kind != args.kind]
    if misplaced:
        raise UsageError(
            f"{misplaced[0]} does not apply to {args.kind} data; use {option[args.kind]}"
        )
    sources = given[args.kind]
    _check_out(args.out)
    for path in (
        args.out.with_name(args.out.name + ex.SweepFile.SUFFIX),
        args.out.with_name(args.out.name + ex.SweepFile.SUFFIX + ".json"),
    ):
        if path.is_dir():
            raise UsageError(f"{path} is a folder; the sweep keeps its finished samples there")
    if args.scheduler is not None:
        _check_scheduler(args.scheduler)
    if args.kind == "real":
        sources = _available_datasets(sources or list(DATASETS), args.data_dir)
    methods = list(
        dict.fromkeys(args.methods + (list(ex.BLOCKH_METHODS) if args.block_bandwidth else []))
    )
    try:
        tasks = ex.make_tasks(
            args.kind,
            sources,
            args.ratios,
            args.reps,
            args.seed,
            args.protocol,
            methods,
            args.dim,
            args.n_inliers,
            contamination=args.contamination,
            data_dir=args.data_dir,
            first_rep=args.first_rep,
        )
        ex.regenerate_sample(tasks[0])  # a sample size the generators refuse fails here
        sweep = ex.SweepFile(args.out, tasks)
        resumed = sweep.open(restart=args.restart)
    except ValueError as err:
        raise UsageError(str(err)) from None
    except OSError as err:
        raise UsageError(f"cannot write beside --out: {err.strerror or err}") from None
    if resumed:
        print(
            f"momkde: resuming {sweep.partial}: {resumed} of {len(tasks)} samples already done",
            file=sys.stderr,
        )
    _stop_on_signals()
    try:
        df = sweep.run(n_jobs=args.jobs, scheduler=args.scheduler, progress=True)
    except (ImportError, OSError) as err:  # dask missing, scheduler unreachable, disk full
        raise UsageError(f"{err}; the finished samples are kept in {sweep.partial}") from None
    print(
        f"wrote {len(df)} rows ({len(tasks)} samples, protocol {args.protocol}) to {args.out}",
        file=sys.stderr,
    )


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _stop_on_signals() -> None:
    """SIGTERM, and SIGINT even in a process started in the background (where a shell
    ignores it), stop a sweep as Ctrl-C does: its finished samples are kept and the
    message says how to resume."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:]+\]|[^\s/:\[\]]+):\d{1,5}")


def _check_scheduler(address: str) -> None:
    """UsageError unless ``address`` reads as a Dask scheduler address and dask.distributed
    is installed (whether the scheduler answers is known only when connecting)."""
    if not _SCHEDULER.fullmatch(address):
        raise UsageError(
            f"--scheduler {address!r} is not a Dask scheduler address; give "
            "[tcp://]host:port, e.g. tcp://127.0.0.1:8786"
        )
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(
            "--scheduler needs dask.distributed: pip install 'momkde[distributed]'"
        ) from None


def read_results(path: Path) -> pd.DataFrame:
    """A results CSV written by ``reproduce``, checked for the tidy columns."""
    try:
        df = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    missing = [c for c in ex.COLUMNS if c not in df.columns]
    if missing:
        raise UsageError(
            f"{path} is not a momkde results table: missing column(s) {', '.join(missing)}"
        )
    if df.empty:
        raise UsageError(f"{path} has no rows")
    for column in NUMERIC_COLUMNS:
        numbers = pd.to_numeric(df[column], errors="coerce")
        text = numbers.isna() & df[column].notna()
        if column != "value":  # only a metric may be missing (NaN), not a sample's identity
            text |= ~np.isfinite(numbers.astype(float))
        if text.any():
            row = int(np.flatnonzero(text.to_numpy())[0])
            raise UsageError(
                f"{path}: column {column!r} must hold numbers; data row {row + 1} "
                f"holds {df[column].iloc[row]!r}"
            )
        df[column] = numbers
    for column in ("source", "method", "metric"):
        if df[column].isna().any():
            row = int(np.flatnonzero(df[column].isna().to_numpy())[0])
            raise UsageError(f"{path}: column {column!r} is empty in data row {row + 1}")
        df[column] = df[column].astype(str)
    return df


def figures(args: argparse.Namespace) -> list[Path]:
    """One figure per source x metric (JS, both KLs, AUC) in ``args.out``: a self-contained
    HTML file, or a static PNG / SVG image (rendered by kaleido, for documents)."""
    try:
        from ..plots import METRIC_LABELS, STANDALONE_TEMPLATE, metric_vs_ratio_figure
    except ModuleNotFoundError as err:
        raise UsageError(
            f"momkde figures draws with plotly, which is not installed ({err}): "
            "pip install 'momkde[app]'"
        ) from None

    df = read_results(args.results)
    if args.methods:
        unknown = sorted(set(args.methods) - set(df["method"]))
        if unknown:
            raise UsageError(
                f"{args.results} has no method(s) {', '.join(unknown)}; it has "
                f"{', '.join(pd.unique(df['method']))}"
            )
        df = df[df["method"].isin(args.methods)]
    # the tables' mom_kde is the S rule (mom_kde_rule), not the detectors' MoM-KDE
    df = with_registry_names(df)
    try:
        args.out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"cannot create {args.out}: {err}") from None
    written = []
    for source, part in ex.iter_sources(df):
        for metric in FIGURE_METRICS:
            if not (part["metric"] == metric).any():
                continue
            title = f"{source}: {METRIC_LABELS.get(metric, metric)}"
            path = args.out / f"{source}_{metric}.{args.format}"
            fig = metric_vs_ratio_figure(part, metric, title=title)
            fig.update_layout(template=STANDALONE_TEMPLATE)
            if args.format == "html":
                fig.write_html(path, include_plotlyjs=True)
            else:
                _write_image(fig, path)
            written.append(path)
    if not written:
        raise UsageError(f"{args.results} has no rows for the metrics {', '.join(FIGURE_METRICS)}")
    print(f"wrote {len(written)} figure(s) to {args.out}", file=sys.stderr)
    return written


def _write_image(fig, path: Path) -> None:
    """A static image of ``fig`` (kaleido drives a headless Chrome); UsageError if it cannot."""
    try:
        fig.write_image(path, width=IMAGE_SIZE[0], height=IMAGE_SIZE[1], scale=IMAGE_SIZE[2])
    except (ImportError, ValueError, RuntimeError, OSError) as err:
        first_line = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise UsageError(
            f"cannot render {path.name}: {first_line} (static images need "
            "kaleido and a Chrome or Chromium: pip install 'momkde[docs]')"
        ) from None


@dataclass
class _Scan:
    """What ``score`` learns from its first pass over the file."""

    columns: list[Hashable]  # the columns scored
    n_rows: int  # data rows in the file
    n_scored: int  # rows without a missing value in the columns scored
    sample: np.ndarray  # at most --fit-rows of those rows, a uniform random sample
    dtypes: dict[Hashable, object]  # one type for each column whose type varied by partition
    parts: list[Part]  # the partitions, in the file's order


class _Reservoir:
    """A uniform random sample of at most ``size`` rows of a stream of row blocks, in memory
    O(size): Vitter's Algorithm R (the t-th row takes a random slot with probability size/t),
    vectorised per block."""

    def __init__(self, size: int, n_columns: int, seed: int):
        self.rows = np.empty((size, n_columns))
        self.seen = 0
        self._rng = np.random.default_rng(seed)

    def add(self, X: np.ndarray) -> None:
        size = len(self.rows)
        fill = min(len(X), max(size - self.seen, 0))
        self.rows[self.seen : self.seen + fill] = X[:fill]
        rest = X[fill:]
        slot = self._rng.integers(0, self.seen + fill + np.arange(1, len(rest) + 1))
        kept = slot < size
        slot, rest = slot[kept], rest[kept]
        # rows of one block that draw the same slot: the last keeps it, as one at a time
        last = len(slot) - 1 - np.unique(slot[::-1], return_index=True)[1]
        self.rows[slot[last]] = rest[last]
        self.seen += len(X)

    @property
    def sample(self) -> np.ndarray:
        return self.rows[: min(self.seen, len(self.rows))]


def _check_paths(data: Path, out: Path) -> None:
    """UsageError unless ``data`` is a file and ``out`` a writable file path that is not it."""
    if not data.is_file():
        raise UsageError(
            f"cannot read {data}: {'it is a folder' if data.is_dir() else 'no such file'}"
        )
    _check_out(out)
    if out.exists() and out.samefile(data):
        raise UsageError("--out is the input file; write the scores to another file")


def _check_out(out: Path) -> None:
    """UsageError unless ``out`` is the path of a file that can be written (checked before
    anything is computed)."""
    if out.is_dir():
        raise UsageError(f"--out is a folder: {out}; give the path of the CSV file to write")
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {out.parent}")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write in the folder of --out: {out.parent}")
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(f"--out exists and is not writable: {out}")


def _score_columns(
    chunk: pd.DataFrame, args: argparse.Namespace, outputs: list[str]
) -> list[Hashable]:
    """The columns to score, from the file's first chunk (UsageError if they cannot be)."""
    check_data_rows(len(chunk))
    check_has_numeric_column(chunk)
    clash = [name for name in outputs if name in chunk.columns]
    if clash:
        raise UsageError(
            f"{args.data} already has a column named {clash[0]!r}, which the "
            "scores would take; rename it"
        )
    if args.columns:
        return list(dict.fromkeys(args.columns))
    for column in text_in_numeric_columns(chunk):
        try:
            check_numeric_columns(chunk, [column], partial=len(chunk) == args.chunksize)
        except ValueError as err:
            print(
                f"momkde: warning: {err}; it is not scored (fix the file, or name the "
                "columns with --columns)",
                file=sys.stderr,
            )
    return list(chunk.select_dtypes("number").columns)


def _scan(args: argparse.Namespace, source: CsvSource, outputs: list[str], show: bool) -> _Scan:
    """First pass: every check of the data (the app's, over the whole file), the sample to
    fit on and the partitions, in memory bounded by --chunksize and --fit-rows. ValueError
    for the data."""
    parts: list[Part] = []
    reservoir: _Reservoir | None = None  # made at the first rows, with the columns to score
    n_rows = n_scored = n_bad = 0
    kinds: dict[Hashable, set[str]] = {}
    with Progress("reading", "rows", enabled=show, summary=True) as bar:
        for part, chunk in scan_parts(source, args.chunksize):
            parts.append(part)
            if not len(chunk):  # a header alone, or a range of blank lines
                continue
            if reservoir is None:
                columns = _score_columns(chunk, args, outputs)
                reservoir = _Reservoir(args.fit_rows, len(columns), args.seed)
                missing = np.zeros(len(columns), dtype=np.int64)
                low, high = np.full(len(columns), np.inf), np.full(len(columns), -np.inf)
            for column in chunk.columns:
                kinds.setdefault(column, set()).add(chunk[column].dtype.kind)
            more = part.end < source.size if source.ranged else len(chunk) == args.chunksize
            try:
                check_numeric_columns(chunk, columns, first_row=n_rows, partial=n_rows > 0 or more)
            except ValueError as err:
                hint = "" if args.columns else "; name the columns to score with --columns"
                raise ValueError(f"{err}{hint}") from None
            X = float_columns(chunk, columns)
            bad = ~np.isfinite(X)
            missing += bad.sum(axis=0)
            n_bad += int(bad.any(axis=1).sum())
            X = X[~bad.any(axis=1)]
            if len(X):
                low, high = np.minimum(low, X.min(axis=0)), np.maximum(high, X.max(axis=0))
            reservoir.add(X)
            n_rows += len(chunk)
            n_scored += len(X)
            bar.update(len(chunk))
    if reservoir is None:  # no data rows: the message of an empty table
        _score_columns(chunk, args, outputs)
    if n_bad and not args.drop_missing:
        raise missing_values_error(columns, missing, n_bad, remedy="--drop-missing")
    check_enough_rows(n_scored)
    check_not_constant(columns, high - low)
    # pandas types each partition on its own: where they disagreed, the second pass reads
    # the column as the whole file would be read (integers with gaps as floats, mixed as text)
    dtypes = {
        column: "float64" if found <= set("iuf") else str
        for column, found in kinds.items()
        if len(found) > 1
    }
    return _Scan(columns, n_rows, n_scored, reservoir.sample, dtypes, parts)


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


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__


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
        scan = _scan(args, source, [name for pair in names.values() for name in pair], show)
    except OSError as err:
        raise UsageError(f"cannot read {args.data}: {err.strerror or err}") from None
    except ValueError as err:
        raise UsageError(f"{args.data}: {err}") from None
    scaler = StandardScaler().fit(scan.sample)
    _fit_detectors(detectors, scaler.transform(scan.sample), show)
    config = {**get_config(), "n_threads": engine_threads()}
    model = Model(source, scan.dtypes, scan.columns, scaler, detectors, names, config)
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


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``momkde`` console script; returns the exit code.

    Parses the arguments, checks them before any computation, and runs one of the
    sub-commands ``reproduce`` (a sweep of the paper's experiments), ``figures`` (their
    plots) or ``score`` (flag the anomalous rows of a CSV).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after ``momkde`` (default: ``sys.argv[1:]``).

    Returns
    -------
    code : int
        0 on success; 2 (``EXIT_USAGE``) for an error a person can fix (bad arguments,
        unknown names, unreadable files), reported as one line on stderr, never a traceback;
        1 (``EXIT_FAILED``) when a sample of a sweep failed (its finished samples are kept)
        or a partition of ``score`` failed on a worker (nothing is written);
        130 (``EXIT_INTERRUPTED``) when interrupted (Ctrl-C, or SIGTERM during a sweep), as
        a shell reports SIGINT (a sweep keeps its finished samples: the same command
        resumes).

    Raises
    ------
    SystemExit
        From the argument parser: code 0 after ``--help``, 2 for arguments it refuses
        (``momkde: error: ...`` on stderr).

    Notes
    -----
    The commands (``momkde <command> --help`` lists every option)::

        momkde reproduce synthetic --out results.csv
        momkde reproduce real --datasets iris breast_cancer --reps 5 --out real.csv
        momkde reproduce synthetic --jobs -1 --scheduler tcp://127.0.0.1:8786 --out big.csv
        momkde figures results.csv --out figures/ --format html
        momkde score data.csv --columns x y --method mom_kde rkde --out scored.csv
        momkde score big.csv --scheduler tcp://127.0.0.1:8786 --out scored.csv

    ``reproduce`` keeps each finished sample in ``<out>.partial``: the same command run
    again after an interruption or a failure computes only the missing samples
    (``--restart`` discards them). Real data sets that are not installed are skipped with a
    warning that says how to install them. ``score`` reads the file twice by partitions of
    ``--chunksize`` rows (any size), fits on a uniform sample of ``--fit-rows`` rows with the
    columns standardised on that sample, and writes every row with ``score`` (the
    detector's decision function: negative = outlier) and ``is_outlier``; its second pass
    runs on local processes with ``--jobs`` or on a Dask cluster with ``--scheduler`` (the
    same output), and ``--quiet`` silences its progress lines. Every CSV written has its
    formula-like cells escaped (:func:`momkde_core.io.write_csv`).

    See Also
    --------
    momkde_core.experiments.run_experiments : The sweeps of ``reproduce``.
    momkde_core.make_detector : The detectors of ``score``.

    Examples
    --------
    Score every row of a CSV file (the summary goes to stderr):

    >>> import pathlib, tempfile
    >>> import numpy as np, pandas as pd
    >>> from momkde_core import make_contaminated
    >>> from momkde_core.cli import main
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> X = make_contaminated("uniform", n_inliers=200, ratio=0.05, random_state=0).X
    >>> np.savetxt(folder / "data.csv", X, delimiter=",", header="x", comments="")
    >>> main(["score", str(folder / "data.csv"), "--quiet", "--out", str(folder / "scored.csv")])
    0
    >>> scored = pd.read_csv(folder / "scored.csv")
    >>> scored.columns.tolist(), len(scored)
    (['x', 'score', 'is_outlier'], 211)
    """
    args = build_parser().parse_args(argv)
    commands = {"reproduce": reproduce, "figures": figures, "score": score}
    try:
        commands[args.command](args)
    except UsageError as err:
        print(f"momkde: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except PartitionFailed as err:
        print(f"momkde: error: {err}; nothing was written", file=sys.stderr)
        return EXIT_FAILED
    except ex.SweepIncomplete as err:
        print(
            f"momkde: error: {err}; the other samples are kept in {err.partial}: run the "
            "same command again to compute only the missing ones",
            file=sys.stderr,
        )
        return EXIT_FAILED
    except KeyboardInterrupt:
        partial = getattr(args, "out", None)
        kept = (
            f"; the finished samples are kept in {partial}{ex.SweepFile.SUFFIX}: run the "
            "same command again to resume"
            if args.command == "reproduce"
            else ""
        )
        print(f"momkde: interrupted{kept}", file=sys.stderr)
        return EXIT_INTERRUPTED
    return 0

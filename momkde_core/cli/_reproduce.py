"""``momkde reproduce``: a sweep of the paper's experiments, written to a CSV a rerun resumes."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .. import experiments as ex
from ..datasets import DATASETS
from ..synthetic import CLEAN_DENSITIES
from ._common import (
    UsageError,
    _check_out,
    _check_scheduler,
    _jobs,
    _positive_int,
    _seed,
    _stop_on_signals,
)


def _ratio(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"ratio must be in (0, 1), got {text}")
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


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``reproduce`` subcommand and its options."""
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
        default=list(ex.DEFAULT_SWEEP_METHODS),
        help="default: the paper's four, MoM-KDE with both S rules "
        f"({' '.join(ex.DEFAULT_SWEEP_METHODS)})",
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

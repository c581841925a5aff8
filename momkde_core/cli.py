"""The ``momkde`` command: reproduce the paper's experiments and draw its figures.

    momkde reproduce synthetic|clean|real [--reps N] [--ratios R ...]
                     [--schemes S ... | --densities D ... | --datasets D ...]
                     [--methods M ...] [--protocol honest|paper] [--contamination C|true]
                     [--jobs N] [--scheduler ADDR] [--seed S] [--dim 1|2] --out results.csv
    momkde figures results.csv --out DIR [--format html|png|svg] [--methods M ...]

Errors a person can fix (bad arguments, unknown names, unreadable files) end with one line on
stderr and exit code 2, never a traceback. Real data sets that are not installed are skipped
with a warning that says how to install them.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

from . import experiments as ex
from .datasets import DATASETS
from .synthetic import CLEAN_DENSITIES

FIGURE_METRICS: tuple[str, ...] = ("js", "kl_fhat_f", "kl_f_fhat", "auc")
FIGURE_FORMATS: tuple[str, ...] = ("html", "png", "svg")
IMAGE_SIZE = (760, 420, 1.5)  # width, height (CSS pixels), scale of static images
EXIT_USAGE = 2


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
        raise argparse.ArgumentTypeError(f"must be >= 1{' or -1 (all cores)' if all_cores else ''}, "
                                         f"got {text}")
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


def _positive_int(text: str) -> int:
    return _integer(text)


def _jobs(text: str) -> int:
    return _integer(text, all_cores=True)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``momkde`` (sub-commands ``reproduce`` and ``figures``)."""
    parser = _Parser(prog="momkde", description="Reproduce the MoM-KDE paper's experiments.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    rep = sub.add_parser("reproduce", help="run a sweep and write the tidy results CSV")
    rep.add_argument("kind", choices=("synthetic", "clean", "real"),
                     help="synthetic: the paper's contamination schemes; clean: densities "
                          "without outliers (what robustness costs); real: the six data sets")
    rep.add_argument("--reps", type=_positive_int, default=None,
                     help="repetitions per source and ratio (default 10 synthetic, 50 real)")
    rep.add_argument("--ratios", type=_ratio, nargs="+", default=list(ex.RATIOS),
                     help="outlier ratios |O|/n (default 0.05 0.10 ... 0.50)")
    group = rep.add_mutually_exclusive_group()
    group.add_argument("--schemes", nargs="+", choices=ex.SYNTHETIC_SCHEMES,
                       help="synthetic schemes (default all four)")
    group.add_argument("--datasets", nargs="+", choices=DATASETS,
                       help="real data sets (default all six)")
    group.add_argument("--densities", nargs="+", choices=CLEAN_DENSITIES,
                       help="clean densities (default all four)")
    rep.add_argument("--methods", nargs="+", choices=ex.ALL_METHODS, default=list(ex.METHODS),
                     help="default: the paper's four, MoM-KDE with both S rules "
                          f"({' '.join(ex.METHODS)})")
    rep.add_argument("--block-bandwidth", action="store_true",
                     help="also run MoM-KDE with the block-aware bandwidth h * S^(1/(4+d)), "
                          f"both S rules ({' '.join(ex.BLOCKH_METHODS)}); about doubles the time")
    rep.add_argument("--protocol", choices=ex.PROTOCOLS, default="honest",
                     help="honest (default): CV on the contaminated sample, label-free S, "
                          "SPKDE given a guess; paper: CV on the inliers, SPKDE given the "
                          "true ratio")
    rep.add_argument("--contamination", type=_contamination, default="guess",
                     help="share of outliers stated to SPKDE and MoM-KDE's robust defaults "
                          "under --protocol honest: a number in [0, 0.5) or 'true' (the true "
                          f"ratio); default {ex.CONTAMINATION_GUESS} "
                          f"(clean: {ex.CLEAN_CONTAMINATION})")
    rep.add_argument("--jobs", type=_jobs, default=1, help="parallel processes (-1: all cores)")
    rep.add_argument("--scheduler", default=None,
                     help="address of a Dask scheduler to run on (tcp://host:8786)")
    rep.add_argument("--seed", type=int, default=0, help="master seed")
    rep.add_argument("--dim", type=int, choices=(1, 2), default=1,
                     help="dimension of the synthetic data")
    rep.add_argument("--n-inliers", type=_positive_int, default=1000,
                     help="inliers per synthetic sample (the paper: 1000)")
    rep.add_argument("--data-dir", default=None,
                     help="folder of banana/german/titanic .csv.gz (else $MOMKDE_DATA_DIR)")
    rep.add_argument("--out", required=True, type=Path, help="CSV file to write")

    fig = sub.add_parser("figures", help="write the figures of a results CSV (HTML, PNG or SVG)")
    fig.add_argument("results", type=Path)
    fig.add_argument("--out", required=True, type=Path, help="folder for the figure files")
    fig.add_argument("--format", choices=FIGURE_FORMATS, default="html",
                     help="html (interactive, offline; default), or png / svg static images "
                          "for documents (need kaleido and a Chrome/Chromium: "
                          "pip install 'momkde[docs]')")
    fig.add_argument("--methods", nargs="+", default=None,
                     help="only these methods (default: every method in the table)")
    return parser


def _available_datasets(names: list[str], data_dir: str | None) -> list[str]:
    """The data sets that load; a warning on stderr (with how to install) for the others."""
    from .datasets import load_dataset

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
        raise UsageError(f"{misplaced[0]} does not apply to {args.kind} data; use "
                         f"{option[args.kind]}")
    sources = given[args.kind]
    if args.kind == "real":
        sources = _available_datasets(sources or list(DATASETS), args.data_dir)
    if not args.out.parent.exists():
        raise UsageError(f"the folder of --out does not exist: {args.out.parent}")
    methods = list(dict.fromkeys(args.methods + (list(ex.BLOCKH_METHODS)
                                                 if args.block_bandwidth else [])))
    try:
        tasks = ex.make_tasks(args.kind, sources, args.ratios, args.reps, args.seed,
                              args.protocol, methods, args.dim, args.n_inliers,
                              contamination=args.contamination, data_dir=args.data_dir)
    except ValueError as err:
        raise UsageError(str(err)) from None
    try:
        df = ex.run_experiments(tasks, n_jobs=args.jobs, scheduler=args.scheduler, progress=True)
    except (ImportError, OSError) as err:  # dask missing, scheduler unreachable
        raise UsageError(str(err)) from None
    df.to_csv(args.out, index=False)
    print(f"wrote {len(df)} rows ({len(tasks)} samples, protocol {args.protocol}) to {args.out}",
          file=sys.stderr)


def read_results(path: Path) -> pd.DataFrame:
    """A results CSV written by ``reproduce``, checked for the tidy columns."""
    try:
        df = pd.read_csv(path)
    except (OSError, pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as err:
        raise UsageError(f"cannot read {path}: {err}") from None
    missing = [c for c in ex.COLUMNS if c not in df.columns]
    if missing:
        raise UsageError(f"{path} is not a momkde results table: missing column(s) "
                         f"{', '.join(missing)}")
    return df


def figures(args: argparse.Namespace) -> list[Path]:
    """One figure per source x metric (JS, both KLs, AUC) in ``args.out``: a self-contained
    HTML file, or a static PNG / SVG image (rendered by kaleido, for documents)."""
    from .plots import METRIC_LABELS, STANDALONE_TEMPLATE, metric_vs_ratio_figure

    df = read_results(args.results)
    if args.methods:
        unknown = sorted(set(args.methods) - set(df["method"]))
        if unknown:
            raise UsageError(f"{args.results} has no method(s) {', '.join(unknown)}; it has "
                             f"{', '.join(pd.unique(df['method']))}")
        df = df[df["method"].isin(args.methods)]
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
        raise UsageError(f"cannot render {path.name}: {first_line} (static images need "
                         "kaleido and a Chrome or Chromium: pip install 'momkde[docs]')") from None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``momkde`` console script; returns the exit code."""
    args = build_parser().parse_args(argv)
    try:
        if args.command == "reproduce":
            reproduce(args)
        else:
            figures(args)
    except UsageError as err:
        print(f"momkde: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    return 0


if __name__ == "__main__":
    sys.exit(main())

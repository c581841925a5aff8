"""``momkde figures``: one figure per source and metric of a results CSV (HTML, PNG or SVG)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

from .. import experiments as ex
from ..methods import with_registry_names
from ._common import UsageError, _first_line

FIGURE_METRICS: tuple[str, ...] = ("js", "kl_fhat_f", "kl_f_fhat", "auc")
NUMERIC_COLUMNS: tuple[str, ...] = ("ratio", "rep", "seed", "n_blocks", "bandwidth", "value")
FIGURE_FORMATS: tuple[str, ...] = ("html", "png", "svg")
IMAGE_SIZE = (760, 420, 1.5)  # width, height (CSS pixels), scale of static images


def add_parser(sub: argparse._SubParsersAction) -> None:
    """The ``figures`` subcommand and its options."""
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
    HTML file, or a static PNG / SVG image (rendered by kaleido, for documents). A line that
    would hide an earlier one is dashed (:func:`~momkde_core.plots.sweep_twin_lines`), as in
    the app."""
    try:
        from ..plots import (
            METRIC_LABELS,
            STANDALONE_TEMPLATE,
            metric_vs_ratio_figure,
            sweep_twin_lines,
            twin_dashes,
        )
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
            twins, _ = sweep_twin_lines(part, metric)
            fig = metric_vs_ratio_figure(part, metric, title=title, dashes=twin_dashes(twins))
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
        raise UsageError(
            f"cannot render {path.name}: {_first_line(err)} (static images need "
            "kaleido and a Chrome or Chromium: pip install 'momkde[docs]')"
        ) from None

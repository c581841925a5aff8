"""The ``momkde`` command: reproduce the paper's experiments, draw its figures, score a CSV.

::

    momkde reproduce synthetic|clean|real [--reps N] [--ratios R ...]
                     [--schemes S ... | --densities D ... | --datasets D ...]
                     [--methods M ...] [--protocol honest|paper] [--contamination C|true]
                     [--jobs N] [--scheduler ADDR] [--seed S] [--dim 1|2] --out results.csv
    momkde figures results.csv --out DIR [--format html|png|svg] [--methods M ...]
    momkde score data.csv [--columns C ...] [--method kde|mom_kde|rkde|spkde|screened_kde ...]
                 [--contamination C] [--chunksize N] [--fit-rows N] [--seed S]
                 [--drop-missing] [--jobs N | --scheduler ADDR] [--quiet] --out scored.csv

Errors a person can fix (bad arguments, unknown names, unreadable files) end with one line on
stderr and exit code 2, never a traceback. Real data sets that are not installed are skipped
with a warning that says how to install them. Every CSV written has its formula-like cells
escaped (:mod:`momkde_core.io._csv_safety`).
"""

from __future__ import annotations

import argparse
import sys

from .. import experiments as ex
from . import _figures, _reproduce, _score
from ._common import EXIT_FAILED, EXIT_INTERRUPTED, EXIT_USAGE, UsageError, _Parser
from ._parallel import PartitionFailed


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``momkde`` (sub-commands ``reproduce``, ``figures``, ``score``)."""
    parser = _Parser(
        prog="momkde",
        description="Reproduce the MoM-KDE paper's experiments; "
        "find the anomalous rows of a CSV file.",
    )
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for command in (_reproduce, _figures, _score):
        command.add_parser(sub)
    return parser


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
    commands = {
        "reproduce": _reproduce.reproduce,
        "figures": _figures.figures,
        "score": _score.score,
    }
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

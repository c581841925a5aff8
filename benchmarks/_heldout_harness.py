"""The run of a held-out family of robust density settings for issue #48 (imported, not run).

A family (:class:`Family`: its settings, ratios, sizes, seeds and stated shares) is written in
its own script, before any candidate rule runs on it; the script calls :func:`main`, which
fits ``ScreenedKDE(contamination=stated, random_state=state, cut=CUT)`` on its cells and
appends one CSV per part (``<out>_accuracy.csv``, ``<out>_stability.csv``) cell by cell, and
:func:`report` prints each goal's number from them. The protocol is stated in the family's
script (benchmarks/robust_density_fifth.py is the first).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_robust_density import cell_sample
from joblib import Parallel, delayed
from robust_density_settings import Setting

from momkde_core import KDE, ScreenedKDE, metrics

#: The cut a run uses unless told otherwise: ScreenedKDE's default.
DEFAULT_CUT = "calibrated"

#: The goals of issue #48.
STABILITY_GOAL = 0.9  # the least mean pairwise Jaccard in every stability cell
WIN_GOAL = 0.9  # the least share of contaminated cells beating the CV KDE, per stated share
CLEAN_GOAL = {0.02: 1.5, 0.1: 2.0}  # the most JS ratio to the CV KDE in any clean cell

#: The CSV columns that name a cell (with ``cut``: a rerun skips the cells already run).
CELL_KEY = ["part", "setting", "ratio", "n", "seed"]


def _cells_done(tables, cut: str) -> set[tuple]:
    """The cells (``CELL_KEY`` values) of ``cut`` in the tables (None: not written yet)."""
    done = set()
    for table in tables:
        if table is not None:
            done |= set(table.loc[table.cut == cut, CELL_KEY].itertuples(index=False, name=None))
    return done


def _key(cell: tuple) -> tuple:
    """A cell of :func:`cells` as its ``CELL_KEY`` values."""
    part, setting, *rest = cell
    return (part, setting.name, *rest)


@dataclass(frozen=True)
class Family:
    """A held-out family of settings and how its cells are run.

    Parameters
    ----------
    name : str
        The family's name; the default output prefix is ``<name>_<cut>``.
    settings : tuple of Setting
        The contaminated settings.
    clean : tuple of Setting
        The clean densities (no outliers).
    ratios : tuple of float
        The contamination ratios of the contaminated settings.
    sizes : tuple of int
        The sample sizes n, run in this order.
    seeds : tuple of int
        The seeds of the cells' samples (the fits' ``random_state`` in the accuracy part).
    stated : mapping of str to float
        The shares stated in the accuracy part, as factors of the true share, by label
        ("halved", "true", "doubled").
    clean_stated : tuple of float
        The shares stated on the clean densities.
    stability_states : tuple of int
        The ``random_state`` values the stability part refits with.
    stability_stated : tuple of str
        The labels of ``stated`` the stability part states (at or above the truth).
    stability_ratio : float
        The contamination ratio of the stability cells (on the first seed only).
    """

    name: str
    settings: tuple[Setting, ...]
    clean: tuple[Setting, ...]
    ratios: tuple[float, ...]
    sizes: tuple[int, ...]
    seeds: tuple[int, ...]
    stated: Mapping[str, float]
    clean_stated: tuple[float, ...]
    stability_states: tuple[int, ...]
    stability_stated: tuple[str, ...]
    stability_ratio: float


def mean_jaccard(masks: Sequence[np.ndarray]) -> float:
    """The mean pairwise Jaccard index of the rows set aside (two empty sets: 1).

    Examples
    --------
    >>> a, b = np.array([True, True, False]), np.array([True, False, False])
    >>> mean_jaccard([a, b]), mean_jaccard([~a & ~b, ~a & ~b])
    (0.5, 1.0)
    """
    values = []
    for a, b in itertools.combinations(masks, 2):
        union = (a | b).sum()
        values.append(1.0 if union == 0 else (a & b).sum() / union)
    return float(np.mean(values))


def _fit(X: np.ndarray, eps: float, state: int | None, cut: str) -> ScreenedKDE:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ScreenedKDE(contamination=eps, random_state=state, cut=cut).fit(X)


def accuracy_rows(
    family: Family, setting: Setting, ratio: float, n: int, seed: int, cut: str
) -> list[dict]:
    """One accuracy cell: the CV KDE's JS and, per stated share, the screened fit's.

    Parameters
    ----------
    family : Family
        The family the cell belongs to (its stated shares).
    setting : Setting
        The cell's setting (contaminated, or clean when ``ratio`` is 0).
    ratio : float
        The contamination ratio.
    n : int
        The sample size.
    seed : int
        The sample's seed, also the fits' ``random_state``.
    cut : str
        ``ScreenedKDE``'s ``cut``.

    Returns
    -------
    list of dict
        One row per stated share: JS (base 2) of the fit and of the CV KDE to the true inlier
        density, the share set aside, the outliers' recall and the fit's wall time (``fit_s``).
    """
    X, is_out, grid, truth = cell_sample(setting, ratio, n, seed)
    base = {"part": "accuracy", "cut": cut, "setting": setting.name, "ratio": ratio, "n": n}
    base["seed"] = seed
    js_cv = metrics.js_divergence(KDE("cv").fit(X).pdf_grid(*grid.axes), truth, grid.cell)
    cases = (
        [(k, ratio * f) for k, f in family.stated.items()]
        if ratio > 0
        else [(f"{e}", e) for e in family.clean_stated]
    )
    rows = []
    for label, eps in cases:
        start = time.perf_counter()
        est = _fit(X, eps, seed, cut)
        fit_s = time.perf_counter() - start
        out = ~est.inlier_mask_
        rows.append(
            dict(
                base,
                stated=label,
                eps=eps,
                js=metrics.js_divergence(est.pdf_grid(*grid.axes), truth, grid.cell),
                js_cv=js_cv,
                set_aside=float(out.mean()),
                recall=float(out[is_out].mean()) if is_out.any() else np.nan,
                fit_s=fit_s,
            )
        )
    return rows


def stability_rows(
    family: Family, setting: Setting, ratio: float, n: int, seed: int, cut: str
) -> list[dict]:
    """One stability cell: the rows set aside over ``family.stability_states``.

    Parameters
    ----------
    family : Family
        The family the cell belongs to (its stated shares and states).
    setting : Setting
        The cell's contaminated setting.
    ratio : float
        The contamination ratio.
    n : int
        The sample size.
    seed : int
        The sample's seed.
    cut : str
        ``ScreenedKDE``'s ``cut``.

    Returns
    -------
    list of dict
        One row per stated label: the mean pairwise Jaccard of the masks, the outliers' recall
        and the count set aside (least and most over the states), and whether two fits with
        ``random_state=None`` set aside the same rows.
    """
    X, is_out, _, _ = cell_sample(setting, ratio, n, seed)
    base = {"part": "stability", "cut": cut, "setting": setting.name, "ratio": ratio, "n": n}
    base["seed"] = seed
    rows = []
    for label in family.stability_stated:
        eps = ratio * family.stated[label]
        masks = [~_fit(X, eps, state, cut).inlier_mask_ for state in family.stability_states]
        unseeded = [~_fit(X, eps, None, cut).inlier_mask_ for _ in range(2)]
        recalls = [float(m[is_out].mean()) for m in masks]
        rows.append(
            dict(
                base,
                stated=label,
                eps=eps,
                jaccard=mean_jaccard(masks),
                recall_min=min(recalls),
                recall_max=max(recalls),
                set_aside_min=int(min(m.sum() for m in masks)),
                set_aside_max=int(max(m.sum() for m in masks)),
                unseeded_same=bool((unseeded[0] == unseeded[1]).all()),
            )
        )
    return rows


def cells(family: Family) -> list[tuple[str, Setting, float, int, int]]:
    """(part, setting, ratio, n, seed) in the order of the protocol.

    Per size n, in ``family.sizes``' order: the stability cells, then the accuracy cells of the
    contaminated settings, then the clean ones.
    """
    order = []
    for n in family.sizes:
        ratio, first = family.stability_ratio, family.seeds[0]
        order += [("stability", s, ratio, n, first) for s in family.settings]
        for setting in family.settings:
            for ratio in family.ratios:
                order += [("accuracy", setting, ratio, n, seed) for seed in family.seeds]
        for setting in family.clean:
            order += [("accuracy", setting, 0.0, n, seed) for seed in family.seeds]
    return order


def _read(out: str, part: str) -> pd.DataFrame | None:
    path = Path(f"{out}_{part}.csv")
    if not path.exists():
        return None
    table = pd.read_csv(path)
    if "cut" not in table:  # written before the cut was recorded: the default's
        table.insert(1, "cut", DEFAULT_CUT)
    return table


def _report_cut(stab: pd.DataFrame | None, acc: pd.DataFrame | None) -> str:
    """Print one cut's tables; return its summary line."""
    summary = []
    if stab is not None:
        print("stability (mean pairwise Jaccard over the seeds):")
        print(stab.pivot_table(index=["setting", "n"], columns="stated", values="jaccard").round(3))
        held = int((stab.jaccard >= STABILITY_GOAL).sum())
        same = int(stab.unseeded_same.sum())
        print(f"cells at or above {STABILITY_GOAL}: {held} of {len(stab)}")
        print(f"fits without a seed the same twice: {same} of {len(stab)}")
        summary.append(
            f"Jaccard min {stab.jaccard.min():.3f}, >= {STABILITY_GOAL} in {held}/{len(stab)}; "
            f"unseeded same {same}/{len(stab)}"
        )
    if acc is None:
        return "; ".join(summary)
    acc = acc.assign(win=lambda t: t.js < t.js_cv, rel=lambda t: t.js / t.js_cv)
    dirty, clean = acc[acc.ratio > 0], acc[acc.ratio == 0]
    if len(dirty):
        print("share of contaminated cells beating the CV KDE (cells):")
        print(dirty.groupby(["n", "stated"]).win.agg(["mean", "size"]).round(3))
        wins = dirty.groupby("stated").win.agg(["mean", "size"])
        print(wins.round(3))
        print("median JS ratio:", dirty.groupby("stated").rel.median().round(2).to_dict())
        recall = dirty.pivot_table(
            index=["setting", "ratio", "n", "seed"], columns="stated", values="recall"
        )
        lost = recall[(recall["true"] >= 0.5) & (recall["doubled"] < 0.5)]
        print(f"cells told double that lose a cluster the true share catches: {len(lost)}")
        if len(lost):
            print(lost)
        summary.append(
            "wins "
            + ", ".join(f"{k} {r['mean']:.2f} of {int(r['size'])}" for k, r in wins.iterrows())
            + f" (goal {WIN_GOAL}); clusters lost {len(lost)}"
        )
    if len(clean):
        print("clean: JS ratio to the CV KDE, worst cell and median per density:")
        print(clean.groupby(["setting", "stated"]).rel.agg(["max", "median"]).round(2))
        worst = clean.groupby("eps").rel.max()
        summary.append(
            "clean worst "
            + ", ".join(
                f"told {e:g} {r:.2f}x (goal {CLEAN_GOAL.get(e, float('nan')):g}x)"
                for e, r in worst.items()
            )
        )
    summary.append(f"median fit {acc.fit_s.median():.2f} s" if "fit_s" in acc else "")
    return "; ".join(s for s in summary if s)


def report(out: str, family: Family | None = None) -> None:
    """Print every goal's number from ``<out>_accuracy.csv`` and ``<out>_stability.csv``.

    Parameters
    ----------
    out : str
        The output prefix of the run.
    family : Family, optional
        The family run: the report says how many of its cells are not in the files.
    """
    stab, acc = _read(out, "stability"), _read(out, "accuracy")
    tables = [t for t in (stab, acc) if t is not None]
    if not tables:
        print(f"no results under {out}_*.csv")
        return
    cuts = sorted(set().union(*(set(t.cut) for t in tables)))
    lines = []
    for cut in cuts:
        print(f"=== cut={cut} ===")
        lines.append(
            f"cut={cut}: "
            + _report_cut(
                None if stab is None else stab[stab.cut == cut],
                None if acc is None else acc[acc.cut == cut],
            )
        )
        if family is not None:
            done = _cells_done(tables, cut)
            missing = [c for c in cells(family) if _key(c) not in done]
            print(f"cells not run: {len(missing)} of {len(cells(family))}")
            lines[-1] += f"; cells not run {len(missing)}"
    print("summary per cut:")
    print("\n".join(lines))


def _run_cell(family: Family, cell: tuple, cut: str) -> tuple[str, list[dict]]:
    part, setting, ratio, n, seed = cell
    rows_of = accuracy_rows if part == "accuracy" else stability_rows
    return part, rows_of(family, setting, ratio, n, seed, cut)


def main(family: Family, doc: str, argv: Sequence[str] | None = None) -> None:
    """The command line of a family's script: run its cells, or ``--report``.

    Parameters
    ----------
    family : Family
        The family to run.
    doc : str
        The script's docstring (its first line describes the command).
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).
    """
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", help=f"<out>_<part>.csv (default: {family.name}_<cut>)")
    parser.add_argument("--cut", default=DEFAULT_CUT, help="ScreenedKDE's cut")
    parser.add_argument("--part", choices=("accuracy", "stability"), nargs="+")
    parser.add_argument("--jobs", type=int, default=1, help="cells run at once")
    parser.add_argument("--max-cells", type=int, help="run at most this many cells (a smoke check)")
    parser.add_argument(
        "--report",
        nargs="?",
        const="",
        metavar="PREFIX",
        help="print the goals' numbers of PREFIX (default: --out)",
    )
    args = parser.parse_args(argv)
    out = args.out or f"{family.name}_{args.cut}"
    if args.report is not None:
        report(args.report or out, family)
        return
    done = _cells_done([_read(out, part) for part in ("accuracy", "stability")], args.cut)
    todo = [
        c for c in cells(family) if _key(c) not in done and (args.part is None or c[0] in args.part)
    ]
    todo = todo[: args.max_cells]
    print(f"{len(todo)} cells to run (cut={args.cut}, out={out})", flush=True)
    results = Parallel(n_jobs=args.jobs, return_as="generator")(
        delayed(_run_cell)(family, cell, args.cut) for cell in todo
    )
    for (part, setting, ratio, n, seed), (_, rows) in zip(todo, results):
        path, new = Path(f"{out}_{part}.csv"), pd.DataFrame(rows)
        if path.exists() and list(pd.read_csv(path, nrows=0).columns) != list(new.columns):
            new = pd.concat([_read(out, part), new])  # older columns: rewritten whole
            new.to_csv(path, index=False)
        else:
            new.to_csv(path, mode="a", header=not path.exists(), index=False)
        print(part, setting.name, ratio, n, seed, flush=True)

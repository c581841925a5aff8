"""A split-free screen for ScreenedKDE (issue #48, second candidate), on development data.

MoM-KDE's median depends on a random split into blocks. Its deterministic counterpart is the
*trimmed KDE*: at x, the kernel sum over every row except the m nearest (m = ceil(eps n)),

    T_m(x) = 1/n sum_{j not among the m nearest rows of x} K_H(x - X_j),

which ignores whatever m rows hold at x (a cluster of at most m rows, a far outlier's own
kernel), as the median ignores what fewer than half of its blocks hold. It needs no draw, and
costs one pass over the pairwise distances. Four cuts built on it replace the MoM screen in
ScreenedKDE's calibrated cut (level-matched null samples, two passes, the 10^8 margin beyond
the null's range, ``_screened._beyond_null``); the final KDE is ``KDE("cv")`` on the rows kept:

- ``pilot_vs_trimmed``: excess log f_pilot - log T_m (the pilot at the CV h, as the default's
  excess), H = 1.5 x the median distance to the m-th nearest row; the first null drawn from
  T_m itself (by rejection from the KDE at H: T_m <= f_H), the second from the KDE of the rows
  the first pass kept;
- ``same_h``: excess log f_H - log T_m (one bandwidth: the share of f_H that the m nearest
  rows hold), levels matched by log f_H; nulls as above;
- ``same_h_fixed``: as ``same_h`` with H from the distance to the ceil(0.05 n)-th row (not
  growing with the stated share), the first null drawn from the CV KDE with each row weighed
  by T_m / f_H;
- ``multi_m``: ``same_h_fixed`` at m = 1/4, 1/2 and 1 times ceil(eps n), a row set aside when
  any of the three sets it aside (stating more would only add checks).

Three changes of the default itself (MoM screens, the same passes), patched in for the study:

- ``pooled``: ``NULL_SAMPLES`` 8 null samples per pass (4x the default's draws), a row's bar the
  98th percentile of the excess of the 200 null rows of nearest level (the default: the
  largest of 50 among 2 samples: the same share of the null, a less noisy statistic);
- ``stratified``: every MoM partition deterministic: the rows sorted (in d > 1 along their
  first principal component, standardised) and dealt round-robin into the blocks, so that
  rows close together fall in different blocks; no draw decides the blocks;
- ``pooled, averaged h``: ``pooled``, and each screen's robust h the geometric mean of the
  robust h of 5 partitions (the h search is part of the blocks' draw: with pooled nulls,
  ``logistic_tail_cluster`` told 0.15 got h 0.70, 0.80 or 0.92 from the seed, and set aside
  none, part or all of its cluster).

Parts (``--part``): ``dev``, the fourth and third families' contaminated settings at ratios
0.05 and 0.15 and their clean densities, n = 500, seed 211, the share stated halved, true and
doubled (clean: 0.02 and 0.1), each cut and the default (``current``); the JS ratio to the CV
KDE (``rel``), the share set aside, the outliers' recall, the fit's wall clock. ``stability``:
issue #48's sample (1,600 rows of N(0, 1), 400 of N(4, 0.1), told 0.2) and every second
setting of ``dev`` at ratio 0.15, told true and doubled, refitted with seeds 0-9 (mean
pairwise Jaccard of the rows set aside): ``same_h_fixed``, ``current``, ``pooled``,
``stratified``, ``pooled, averaged h``, and the default with the data's screens' blocks
drawn from seed 0 and the null step seeded (its samples and the blocks of the screens refitted
on them: ``nulls only``), or the null step drawn from seed 0 and the data's screens' blocks
seeded (``blocks only``).

Run: ``python benchmarks/studies/screen_split_free.py --out split_free.csv [--part dev
stability] [--jobs 2]``. A finished design study: benchmarks/README.md names the
commit whose code it measured and how to rerun it there.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from numpy.lib.stride_tricks import sliding_window_view
from scipy.special import logsumexp

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # benchmarks/: the settings
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from _heldout_harness import mean_jaccard  # noqa: E402
from bench_robust_density import cell_sample  # noqa: E402
from robust_density_fourth import FOURTH_CLEAN, FOURTH_SETTINGS  # noqa: E402
from robust_density_third import THIRD_CLEAN, THIRD_SETTINGS  # noqa: E402

from momkde_core import KDE, ScreenedKDE, metrics  # noqa: E402
from momkde_core._blocks import _fitted  # noqa: E402
from momkde_core.bandwidth import _robust  # noqa: E402
from momkde_core.estimators import _mom_kde, _screened  # noqa: E402

N, SEED, RATIOS, STATES = 500, 211, (0.05, 0.15), tuple(range(10))
STATED = {"halved": 0.5, "true": 1.0, "doubled": 2.0}
CLEAN_STATED = (0.02, 0.1)
SETTINGS, CLEAN = FOURTH_SETTINGS + THIRD_SETTINGS, FOURTH_CLEAN + THIRD_CLEAN
H_FACTOR, H_SHARE = 1.5, 0.05


def log_trimmed(Q: np.ndarray, R: np.ndarray, H: np.ndarray, m: int) -> np.ndarray:
    """log T_m at the rows of Q, against the rows R (Gaussian kernel, bandwidths H; m = 0: the
    KDE at H)."""
    Qs, Rs = Q / H, R / H
    norm = -np.log(len(R)) - Q.shape[1] / 2 * np.log(2 * np.pi) - np.log(H).sum()
    squares = (Rs**2).sum(1)
    out = np.empty(len(Q))
    for a in range(0, len(Q), 512):
        q = Qs[a : a + 512]
        d2 = np.maximum((q**2).sum(1)[:, None] + squares[None] - 2 * q @ Rs.T, 0.0)
        if m > 0:
            np.put_along_axis(d2, np.argpartition(d2, m - 1, axis=1)[:, :m], np.inf, axis=1)
        out[a : a + 512] = logsumexp(-d2 / 2, axis=1) + norm
    return out


def _radius(X: np.ndarray, scale: np.ndarray, m: int) -> float:
    """The median distance from a row to its m-th nearest row (itself the first), in ``scale``
    units."""
    Xs = X / scale
    squares = (Xs**2).sum(1)
    d2 = np.maximum(squares[:, None] + squares[None] - 2 * Xs @ Xs.T, 0.0)
    return float(np.median(np.sqrt(np.partition(d2, m - 1, axis=1)[:, m - 1])))


def _cap(flag: np.ndarray, excess: np.ndarray) -> np.ndarray:
    """At most half of the rows minus one, those of largest excess (as ScreenedKDE)."""
    limit = (len(flag) - 1) // 2
    if flag.sum() <= limit:
        return flag
    capped = np.zeros(len(flag), bool)
    capped[np.argsort(-excess, kind="stable")[:limit]] = True
    return capped


def _draw_trimmed(X, H, m, size, rng) -> np.ndarray:
    """Draws from T_m (normalised): rejection from the KDE at H, accepted with T_m / f_H."""
    kept = []
    for _ in range(20):
        Y = X[rng.integers(len(X), size=2 * size)] + rng.normal(size=(2 * size, X.shape[1])) * H
        accept = rng.random(len(Y)) < np.exp(log_trimmed(Y, X, H, m) - log_trimmed(Y, X, H, 0))
        kept.append(Y[accept])
        if sum(map(len, kept)) >= size:
            return np.concatenate(kept)[:size]
    raise ValueError("the trimmed KDE accepted too few draws")


def split_free_cut(X: np.ndarray, eps: float, variant: str, seed: int) -> np.ndarray:
    """The rows a split-free cut sets aside (``variant``: module docstring)."""
    n = len(X)
    pilot = KDE("cv").fit(X)
    h = np.atleast_1d(pilot.bandwidth_) * np.ones(X.shape[1])
    scale = h / np.exp(np.log(h).mean())
    m = max(1, int(np.ceil(eps * n)))
    fixed = variant in ("same_h_fixed", "multi_m")
    H = scale * H_FACTOR * _radius(X, scale, max(1, int(np.ceil(H_SHARE * n))) if fixed else m)
    counts = [max(1, int(np.ceil(f * m))) for f in (0.25, 0.5)] if variant == "multi_m" else []
    counts.append(m)

    def statistics(D, pilot_log=None):
        """(levels, the excess at each count) at the rows of D."""
        f_h = log_trimmed(D, D, H, 0)
        high = f_h if pilot_log is None else pilot_log
        return (
            f_h if pilot_log is None else None,
            [_screened._excess(high, log_trimmed(D, D, H, k)) for k in counts],
        )

    if variant == "pilot_vs_trimmed":
        pilot_log = pilot.score_samples(X)
        (excess,) = statistics(X, pilot_log)[1]
        levels = pilot_log - excess  # log T_m: the default's levels are the screen's
    else:
        levels, excesses = statistics(X)
        excess = excesses[-1]
    rng = np.random.default_rng(seed)

    def null_flags(draw, beyond):
        null_levels, null_excess = [], [[] for _ in counts]
        for _ in range(_screened.NULL_SAMPLES):
            D = draw()
            if variant == "pilot_vs_trimmed":
                (e,) = statistics(D, KDE(h).fit(D).score_samples(D))[1]
                null_levels.append(KDE(h).fit(D).score_samples(D) - e)
                null_excess[0].append(e)
            else:
                lv, es = statistics(D)
                null_levels.append(lv)
                for i, e in enumerate(es):
                    null_excess[i].append(e)
        flag = np.zeros(n, bool)
        row_excess = [excess] if variant == "pilot_vs_trimmed" else excesses
        for e, ne in zip(row_excess, null_excess):
            flag |= _screened._beyond_null(
                levels, e, np.concatenate(null_levels), np.concatenate(ne), beyond
            )
        return flag

    if variant in ("pilot_vs_trimmed", "same_h"):
        first = null_flags(lambda: _draw_trimmed(X, H, m, n, rng), 0.0)
    else:
        weight = np.exp(-excess)
        weight /= weight.sum()
        first = null_flags(
            lambda: X[rng.choice(n, size=n, p=weight)] + rng.normal(size=X.shape) * h, 0.0
        )
    kept = KDE(pilot.bandwidth_).fit(X[~_cap(first, excess)])
    second = null_flags(
        lambda: kept.sample(n, random_state=int(rng.integers(2**31))),
        _screened.BEYOND_RANGE_EXCESS,
    )
    return _cap(second, excess)


VARIANTS = ("pilot_vs_trimmed", "same_h", "same_h_fixed", "multi_m")


def _dev_rows(setting, ratio: float, variants) -> list[dict]:
    X, is_out, grid, truth = cell_sample(setting, ratio, N, SEED)

    def js(est):
        return metrics.js_divergence(est.pdf_grid(*grid.axes), truth, grid.cell)

    js_cv = js(KDE("cv").fit(X))
    cases = (
        [(k, ratio * f) for k, f in STATED.items()]
        if ratio
        else [(str(e), e) for e in CLEAN_STATED]
    )
    rows = []
    for label, eps in cases:
        for variant in variants:
            start = time.perf_counter()
            if variant in DEFAULT_MODES:
                out = _default_mask(X, eps, SEED, variant)
            else:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out = split_free_cut(X, eps, variant, SEED)
            est = KDE("cv").fit(X[~out])
            rows.append(
                dict(
                    part="dev",
                    setting=setting.name,
                    ratio=ratio,
                    stated=label,
                    variant=variant,
                    rel=js(est) / js_cv,
                    set_aside=float(out.mean()),
                    recall=float(out[is_out].mean()) if is_out.any() else np.nan,
                    fit_s=time.perf_counter() - start,
                )
            )
    return rows


POOLED_SAMPLES, POOLED_WINDOW, POOLED_QUANTILE = 8, 200, 0.98
DEFAULT_MODES = (
    "current",
    "pooled",
    "stratified",
    "pooled, averaged h",
    "nulls only",
    "blocks only",
)
DEV_MODES = DEFAULT_MODES[:4]
AVERAGED_H_PARTITIONS = 5


def _averaged_h(mom):
    """A stand-in for MoMKDE whose "robust" h is the geometric mean of the robust h of
    ``AVERAGED_H_PARTITIONS`` partitions (seeds drawn from its random_state); a numeric h
    (the twins') is kept."""

    def build(**params):
        class Averaged(mom):
            def fit(self, X, y=None, sample_weight=None):
                if isinstance(self.bandwidth, str):
                    seeds = np.random.RandomState(self.random_state).randint(
                        2**31, size=AVERAGED_H_PARTITIONS
                    )
                    logs = [
                        np.log(
                            mom(**{**params, "random_state": int(seed)})
                            .fit(X, sample_weight=sample_weight)
                            .bandwidth_
                        )
                        for seed in seeds
                    ]
                    h = np.exp(np.mean(logs, axis=0))
                    self.set_params(bandwidth=float(h) if np.ndim(h) == 0 else h)
                return super().fit(X, y, sample_weight=sample_weight)

        return Averaged(**params)

    return build


def _pooled_bar(levels, excess, null_levels, null_excess, beyond_range=0.0):
    """``_screened._beyond_null`` with the 98th percentile of 200 null rows as the bar."""
    order = np.argsort(null_levels, kind="stable")
    sorted_levels, sorted_excess = null_levels[order], null_excess[order]
    k = min(POOLED_WINDOW, len(order))
    bar = np.quantile(sliding_window_view(sorted_excess, k), POOLED_QUANTILE, axis=1)
    start = np.clip(np.searchsorted(sorted_levels, levels) - k // 2, 0, len(order) - k)
    bound = bar[start] + np.where(levels < sorted_levels[0], beyond_range, 0.0)
    return (excess > bound) & (excess > _screened.MIN_EXCESS)


def _dealt_order(X: np.ndarray, n_blocks: int):
    """``block_order`` for stratified blocks: rows sorted (along the first principal component
    of the standardised rows in d > 1) and dealt round-robin."""
    X = np.asarray(X, dtype=float)
    if X.shape[1] == 1:
        key = X[:, 0]
    else:
        Z = (X - X.mean(0)) / (X.std(0) + 1e-300)
        key = Z @ np.linalg.svd(Z, full_matrices=False)[2][0]
    ranked = np.argsort(key, kind="stable")
    n = len(X)
    sizes = np.full(n_blocks, n // n_blocks) + (np.arange(n_blocks) < n % n_blocks)
    order = np.concatenate([ranked[s::n_blocks] for s in range(n_blocks)])
    return order, np.concatenate([[0], np.cumsum(sizes)])


@contextlib.contextmanager
def _patched(mode: str):
    """The default with one change (``DEFAULT_MODES``), undone on exit."""
    saved = [
        (_screened, "MoMKDE"),
        (_screened, "NULL_SAMPLES"),
        (_screened, "_beyond_null"),
        (_screened.ScreenedKDE, "_calibrated_cut"),
        (_fitted, "shuffled_blocks"),
        (_mom_kde, "shuffled_blocks"),
        (_robust.BlockDistances, "__init__"),
    ]
    values = [getattr(owner, name) for owner, name in saved]
    mom, cut, shuffled, init = _screened.MoMKDE, values[3], values[4], values[6]
    if mode == "nulls only":  # the data's screens' blocks (and h) from seed 0
        _screened.MoMKDE = lambda **kw: mom(**{**kw, "random_state": 0})
    elif mode == "blocks only":  # the null step (samples, twins' blocks) from seed 0

        def fixed_cut(self, X_, weights, scores, excess, screen, pilot, seed, *rest):
            return cut(self, X_, weights, scores, excess, screen, pilot, 0, *rest)

        _screened.ScreenedKDE._calibrated_cut = fixed_cut
    elif mode in ("pooled", "pooled, averaged h"):
        _screened.NULL_SAMPLES, _screened._beyond_null = POOLED_SAMPLES, _pooled_bar
        if mode == "pooled, averaged h":
            _screened.MoMKDE = _averaged_h(mom)
    elif mode == "stratified":
        order = _fitted.block_order

        def dealt(X, n_blocks, random_state, base=None):
            if n_blocks > 1:
                _fitted.block_order = lambda n, S, rs: _dealt_order(X, S)
            try:
                return shuffled(X, n_blocks, random_state, base)
            finally:
                _fitted.block_order = order

        def dealt_init(self, X, n_blocks, random_state):
            _robust.block_order = lambda n, S, rs: _dealt_order(X, S)
            try:
                init(self, X, n_blocks, random_state)
            finally:
                _robust.block_order = order

        _fitted.shuffled_blocks = _mom_kde.shuffled_blocks = dealt
        _robust.BlockDistances.__init__ = dealt_init
    try:
        yield
    finally:
        for (owner, name), value in zip(saved, values):
            setattr(owner, name, value)


def _default_mask(X, eps, state, mode) -> np.ndarray:
    """The rows the default (``DEFAULT_MODES``) sets aside."""
    with _patched(mode), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return ~ScreenedKDE(contamination=eps, random_state=state).fit(X).inlier_mask_


def _stability_cells() -> list[tuple[str, np.ndarray, np.ndarray, float]]:
    rng = np.random.default_rng(0)
    X = np.r_[rng.normal(0, 1, 1600), rng.normal(4, 0.1, 400)][:, None]
    cells = [("issue48_n2000", X, np.arange(2000) >= 1600, 0.2)]
    for setting in SETTINGS[::2]:
        X, is_out, _, _ = cell_sample(setting, 0.15, N, SEED)
        cells.append((setting.name, X, is_out, 0.15))
    return cells


def _stability_rows(name, X, is_out, ratio, variants) -> list[dict]:
    rows = []
    for label in ("true", "doubled"):
        eps = ratio * STATED[label]
        for mode in variants:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                masks = [
                    _default_mask(X, eps, state, mode)
                    if mode in DEFAULT_MODES
                    else split_free_cut(X, eps, mode, state)
                    for state in STATES
                ]
            rows.append(
                dict(
                    part="stability",
                    setting=name,
                    ratio=ratio,
                    stated=label,
                    variant=mode,
                    jaccard=mean_jaccard(masks),
                    set_aside_min=int(min(m.sum() for m in masks)),
                    set_aside_max=int(max(m.sum() for m in masks)),
                    recall_min=float(min(m[is_out].mean() for m in masks)),
                    recall_max=float(max(m[is_out].mean() for m in masks)),
                )
            )
    return rows


def report(table: pd.DataFrame) -> None:
    """Print the study's tables."""
    dev = table[table.part == "dev"]
    dirty, clean = dev[dev.ratio > 0], dev[dev.ratio == 0]
    print("contaminated cells won against the CV KDE (median JS ratio):")
    wins = dirty.assign(win=dirty.rel < 1).pivot_table(
        index="variant", columns="stated", values="win"
    )
    print(
        wins.round(2).astype(str)
        + " ("
        + dirty.pivot_table(index="variant", columns="stated", values="rel", aggfunc="median")
        .round(2)
        .astype(str)
        + ")"
    )
    print("clean densities, the worst cell's JS ratio:")
    print(
        clean.pivot_table(index="variant", columns="stated", values="rel", aggfunc="max").round(2)
    )
    print("fit time (s, mean):", dev.groupby("variant").fit_s.mean().round(2).to_dict())
    rows = table[table.part == "stability"]
    if len(rows):
        print("stability (mean pairwise Jaccard over seeds 0-9; rows set aside, min-max):")
        print(
            rows.assign(
                cell=rows.jaccard.round(2).astype(str)
                + " ["
                + rows.set_aside_min.astype(str)
                + "-"
                + rows.set_aside_max.astype(str)
                + "]"
            )
            .pivot_table(
                index=["setting", "stated"], columns="variant", values="cell", aggfunc="first"
            )
            .to_string()
        )


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="split_free.csv")
    parser.add_argument("--part", nargs="+", default=["dev", "stability"])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument(
        "--variants",
        nargs="+",
        default=[*DEFAULT_MODES, *VARIANTS],
        help="the rules to run (dev: all but 'nulls only', 'blocks only'; stability: the "
        "default's modes and same_h_fixed)",
    )
    parser.add_argument("--report", action="store_true", help="print the tables of --out")
    args = parser.parse_args(argv)
    if not args.report:
        tasks = []
        dev = [v for v in args.variants if v in (*DEV_MODES, *VARIANTS)]
        stable = [v for v in args.variants if v in ("same_h_fixed", *DEFAULT_MODES)]
        if "dev" in args.part and dev:
            tasks += [delayed(_dev_rows)(s, r, dev) for s in SETTINGS for r in RATIOS]
            tasks += [delayed(_dev_rows)(s, 0.0, dev) for s in CLEAN]
        if "stability" in args.part and stable:
            tasks += [delayed(_stability_rows)(*cell, stable) for cell in _stability_cells()]
        rows = Parallel(n_jobs=args.jobs)(tasks)
        pd.DataFrame([r for cell in rows for r in cell]).to_csv(args.out, index=False)
    report(pd.read_csv(args.out))


if __name__ == "__main__":
    main()

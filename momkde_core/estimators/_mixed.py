"""Mixed tables: continuous, unordered and ordered columns in one product kernel.

A row of a mixed table is (x, z): x its continuous features, z its levels in the categorical
columns. The estimate is, as statsmodels' ``KDEMultivariate`` and R's np package define it,

    f(x, z) = sum_i w_i K_H(x - X_i) prod_j L_j(z_j, Z_ij),

K_H the Gaussian product kernel of the continuous columns, L_j the discrete kernel of
column j with its bandwidth lambda_j:

* unordered (Aitchison & Aitken 1976): L = 1 - lambda where the levels are equal,
  lambda / (c - 1) elsewhere, c the number of levels seen at fit (at least 2: a column with
  one level seen counts the one seen and any other), lambda in (0, (c - 1) / c];
* ordered (Wang & van Ryzin 1981): L = 1 - lambda where equal, (1 - lambda) / 2
  lambda^|a - b| between levels a and b (their positions in the ordered categories),
  lambda in (0, 1). Its mass over all integers is 1; over the c levels it is a little less
  (statsmodels' ``pdf`` is the same sum).

So f is a density over the continuous part times a probability over the levels.

**Design: an exact embedding.** Each discrete factor is a Gaussian of a distance, so the
mixed kernel is the Gaussian kernel of the engine in a larger space, times a constant:

* unordered: level a is t e_a (one-hot, scaled), with t^2 = log((c - 1)(1 - lambda) / lambda):
  two different levels are at squared distance 2 t^2, so exp(-2 t^2 / 2) = L(a, b) / L(a, a);
* ordered: the same one-hot part with t^2 = log 2, and the "thermometer" code of the
  position (k ones then zeros, c - 1 coordinates) scaled by s, s^2 = -2 log lambda, whose
  squared distances are s^2 |a - b|;
* a level unseen at fit gets one more coordinate per column, 0 for every fitted row: an
  unordered unseen level is at squared distance 2 t^2 from every level (the off-level value
  lambda / (c - 1), never an error or NaN); an ordered one (a value outside the ordered
  categories) sits at the thermometer's centre, as far as (c - 1) / 4 levels from each:
  (1 - lambda) / 2 lambda^((c - 1) / 4).

With bandwidth 1 on these coordinates, log f = log f_embedded + sum_j log(1 - lambda_j) +
(embedded coordinates / 2) log(2 pi). Fits, point sums, MoM-KDE's median over blocks, the
blocks' marginals of the explanations and the estimators' checks then run on the one engine,
unchanged: the continuous-only path does not go through this module at all. The other
design (rows grouped by their cell of levels, the engine run per cell and the cells
weighted by their discrete factor) costs one engine call per pair of cells, thousands with
five columns of a few levels each; the embedding costs one call, its matrix products a
little wider (one coordinate per level). The mixed product needs the Gaussian continuous
kernel: another kernel is refused.

Bandwidths of the discrete columns (``categorical_bandwidth``): "rule", lambda_j =
lambda_max n^(-2 / (d_c + 4)) (lambda_max: (c - 1)/c unordered, 1/2 ordered; the rate of
Li & Racine's discrete bandwidths, d_c the continuous columns); "cv", the leave-one-out
likelihood with the continuous bandwidths fixed, maximised one column at a time (two
sweeps), on at most :data:`CV_ROWS` rows (a fixed subset, seed 0: deterministic); or numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from numbers import Integral

import numpy as np
import pandas as pd
from scipy.optimize import minimize_scalar
from scipy.special import logsumexp
from sklearn.utils.validation import validate_data

from .._blocks import FittedBlocks
from .._blocks._normalize import IS_SAMPLES
from .._engine import Frame
from .._validation import InvalidParameterError, Rule, is_bool, is_number
from ._mixed_columns import (
    CONTINUOUS,
    ORDERED,
    UNORDERED,
    Discrete,
    as_2d_objects,
    column_kinds,
    finite_floats,
    ordered_missing,
    read_column,
    table_of,
)

CV_ROWS = 1000  # "cv" of the discrete bandwidths uses at most this many rows
CV_SWEEPS = 2  # ... and maximises the likelihood over each column this many times
LAMBDA_FLOOR = 1e-6  # "cv" searches lambda from here (t^2 ~ 14: a level 1e-6 as likely)
BANDWIDTH_RULES = ("rule", "cv")


def _features_allowed(value, _) -> bool:
    if value is None or (isinstance(value, str) and value == "from_dtype"):
        return True
    if isinstance(value, str) or np.ndim(value) != 1:
        return False
    return all(isinstance(v, (str, Integral, bool, np.bool_)) for v in value)


def _bandwidth_allowed(value, _) -> bool:
    if isinstance(value, str):
        return value in BANDWIDTH_RULES
    if is_bool(value):
        return False
    if is_number(value):
        return bool(0 < value < 1)
    values = np.asarray(value, dtype=object)
    return values.ndim == 1 and all(is_number(v) and 0 < v < 1 for v in values)


#: The two parameters of the mixed estimators, declared as the estimators' others.
MIXED_CONSTRAINTS = {
    "categorical_features": Rule(
        _features_allowed,
        "categorical_features must be 'from_dtype', None, or a list of column names, "
        "indices or a boolean mask, got {value!r}",
    ),
    "categorical_bandwidth": Rule(
        _bandwidth_allowed,
        "categorical_bandwidth must be 'rule', 'cv', a number in (0, 1) or one per "
        "categorical column, got {value!r}",
    ),
}


@dataclass
class MixedColumns:
    """The fitted columns of a mixed table: which are continuous, the levels of the others,
    their bandwidths and the embedding that makes the product kernel a Gaussian."""

    names: list
    kinds: np.ndarray
    discrete: list[Discrete]
    frame_input: bool
    lambdas: np.ndarray = field(default_factory=lambda: np.empty(0))

    @property
    def continuous(self) -> np.ndarray:
        return np.flatnonzero(self.kinds == CONTINUOUS)

    @property
    def n_embedded(self) -> int:
        return int(sum(c.width for c in self.discrete))

    @property
    def log_factor(self) -> float:
        """log f - log f_embedded: each column's 1 - lambda, and the Gaussian's normalising
        constant of the embedded coordinates (bandwidth 1) taken back."""
        return float(np.sum(np.log1p(-self.lambdas)) + 0.5 * self.n_embedded * np.log(2 * np.pi))

    def split(self, X, what: str) -> tuple[np.ndarray, np.ndarray]:
        """(the continuous columns of the table X as a float (m, d_c) array, checked finite;
        the level codes (m, d_z), -1 where unseen)."""
        table = X if isinstance(X, pd.DataFrame) else pd.DataFrame(as_2d_objects(X))
        names = [self.names[j] for j in self.continuous]
        Xc = finite_floats(table.iloc[:, self.continuous], names, what)
        codes = np.empty((len(table), len(self.discrete)), dtype=np.intp)
        for k, (j, column) in enumerate(
            zip(np.flatnonzero(self.kinds != CONTINUOUS), self.discrete)
        ):
            values = table.iloc[:, j]
            if column.kind == ORDERED and values.isna().any():
                raise ordered_missing(column.name, what)
            codes[:, k] = column.codes(values)
        return Xc, codes

    def scales(self) -> list[tuple[float, float]]:
        """Per discrete column (one-hot scale t, thermometer scale s)."""
        out = []
        for column, lam in zip(self.discrete, self.lambdas):
            if column.kind == UNORDERED:
                c = max(column.n_levels, 2)
                out.append((np.sqrt(max(np.log((c - 1) * (1 - lam) / lam), 0.0)), 0.0))
            else:
                out.append((np.sqrt(np.log(2.0)), np.sqrt(-2.0 * np.log(lam))))
        return out

    def embed(self, codes: np.ndarray) -> np.ndarray:
        """The embedded coordinates of level codes (m, d_z) -> (m, n_embedded)."""
        blocks = []
        for k, (column, (t, s)) in enumerate(zip(self.discrete, self.scales())):
            c, code = column.n_levels, codes[:, k]
            onehot = np.zeros((len(code), c + 1))
            onehot[np.arange(len(code)), np.where(code < 0, c, code)] = t
            blocks.append(onehot)
            if column.kind == ORDERED:
                steps = np.arange(1, c)
                thermo = np.where(code[:, None] >= steps, s, 0.0)
                thermo[code < 0] = s / 2
                blocks.append(thermo)
        return np.hstack(blocks) if blocks else np.empty((len(codes), 0))

    def decode(self, embedded: np.ndarray) -> np.ndarray:
        """The level codes of fitted rows' embedded coordinates (the one-hot part's largest;
        at lambda_max, where t = 0, code 0: every level is then as likely)."""
        codes, start = [], 0
        for column in self.discrete:
            codes.append(np.argmax(embedded[:, start : start + column.n_levels], axis=1))
            start += column.width
        return np.stack(codes, axis=1) if codes else np.empty((len(embedded), 0), np.intp)

    def table_layout(self) -> tuple[np.ndarray, np.ndarray]:
        """(the embedded matrix's columns in the table's feature order, the first of each
        feature's in that order): a continuous feature is one column, a categorical one its
        embedded coordinates (the explanations' groups)."""
        continuous = iter(range(len(self.continuous)))
        start, blocks = len(self.continuous), iter(self.discrete)
        columns, starts = [], []
        for kind in self.kinds:
            starts.append(len(columns))
            if kind == CONTINUOUS:
                columns.append(next(continuous))
            else:
                width = next(blocks).width
                columns.extend(range(start, start + width))
                start += width
        return np.array(columns, dtype=np.intp), np.array(starts, dtype=np.intp)

    def draw_levels(self, codes: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """New codes drawn from each column's kernel around ``codes``; -1 where the draw
        falls outside the levels seen (the caller rejects it)."""
        out = codes.copy()
        for k, (column, lam) in enumerate(zip(self.discrete, self.lambdas)):
            c, code = column.n_levels, codes[:, k]
            move = rng.random(len(code)) < lam
            if column.kind == UNORDERED:  # another of the max(c, 2) - 1 levels, uniformly
                other = rng.integers(0, max(c, 2) - 1, len(code))
                new = np.where(other >= code, other + 1, other)
            else:  # a step of +-k, k geometric: (1 - lambda) / 2 lambda^k each
                steps = rng.geometric(1 - lam, len(code)) * rng.choice([-1, 1], len(code))
                new = code + steps
            new = np.where(move, new, code)
            out[:, k] = np.where((new >= 0) & (new < c), new, -1)
        return out

    def table(self, Xc: np.ndarray, codes: np.ndarray) -> pd.DataFrame:
        """Rows as a DataFrame with the fit's columns: the continuous values and the levels."""
        columns = {}
        discrete = iter(range(len(self.discrete)))
        continuous = iter(range(Xc.shape[1]))
        for name, kind in zip(self.names, self.kinds):
            if kind == CONTINUOUS:
                columns[name] = Xc[:, next(continuous)]
            else:
                k = next(discrete)
                column = self.discrete[k]
                columns[name] = column.labels(codes[:, k])
                if column.kind == ORDERED:  # (the same type: a refit reads the same kinds)
                    columns[name] = pd.Categorical(
                        columns[name], categories=list(column.levels), ordered=True
                    )
        return pd.DataFrame(columns)

    def rows_of(self, embedded: np.ndarray, n_rows: int) -> pd.DataFrame:
        """The table of rows given in the embedded matrix's columns (data units): their
        continuous values and the levels decoded (``n_rows`` may be 0)."""
        dc = len(self.continuous)
        embedded = embedded.reshape(-1, dc + self.n_embedded)[:n_rows]
        return self.table(embedded[:, :dc], self.decode(embedded[:, dc:]))


def mixed_draws(
    fitted: FittedBlocks, mixed: MixedColumns, frame: Frame, size: int, rng: np.random.Generator
) -> np.ndarray:
    """Draws from q = (1/S) sum_s f_s, the mean of the block estimates, in the frame (as
    ``FittedBlocks.sample_block_mean``): a fitted row with probability w_i / S, Gaussian
    noise of bandwidth h on its continuous part, and each level drawn from its kernel (kept
    with probability 1 - lambda). Draws whose level falls outside the levels seen are
    dropped: the draws follow q restricted to those levels, divided by its mass there."""
    dc = len(mixed.continuous)
    Z = fitted.X[fitted.sample_rows(size, rng)]
    Z[:, :dc] += fitted.h * rng.standard_normal((size, dc))
    outer = frame.outer(Z)
    codes = mixed.draw_levels(mixed.decode(outer[:, dc:]), rng)
    valid = (codes >= 0).all(axis=1)
    outer = outer[valid]
    outer[:, dc:] = mixed.embed(codes[valid])
    return frame.inner(outer)


def mixed_log_integral(
    fitted: FittedBlocks,
    mixed: MixedColumns,
    frame: Frame,
    rng: np.random.Generator,
    n_draws: int = IS_SAMPLES,
) -> float:
    """log of the integral of the median of the block estimates over the continuous part and
    the levels seen, by importance sampling from q (:func:`mixed_draws`): the median is at
    most 2 q everywhere (``sample``'s Notes), so median / q is bounded and the estimate
    tame. Its value is m_q E[median / q], m_q the mass of q on the levels seen (exact,
    :func:`level_log_mass`)."""
    draws = mixed_draws(fitted, mixed, frame, n_draws, rng)
    logs = fitted.block_log_sums(draws)
    log_q = logsumexp(logs, axis=0) - np.log(fitted.n_blocks)
    with np.errstate(invalid="ignore"):  # (-inf - -inf where q is 0: no mass)
        ratio = np.nan_to_num(fitted.combine_log(logs) - log_q, nan=-np.inf)
    codes = mixed.decode(frame.outer(fitted.X)[:, len(mixed.continuous) :])
    mass = logsumexp(fitted.log_w + level_log_mass(mixed, codes)) - np.log(fitted.n_blocks)
    return float(logsumexp(ratio) - np.log(len(draws)) + mass)


def read_mixed(est, X, kernel_name: str) -> MixedColumns | None:
    """The mixed columns of X for the estimator ``est`` (its ``categorical_features``), or
    None when every column is continuous (the engine's path of numeric arrays, unchanged).
    Sets ``n_features_in_`` and, for a DataFrame, ``feature_names_in_`` when mixed."""
    features = getattr(est, "categorical_features", None)
    if features is None:
        return None
    MIXED_CONSTRAINTS["categorical_features"].check(features, {})
    MIXED_CONSTRAINTS["categorical_bandwidth"].check(est.categorical_bandwidth, {})
    frame_input = isinstance(X, pd.DataFrame)
    if isinstance(features, str) and not frame_input:
        return None  # numpy input "from_dtype": continuous, as scikit-learn reads it
    table = table_of(X)
    kinds = column_kinds(table, features)
    if (kinds == CONTINUOUS).all():
        return None
    if kernel_name != "gaussian":
        raise InvalidParameterError(
            f"categorical columns need kernel='gaussian' (the product of the continuous "
            f"kernel and the discrete ones is computed as a Gaussian); got kernel={kernel_name!r}"
        )
    if frame_input:
        validate_data(est, table, skip_check_array=True, reset=True)
    est.n_features_in_ = table.shape[1]
    discrete = [
        read_column(table.iloc[:, j], kind) for j, kind in enumerate(kinds) if kind != CONTINUOUS
    ]
    return MixedColumns(list(table.columns), kinds, discrete, frame_input)


def query_table(est, mixed: MixedColumns, Y) -> pd.DataFrame:
    """Queries as a DataFrame of the fit's columns (feature names checked as scikit-learn's)."""
    table = Y if isinstance(Y, pd.DataFrame) else pd.DataFrame(as_2d_objects(Y))
    validate_data(
        est, table if mixed.frame_input else table.to_numpy(), skip_check_array=True, reset=False
    )
    return table


def choose_lambdas(
    mixed: MixedColumns,
    bandwidth,
    Xc: np.ndarray,
    codes: np.ndarray,
    H: np.ndarray,
    weights: np.ndarray | None,
) -> np.ndarray:
    """The discrete bandwidths: numbers checked against each column's range, "rule" or "cv"."""
    n, dz = len(codes), len(mixed.discrete)
    top = np.array([_lambda_top(c) for c in mixed.discrete])
    if isinstance(bandwidth, str):
        rule = np.array([c.lambda_max for c in mixed.discrete]) * n ** (-2 / (Xc.shape[1] + 4))
        if bandwidth == "rule":
            return rule
        return _cv_lambdas(mixed, Xc, codes, H, weights, rule, top)
    lambdas = (
        np.broadcast_to(np.asarray(bandwidth, dtype=float), dz)
        if np.ndim(bandwidth) == 0
        else np.asarray(bandwidth, dtype=float)
    )
    if lambdas.shape != (dz,):
        raise InvalidParameterError(
            f"categorical_bandwidth has {lambdas.size} values for {dz} categorical column(s)"
        )
    bad = np.flatnonzero(lambdas > top)
    if bad.size:
        column = mixed.discrete[bad[0]]
        raise InvalidParameterError(
            f"categorical_bandwidth {lambdas[bad[0]]!r} of column {column.name!r} is above "
            f"its largest, {top[bad[0]]:.4g} (uniform over its {column.n_levels} levels)"
        )
    return lambdas.copy()


def discrete_factors(column: Discrete, lam: float, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The kernel L(a, b) of a column between level codes a and b (broadcast)."""
    equal = a == b
    if column.kind == UNORDERED:
        return np.where(equal, 1 - lam, lam / (max(column.n_levels, 2) - 1))
    return np.where(equal, 1 - lam, 0.5 * (1 - lam) * lam ** np.abs(a - b))


def level_log_mass(mixed: MixedColumns, codes: np.ndarray) -> np.ndarray:
    """log sum over the levels seen of each row's discrete kernels (1 but for ordered columns,
    whose kernel loses the mass beyond the end levels, and columns of one level)."""
    out = np.zeros(len(codes))
    for k, (column, lam) in enumerate(zip(mixed.discrete, mixed.lambdas)):
        levels = np.arange(column.n_levels)
        out += np.log(discrete_factors(column, lam, codes[:, k, None], levels).sum(axis=1))
    return out


def _lambda_top(column: Discrete) -> float:
    return column.lambda_max if column.kind == UNORDERED else np.nextafter(1.0, 0.0)


def _cv_lambdas(mixed, Xc, codes, H, weights, start, top) -> np.ndarray:
    """The leave-one-out likelihood's discrete bandwidths, one column at a time.

    A column's kernel depends on a pair of rows only through their levels' distance k (0
    or 1 unordered, |a - b| ordered), so with the other factors fixed the leave-one-out
    sums are sum_k L(k) S_ik, S_ik the sums of the other factors over the rows at distance
    k from row i (each row shifted by its largest term): each value of lambda tried costs
    O(n c), not O(n^2)."""
    n = len(codes)
    rows = np.arange(n)
    if n > CV_ROWS:
        rows = np.sort(np.random.default_rng(0).permutation(n)[:CV_ROWS])
    Xc, codes = Xc[rows], codes[rows]
    w = np.ones(len(rows)) if weights is None else weights[rows]
    base = np.zeros((len(rows), len(rows)))  # the continuous log kernel, up to a constant
    for j in range(Xc.shape[1]):
        diff = (Xc[:, j, None] - Xc[None, :, j]) / H[j]
        base -= 0.5 * diff * diff
    base += np.log(w)[None, :]
    np.fill_diagonal(base, -np.inf)  # leave one out
    dists = [
        (codes[:, k, None] != codes[None, :, k]).astype(np.intp)
        if column.kind == UNORDERED
        else np.abs(codes[:, k, None] - codes[None, :, k])
        for k, column in enumerate(mixed.discrete)
    ]
    lambdas = start.copy()

    def log_factor(k: int, lam: float, distance: np.ndarray) -> np.ndarray:
        return np.log(discrete_factors(mixed.discrete[k], lam, 0, distance))

    for _ in range(CV_SWEEPS):
        for k in range(len(mixed.discrete)):
            rest = base + sum(
                (log_factor(j, lambdas[j], dists[j]) for j in range(len(dists)) if j != k),
                np.zeros_like(base),
            )
            shift = rest.max(axis=1, keepdims=True)
            shift[~np.isfinite(shift)] = 0.0
            E = np.exp(rest - shift)
            steps = np.arange(dists[k].max() + 1)
            S = np.stack([(E * (dists[k] == step)).sum(axis=1) for step in steps], axis=1)

            def loss(lam: float, k: int = k, S: np.ndarray = S, steps: np.ndarray = steps) -> float:
                with np.errstate(divide="ignore"):
                    total = np.log(S @ np.exp(log_factor(k, lam, steps)))
                return -float(w @ np.where(np.isfinite(total), total, -1e300))

            found = minimize_scalar(
                loss, bounds=(LAMBDA_FLOOR, top[k]), method="bounded", options={"xatol": 1e-4}
            )
            if loss(found.x) <= loss(lambdas[k]):
                lambdas[k] = found.x
    return lambdas

"""The weight solvers of RKDE (KIRWLS) and SPKDE (a QP on the simplex), and their losses.

Both only need Gram-vector products ``G @ v``, which :class:`engine.GramOperator` provides.

Sample weights enter as the *base measure*: the empirical measure (1/n) sum_i delta_{X_i}
that RKDE's M-estimation objective averages over and whose KDE SPKDE scales is replaced by
sum_i p_i delta_{X_i}, p the weights divided by their sum (``base``; None: p = 1/n). Then
integer weights are duplicated rows: SPKDE's QP and RKDE's objective and iterations (for
given loss parameters) are those of the sample with each row repeated. Each solver keeps
the unweighted arithmetic when ``base`` is None, so unweighted results are unchanged to the
bit.

Each solver takes an optional ``progress`` callable, called after every iteration with the
iteration number and the objective (the estimators' ``verbose`` logs it).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .._engine import GramOperator


def hampel_psi(r: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    """Hampel's psi = rho': r on [0, a], a on (a, b), a (c - r)/(c - b) on [b, c), 0 beyond."""
    with np.errstate(divide="ignore", invalid="ignore"):
        descending = a * (c - r) / (c - b)
    return np.select([r <= a, r < b, r < c], [r, np.full_like(r, a), descending], 0.0)


def hampel_rho(r: np.ndarray, a: float, b: float, c: float) -> np.ndarray:
    """Hampel's rho (as defined in Kim & Scott 2012), the integral of :func:`hampel_psi`:
    quadratic up to a, linear to b, a descending parabola to c, constant beyond."""
    top = a * (b + c - a) / 2.0
    with np.errstate(divide="ignore", invalid="ignore"):
        descending = a * (r - c) ** 2 / (2.0 * (b - c)) + top
    return np.select([r <= a, r < b, r < c], [r * r / 2.0, a * r - a * a / 2.0, descending], top)


def huber_psi(r: np.ndarray, a: float) -> np.ndarray:
    """Huber's psi: r up to a, then a."""
    return np.minimum(r, a)


def huber_rho(r: np.ndarray, a: float) -> np.ndarray:
    """Huber's rho: r^2/2 up to a, then a r - a^2/2."""
    return np.where(r <= a, r * r / 2.0, a * r - a * a / 2.0)


def feature_space_residuals(gram: GramOperator, w: np.ndarray) -> np.ndarray:
    """r_i = ||Phi(X_i) - sum_j w_j Phi(X_j)||_H = sqrt(k(0) - 2 (G w)_i + w'G w)."""
    gw = gram.matvec(w)
    return np.sqrt(np.maximum(gram.diagonal - 2.0 * gw + w @ gw, 0.0))


Progress = Callable[[int, float], None] | None


def _report(progress: Progress, n_iter: int, value: float) -> None:
    if progress is not None:
        progress(n_iter, float(value))


# Where Hampel's a, b, c (Huber's a) come from, and the percentiles each source uses by default.
SCALE_SOURCES = ("absolute", "kde")
DEFAULT_PERCENTILES = {"absolute": (50.0, 95.0, 100.0), "kde": (50.0, 75.0, 95.0)}


def _start(n: int, base: np.ndarray | None) -> np.ndarray:
    """The weights of the KDE: 1/n, or the base measure."""
    return np.full(n, 1.0 / n) if base is None else base


def _average(values: np.ndarray, base: np.ndarray | None) -> float:
    """The mean of per-point values under the base measure."""
    return float(np.mean(values) if base is None else base @ values)


def _reweight(phi: np.ndarray, base: np.ndarray | None) -> np.ndarray:
    """KIRWLS's update w_i = p_i phi_i / sum_j p_j phi_j (p_i = 1/n cancels out)."""
    if base is not None:
        phi = base * phi
    return phi / phi.sum()


def absolute_loss_kirwls(
    gram: GramOperator,
    max_iter: int,
    tol: float,
    base: np.ndarray | None = None,
    progress: Progress = None,
):
    """KIRWLS for the absolute loss rho(r) = |r| (psi(r) = 1, phi(r) = 1/r): the geometric
    median of the Phi(X_i) in the RKHS (Weiszfeld's iteration, kernelised).

    From w = 1/n, repeat w_i = phi(r_i) / sum_j phi(r_j) with phi(r) = 1/r, then the
    residuals of the new w, until the relative change of J = mean r_i is at most ``tol``
    (the stopping rule of :func:`kirwls_with_params`) or ``max_iter`` updates. This is the first stage
    of the RKDE author's own code: ``parameter_select`` in ``robkde.m`` (JooSeuk Kim, 2011;
    public copy: GitHub churchilln/oppni-code-nwc, addons/rkde_code/robkde.m, commit
    0c00625ae3c5, lines 49-77: ``w = ones(n,1)/n`` (l. 57), ``tol = 10^-8`` (l. 58),
    ``w = 1./normdiff; w = w/sum(w);`` (l. 67-68), ``J = sum(normdiff)/n`` (l. 73), stop when
    ``abs(J - J_old) < J_old*tol`` (l. 74); it has no iteration cap, we stop at ``max_iter``).
    phi = 1/r is infinite at r = 0: residuals below the round-off of the kernel trick,
    sqrt(eps k(0)), count as that floor (the MATLAB code divides by them as they are).
    ``base``: the base measure (module docstring).
    Returns (weights, residuals of those weights, n_iter, objective history).
    """
    floor = float(np.sqrt(np.finfo(float).eps * gram.diagonal))
    w = _start(len(gram.X), base)
    r = feature_space_residuals(gram, w)
    history = [_average(r, base)]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        w = _reweight(1.0 / np.maximum(r, floor), base)
        r = feature_space_residuals(gram, w)
        history.append(_average(r, base))
        _report(progress, n_iter, history[-1])
        if abs(history[-1] - history[-2]) <= tol * abs(history[-2]):
            break
    return w, r, n_iter, np.array(history)


def scale_residuals(
    gram: GramOperator,
    scale_from: str,
    max_iter: int,
    tol: float,
    base: np.ndarray | None = None,
    progress: Progress = None,
):
    """The residuals the loss parameters are read from, and the iterations it took.

    ``"absolute"``: those of the absolute-loss RKDE run to convergence
    (:func:`absolute_loss_kirwls`), as the RKDE author's code does; ``"kde"``: those of the
    plain KDE (w = 1/n, or the base measure; 0 iterations).
    """
    if scale_from == "absolute":
        _, r, n_iter, _ = absolute_loss_kirwls(gram, max_iter, tol, base, progress)
        return r, n_iter
    if scale_from == "kde":
        return feature_space_residuals(gram, _start(len(gram.X), base)), 0
    raise ValueError(
        f"unknown scale_from {scale_from!r}; allowed: " + ", ".join(map(repr, SCALE_SOURCES))
    )


def loss_parameters(residuals: np.ndarray, loss: str, percentiles) -> tuple:
    """Hampel's (a, b, c) = the ``percentiles`` of ``residuals`` (numpy's linear
    interpolation; 100 = the maximum); Huber's (a,) = the first of them.

    The RKDE author's ``parameter_select`` (robkde.m, l. 79-88) sorts the residuals in
    descending order and takes ``a = sort_norm(floor(n/2))``, ``b = sort_norm(floor(n/20))``,
    ``c = max(normdiff)`` (Huber: ``a = sort_norm(floor(n/2))``): order statistics 0.5 to 1
    rank above numpy's 50th percentile and 0.95 to 1.95 ranks above its 95th, and the
    maximum (its b fails for n < 20, where floor(n/20) = 0 is no MATLAB index).
    """
    q = np.asarray(percentiles, dtype=float).ravel()
    if loss == "hampel":
        return tuple(float(v) for v in np.percentile(residuals, q))
    return (float(np.percentile(residuals, q[0])),)


def kirwls_with_params(
    gram: GramOperator,
    loss: str,
    params: tuple,
    max_iter: int,
    tol: float,
    base: np.ndarray | None = None,
    progress: Progress = None,
):
    """KIRWLS (Kim & Scott 2012) for the RKDE weights with the loss parameters given.

    From w = 1/n (as robkde.m, l. 26, restarts after choosing a, b, c), repeat
    w_i = phi(r_i) / sum_j phi(r_j), phi = psi(r)/r, until the relative change of
    J = mean rho(r_i) is at most ``tol`` or ``max_iter`` updates. Every step is element-wise:
    point i's weight depends on point i's residual only. Hampel's psi is 0 from r = c on,
    r = c included (as psi2.m, l. 17 and 22: ``i4 = (in >=c); ... out(i4) = 0;``), so with
    c = the largest residual that point gets weight 0. If every point is at or beyond c the
    last weights are kept (the MATLAB code would divide 0 by 0 there).
    ``base``: the base measure (module docstring): the start and the objective's average.
    Returns (weights, n_iter, objective history).
    """
    if loss == "hampel":
        psi, rho = (lambda x: hampel_psi(x, *params)), (lambda x: hampel_rho(x, *params))
    else:
        psi, rho = (lambda x: huber_psi(x, *params)), (lambda x: huber_rho(x, *params))
    w = _start(len(gram.X), base)
    r = feature_space_residuals(gram, w)
    history = [_average(rho(r), base)]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = np.where(r > 0, psi(r) / r, 1.0)  # phi(0) = psi'(0) = 1 for both losses
        if not phi.sum() > 0:  # every residual at or beyond c: keep the last weights
            break
        w = _reweight(phi, base)
        r = feature_space_residuals(gram, w)
        history.append(_average(rho(r), base))
        _report(progress, n_iter, history[-1])
        if abs(history[-1] - history[-2]) <= tol * abs(history[-2]):
            break
    return w, n_iter, np.array(history)


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {a >= 0, sum a = 1} (sort-based, exact; Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    rho = np.flatnonzero(u - css / k > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def spkde_weights(
    gram: GramOperator,
    beta: float,
    max_iter: int,
    tol: float,
    base: np.ndarray | None = None,
    progress: Progress = None,
):
    """SPKDE's QP min_a ||beta f_KDE - g_a||^2_{L2} = (a - t)'Q(a - t), t = beta/n, a on the simplex.

    With a ``base`` measure p (module docstring) f_KDE is the weighted KDE and t = beta p.

    Solved by FISTA (accelerated projected gradient, gradient 2 Q (a - t), step 1/L with
    L = 2 max_i sum_j Q_ij >= 2 lambda_max(Q)) with exact projection onto the simplex and
    adaptive restart when the objective rises; one Gram product per iteration (Q y follows
    from Q a by linearity).
    Stops when the relative change of the objective ||beta f_KDE - g_a||^2 is below ``tol``.
    Returns (weights, n_iter). With beta = 1 the minimiser is a = 1/n (the KDE itself).
    """
    n = len(gram.X)
    target = np.full(n, beta / n) if base is None else beta * base
    q_target = gram.matvec(target)
    constant = float(target @ q_target)  # makes the objective the squared L2 distance
    # L = 2 * (largest row sum of Q) >= 2 lambda_max(Q) (Perron-Frobenius: Q's entries are
    # non-negative): a guaranteed Lipschitz constant in one product, within ~16 % of the
    # eigenvalue on the paper's samples (power iteration took up to 50 products)
    largest_row_sum = float(gram.matvec(np.ones(n)).max())
    if not 0.0 < largest_row_sum < np.inf:
        d = gram.X.shape[1]
        raise ValueError(
            f"SPKDE's L2 Gram matrix is {'0' if largest_row_sum == 0 else 'not finite'} in "
            f"float32 (d = {d}, kernel scale sqrt(2) h = {gram.h:.3g}): the kernel's peak "
            f"(2 sqrt(pi) h)^-d is out of range in this dimension; use fewer features or "
            "another estimator"
        )
    step = 1.0 / (2.0 * largest_row_sum)

    def objective(a: np.ndarray, qa: np.ndarray) -> float:
        return float(a @ qa - 2.0 * a @ q_target + constant)

    a = _start(n, base)
    qa = gram.matvec(a)
    value = objective(a, qa)
    y, qy, t = a, qa, 1.0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        a_next = project_simplex(y - 2.0 * step * (qy - q_target))
        qa_next = gram.matvec(a_next)
        value_next = objective(a_next, qa_next)
        _report(progress, n_iter, value_next)
        if value_next > value:  # adaptive restart: drop the momentum
            t = 1.0
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        momentum = (t - 1.0) / t_next
        y = a_next + momentum * (a_next - a)
        qy = qa_next + momentum * (qa_next - qa)
        converged = abs(value - value_next) <= tol * max(abs(value), np.finfo(float).tiny)
        a, qa, value, t = a_next, qa_next, value_next, t_next
        if converged:
            break
    return a, n_iter

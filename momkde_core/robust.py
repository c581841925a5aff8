"""The weight solvers of RKDE (KIRWLS) and SPKDE (a QP on the simplex), and their losses.

Both only need Gram-vector products ``G @ v``, which :class:`engine.GramOperator` provides.
"""

from __future__ import annotations

import numpy as np

from .engine import GramOperator


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
    return np.select([r <= a, r < b, r < c],
                     [r * r / 2.0, a * r - a * a / 2.0, descending], top)


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


def kirwls(gram: GramOperator, loss: str, percentiles: np.ndarray, max_iter: int, tol: float):
    """Kernelised IRWLS (KIRWLS, Kim & Scott 2012) for the RKDE weights.

    The loss parameters are ``percentiles`` of the plain KDE's residuals (Hampel: a, b, c;
    Huber: a from the first). Returns (weights, n_iter, objective history, loss parameters).
    Every step is element-wise: point i's weight depends on point i's residual only.
    """
    n = len(gram.X)
    w = np.full(n, 1.0 / n)
    r = feature_space_residuals(gram, w)
    if loss == "hampel":
        params = tuple(float(v) for v in np.percentile(r, percentiles))
        psi, rho = (lambda x: hampel_psi(x, *params)), (lambda x: hampel_rho(x, *params))
    else:
        params = (float(np.percentile(r, percentiles[0])),)
        psi, rho = (lambda x: huber_psi(x, *params)), (lambda x: huber_rho(x, *params))
    history = [float(np.mean(rho(r)))]
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            phi = np.where(r > 0, psi(r) / r, 1.0)  # phi(0) = psi'(0) = 1 for both losses
        if not phi.sum() > 0:  # every residual beyond c: keep the last weights
            break
        w = phi / phi.sum()
        r = feature_space_residuals(gram, w)
        history.append(float(np.mean(rho(r))))
        if abs(history[-1] - history[-2]) <= tol * abs(history[-2]):
            break
    return w, n_iter, np.array(history), params


def project_simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection onto {a >= 0, sum a = 1} (sort-based, exact; Duchi et al. 2008)."""
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, len(v) + 1)
    rho = np.flatnonzero(u - css / k > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def spkde_weights(gram: GramOperator, beta: float, max_iter: int, tol: float):
    """SPKDE's QP min_a ||beta f_KDE - g_a||^2_{L2} = (a - t)'Q(a - t), t = beta/n, a on the simplex.

    Solved by FISTA (accelerated projected gradient, gradient 2 Q (a - t), step 1/L with
    L = 2 max_i sum_j Q_ij >= 2 lambda_max(Q)) with exact projection onto the simplex and
    adaptive restart when the objective rises; one Gram product per iteration (Q y follows
    from Q a by linearity).
    Stops when the relative change of the objective ||beta f_KDE - g_a||^2 is below ``tol``.
    Returns (weights, n_iter). With beta = 1 the minimiser is a = 1/n (the KDE itself).
    """
    n = len(gram.X)
    target = np.full(n, beta / n)
    q_target = gram.matvec(target)
    constant = float(target @ q_target)  # makes the objective the squared L2 distance
    # L = 2 * (largest row sum of Q) >= 2 lambda_max(Q) (Perron-Frobenius: Q's entries are
    # non-negative): a guaranteed Lipschitz constant in one product, within ~16 % of the
    # eigenvalue on the paper's samples (power iteration took up to 50 products)
    step = 1.0 / (2.0 * float(gram.matvec(np.ones(n)).max()))

    def objective(a: np.ndarray, qa: np.ndarray) -> float:
        return float(a @ qa - 2.0 * a @ q_target + constant)

    a = np.full(n, 1.0 / n)
    qa = gram.matvec(a)
    value = objective(a, qa)
    y, qy, t = a, qa, 1.0
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        a_next = project_simplex(y - 2.0 * step * (qy - q_target))
        qa_next = gram.matvec(a_next)
        value_next = objective(a_next, qa_next)
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

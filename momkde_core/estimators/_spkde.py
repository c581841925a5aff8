"""The scaled and projected KDE of Vandermeulen & Scott (2014).

:class:`SPKDE` scales the KDE up by beta = 1 / (1 - contamination) and projects it back onto
the densities sum_i a_i k_h(., X_i), a on the simplex, in L2: a quadratic program solved by
FISTA (:mod:`momkde_core.estimators._kirwls`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._engine import PEAK_LIMIT_FLOAT32, GramOperator
from .._validation import Rule, is_number
from ..kernels import get_kernel
from ._base import _BaseKDE
from ._iterative import _ITERATIONS, _iteration_logger, _log_start, _one_block
from ._kirwls import spkde_weights


class SPKDE(_BaseKDE):
    """Scaled and projected KDE of Vandermeulen & Scott (2014).

    g = sum_i a_i k_h(., X_i) with a on the simplex minimises ||beta f_KDE - g||_{L2}
    (their definition of SPKDE: scale the KDE by beta, then project it onto the convex hull
    of the kernels in L2), beta = 1 / (1 - contamination) > 1. Scaling up and projecting
    back takes mass away where the KDE is low, so scattered outliers lose weight.

    Parameters
    ----------
    bandwidth : float, array of d floats or {"scott", "silverman", "cv", "robust", "isj"}, \
default "scott"
        A number, one per feature, or a rule, as for :class:`KDE`. "robust" trims the stated
        contamination (when it is below 1/2 and ``beta`` is not set).
    contamination : float in [0, 1), default 0.1
        The expected share of outliers; it sets beta = 1 / (1 - contamination) when ``beta``
        is None.
    beta : float >= 1 or None, default None
        The scaling factor, given directly (then ``contamination`` is not read).
    kernel : "gaussian", default "gaussian"
        The closed-form L2 Gram matrix needs the Gaussian kernel; another kernel raises a
        ValueError at fit.
    max_iter : int, default 1000
        The most FISTA iterations.
    tol : float, default 1e-5
        FISTA stops when the relative change of the objective is below ``tol``.
    random_state : int, RandomState or None, default None
        The blocks of ``bandwidth="robust"`` (``"cv"`` draws nothing at random).
    verbose : int, default 0
        When true, the fit logs (INFO, logger ``momkde_core.estimators``) its size, its Gram
        path (dense or grid, :class:`~momkde_core._engine._gram.GramOperator`) and each
        iteration's objective: a long fit (n in the tens of thousands) shows its progress.

    Attributes
    ----------
    weights_ : ndarray of shape (n,)
        a, in the order of the training rows; 0 for rows of ``sample_weight`` 0.
    beta_ : float
        The scaling factor used.
    n_iter_ : int
        The FISTA iterations run.
    bandwidth_ : float or ndarray of shape (d,)
        The bandwidth used (an array when the features' h differ).
    log_norm_ : float
        0.0: g integrates to 1 (a is on the simplex).
    n_features_in_ : int
        The number of features seen in ``fit``.
    feature_names_in_ : ndarray of shape (d,)
        The column names, when fitted on a DataFrame with string column names.

    See Also
    --------
    KDE : the plain KDE (all weights 1/n).
    RKDE : Kim & Scott's robust KDE, an M-estimator.
    MoMKDE : the Median-of-Means KDE.

    Notes
    -----
    Expanding the norm gives the quadratic program min_a a'Q a - 2 beta a'Q 1/n over the
    simplex, with Q_ij = <k_h(., X_i), k_h(., X_j)>_{L2} = K_{sqrt(2) h}(X_i - X_j) for the
    Gaussian. It is solved by accelerated projected gradient (FISTA) with exact Euclidean
    projection onto the simplex and step 1/L, L = 2 max row sum of Q >= 2 lambda_max(Q),
    stopping when the relative change of the objective is below ``tol``.

    Sample weights are the base measure: f_KDE is the weighted KDE sum_i p_i k_h(., X_i),
    p = w / sum w, so the QP's target becomes beta p and integer weights give exactly the
    SPKDE of the sample with each row repeated w_i times (the same QP).

    References
    ----------
    - Vandermeulen & Scott (2014), "Robust Kernel Density Estimation by Scaling and
      Projection in Hilbert Space", NeurIPS.
    - Beck & Teboulle (2009), "A Fast Iterative Shrinkage-Thresholding Algorithm for Linear
      Inverse Problems", SIAM Journal on Imaging Sciences 2 (FISTA).

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import SPKDE, make_contaminated
    >>> data = make_contaminated("uniform", n_inliers=300, ratio=0.1, random_state=0)
    >>> spkde = SPKDE(bandwidth=0.3, contamination=0.1).fit(data.X)
    >>> round(spkde.beta_, 4)  # 1 / (1 - 0.1)
    1.1111
    >>> spkde.weights_.shape, bool(np.isclose(spkde.weights_.sum(), 1.0))
    ((333,), True)

    The scattered outliers weigh less than their share of the rows:

    >>> bool(spkde.weights_[data.is_outlier].sum() < data.n_outliers / len(data.X))
    True
    >>> spkde.pdf_grid(np.linspace(-4, 10, 141)).shape
    (141,)
    """

    _row_attributes = {"weights_": 0.0}
    _gram_scale = float(np.sqrt(2.0))  # the L2 Gram matrix: a Gaussian of bandwidth sqrt(2) h
    _peak_limit = PEAK_LIMIT_FLOAT32  # ... held in float32
    _parameter_constraints = {
        "kernel": Rule(
            lambda value, _: get_kernel(value).name == "gaussian",
            "SPKDE needs kernel='gaussian' (its L2 Gram matrix is a Gaussian of bandwidth "
            "sqrt(2) h), got kernel={value!r}",
        ),
        "contamination": Rule(  # (beta, when given, replaces it)
            lambda value, context: (
                context["beta"] is not None or (is_number(value) and 0.0 <= value < 1.0)
            ),
            "contamination must be a number in [0, 1), got {value!r}",
        ),
        "beta": Rule(
            lambda value, _: value is None or (is_number(value) and 1.0 <= value < np.inf),
            "beta must be a finite number >= 1, got {value!r}",
        ),
        **_ITERATIONS,
    }

    def __init__(
        self,
        bandwidth: float | ArrayLike | str = "scott",
        contamination: float = 0.1,
        beta: float | None = None,
        kernel: str = "gaussian",
        max_iter: int = 1000,
        tol: float = 1e-5,
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
    ):
        self.bandwidth = bandwidth
        self.contamination = contamination
        self.beta = beta
        self.kernel = kernel
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state
        self.verbose = verbose

    def _bandwidth_options(self, X: np.ndarray) -> dict:
        """ "robust" trims the stated contamination (when it is below 1/2 and beta is not set)."""
        eps = self.contamination
        return {"contamination": eps} if self.beta is None and eps < 0.5 else {}

    def _fit_weights(self, X, base):
        self.beta_ = (
            1.0 / (1.0 - float(self.contamination)) if self.beta is None else float(self.beta)
        )
        gram = GramOperator(X, self._kernel, self._gram_scale * self._frame.h, dtype=np.float32)
        _log_start(self, gram)
        self.weights_, self.n_iter_ = spkde_weights(
            gram, self.beta_, self.max_iter, self.tol, base, _iteration_logger(self, "FISTA")
        )
        return _one_block(X, self.weights_)

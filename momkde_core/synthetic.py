"""The paper's synthetic contamination schemes (section 5), in 1-D and 2-D, with the true density.

Inliers
    1-D: the equal mixture 0.5 N(0, s) + 0.5 N(6, s) with s = 0.5.
    2-D: the equal mixture 0.5 N((0, 0), sd^2 I2) + 0.5 N((6, 6), sd^2 I2), the natural 2-D
    analogue (the paper's figure 1(b) shows a 2-D example without giving its inliers).
    Exactly half of the inliers come from each component (for an odd count the extra point
    goes to a component chosen at random), instead of a binomial draw: the mixture weights are
    then the same in every repetition, which removes one source of variance between
    repetitions without changing the density the sample is drawn from on average.

Outliers (``scheme``), 1-D / 2-D
    ``"uniform"``           U[-3, 9]                 / U([-3, 9]^2)
    ``"regular_gaussian"``  N(3, 0.5)                / N((3, 3), sd^2 I2), s = 0.5
    ``"thin_gaussian"``     N(3, 0.01)               / N((3, 3), sd^2 I2), s = 0.01
    ``"adversarial"``       N(0, 0.01), on a mode    / N((0, 0), sd^2 I2), s = 0.01
    ``"none"``              no outliers (``ratio`` is validated, then ignored)

Reading of N(mu, s)
    The paper does not say whether the second parameter is a variance or a standard
    deviation. By default (``scale="std"``) s is a **standard deviation**, sd = s, which is
    what the authors' code does (numpy's ``scale``). With ``scale="variance"`` s is a
    variance, sd = sqrt(s); in 2-D this gives the covariance 0.5 I2 of the paper's figure 1(b)
    caption for the regular Gaussian. The uniform scheme does not depend on it. The inliers
    and ``true_pdf`` always use the same reading, so the density is exactly the one sampled
    (the authors' 2-D code sampled with one covariance and evaluated another).

Contamination ratio
    ``ratio`` is |O| / n where n counts inliers and outliers, as in the paper, so
    |O| = round(ratio * n_inliers / (1 - ratio)) (see :func:`outlier_count`); ``ratio=0.5``
    gives as many outliers as inliers.

Rows are shuffled, so the position of a row says nothing about its label; ``is_outlier``
does. Inliers are drawn before outliers, from the same random stream: for one
``random_state`` and ``n_inliers`` the inliers are the same whatever the scheme and ratio
(common random numbers for paired comparisons), only their row order differs.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_random_state

#: The contamination schemes of :func:`make_contaminated` (module docstring).
SCHEMES: tuple[str, ...] = ("uniform", "regular_gaussian", "thin_gaussian", "adversarial", "none")
#: The readings of the paper's N(mu, s): s a standard deviation, or a variance.
SCALES: tuple[str, ...] = ("std", "variance")

# The paper's parameters, in its own N(mu, s) notation (s read according to `scale`).
INLIER_MODES: tuple[float, float] = (0.0, 6.0)
INLIER_S: float = 0.5
UNIFORM_BOUNDS: tuple[float, float] = (-3.0, 9.0)  # [mu1 - 3, mu2 + 3]
OUTLIER_GAUSSIANS: dict[str, tuple[float, float]] = {
    "regular_gaussian": (3.0, 0.5),
    "thin_gaussian": (3.0, 0.01),
    "adversarial": (0.0, 0.01),
}


@dataclass(frozen=True, eq=False)
class IsotropicGaussianMixture:
    """Equal-weight mixture of isotropic Gaussians N(means[j], sd^2 I_d).

    One object both draws the sample and evaluates the density (calling it), so the two
    cannot disagree. It is picklable, unlike a closure, so samples can be cached.

    Parameters
    ----------
    means : ndarray of shape (k, d)
        The means of the k components.
    sd : float
        Their common standard deviation.

    See Also
    --------
    make_contaminated : Uses it for the inliers and the Gaussian outliers.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core.synthetic import IsotropicGaussianMixture
    >>> mix = IsotropicGaussianMixture(np.array([[0.0], [6.0]]), sd=0.5)
    >>> mix.dim
    1
    >>> mix.sample(5, np.random.RandomState(0)).shape
    (5, 1)
    >>> round(float(mix([0.0])[0]), 2)  # half of N(0, 0.5^2)'s peak
    0.4
    """

    means: NDArray[np.float64]  # shape (k, d)
    sd: float

    @property
    def dim(self) -> int:
        """Dimension d of the space."""
        return self.means.shape[1]

    def sample(self, n: int, rng: np.random.RandomState) -> NDArray[np.float64]:
        """Draw n points: n // k per component, the remainder on random ones.

        Parameters
        ----------
        n : int
            The number of points.
        rng : RandomState
            The random stream.

        Returns
        -------
        X : ndarray of shape (n, d)
            The points, grouped by component (not shuffled).
        """
        k = len(self.means)
        counts = np.full(k, n // k)
        counts[rng.choice(k, size=n % k, replace=False)] += 1
        return np.concatenate(
            [
                rng.normal(mean, self.sd, size=(count, self.dim))
                for mean, count in zip(self.means, counts, strict=True)
            ]
        )

    def __call__(self, points: ArrayLike) -> NDArray[np.float64]:
        """Density at ``points`` of shape (m, d) (or (m,) when d = 1); returns shape (m,)."""
        pts = _as_points(points, self.dim)
        sq_dist = ((pts[:, None, :] - self.means[None, :, :]) ** 2).sum(axis=2)
        norm = (2.0 * math.pi * self.sd**2) ** (self.dim / 2)
        return np.exp(-sq_dist / (2.0 * self.sd**2)).mean(axis=1) / norm


@dataclass(frozen=True, eq=False)
class ContaminatedSample:
    """A contaminated sample and what is known about how it was made.

    Returned by :func:`make_contaminated` and :func:`make_clean`.

    Attributes
    ----------
    X : ndarray of shape (n, dim)
        The sample, always 2-D; rows shuffled.
    is_outlier : ndarray of bool, shape (n,)
        True for the rows drawn from the outlier law.
    true_pdf : callable
        The density of the inliers (what a robust estimator should recover); takes points of
        shape (m, dim), or (m,) in 1-D, and returns shape (m,).
    scheme : str
        The contamination scheme (for :func:`make_clean`: the density's name).
    ratio : float
        The requested |O| / n (0.0 for ``"none"``); the realised one is
        ``n_outliers / len(X)`` and differs from it by rounding only.
    n_outliers : int
        |O|.
    """

    X: NDArray[np.float64]
    is_outlier: NDArray[np.bool_]
    true_pdf: Callable[[ArrayLike], NDArray[np.float64]]
    scheme: str
    ratio: float
    n_outliers: int


def outlier_count(n_inliers: int, ratio: float) -> int:
    """Number of outliers to add to ``n_inliers`` inliers so that |O| / (|I| + |O|) = ratio.

    Parameters
    ----------
    n_inliers : int
        |I|, an integer >= 1.
    ratio : float
        The share of outliers in the sample, in [0, 1).

    Returns
    -------
    n_outliers : int
        ``|O| = ratio * |I| / (1 - ratio)``, rounded to the nearest integer (halves up).

    Raises
    ------
    ValueError
        When ``ratio`` is not in [0, 1) or ``n_inliers`` is not an integer >= 1.

    Examples
    --------
    >>> from momkde_core.synthetic import outlier_count
    >>> outlier_count(1000, 0.1)
    111
    >>> outlier_count(100, 0.5)  # as many outliers as inliers
    100
    >>> outlier_count(10, 0.0)
    0
    """
    if isinstance(n_inliers, bool) or not isinstance(n_inliers, numbers.Integral) or n_inliers < 1:
        raise ValueError(f"n_inliers must be an integer >= 1, got {n_inliers!r}")
    if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real) or not 0.0 <= ratio < 1.0:
        raise ValueError(
            f"ratio must be a number in [0, 1) (the share of outliers in the sample), got {ratio!r}"
        )
    return math.floor(ratio * n_inliers / (1.0 - ratio) + 0.5)


def make_contaminated(
    scheme: str,
    n_inliers: int = 1000,
    ratio: float = 0.1,
    dim: int = 1,
    random_state: int | np.random.RandomState | None = None,
    scale: str = "std",
) -> ContaminatedSample:
    """Draw ``n_inliers`` inliers plus outliers from ``scheme`` so that |O| / n = ``ratio``.

    The paper's synthetic contamination schemes (section 5), in 1-D and 2-D, with the true
    density of the inliers.

    Parameters
    ----------
    scheme : {"uniform", "regular_gaussian", "thin_gaussian", "adversarial", "none"}
        The outliers' law (:data:`SCHEMES`, module docstring): U[-3, 9], N(3, 0.5),
        N(3, 0.01), N(0, 0.01) (on a mode), or no outliers (``ratio`` is then validated, then
        ignored); in 2-D the same laws, isotropic.
    n_inliers : int, default 1000
        Inliers, drawn from the equal mixture 0.5 N(0, 0.5) + 0.5 N(6, 0.5) (in 2-D, modes
        at (0, 0) and (6, 6)), exactly half from each component.
    ratio : float, default 0.1
        |O| / n, n counting inliers and outliers, in [0, 1) (:func:`outlier_count`).
    dim : {1, 2}, default 1
        The dimension.
    random_state : int, RandomState or None, default None
        As in scikit-learn (None, an int seed or a RandomState).
    scale : {"std", "variance"}, default "std"
        The reading of the paper's N(mu, s): s a standard deviation (what the authors' code
        does) or a variance.

    Returns
    -------
    sample : ContaminatedSample
        The shuffled sample, its labels and the inliers' true density.

    Raises
    ------
    ValueError
        For an unknown scheme or scale, a ``dim`` other than 1 or 2, ``ratio`` outside
        [0, 1) or ``n_inliers`` < 1.

    See Also
    --------
    make_clean : Clean densities with minor modes and tails, no outliers.
    momkde_core.datasets.contaminated_sample : The same protocol on real data.

    Notes
    -----
    Inliers are drawn before outliers, from the same random stream: for one
    ``random_state`` and ``n_inliers`` the inliers are the same whatever the scheme and
    ratio (common random numbers for paired comparisons), only their row order differs.

    Examples
    --------
    >>> from momkde_core import make_contaminated
    >>> data = make_contaminated("thin_gaussian", n_inliers=90, ratio=0.1, random_state=0)
    >>> data.X.shape, data.n_outliers, int(data.is_outlier.sum())
    ((100, 1), 10, 10)
    >>> round(float(data.true_pdf([0.0])[0]), 2)  # the inliers' density at a mode
    0.4
    >>> make_contaminated("uniform", 100, 0.2, dim=2, random_state=0).X.shape
    (125, 2)
    """
    if scheme not in SCHEMES:
        raise ValueError(f"unknown scheme {scheme!r}; allowed: {', '.join(map(repr, SCHEMES))}")
    if isinstance(dim, bool) or dim not in (1, 2):
        raise ValueError(f"dim must be 1 or 2, got {dim!r}")
    if scale not in SCALES:
        raise ValueError(
            "scale must be 'std' (s in N(mu, s) is a standard deviation) or 'variance', "
            f"got {scale!r}"
        )
    n_outliers = outlier_count(n_inliers, ratio)  # validates both, also for "none"
    if scheme == "none":
        n_outliers = 0
    to_sd: Callable[[float], float] = (lambda s: s) if scale == "std" else math.sqrt
    rng = check_random_state(random_state)

    inliers = IsotropicGaussianMixture(
        np.repeat(np.array(INLIER_MODES)[:, None], dim, axis=1), to_sd(INLIER_S)
    )
    X_in = inliers.sample(n_inliers, rng)
    if scheme == "none":
        X_out = np.empty((0, dim))
    elif scheme == "uniform":
        X_out = rng.uniform(*UNIFORM_BOUNDS, size=(n_outliers, dim))
    else:
        mean, s = OUTLIER_GAUSSIANS[scheme]
        X_out = IsotropicGaussianMixture(np.full((1, dim), mean), to_sd(s)).sample(n_outliers, rng)

    X = np.concatenate([X_in, X_out])
    is_outlier = np.arange(len(X)) >= n_inliers
    order = rng.permutation(len(X))
    return ContaminatedSample(
        X=X[order],
        is_outlier=is_outlier[order],
        true_pdf=inliers,
        scheme=scheme,
        ratio=0.0 if scheme == "none" else float(ratio),
        n_outliers=n_outliers,
    )


def _as_points(points: ArrayLike, dim: int) -> NDArray[np.float64]:
    """Points as a float array of shape (m, dim); in 1-D a flat array (m,) is accepted too."""
    pts = np.asarray(points, dtype=float)
    if dim == 1 and pts.ndim <= 1:
        pts = pts.reshape(-1, 1)
    if pts.ndim != 2 or pts.shape[1] != dim:
        allowed = "(m,) or (m, 1)" if dim == 1 else f"(m, {dim})"
        raise ValueError(f"points must have shape {allowed}, got shape {np.shape(points)}")
    return pts


#: Clean 1-D densities with real minor modes and tails: a robust default must not damage
#: them (``make_clean``). Two Gaussians of sd 0.5 as the paper's inliers, unequal weights;
#: four equal modes 2.5 apart; a skewed density; a heavy-tailed one.
CLEAN_DENSITIES: tuple[str, ...] = ("two_modes_80_20", "four_modes", "gamma_2_1", "student_t3")
#: Each clean density as a formula.
CLEAN_DESCRIPTIONS: dict[str, str] = {
    "two_modes_80_20": "0.8 N(0, 0.5) + 0.2 N(6, 0.5)",
    "four_modes": "equal mixture of N(m, 0.5), m = 0, 2.5, 5, 7.5",
    "gamma_2_1": "Gamma(shape 2, scale 1)",
    "student_t3": "Student's t with 3 degrees of freedom",
}


@dataclass(frozen=True, eq=False)
class _CleanDensity:
    """A frozen 1-D scipy distribution (or a Gaussian mixture) that draws and evaluates."""

    name: str

    def _law(self):
        from scipy import stats

        if self.name == "gamma_2_1":
            return stats.gamma(2.0)
        if self.name == "student_t3":
            return stats.t(3.0)
        return None

    def _mixture(self) -> tuple[np.ndarray, np.ndarray]:
        if self.name == "two_modes_80_20":
            return np.array([0.8, 0.2]), np.array([0.0, 6.0])
        return np.full(4, 0.25), np.array([0.0, 2.5, 5.0, 7.5])

    def sample(self, n: int, rng: np.random.RandomState) -> NDArray[np.float64]:
        law = self._law()
        if law is not None:
            return law.rvs(size=n, random_state=rng).reshape(-1, 1)
        weights, means = self._mixture()
        component = rng.choice(len(weights), size=n, p=weights)
        return rng.normal(means[component], INLIER_S).reshape(-1, 1)

    def __call__(self, points: ArrayLike) -> NDArray[np.float64]:
        x = _as_points(points, 1)[:, 0]
        law = self._law()
        if law is not None:
            return law.pdf(x)
        weights, means = self._mixture()
        z = (x[:, None] - means[None, :]) / INLIER_S
        return (weights * np.exp(-z * z / 2)).sum(axis=1) / (INLIER_S * math.sqrt(2 * math.pi))


def make_clean(
    name: str, n: int = 1000, random_state: int | np.random.RandomState | None = None
) -> ContaminatedSample:
    """n points from one of :data:`CLEAN_DENSITIES` (1-D, no outliers), with its true density.

    Densities with real minor modes and tails, on which a robust default must not do harm.

    Parameters
    ----------
    name : {"two_modes_80_20", "four_modes", "gamma_2_1", "student_t3"}
        The density (:data:`CLEAN_DESCRIPTIONS`): 0.8 N(0, 0.5) + 0.2 N(6, 0.5); the equal
        mixture of N(m, 0.5), m = 0, 2.5, 5, 7.5; Gamma(shape 2, scale 1); Student's t with 3
        degrees of freedom.
    n : int, default 1000
        The number of points, an integer >= 2.
    random_state : int, RandomState or None, default None
        As in scikit-learn.

    Returns
    -------
    sample : ContaminatedSample
        With ``X`` of shape (n, 1), no outliers (``ratio`` 0.0, ``scheme`` the name).

    Raises
    ------
    ValueError
        For an unknown name, or ``n`` not an integer >= 2.

    See Also
    --------
    make_contaminated : The paper's contaminated samples.

    Examples
    --------
    >>> from momkde_core.synthetic import make_clean
    >>> data = make_clean("gamma_2_1", n=50, random_state=0)
    >>> data.X.shape, data.n_outliers
    ((50, 1), 0)
    >>> round(float(data.true_pdf([1.0])[0]), 2)  # x exp(-x) at 1
    0.37
    """
    if name not in CLEAN_DENSITIES:
        raise ValueError(
            f"unknown clean density {name!r}; allowed: {', '.join(map(repr, CLEAN_DENSITIES))}"
        )
    if isinstance(n, bool) or not isinstance(n, numbers.Integral) or n < 2:
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    density = _CleanDensity(name)
    X = density.sample(int(n), check_random_state(random_state))
    return ContaminatedSample(
        X=X,
        is_outlier=np.zeros(len(X), dtype=bool),
        true_pdf=density,
        scheme=name,
        ratio=0.0,
        n_outliers=0,
    )

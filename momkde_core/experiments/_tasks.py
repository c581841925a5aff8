"""The tasks of a sweep: one contaminated sample each, with its seed, protocol and methods.

One *task* is one contaminated sample (a source, a ratio, a repetition). Its ``seed`` is
derived with :class:`numpy.random.SeedSequence` from the master seed and the task's identity
(source name, ratio, repetition), so the same task gets the same seed whatever else is in the
sweep, and the seed alone regenerates the sample (:func:`regenerate_sample`) and every random
choice made on it (CV folds, block shuffles, the split of the S rule).

Protocols
---------
``"paper"`` (what the paper and the authors' code did; it uses knowledge a user lacks):
    the bandwidth is cross-validated on the clean inliers only, and SPKDE is given the true
    contamination ratio.
``"honest"`` (default; what a user can do): the bandwidth is cross-validated on the
    contaminated sample, and the methods that ask for the expected share of outliers (SPKDE
    and the robust defaults below) are given ``contamination``: a stated guess (default 0.2,
    the middle of the swept range 0.05 .. 0.5), or ``None`` for the true ratio (what a user
    who knows the share would state; still no labels and no true density).

Clean densities (kind ``"clean"``): :data:`~momkde_core.synthetic.CLEAN_DENSITIES`, no
outliers (ratio 0), with ``contamination`` stated as :data:`CLEAN_CONTAMINATION` (0.01): what a
robust default costs where there is nothing to resist.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np

from ..bandwidth._robust import check_contamination
from ..datasets import DATASETS, contaminated_sample, load_dataset
from ..methods import EXPERIMENT_METHODS, METHODS
from ..synthetic import CLEAN_DENSITIES, SCHEMES, ContaminatedSample, make_clean, make_contaminated


def _table_names(*names: str) -> tuple[str, ...]:
    """The results tables' names of registry methods."""
    return tuple(METHODS[name].table_name for name in names)


#: The methods run by default (results tables' names: the S rule is ``mom_kde`` there).
DEFAULT_SWEEP_METHODS: tuple[str, ...] = _table_names(
    "kde", "mom_kde_rule", "mom_kde_oracle", "mom_kde", "rkde", "spkde", "screened_kde"
)
#: MoM-KDE with the block-aware bandwidth, both S rules.
BLOCKH_METHODS: tuple[str, ...] = _table_names("mom_kde_blockh", "mom_kde_oracle_blockh")
#: The robust defaults and the variants that separate their two levers (S and h).
AUTO_METHODS: tuple[str, ...] = _table_names(
    "mom_kde",
    "mom_kde_auto_cv",
    "mom_kde_auto_scott",
    "mom_kde_auto_blockh",
    "mom_kde_auto_est",
    "kde_robust",
)
#: Every method a task accepts: the results tables' names of the registry's
#: :data:`~momkde_core.methods.EXPERIMENT_METHODS`, in the same order.
ALL_METHODS: tuple[str, ...] = _table_names(*EXPERIMENT_METHODS)
PROTOCOLS: tuple[str, ...] = ("honest", "paper")
SYNTHETIC_SCHEMES: tuple[str, ...] = tuple(s for s in SCHEMES if s != "none")
RATIOS: tuple[float, ...] = tuple(round(0.05 * k, 2) for k in range(1, 11))
DEFAULT_REPS = {"synthetic": 10, "real": 50, "clean": 10}
CLEAN_CONTAMINATION = 0.01  # the share stated on clean densities
CONTAMINATION_GUESS = 0.2
MIN_INLIERS = 5  # synthetic samples: the 5-fold CV of the bandwidth needs a point per fold


@dataclass(frozen=True)
class Task:
    """One contaminated sample to draw and estimate, with everything needed to redo it.

    Made by :func:`make_tasks`, which validates the fields; the ``seed`` alone regenerates
    the sample (:func:`regenerate_sample`) and every random choice made on it.

    Attributes
    ----------
    kind : {"synthetic", "clean", "real"}
        The kind of source.
    source : str
        The scheme, clean density or data set name.
    ratio : float
        The share of outliers |O| / n (0.0 for clean densities).
    rep : int
        The repetition.
    seed : int
        The sample's seed (:func:`task_seed`).
    protocol : {"honest", "paper"}, default "honest"
        "paper": the bandwidth cross-validated on the clean inliers, SPKDE given the true
        ratio; "honest": what a user can do, the bandwidth cross-validated on the
        contaminated sample and the stated ``contamination`` given to the methods that ask
        for one.
    methods : tuple of str, default DEFAULT_SWEEP_METHODS
        The methods to run (names of :data:`ALL_METHODS`).
    dim : {1, 2}, default 1
        The dimension of synthetic data.
    n_inliers : int, default 1000
        Inliers per synthetic sample (clean: the sample size).
    scale : {"std", "variance"}, default "std"
        The reading of the paper's N(mu, s) (:func:`momkde_core.make_contaminated`).
    contamination : float or None, default 0.2
        The stated share of outliers; None: the true ratio.
    data_dir : str or None, default None
        The folder of the IDA data sets (:func:`momkde_core.load_dataset`).

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], reps=1)[0]
    >>> task.kind, task.source, task.ratio, task.rep, task.protocol, task.contamination
    ('synthetic', 'uniform', 0.1, 0, 'honest', 0.2)
    """

    kind: str  # "synthetic", "clean" or "real"
    source: str  # scheme or data set name
    ratio: float
    rep: int
    seed: int
    protocol: str = "honest"
    methods: tuple[str, ...] = DEFAULT_SWEEP_METHODS
    dim: int = 1
    n_inliers: int = 1000
    scale: str = "std"
    contamination: float | None = CONTAMINATION_GUESS  # stated share; None: the true ratio
    data_dir: str | None = None


def task_seed(master_seed: int, source: str, ratio: float, rep: int) -> int:
    """The seed of one sample, from the master seed and the sample's identity.

    :class:`numpy.random.SeedSequence` of (master, crc32(source), ratio in 1/1000, rep): the
    same sample gets the same seed whatever else is in the sweep.

    Parameters
    ----------
    master_seed : int
        The sweep's seed (``momkde reproduce --seed``).
    source : str
        The scheme, clean density or data set name.
    ratio : float
        The share of outliers (rounded to 1/1000).
    rep : int
        The repetition.

    Returns
    -------
    seed : int
        A 32-bit seed.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, task_seed
    >>> seed = task_seed(0, "uniform", 0.1, 3)
    >>> seed == task_seed(0, "uniform", 0.1, 3), seed == task_seed(1, "uniform", 0.1, 3)
    (True, False)
    >>> make_tasks("synthetic", ratios=[0.1], reps=4)[3].seed == task_seed(0, "uniform", 0.1, 3)
    True
    """
    key = [int(master_seed), zlib.crc32(source.encode()), int(round(ratio * 1000)), int(rep)]
    return int(np.random.SeedSequence(key).generate_state(1)[0])


def _stream(seed: int, purpose: str) -> int:
    """An independent integer seed for one random choice made on the sample of ``seed``."""
    return int(np.random.SeedSequence([seed, zlib.crc32(purpose.encode())]).generate_state(1)[0])


def regenerate_sample(task: Task) -> tuple[np.ndarray, np.ndarray, ContaminatedSample | None]:
    """The sample of a task, from its seed alone.

    Parameters
    ----------
    task : Task
        The task.

    Returns
    -------
    X : ndarray of shape (n, d)
        The sample (real data: standardised, :func:`momkde_core.datasets.contaminated_sample`).
    is_outlier : ndarray of bool, shape (n,)
        The labels.
    synthetic : ContaminatedSample or None
        The synthetic or clean sample with its true density; None for real data.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, regenerate_sample
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], n_inliers=90)[0]
    >>> X, is_outlier, sample = regenerate_sample(task)
    >>> X.shape, int(is_outlier.sum()), sample.scheme
    ((100, 1), 10, 'uniform')
    >>> bool((regenerate_sample(task)[0] == X).all())  # the same sample again
    True
    """
    if task.kind in ("synthetic", "clean"):
        data = (
            make_clean(task.source, task.n_inliers, random_state=task.seed)
            if task.kind == "clean"
            else make_contaminated(
                task.source,
                task.n_inliers,
                task.ratio,
                task.dim,
                random_state=task.seed,
                scale=task.scale,
            )
        )
        return data.X, data.is_outlier, data
    X, is_outlier = contaminated_sample(
        _dataset(task.source, task.data_dir), task.ratio, random_state=task.seed
    )
    return X, is_outlier, None


@lru_cache(maxsize=16)
def _dataset(name: str, data_dir: str | None):
    """A real data set, loaded once per worker process."""
    return load_dataset(name, data_dir=data_dir)


def make_tasks(
    kind: str,
    sources: Sequence[str] | None = None,
    ratios: Sequence[float] = RATIOS,
    reps: int | None = None,
    seed: int = 0,
    protocol: str = "honest",
    methods: Sequence[str] = DEFAULT_SWEEP_METHODS,
    dim: int = 1,
    n_inliers: int = 1000,
    scale: str = "std",
    contamination: float | None | str = "guess",
    data_dir: str | None = None,
    first_rep: int = 0,
) -> list[Task]:
    """The tasks of a sweep, validated.

    One task per source, ratio and repetition, in that order (repetitions innermost).

    Parameters
    ----------
    kind : {"synthetic", "clean", "real"}
        "synthetic" (sources: schemes, default the paper's four), "clean" (sources:
        :data:`~momkde_core.synthetic.CLEAN_DENSITIES`, 1-D, no outliers: ``ratios`` is
        ignored) or "real" (sources: data set names, default all six).
    sources : sequence of str, optional
        The schemes, clean densities or data sets (a repeated name counts once).
    ratios : sequence of float, default RATIOS
        Shares of outliers in (0, 1) (default 0.05, 0.10, ..., 0.50).
    reps : int, optional
        Repetitions per source and ratio; default 10 (synthetic, clean) or 50 (real).
    seed : int, default 0
        The master seed (:func:`task_seed`).
    protocol : {"honest", "paper"}, default "honest"
        "paper": the bandwidth cross-validated on the clean inliers, SPKDE given the true
        ratio; "honest": what a user can do, the bandwidth cross-validated on the
        contaminated sample and the stated ``contamination`` given to the methods that ask
        for one.
    methods : sequence of str, default DEFAULT_SWEEP_METHODS
        :data:`DEFAULT_SWEEP_METHODS`; :data:`BLOCKH_METHODS` and ``AUTO_METHODS`` (all in
        :data:`ALL_METHODS`) are the other variants measured in the docs.
    dim : {1, 2}, default 1
        The dimension of synthetic data (clean densities: 1).
    n_inliers : int, default 1000
        Inliers per synthetic sample, at least 5 (the bandwidth's 5-fold CV needs a point
        per fold).
    scale : {"std", "variance"}, default "std"
        The reading of the paper's N(mu, s).
    contamination : float, None or "guess", default "guess"
        The share stated to SPKDE and the robust defaults under the honest protocol: a
        number in [0, 0.5), None for the true ratio, or "guess" for
        :data:`CONTAMINATION_GUESS` (clean: :data:`CLEAN_CONTAMINATION`).
    data_dir : str, optional
        The folder of the IDA data sets.
    first_rep : int, default 0
        The repetitions are ``first_rep .. first_rep + reps - 1``, the very samples (same
        seeds) that a sweep with more repetitions draws there: a stored table of repetitions
        0 .. 9 is extended to 50 by ``reps=40, first_rep=10``.

    Returns
    -------
    tasks : list of Task
        The tasks.

    Raises
    ------
    ValueError
        With an actionable message, for any parameter out of its range or an unknown name.

    See Also
    --------
    run_experiments, SweepFile : Run the tasks.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks
    >>> len(make_tasks("synthetic"))  # 4 schemes x 10 ratios x 10 repetitions
    400
    >>> tasks = make_tasks("real", sources=["iris"], ratios=[0.05, 0.1], reps=3)
    >>> [(t.source, t.ratio, t.rep) for t in tasks[:4]]
    [('iris', 0.05, 0), ('iris', 0.05, 1), ('iris', 0.05, 2), ('iris', 0.1, 0)]
    >>> extra = make_tasks("real", sources=["iris"], ratios=[0.05], reps=1, first_rep=2)
    >>> extra[0].seed == tasks[2].seed
    True
    """
    if kind not in DEFAULT_REPS:
        raise ValueError(f"kind must be 'synthetic', 'clean' or 'real', got {kind!r}")
    if protocol not in PROTOCOLS:
        raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
    allowed = {"synthetic": SYNTHETIC_SCHEMES, "clean": CLEAN_DENSITIES, "real": DATASETS}[kind]
    sources = tuple(allowed if sources is None else sources)
    unknown = [s for s in sources if s not in allowed]
    if unknown or not sources:
        noun = {"synthetic": "scheme", "clean": "clean density", "real": "data set"}[kind]
        raise ValueError(
            f"unknown {noun}(s) {', '.join(unknown) or '(none given)'}; "
            f"allowed: {', '.join(allowed)}"
        )
    bad_methods = [m for m in methods if m not in ALL_METHODS]
    if bad_methods or not methods:
        raise ValueError(
            f"unknown method(s) {', '.join(bad_methods) or '(none given)'}; "
            f"allowed: {', '.join(ALL_METHODS)}"
        )
    sources = tuple(dict.fromkeys(sources))  # a repeated name would repeat its samples
    ratios = (0.0,) if kind == "clean" else tuple(dict.fromkeys(float(r) for r in ratios))
    if kind != "clean" and (not ratios or any(not 0.0 < r < 1.0 for r in ratios)):
        raise ValueError(f"ratios must be numbers in (0, 1), got {list(ratios)}")
    reps = DEFAULT_REPS[kind] if reps is None else reps
    if int(reps) != reps or reps < 1:
        raise ValueError(f"reps must be a positive integer, got {reps!r}")
    if int(first_rep) != first_rep or first_rep < 0:
        raise ValueError(f"first_rep must be an integer >= 0, got {first_rep!r}")
    if int(n_inliers) != n_inliers or n_inliers < MIN_INLIERS:
        raise ValueError(
            f"n_inliers must be an integer >= {MIN_INLIERS} (the bandwidth's "
            f"5-fold CV needs a point per fold), got {n_inliers!r}"
        )
    if dim not in (1, 2) or (kind == "clean" and dim != 1):
        raise ValueError(f"dim must be 1 or 2 (clean densities: 1), got {dim!r}")
    if contamination == "guess":
        contamination = CLEAN_CONTAMINATION if kind == "clean" else CONTAMINATION_GUESS
    if contamination is not None:
        check_contamination(contamination, allow_auto=False)
    base = Task(
        kind=kind,
        source="",
        ratio=0.0,
        rep=0,
        seed=0,
        protocol=protocol,
        methods=tuple(methods),
        dim=int(dim),
        n_inliers=int(n_inliers),
        scale=scale,
        contamination=None if contamination is None else float(contamination),
        data_dir=data_dir,
    )
    return [
        replace(base, source=s, ratio=r, rep=k, seed=task_seed(seed, s, r, k))
        for s in sources
        for r in ratios
        for k in range(int(first_rep), int(first_rep) + int(reps))
    ]


def task_key(task: Task) -> tuple[str, float, int, int]:
    """What identifies a task's rows in a table: (source, ratio, rep, seed).

    Parameters
    ----------
    task : Task
        The task.

    Returns
    -------
    key : tuple of (str, float, int, int)
        (source, ratio, rep, seed), as Python scalars.

    Examples
    --------
    >>> from momkde_core.experiments import make_tasks, task_key
    >>> task = make_tasks("synthetic", sources=["uniform"], ratios=[0.1], reps=1)[0]
    >>> task_key(task)[:3]
    ('uniform', 0.1, 0)
    """
    return task.source, float(task.ratio), int(task.rep), int(task.seed)

"""The registry of methods: one name per estimator, with its label, description and factory.

Layer 5 of the package (``docs/architecture.md``), beside :mod:`momkde_core.detector`. Every
name the library knows is a key of :data:`METHODS`, in the order figures and tables show them:
the detectors of ``momkde score`` and the app (:data:`DETECTOR_METHODS`), and the variants the
paper's experiments measure (:data:`EXPERIMENT_METHODS`). :func:`build_estimator` builds the
estimator behind a name, :func:`method_label` gives the name figures show.

One name, one estimator. ``mom_kde`` is MoM-KDE as a user runs it, with S and h from the
stated share of outliers (``MoMKDE(n_blocks="auto")``), in the detectors and the experiments
alike; ``mom_kde_auto``, its former name in the registry, is an alias (:data:`ALIASES`).
The results tables (those of ``momkde reproduce``, and the stored ones of ``docs/results/``)
keep the names they were written with, which ``momkde reproduce --methods`` takes: there
the library's MoM-KDE is ``mom_kde_auto`` and ``mom_kde`` is the label-free S rule with the
shared cross-validated h (the registry's ``mom_kde_rule``). :attr:`Method.table_name` is a
method's name in the tables; :func:`from_table` and :func:`with_registry_names` read a
table's names back into the registry's, so that no code reads a table's ``mom_kde`` as the
registry's.

Examples
--------
>>> from momkde_core.methods import METHODS, build_estimator, from_table, method_label
>>> METHODS["screened_kde"].label
'Screened KDE'
>>> type(build_estimator("mom_kde", contamination=0.1, random_state=0)).__name__
'MoMKDE'
>>> from_table("mom_kde"), method_label(from_table("mom_kde"))
('mom_kde_rule', 'MoM-KDE (S rule, CV h)')
>>> from_table("mom_kde_auto"), METHODS["mom_kde"].table_name
('mom_kde', 'mom_kde_auto')
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator

from .bandwidth._robust import check_contamination
from .estimators import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE

#: How a method is told the stated share of outliers (:attr:`Method.share`).
SHARES: tuple[str, ...] = ("any", "below_half")
#: How the experiments choose S (:attr:`Method.sweep_blocks`; None: one block).
SWEEP_BLOCKS: tuple[str, ...] = ("auto", "rule", "oracle")
#: How the experiments choose h (:attr:`Method.sweep_bandwidth`).
SWEEP_BANDWIDTHS: tuple[str, ...] = ("cv", "block", "robust", "own")


@dataclass(frozen=True)
class Method:
    """One method: its name, how figures name it, what it is, and how to build it.

    Attributes
    ----------
    name : str
        The registry's name (the key of :data:`METHODS`).
    label : str
        The name figures, legends and tables show; unique.
    description : str
        One line for ``--help`` and the docs: what the method is.
    estimator : type
        The estimator class :func:`build_estimator` instantiates.
    params : mapping
        The estimator's parameters set by default (the others keep the class's defaults).
    share : {None, "any", "below_half"}, default None
        How the method is told the stated share of outliers: None, not told; "any", as
        ``contamination`` (SPKDE); "below_half", as ``contamination``, which must be below
        0.5 (a median screen: at one half no median tells outliers from inliers).
    needs : tuple of str, default ()
        Parameters :func:`build_estimator` must be given: those the experiments compute on the sample
        (the S rule's or the oracle's S, the block-aware h).
    table_name : str or None, default None
        The name results tables and ``momkde reproduce --methods`` give the method (``name``
        unless set); None for a method the experiments do not run.
    sweep_blocks : {None, "auto", "rule", "oracle"}, default None
        How the experiments choose S: None, one block; "auto", the estimator's own
        (``n_blocks="auto"``); "rule", the held-out median likelihood
        (:func:`momkde_core.experiments.select_n_blocks`); "oracle", the best S of
        :func:`momkde_core.experiments.oracle_grid` on the true density or the labels.
    own_bandwidth : str or None, default None
        The bandwidth rule the method applies itself to the rows it keeps, where the others
        share one h (the screened KDE's cross-validation after its screen); None for the
        methods that take the h they are given.
    sweep_bandwidth : {"cv", "block", "robust", "own"}, default "cv"
        How the experiments choose h: "cv", the cross-validated h shared by the methods of a
        sample; "block", that h made block-aware for the method's S
        (:func:`momkde_core.experiments.block_bandwidth`); "robust", the robust h of the
        stated share, computed once per sample; "own", the estimator's own rule (``params``).
    auto_blocks : bool
        Whether S is chosen when the estimator is fitted (``n_blocks="auto"``): a caller
        that resolves S itself (the app's S slider) passes it as ``n_blocks``.
    seeded : bool
        Whether a fit draws at random whatever its h and S (MoM-KDE's blocks, the screened
        KDE's screen): only then does ``random_state`` matter once h is a number.
    share_in_fit : bool
        Whether the stated share changes the fit itself (SPKDE's weights, the screened KDE's
        screen), not only the S and h chosen from it (MoM-KDE's, when S and h are given).

    Examples
    --------
    >>> from momkde_core.methods import METHODS
    >>> spkde = METHODS["spkde"]
    >>> spkde.label, spkde.share, spkde.table_name
    ('SPKDE', 'any', 'spkde')
    """

    name: str
    label: str
    description: str
    estimator: type[BaseEstimator]
    params: Mapping[str, object] = field(default_factory=dict)
    share: str | None = None
    needs: tuple[str, ...] = ()
    table_name: str | None = None
    sweep_blocks: str | None = None
    sweep_bandwidth: str = "cv"
    own_bandwidth: str | None = None

    def __post_init__(self):
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    @property
    def auto_blocks(self) -> bool:
        """Whether S is chosen at fit (``n_blocks="auto"``)."""
        return isinstance(self.params.get("n_blocks"), str)

    @property
    def seeded(self) -> bool:
        """Whether a fit draws at random whatever its h and S."""
        return issubclass(self.estimator, (MoMKDE, ScreenedKDE))

    @property
    def share_in_fit(self) -> bool:
        """Whether the stated share changes the fit beyond the S and h chosen from it."""
        return self.share is not None and not issubclass(self.estimator, MoMKDE)


#: The detector of ``OutlierDetector()``, ``make_detector()``, ``momkde score`` and the app's
#: Your data: 21 block KDEs at Scott's bandwidth, a row scored by the mean of their log
#: densities (:class:`~momkde_core.OutlierDetector`; the registry's estimator alone is their
#: median, MoM-KDE). Its ranking reads no share of outliers (an analyst does not know it);
#: chosen on ADBench by the rules fixed beforehand in ``benchmarks/adbench_rules.py``
#: (results in docs/anomaly.md).
DEFAULT_DETECTOR = "mom_kde_21"

_REGISTRY: tuple[Method, ...] = (
    Method(
        "kde",
        "KDE",
        "the kernel density estimate with the cross-validated bandwidth",
        KDE,
        {"bandwidth": "cv"},
        table_name="kde",
    ),
    Method(
        "kde_robust",
        "KDE (robust h)",
        "the kernel density estimate with MoM-KDE's robust bandwidth",
        KDE,
        {"bandwidth": "robust"},
        table_name="kde_robust",
        sweep_bandwidth="robust",
    ),
    Method(
        "mom_kde",
        "MoM-KDE",
        "MoM-KDE, S and the robust h chosen from the stated share of outliers (the library's "
        "default)",
        MoMKDE,
        {"n_blocks": "auto"},
        share="below_half",
        table_name="mom_kde_auto",
        sweep_blocks="auto",
        sweep_bandwidth="robust",
    ),
    Method(
        DEFAULT_DETECTOR,
        "MoM-KDE (S = 21, Scott h)",
        "MoM-KDE with S = 21 blocks and Scott's per-feature bandwidth, no share needed; "
        "as the detector's default, a row scored by the mean of the blocks' log densities "
        "(docs/anomaly.md)",
        MoMKDE,
        {"n_blocks": 21, "bandwidth": "scott"},
    ),
    Method(
        "mom_kde_rule",
        "MoM-KDE (S rule, CV h)",
        "MoM-KDE with S from the held-out median likelihood and the cross-validated h",
        MoMKDE,
        {"bandwidth": "cv"},
        needs=("n_blocks",),
        table_name="mom_kde",
        sweep_blocks="rule",
    ),
    Method(
        "mom_kde_oracle",
        "MoM-KDE (oracle S)",
        "MoM-KDE with the S best on the true density (or the labels) and the cross-validated h",
        MoMKDE,
        {"bandwidth": "cv"},
        needs=("n_blocks",),
        table_name="mom_kde_oracle",
        sweep_blocks="oracle",
    ),
    Method(
        "mom_kde_blockh",
        "MoM-KDE, block-aware h",
        "MoM-KDE with S from the held-out median likelihood and the block-aware h",
        MoMKDE,
        needs=("n_blocks", "bandwidth"),
        table_name="mom_kde_blockh",
        sweep_blocks="rule",
        sweep_bandwidth="block",
    ),
    Method(
        "mom_kde_oracle_blockh",
        "MoM-KDE (oracle S), block-aware h",
        "MoM-KDE with the oracle's S and the block-aware h",
        MoMKDE,
        needs=("n_blocks", "bandwidth"),
        table_name="mom_kde_oracle_blockh",
        sweep_blocks="oracle",
        sweep_bandwidth="block",
    ),
    Method(
        "rkde",
        "RKDE",
        "the robust KDE of Kim and Scott (an M-estimator) with the cross-validated bandwidth",
        RKDE,
        {"bandwidth": "cv"},
        table_name="rkde",
    ),
    Method(
        "spkde",
        "SPKDE",
        "the scaled and projected KDE with the cross-validated bandwidth, told the stated share",
        SPKDE,
        {"bandwidth": "cv"},
        share="any",
        table_name="spkde",
    ),
    Method(
        "screened_kde",
        "Screened KDE",
        "MoM-KDE's screen at the stated share sets the outlying rows aside, then a "
        "cross-validated KDE of the rows kept",
        ScreenedKDE,
        share="below_half",
        table_name="screened_kde",
        sweep_bandwidth="own",
        own_bandwidth="cv",
    ),
    Method(
        "mom_kde_auto_cv",
        "MoM-KDE (auto S, CV h)",
        "MoM-KDE with S from the stated share and the cross-validated h",
        MoMKDE,
        {"n_blocks": "auto", "bandwidth": "cv"},
        share="below_half",
        table_name="mom_kde_auto_cv",
        sweep_blocks="auto",
    ),
    Method(
        "mom_kde_auto_scott",
        "MoM-KDE (auto S, Scott's h)",
        "MoM-KDE with S from the stated share and Scott's h",
        MoMKDE,
        {"n_blocks": "auto", "bandwidth": "scott"},
        share="below_half",
        table_name="mom_kde_auto_scott",
        sweep_blocks="auto",
        sweep_bandwidth="own",
    ),
    Method(
        "mom_kde_auto_blockh",
        "MoM-KDE (auto S), block-aware h",
        "MoM-KDE with S from the stated share and the block-aware h",
        MoMKDE,
        {"n_blocks": "auto"},
        share="below_half",
        needs=("bandwidth",),
        table_name="mom_kde_auto_blockh",
        sweep_blocks="auto",
        sweep_bandwidth="block",
    ),
    Method(
        "mom_kde_auto_est",
        "MoM-KDE (auto, estimated share)",
        "MoM-KDE with the share of outliers estimated, then S and the robust h from it",
        MoMKDE,
        {"n_blocks": "auto", "bandwidth": "robust", "contamination": "auto"},
        table_name="mom_kde_auto_est",
        sweep_blocks="auto",
        sweep_bandwidth="own",
    ),
)

#: Every method the library knows, by name, in the order figures and tables show them.
METHODS: Mapping[str, Method] = MappingProxyType({m.name: m for m in _REGISTRY})
#: The names :func:`momkde_core.make_detector`, ``momkde score`` and the app accept.
DETECTOR_METHODS: tuple[str, ...] = (
    DEFAULT_DETECTOR,
    "kde",
    "mom_kde",
    "rkde",
    "spkde",
    "screened_kde",
)
#: The names the experiments run, in the order of their results tables (the order of
#: ``momkde_core.experiments.ALL_METHODS``, which lists their :attr:`Method.table_name`).
EXPERIMENT_METHODS: tuple[str, ...] = (
    "kde",
    "mom_kde_rule",
    "mom_kde_oracle",
    "mom_kde",
    "rkde",
    "spkde",
    "screened_kde",
    "mom_kde_blockh",
    "mom_kde_oracle_blockh",
    "mom_kde_auto_cv",
    "mom_kde_auto_scott",
    "mom_kde_auto_blockh",
    "mom_kde_auto_est",
    "kde_robust",
)
#: Names the registry used before, with the name that replaced them: a link, a script or a
#: stored choice that holds one still means the same method.
ALIASES: Mapping[str, str] = MappingProxyType({"mom_kde_auto": "mom_kde"})
_FROM_TABLE: Mapping[str, str] = MappingProxyType(
    {METHODS[name].table_name: name for name in EXPERIMENT_METHODS}
)


def method_label(name: str) -> str:
    """The label figures and tables show for a method, or ``name`` itself when unknown.

    Parameters
    ----------
    name : str
        A name of :data:`METHODS` (or of :data:`ALIASES`).

    Returns
    -------
    label : str
        The method's :attr:`Method.label`, or ``name``.

    Examples
    --------
    >>> from momkde_core.methods import method_label
    >>> method_label("mom_kde_rule"), method_label("mom_kde_auto"), method_label("my_method")
    ('MoM-KDE (S rule, CV h)', 'MoM-KDE', 'my_method')
    """
    method = METHODS.get(ALIASES.get(name, name))
    return name if method is None else method.label


def build_estimator(
    name: str,
    *,
    contamination: float,
    random_state: int | np.random.RandomState | None = None,
    **params: object,
) -> BaseEstimator:
    """A fresh unfitted estimator for the method ``name``.

    Its parameters are the method's :attr:`Method.params`, then the stated share for the
    methods told it (:attr:`Method.share`), then ``params``.

    Parameters
    ----------
    name : str
        A name of :data:`METHODS` (or of :data:`ALIASES`).
    contamination : float
        The stated share of outliers, passed as ``contamination`` to the methods told it
        (:attr:`Method.share`); a ``contamination`` in ``params`` takes precedence.
    random_state : int, RandomState or None, default None
        Seeds the estimator (blocks, CV folds).
    **params
        Estimator parameters replacing the method's defaults (``bandwidth``, ``n_blocks``,
        ``kernel``, ...).

    Returns
    -------
    estimator : BaseEstimator
        Unfitted.

    Raises
    ------
    ValueError
        An unknown name (the message lists :data:`METHODS`), or a share of 0.5 or more for
        a method that needs one below half.
    TypeError
        A parameter the method needs (:attr:`Method.needs`) not given.

    Examples
    --------
    >>> from momkde_core.methods import build_estimator
    >>> est = build_estimator("mom_kde", contamination=0.1, random_state=0, n_blocks=7)
    >>> type(est).__name__, est.n_blocks, est.bandwidth, est.contamination
    ('MoMKDE', 7, 'robust', 0.1)
    >>> build_estimator("kde", contamination=0.1, bandwidth=0.5).bandwidth
    0.5
    >>> build_estimator("mom_kde_rule", contamination=0.1, n_blocks=5).n_blocks
    5
    """
    name = ALIASES.get(name, name)
    if name not in METHODS:
        raise ValueError(f"unknown method {name!r}; allowed: {', '.join(METHODS)}")
    method = METHODS[name]
    missing = [p for p in method.needs if p not in params]
    if missing:
        raise TypeError(
            f"{name} needs {' and '.join(missing)}: the experiments compute it on the sample"
        )
    kwargs = {**method.params, "random_state": random_state}
    if method.share is not None:
        if method.share == "below_half":  # before any work: the estimator's own rule
            try:
                check_contamination(contamination, allow_auto=False)
            except ValueError as err:  # (which method refused: several may be asked for)
                raise type(err)(f"{name}: {err}") from None
        kwargs["contamination"] = contamination
    return method.estimator(**{**kwargs, **params})


def from_table(table_name: str) -> str:
    """The registry's name of a method named ``table_name`` in a results table.

    Parameters
    ----------
    table_name : str
        A ``method`` of a results table (``momkde reproduce``, ``docs/results/``).

    Returns
    -------
    name : str
        The name in :data:`METHODS`; ``table_name`` itself when no method has it.

    Examples
    --------
    >>> from momkde_core.methods import from_table
    >>> from_table("mom_kde"), from_table("mom_kde_auto"), from_table("other")
    ('mom_kde_rule', 'mom_kde', 'other')
    """
    return _FROM_TABLE.get(table_name, table_name)


def with_registry_names(results: pd.DataFrame) -> pd.DataFrame:
    """A results table with its ``method`` column in the registry's names (:func:`from_table`).

    Figures and tables label and colour methods by the registry's names: read through this,
    the results tables' ``mom_kde`` (the S rule) is ``mom_kde_rule`` and their
    ``mom_kde_auto`` is ``mom_kde``, the library's MoM-KDE.

    Parameters
    ----------
    results : DataFrame
        A table with a ``method`` column; it is not modified.

    Returns
    -------
    results : DataFrame
        A copy, ``method`` renamed.

    Examples
    --------
    >>> import pandas as pd
    >>> from momkde_core.methods import with_registry_names
    >>> table = pd.DataFrame({"method": ["kde", "mom_kde", "mom_kde_auto"]})
    >>> with_registry_names(table)["method"].tolist()
    ['kde', 'mom_kde_rule', 'mom_kde']
    """
    return results.assign(method=results["method"].map(from_table))

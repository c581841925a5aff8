"""momkde_core: robust kernel density estimation with the Median-of-Means principle.

KDE, MoM-KDE, RKDE, SPKDE and the screened KDE (MoM-KDE's screen, then a KDE) as
scikit-learn estimators over one fast engine, plus the paper's contamination schemes, real
data sets, metrics and experiment runner. The package's layers and where a change goes are
described in ``docs/architecture.md``.
"""

from . import metrics
from ._config import config_context, get_config, set_config
from ._validation import InvalidParameterError
from .datasets import load_dataset
from .detector import OutlierDetector, make_detector
from .estimators import KDE, RKDE, SPKDE, MoMKDE, ScreenedKDE
from .kernels import KERNELS, get_kernel
from .synthetic import make_contaminated

__all__ = [
    "KDE",
    "MoMKDE",
    "RKDE",
    "SPKDE",
    "ScreenedKDE",
    "KERNELS",
    "InvalidParameterError",
    "OutlierDetector",
    "config_context",
    "get_config",
    "get_kernel",
    "load_dataset",
    "make_contaminated",
    "make_detector",
    "metrics",
    "set_config",
]
__version__ = "0.1.0"

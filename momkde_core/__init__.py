"""momkde_core: robust kernel density estimation with the Median-of-Means principle.

KDE, MoM-KDE, RKDE, SPKDE and the screened KDE (MoM-KDE's screen, then a KDE) as
scikit-learn estimators over one fast engine, plus the paper's contamination schemes, real
data sets, metrics and experiment runner.
"""

from . import metrics
from .datasets import load_dataset
from .detector import OutlierDetector, make_detector
from .estimators import KDE, RKDE, SPKDE, MoMKDE
from .kernels import KERNELS, get_kernel
from .screened import ScreenedKDE
from .synthetic import make_contaminated

__all__ = ["KDE", "MoMKDE", "RKDE", "SPKDE", "ScreenedKDE", "KERNELS", "OutlierDetector",
           "get_kernel", "load_dataset", "make_contaminated", "make_detector", "metrics"]
__version__ = "0.1.0"

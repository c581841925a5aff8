"""The density estimators, as scikit-learn estimators over one engine.

Layer 4 of the package (``docs/architecture.md``): :class:`KDE`, :class:`MoMKDE`,
:class:`RKDE`, :class:`SPKDE` (one module each over the shared base ``_base._BaseKDE``) and
:class:`ScreenedKDE` (a meta-estimator: MoM-KDE's screen, then a KDE of the rows it keeps).
"""

from ._kde import KDE
from ._mom_kde import MoMKDE
from ._rkde import RKDE
from ._screened import ScreenedKDE
from ._spkde import SPKDE

__all__ = ["KDE", "RKDE", "SPKDE", "MoMKDE", "ScreenedKDE"]

"""The density estimators, as scikit-learn estimators over one engine.

Layer 4 of the package (``docs/architecture.md``). Each estimator is also importable from
``momkde_core`` itself:

- :class:`KDE`: the kernel density estimator, with bandwidth rules ("scott", "silverman",
  "cv", "robust", "isj").
- :class:`MoMKDE`: the Median-of-Means KDE (Humbert et al. 2020), robust by default: S and
  h are chosen from the expected share of outliers.
- :class:`RKDE`: the robust KDE of Kim & Scott (2012), an M-estimator fitted by KIRWLS.
- :class:`SPKDE`: the scaled and projected KDE of Vandermeulen & Scott (2014).
- :class:`ScreenedKDE`: a meta-estimator: MoM-KDE's screen, then a KDE of the rows it keeps.

The first four are one module each over the shared base ``_base._BaseKDE``, whose methods
every estimator has: ``fit`` (with ``sample_weight``), ``score_samples`` (log density),
``pdf``, ``score``, ``pdf_grid`` (1-D and 2-D grids), ``block_pdf_grid``,
``block_score_samples`` and exact ``sample``. ScreenedKDE is a KDE.
"""

from ._kde import KDE
from ._mom_kde import MoMKDE
from ._rkde import RKDE
from ._screened import ScreenedKDE
from ._spkde import SPKDE

__all__ = ["KDE", "RKDE", "SPKDE", "MoMKDE", "ScreenedKDE"]

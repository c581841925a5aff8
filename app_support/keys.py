"""The names of what the app keeps in the session state, in one place.

A widget bound to the URL (:func:`app_support.widgets.url`) has its key as its query
parameter's name, so most of these names are also the links' parameters: renaming one breaks
the links made before. Names starting with an underscore are a page's own bookkeeping, never
in the URL.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class EstimatorKeys:
    """The shared controls of :mod:`app_support.widgets` (query parameters).

    Attributes
    ----------
    scheme, methods, eps, eps_free, kernel, seed : str
        The contamination scheme, the methods shown, the stated share ε, the switch that
        states ε apart from a sample's true ratio, the kernel, the seed.
    h_mode, h, s_mode, blocks : str
        The bandwidth rule and h, S's mode (auto or manual) and S.
    """

    scheme: str = "scheme"
    methods: str = "methods"
    eps: str = "eps"
    eps_free: str = "epsfree"
    kernel: str = "kernel"
    seed: str = "seed"
    h_mode: str = "hmode"
    h: str = "h"
    s_mode: str = "Smode"
    blocks: str = "S"


@dataclass(frozen=True)
class YourDataKeys:
    """The Your data page's keys.

    Attributes
    ----------
    sample, upload : str
        The data picker (a bundled sample or the upload) and the file uploader.
    plot, score, label, outlier : str
        The per-file choices: the columns drawn and scored, the label column and its value
        that names the outliers (:attr:`per_file`).
    drop_missing, standardise, flag : str
        The missing-value and scaling switches, and the method whose flags the figure marks.
    why : str
        The flagged row whose explanation is shown (its name: data row or id).
    why_of : str
        The (method, rows, columns) the row shown was chosen among.
    file : str
        The identity of the file whose defaults the per-file choices hold.
    identity : str
        The upload's ``(file_id, SHA-256)``: its digest, computed once per upload.
    label_of : str
        The ``(file, label column)`` the outliers' label value was chosen for.
    """

    sample: str = "sample"
    upload: str = "upload"
    plot: str = "plot"
    score: str = "score"
    label: str = "label"
    outlier: str = "outlier"
    drop_missing: str = "dropna"
    standardise: str = "std"
    flag: str = "flag"
    why: str = "why"
    why_of: str = "_why_of"
    file: str = "_file"
    identity: str = "_identity"
    label_of: str = "_label_of"

    @property
    def per_file(self) -> tuple[str, ...]:
        """The choices that belong to one file: reset to a new file's defaults."""
        return (self.plot, self.score, self.label, self.outlier)


@dataclass(frozen=True)
class LearnKeys:
    """The Learn page's timing keys.

    Attributes
    ----------
    largest, measure : str
        The largest n timed and the button that measures.
    """

    largest: str = "nmax"
    measure: str = "measure"

    def measured(self, largest: int) -> str:
        """The key that remembers that the sizes up to ``largest`` were measured."""
        return f"measured_{largest}"


@dataclass(frozen=True)
class MedianKeys:
    """The keys of the median at work: Explore's locked point and placed outliers, Learn's
    construction.

    Attributes
    ----------
    x0, y0 : str
        The locked point (``y0`` in 2-D).
    k, at, at_y : str
        The outliers placed and their place (``at_y`` in 2-D).
    click : str
        What a click on Explore's figure sets: the point or the outliers' place.
    clicked : str
        The last click applied (a click is applied once).
    step : str
        The construction's step on Learn.
    """

    x0: str = "x0"
    y0: str = "y0"
    k: str = "k"
    at: str = "at"
    at_y: str = "aty"
    click: str = "click"
    clicked: str = "_clicked"
    step: str = "step"


ESTIMATOR = EstimatorKeys()
YOUR_DATA = YourDataKeys()
LEARN = LearnKeys()
MEDIAN = MedianKeys()

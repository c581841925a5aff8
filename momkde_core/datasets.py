"""The paper's six real data sets and its contamination protocol.

Data sets (``load_dataset``)
    ``iris``, ``breast_cancer``, ``digits`` come with scikit-learn (no download).
    ``banana``, ``german``, ``titanic`` are files of the IDA benchmark repository that are not
    bundled: they are read from a data directory, the first of

    1. the ``data_dir`` argument,
    2. the environment variable ``MOMKDE_DATA_DIR``,
    3. the user data folder :func:`default_data_dir` (``~/.local/share/momkde`` on Linux).

    Each is a gzip'd CSV ``<name>.csv.gz`` with header ``x1,...,xd,label`` and labels -1/+1,
    checked against the SHA-256 in :data:`IDA_SHA256` before it is parsed.

Outlier class
    Kim & Scott's protocol, which the paper follows: "the class labelled 0 is the outlier
    class". For iris that is setosa, for digits the digit 0, and for breast_cancer class 0 of
    scikit-learn's encoding, which is **malignant** (212 of 569): the malignant tumours are
    the outliers. For the IDA sets, whose labels are -1/+1, class -1 plays the role of class
    0 (banana -1; german -1 = good credit; titanic -1 = died). Another choice, such as the
    paper's digits variant with outlier class 1, is ``dataclasses.replace(ds, outlier_label=1)``.

Contamination (``contaminated_sample``)
    The paper's protocol: downsample the outlier class until |O| / n reaches the ratio; when
    there are too few outliers for it, keep them all and downsample the inliers instead;
    then standardise the features.

A user's own CSV is read by :mod:`momkde_core.io`.
"""

from __future__ import annotations

import hashlib
import io
import math
import numbers
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from sklearn.datasets import load_breast_cancer, load_digits, load_iris
from sklearn.preprocessing import StandardScaler
from sklearn.utils import Bunch, check_random_state

from momkde_core.synthetic import outlier_count

#: The environment variable naming the folder of the IDA files (after ``data_dir``).
DATA_DIR_ENV = "MOMKDE_DATA_DIR"

#: SHA-256 of the IDA files this module reads (the files of ``../shared/data/ida``).
IDA_SHA256: dict[str, str] = {
    "banana": "30b73612443328fb491c493c26be3facc137621b66cc8e91f5846d1c4e6f39b2",
    "german": "69664efcb71548722574950e1b483caddf4e9053a0eed4957197311572c6259f",
    "titanic": "e2df651029296d40ac6595c8b33a8841762023a9f58c2182bc99aa6253bdb8f4",
}
_IDA_OUTLIER_LABEL = -1
_SKLEARN_OUTLIER_LABEL = 0
_SKLEARN_LOADERS: dict[str, Callable[[], Bunch]] = {
    "breast_cancer": load_breast_cancer,
    "iris": load_iris,
    "digits": load_digits,
}


class _About(NamedTuple):
    """Where a data set comes from, and what to cite."""

    source: str
    citation: str


_IDA_REPOSITORY = "the IDA benchmark repository of G. Rätsch (http://www.raetschlab.org/Members/raetsch/benchmark/)"
_ABOUT: dict[str, _About] = {
    "banana": _About(
        source=f"Banana, synthetic 2-D set from {_IDA_REPOSITORY}; also redistributed under "
        "BSD-3-Clause with the MoM-KDE authors' code (https://github.com/lminvielle/mom-kde)",
        citation="G. Rätsch, T. Onoda, K.-R. Müller. Soft margins for AdaBoost. "
        "Machine Learning 42(3):287-320, 2001.",
    ),
    "german": _About(
        source=f"UCI Statlog German Credit, in the version of {_IDA_REPOSITORY}: categorical "
        "codes Axyz as the integers xyz, every column z-scored; label -1 = good credit, "
        "+1 = bad credit",
        citation="H. Hofmann. Statlog (German Credit Data). UCI Machine Learning Repository, "
        "1994. doi:10.24432/C5NC77 (CC BY 4.0).",
    ),
    "titanic": _About(
        source=f"Titanic, the 2201 people aboard (Dawson 1995), in the version of "
        f"{_IDA_REPOSITORY}: x1 = class, x2 = age, x3 = sex; label -1 = died, +1 = survived",
        citation="R. J. M. Dawson. The 'Unusual Episode' Data Revisited. Journal of Statistics "
        "Education 3(3), 1995.",
    ),
    "breast_cancer": _About(
        source="scikit-learn's load_breast_cancer: UCI Breast Cancer Wisconsin (Diagnostic); "
        "class 0 = malignant",
        citation="W. N. Street, W. H. Wolberg, O. L. Mangasarian. Nuclear feature extraction for "
        "breast tumor diagnosis. IS&T/SPIE Biomedical Image Processing and Biomedical "
        "Visualization, 1993.",
    ),
    "iris": _About(
        source="scikit-learn's load_iris: Fisher's iris data; class 0 = setosa",
        citation="R. A. Fisher. The use of multiple measurements in taxonomic problems. Annals "
        "of Eugenics 7(2):179-188, 1936.",
    ),
    "digits": _About(
        source="scikit-learn's load_digits: test set of UCI Optical Recognition of Handwritten "
        "Digits, 8x8 images",
        citation="E. Alpaydin, C. Kaynak. Optical Recognition of Handwritten Digits. UCI Machine "
        "Learning Repository, 1998. doi:10.24432/C50P49.",
    ),
}
#: The names :func:`load_dataset` accepts: the three IDA sets, then scikit-learn's three.
DATASETS: tuple[str, ...] = tuple(_ABOUT)


class DatasetNotFoundError(FileNotFoundError, ValueError):
    """A data set file is not in the data directory.

    Also a ValueError, the project's error for "the input cannot be used as it is", so a
    caller that reports ValueErrors to a person reports this one too. Its message names the
    folder searched, why that one, and the file's expected SHA-256.

    Examples
    --------
    >>> from momkde_core.datasets import DatasetNotFoundError
    >>> issubclass(DatasetNotFoundError, FileNotFoundError)
    True
    >>> issubclass(DatasetNotFoundError, ValueError)
    True
    """


@dataclass(frozen=True, eq=False)
class Dataset:
    """A labelled data set with one class playing the outliers.

    Returned by :func:`load_dataset`. Another outlier class is
    ``dataclasses.replace(ds, outlier_label=...)``.

    Attributes
    ----------
    name : str
        The canonical name (one of :data:`DATASETS`).
    X : ndarray of shape (n, d)
        The features, float.
    y : ndarray of shape (n,)
        The class labels.
    outlier_label : int
        The label of the outlier class.
    source : str
        Where the data come from.
    citation : str
        The reference to cite.

    Examples
    --------
    >>> import dataclasses
    >>> from momkde_core import load_dataset
    >>> ds = load_dataset("iris")
    >>> int(ds.is_outlier.sum()), int(dataclasses.replace(ds, outlier_label=1).is_outlier.sum())
    (50, 50)
    """

    name: str
    X: NDArray[np.float64]
    y: NDArray[np.int64]
    outlier_label: int
    source: str
    citation: str

    @property
    def is_outlier(self) -> NDArray[np.bool_]:
        """Boolean mask of the rows of the outlier class."""
        return self.y == self.outlier_label


def default_data_dir() -> Path:
    """The per-user folder searched last for data files.

    Returns
    -------
    path : Path
        ``%LOCALAPPDATA%\\momkde`` on Windows, ``~/Library/Application Support/momkde`` on
        macOS, ``$XDG_DATA_HOME/momkde`` (default ``~/.local/share/momkde``) elsewhere; it
        need not exist.

    See Also
    --------
    load_dataset : Searches ``data_dir``, then ``$MOMKDE_DATA_DIR``, then this folder.

    Examples
    --------
    >>> from momkde_core.datasets import default_data_dir
    >>> default_data_dir().name
    'momkde'
    """
    if os.name == "nt":
        base = os.environ.get("LOCALAPPDATA") or "~/AppData/Local"
    elif sys.platform == "darwin":
        base = "~/Library/Application Support"
    else:
        base = os.environ.get("XDG_DATA_HOME") or "~/.local/share"
    return Path(base).expanduser() / "momkde"


def load_dataset(name: str, data_dir: str | os.PathLike[str] | None = None) -> Dataset:
    """Load one of the paper's six real data sets, with its outlier class.

    ``iris``, ``breast_cancer`` and ``digits`` come with scikit-learn (no download);
    ``banana``, ``german`` and ``titanic`` are files of the IDA benchmark repository that are
    not bundled: a gzip'd CSV ``<name>.csv.gz`` (header ``x1,...,xd,label``, labels -1/+1),
    checked against the SHA-256 in :data:`IDA_SHA256` before it is parsed.

    Parameters
    ----------
    name : str
        One of :data:`DATASETS`, case-insensitive (``"breast-cancer"`` is accepted).
    data_dir : str or path-like, optional
        The folder of the IDA files; only used by banana, german and titanic. The folder
        searched is the first of this argument, the environment variable
        ``MOMKDE_DATA_DIR`` and :func:`default_data_dir`.

    Returns
    -------
    dataset : Dataset
        The features, the labels and the outlier class: Kim & Scott's protocol, which the
        paper follows, "the class labelled 0 is the outlier class" (iris: setosa; digits:
        the digit 0; breast_cancer: class 0 of scikit-learn's encoding, **malignant**, 212 of
        569); for the IDA sets, labelled -1/+1, class -1 (banana -1; german -1 = good
        credit; titanic -1 = died).

    Raises
    ------
    ValueError
        For an unknown name or a file whose SHA-256 does not match.
    DatasetNotFoundError
        For a missing file (also a FileNotFoundError and a ValueError).

    See Also
    --------
    momkde_core.datasets.contaminated_sample : The paper's subsampling to a given ratio.

    Examples
    --------
    >>> from momkde_core import load_dataset
    >>> ds = load_dataset("iris")
    >>> ds.name, ds.X.shape, ds.outlier_label, int(ds.is_outlier.sum())
    ('iris', (150, 4), 0, 50)
    """
    key = str(name).strip().lower().replace("-", "_").replace(" ", "_")
    if key not in _ABOUT:
        raise ValueError(f"unknown data set {name!r}; available: {', '.join(DATASETS)}")
    if key in IDA_SHA256:
        X, y = _read_ida_file(key, data_dir)
        outlier_label = _IDA_OUTLIER_LABEL
    else:
        bunch = _SKLEARN_LOADERS[key]()
        X, y = np.asarray(bunch.data, dtype=float), bunch.target
        outlier_label = _SKLEARN_OUTLIER_LABEL
    about = _ABOUT[key]
    return Dataset(
        name=key,
        X=X,
        y=y,
        outlier_label=outlier_label,
        source=about.source,
        citation=about.citation,
    )


def contaminated_sample(
    ds: Dataset, ratio: float, random_state: int | np.random.RandomState | None = None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Subsample ``ds`` to the outlier share |O| / n = ``ratio`` and standardise, as in the paper.

    All inliers are kept and round(ratio |I| / (1 - ratio)) outliers drawn without
    replacement; when the data set has fewer outliers than that, all outliers are kept and
    round(|O| (1 - ratio) / ratio) inliers are drawn instead. Rows are shuffled, then every
    feature is standardised on the resulting sample (scikit-learn's StandardScaler; a
    constant feature becomes 0).

    Parameters
    ----------
    ds : Dataset
        The data set (:func:`load_dataset`).
    ratio : float
        The share of outliers |O| / n, in (0, 1).
    random_state : int, RandomState or None, default None
        As in scikit-learn; the sample is deterministic for a given seed.

    Returns
    -------
    X : ndarray of shape (n, d)
        The standardised sample.
    is_outlier : ndarray of bool, shape (n,)
        True for the rows of the outlier class.

    Raises
    ------
    ValueError
        When ``ratio`` is not in (0, 1), when ``ds`` lacks one of the classes, or when the
        sample would hold no inlier or no outlier.

    Examples
    --------
    >>> from momkde_core import load_dataset
    >>> from momkde_core.datasets import contaminated_sample
    >>> iris = load_dataset("iris")  # 100 inliers, 50 outliers
    >>> X, is_outlier = contaminated_sample(iris, 0.1, random_state=0)
    >>> X.shape, int(is_outlier.sum())
    ((111, 4), 11)
    >>> X, is_outlier = contaminated_sample(iris, 0.5, random_state=0)  # too few outliers
    >>> X.shape, int(is_outlier.sum())
    ((100, 4), 50)
    """
    if isinstance(ratio, bool) or not isinstance(ratio, numbers.Real) or not 0.0 < ratio < 1.0:
        raise ValueError(
            f"ratio must be a number in (0, 1) (the share of outliers in the sample), got {ratio!r}"
        )
    rng = check_random_state(random_state)
    outliers = np.flatnonzero(ds.is_outlier)
    inliers = np.flatnonzero(~ds.is_outlier)
    if len(inliers) == 0 or len(outliers) == 0:
        raise ValueError(
            f"{ds.name!r} needs rows of both classes, but has {len(inliers)} inliers and "
            f"{len(outliers)} outliers (outlier_label={ds.outlier_label!r})"
        )
    n_out = outlier_count(len(inliers), ratio)
    n_in = len(inliers)
    if n_out > len(outliers):
        n_out = len(outliers)
        n_in = math.floor(n_out * (1.0 - ratio) / ratio + 0.5)
    if n_in == 0 or n_out == 0:
        raise ValueError(
            f"ratio {ratio} cannot be reached on {ds.name!r} ({len(inliers)} inliers, "
            f"{len(outliers)} outliers): the sample would hold {n_in} inliers and {n_out} outliers"
        )
    rows = rng.permutation(
        np.concatenate(
            [rng.choice(inliers, n_in, replace=False), rng.choice(outliers, n_out, replace=False)]
        )
    )
    return StandardScaler().fit_transform(ds.X[rows]), ds.is_outlier[rows]


def _read_ida_file(
    name: str, data_dir: str | os.PathLike[str] | None
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Features and -1/+1 labels of an IDA file, after checking that it exists and its hash."""
    if data_dir is not None:
        directory, chosen_by = Path(data_dir).expanduser(), "the data_dir argument"
    elif os.environ.get(DATA_DIR_ENV):
        directory, chosen_by = (
            Path(os.environ[DATA_DIR_ENV]).expanduser(),
            f"the environment variable {DATA_DIR_ENV}",
        )
    else:
        directory, chosen_by = default_data_dir(), "the default user data folder"
    path = directory / f"{name}.csv.gz"
    if not path.is_file():
        raise DatasetNotFoundError(
            f"data set {name!r} needs the file {path.name}, which is not in {directory} "
            f"(searched because of {chosen_by}). Put the file in that folder, pass data_dir=..., "
            f"or set {DATA_DIR_ENV} to the folder that holds it "
            f"(e.g. export {DATA_DIR_ENV}=/path/to/ida). The file is not bundled with momkde: "
            "it is a gzip'd CSV with header x1,...,xd,label (labels -1/+1) made from "
            f"{_ABOUT[name].source}. Expected SHA-256: {IDA_SHA256[name]}."
        )
    raw = path.read_bytes()
    digest = hashlib.sha256(raw).hexdigest()
    if digest != IDA_SHA256[name]:
        raise ValueError(
            f"{path} has SHA-256 {digest}, expected {IDA_SHA256[name]}: the file is corrupt "
            "or a different version; replace it with the original"
        )
    frame = pd.read_csv(io.BytesIO(raw), compression="gzip")
    return frame.drop(columns="label").to_numpy(dtype=float), frame["label"].to_numpy(
        dtype=np.int64
    )

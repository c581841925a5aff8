"""Tests of the real data sets, the paper's contamination protocol and the user CSV checks."""

from __future__ import annotations

import dataclasses
import gzip
import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from momkde_core import datasets
from momkde_core.datasets import DatasetNotFoundError, contaminated_sample, load_dataset
from momkde_core.io import numeric_matrix, read_user_csv

RATIOS = np.round(np.arange(0.05, 0.51, 0.05), 2)


@pytest.fixture
def no_data_dir_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """No MOMKDE_DATA_DIR and an empty home: the default folder is an empty one under tmp_path."""
    monkeypatch.delenv(datasets.DATA_DIR_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "momkde"


@pytest.mark.parametrize(
    ("name", "shape", "n_outliers"),
    [("banana", (5300, 2), 2924), ("german", (1000, 20), 700), ("titanic", (2201, 3), 1490)],
)
def test_ida_data_sets(ida_dir: Path, name: str, shape: tuple[int, int], n_outliers: int) -> None:
    ds = load_dataset(name, data_dir=ida_dir)
    assert ds.name == name and ds.X.shape == shape and ds.X.dtype == np.float64
    assert ds.outlier_label == -1 and set(np.unique(ds.y)) == {-1, 1}
    assert ds.is_outlier.sum() == n_outliers
    assert "Rätsch" in ds.source or "UCI" in ds.source
    assert ds.citation


@pytest.mark.parametrize(
    ("name", "shape", "n_outliers"),
    [("breast_cancer", (569, 30), 212), ("iris", (150, 4), 50), ("digits", (1797, 64), 178)],
)
def test_sklearn_data_sets_with_class_0_as_outliers(
    name: str, shape: tuple[int, int], n_outliers: int
) -> None:
    ds = load_dataset(name)
    assert ds.X.shape == shape and ds.X.dtype == np.float64
    assert ds.outlier_label == 0 and ds.is_outlier.sum() == n_outliers
    np.testing.assert_array_equal(ds.is_outlier, ds.y == 0)


def test_breast_cancer_outliers_are_the_malignant_tumours() -> None:
    from sklearn.datasets import load_breast_cancer

    assert load_breast_cancer().target_names[0] == "malignant"
    assert "malignant" in load_dataset("breast_cancer").source


@pytest.mark.parametrize("spelling", ["Breast-Cancer", " breast cancer ", "BREAST_CANCER"])
def test_names_are_case_and_separator_insensitive(spelling: str) -> None:
    assert load_dataset(spelling).name == "breast_cancer"


def test_unknown_name_lists_the_available_ones() -> None:
    with pytest.raises(ValueError, match="unknown data set 'mnist'; available: banana, german"):
        load_dataset("mnist")


def test_data_dir_from_the_environment(ida_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(datasets.DATA_DIR_ENV, str(ida_dir))
    assert load_dataset("titanic").X.shape == (2201, 3)


def test_default_folder_is_searched_last(ida_dir: Path, no_data_dir_env: Path) -> None:
    assert datasets.default_data_dir() == no_data_dir_env
    no_data_dir_env.mkdir(parents=True)
    shutil.copy(ida_dir / "titanic.csv.gz", no_data_dir_env)
    assert load_dataset("titanic").X.shape == (2201, 3)


def test_missing_file_says_what_where_how_and_whence(tmp_path: Path) -> None:
    with pytest.raises(DatasetNotFoundError) as info:
        load_dataset("german", data_dir=tmp_path)
    message = str(info.value)
    assert (
        "german.csv.gz" in message and str(tmp_path) in message and "data_dir argument" in message
    )
    assert "MOMKDE_DATA_DIR" in message and "UCI Statlog German Credit" in message
    assert datasets.IDA_SHA256["german"] in message
    assert isinstance(info.value, FileNotFoundError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(("name", "origin"), [("banana", "Rätsch"), ("titanic", "Dawson 1995")])
def test_missing_file_in_the_default_folder(no_data_dir_env: Path, name: str, origin: str) -> None:
    with pytest.raises(DatasetNotFoundError, match="default user data folder") as info:
        load_dataset(name)
    assert str(no_data_dir_env) in str(info.value) and origin in str(info.value)


def test_hash_mismatch_is_refused(tmp_path: Path) -> None:
    (tmp_path / "banana.csv.gz").write_bytes(gzip.compress(b"x1,x2,label\n0.0,1.0,-1\n"))
    with pytest.raises(ValueError, match=r"SHA-256 \w+, expected 30b73612"):
        load_dataset("banana", data_dir=tmp_path)


@pytest.mark.parametrize("name", ["iris", "breast_cancer"])
@pytest.mark.parametrize("ratio", RATIOS)
def test_contaminated_sample_reaches_the_ratio(name: str, ratio: float) -> None:
    ds = load_dataset(name)
    n_inliers, n_outliers = (~ds.is_outlier).sum(), ds.is_outlier.sum()
    X, is_outlier = contaminated_sample(ds, ratio, random_state=0)
    kept_out = is_outlier.sum()
    kept_in = len(X) - kept_out
    assert X.shape == (len(is_outlier), ds.X.shape[1])
    # one class is kept whole, the other downsampled; the share is the closest reachable
    assert kept_in == n_inliers or kept_out == n_outliers
    assert kept_in <= n_inliers and kept_out <= n_outliers
    assert abs(kept_out / len(X) - ratio) <= 1 / len(X)
    np.testing.assert_allclose(X.mean(axis=0), 0, atol=1e-10)
    np.testing.assert_allclose(X.std(axis=0), 1, rtol=1e-10)


@pytest.mark.parametrize(
    ("name", "ratio", "kept_in", "kept_out"),
    [
        ("iris", 0.1, 100, 11),  # round(0.1 * 100 / 0.9) outliers
        ("iris", 0.35, 93, 50),  # 54 outliers needed, 50 exist: round(50 * 0.65 / 0.35) inliers
        ("iris", 0.5, 50, 50),
        ("breast_cancer", 0.35, 357, 192),
        ("breast_cancer", 0.4, 318, 212),
    ],
)
def test_contaminated_sample_counts(name: str, ratio: float, kept_in: int, kept_out: int) -> None:
    _, is_outlier = contaminated_sample(load_dataset(name), ratio, random_state=1)
    assert ((~is_outlier).sum(), is_outlier.sum()) == (kept_in, kept_out)


def test_contaminated_sample_keeps_labels_with_their_rows_and_shuffles() -> None:
    X, is_outlier = contaminated_sample(load_dataset("iris"), 0.2, random_state=3)
    assert is_outlier.sum() == 25
    # petal length separates setosa (the outliers) from the other irises; standardising
    # is increasing per column, so it still does if each label stayed with its row
    assert X[is_outlier, 2].max() < X[~is_outlier, 2].min()
    assert 0 < is_outlier[: len(X) // 2].sum() < is_outlier.sum()  # not stored last or first


def test_contaminated_sample_is_deterministic() -> None:
    ds = load_dataset("breast_cancer")
    a = contaminated_sample(ds, 0.2, random_state=5)
    b = contaminated_sample(ds, 0.2, random_state=5)
    c = contaminated_sample(ds, 0.2, random_state=6)
    np.testing.assert_array_equal(a[0], b[0])  # (the same draws by the same code: to the bit)
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[0], c[0])


def test_contaminated_sample_with_another_outlier_class() -> None:
    ds = dataclasses.replace(load_dataset("digits"), outlier_label=1)
    _, is_outlier = contaminated_sample(ds, 0.05, random_state=0)
    assert is_outlier.sum() == round(0.05 * (1797 - 182) / 0.95)


@pytest.mark.parametrize("ratio", [0.0, 1.0, -0.2, 1.5, float("nan")])
def test_contaminated_sample_rejects_ratio_outside_0_1(ratio: float) -> None:
    with pytest.raises(ValueError, match=r"ratio must be a number in \(0, 1\)"):
        contaminated_sample(load_dataset("iris"), ratio)


def test_contaminated_sample_refuses_an_empty_class() -> None:
    ds = load_dataset("iris")
    tiny = dataclasses.replace(ds, X=ds.X[:60], y=ds.y[:60])  # 50 setosa, 10 others
    with pytest.raises(ValueError, match="would hold 10 inliers and 0 outliers"):
        contaminated_sample(tiny, 0.01)
    with pytest.raises(ValueError, match=r"150 inliers and 0 outliers \(outlier_label=7\)"):
        contaminated_sample(dataclasses.replace(ds, outlier_label=7), 0.2)


# --- user CSV ---------------------------------------------------------------------------


def csv_buffer(text: str) -> io.BytesIO:
    return io.BytesIO(text.encode("utf-8"))


def test_read_user_csv_reads_paths_and_buffers(tmp_path: Path) -> None:
    text = "a,b,name\n1,2.5,x\n3,4.5,y\n"
    (tmp_path / "f.csv").write_text(text)
    for source in (
        tmp_path / "f.csv",
        str(tmp_path / "f.csv"),
        csv_buffer(text),
        io.StringIO(text),
    ):
        frame = read_user_csv(source)
        assert list(frame.columns) == ["a", "b", "name"] and frame.shape == (2, 3)


@pytest.mark.parametrize("sep", [";", "\t", "|"])
def test_read_user_csv_guesses_the_separator(sep: str) -> None:
    frame = read_user_csv(csv_buffer(f"a{sep}b\n1{sep}2\n3{sep}4\n"))
    np.testing.assert_array_equal(frame.to_numpy(), [[1, 2], [3, 4]])


def test_read_user_csv_reads_one_column_and_a_utf8_bom() -> None:
    frame = read_user_csv(io.BytesIO("\ufeffvalue\n1\n2\n".encode("utf-8")))
    assert list(frame.columns) == ["value"] and frame["value"].tolist() == [1, 2]


@pytest.mark.parametrize(
    ("encoding", "expected"),
    [
        ("utf-8", "utf-8"),
        ("utf-8-sig", "utf-8"),
        ("utf-16", "utf-16"),
        ("utf-16-le", "utf-16-le"),
        ("utf-16-be", "utf-16-be"),
        ("utf-32", "utf-32"),
        ("latin-1", "cp1252"),
        ("cp1252", "cp1252"),
    ],
)
def test_read_user_csv_finds_the_encoding(encoding: str, expected: str) -> None:
    """Accented headers survive every common encoding (Latin-1 was mangled, UTF-16 refused)."""
    frame = read_user_csv(io.BytesIO("température,humidité\n1.5,2\n3,4\n".encode(encoding)))
    assert list(frame.columns) == ["température", "humidité"]
    assert frame.attrs["encoding"] == expected and frame["température"].tolist() == [1.5, 3.0]


def test_read_user_csv_reads_decimal_commas_after_semicolons() -> None:
    frame = read_user_csv(csv_buffer("a;b;name\n1,5;2;x\n-3,25;4,0;y\n"))
    assert frame["a"].tolist() == [1.5, -3.25] and frame["b"].tolist() == [2.0, 4.0]
    assert (frame.attrs["separator"], frame.attrs["decimal"]) == (";", ",")
    points = read_user_csv(csv_buffer("a;b\n1.5;2\n3.5;4\n"))  # decimal points stay points
    assert points.attrs["decimal"] == "." and points["a"].tolist() == [1.5, 3.5]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the file is empty"),
        (b"\n\n  \n", "the file is empty"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary"),
        (b"a,b\n1,2\n3,4,5,6\n", "could not be read as CSV: .*Expected 2 fields in line 3"),
        (b"a,b\n1,2,3\n4,5,6\n", "more fields than the header"),
        (b"a,b\n1,2,\n3,4,\n", "more fields than the header"),
        (b"a,b\n", "no data rows"),
        (b"name,city\nann,paris\nbob,rome\n", "no numeric column .*name, city"),
    ],
)
def test_read_user_csv_errors(content: bytes, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        read_user_csv(io.BytesIO(content))


def test_read_user_csv_size_limit() -> None:
    with pytest.raises(ValueError, match="larger than the limit of 10 bytes"):
        read_user_csv(csv_buffer("a,b\n1,2\n3,4\n"), max_bytes=10)
    assert read_user_csv(csv_buffer("a,b\n1,2\n3,4\n"), max_bytes=12).shape == (2, 2)


FRAME = pd.DataFrame(
    {
        "x": [1.0, 2.0, 3.0, 4.0],
        "y": [0.5, np.nan, 1.5, np.nan],
        "label": ["a", "b", "c", "d"],
        "mixed": ["1", "2", "oops", "4"],
        "const": [7.0, 7.0, 7.0, 7.0],
        "z": [1.0, np.inf, 0.0, 2.0],
        "w": [4.0, 3.0, 2.0, 1.0],
    },
    index=[10, 11, 12, 13],
)


def test_numeric_matrix_returns_the_selected_columns() -> None:
    X = numeric_matrix(FRAME, ["w", "x"])
    assert X.dtype == np.float64
    np.testing.assert_array_equal(X, [[4.0, 1.0], [3.0, 2.0], [2.0, 3.0], [1.0, 4.0]])
    np.testing.assert_array_equal(numeric_matrix(FRAME, "x"), [[1.0], [2.0], [3.0], [4.0]])


def test_numeric_matrix_drops_missing_rows_on_request() -> None:
    X, kept = numeric_matrix(FRAME, ["x", "y", "z"], drop_missing=True)
    np.testing.assert_array_equal(X, [[1.0, 0.5, 1.0], [3.0, 1.5, 0.0]])
    assert kept.tolist() == [10, 12]


@pytest.mark.parametrize(
    ("columns", "message"),
    [
        (["x", "nope"], "no column named 'nope'; columns are: x, y, label"),
        ([], "select at least one column"),
        (["x", "label"], "column 'label' is not numeric: data row 1 holds 'a' \\(4 non-numeric"),
        (["mixed"], "column 'mixed' is not numeric: data row 3 holds 'oops' \\(1 non-numeric"),
        (
            ["x", "y", "z"],
            (
                r"2 row\(s\) have missing or infinite values \(per column: 'y': 2, 'z': 1\)"
                r".*drop_missing=True"
            ),
        ),
        (["x", "const"], "column\\(s\\) 'const' are constant"),
    ],
)
def test_numeric_matrix_errors_name_the_column(columns: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        numeric_matrix(FRAME, columns)


def test_numeric_matrix_needs_two_complete_rows() -> None:
    with pytest.raises(ValueError, match="at least 2 complete rows are needed, 1 left"):
        numeric_matrix(FRAME.iloc[:2], ["x", "y"], drop_missing=True)


def test_text_in_numeric_columns_flags_numbers_with_typos():
    from momkde_core.io import text_in_numeric_columns

    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": ["1", "oops", "3"], "name": ["a", "b", "c"]})
    assert text_in_numeric_columns(df) == ["y"]
    with pytest.raises(ValueError, match="'y' is not numeric: data row 2 holds 'oops'"):
        numeric_matrix(df, ["y"])

"""CSV injection: formula-like cells are escaped in every CSV the project writes."""

import io

import numpy as np
import pandas as pd
import pytest

from momkde_core.io import escape_formulas, is_formula_like, to_csv_text, write_csv
from momkde_core.io._csv_safety import FORMULA_STARTS


@pytest.mark.parametrize(
    "cell",
    [
        '=HYPERLINK("http://x","click")',
        "+1+1",
        "-2+3",
        "@SUM(A1:A9)",
        "\t=1",
        "\r=1",
        "=",
        "-",
        "+33 6 12 34 56",
        "-inf",
        "-1,5",
    ],
)
def test_each_dangerous_start_is_escaped(cell):
    assert is_formula_like(cell)
    out = escape_formulas(pd.DataFrame({"c": [cell]}))
    assert out["c"].tolist() == ["'" + cell]


def test_every_prefix_is_covered():
    assert set(FORMULA_STARTS) == {"=", "+", "-", "@", "\t", "\r"}
    for start in FORMULA_STARTS:
        assert is_formula_like(start + "cmd|' /C calc'!A0")


@pytest.mark.parametrize(
    "cell", ["-1.5", "+3", "-2", "-.5", "-1e-3", "+2.5E+10", "text", "a=b", " =1", "", "1-2"]
)
def test_numbers_and_harmless_text_are_untouched(cell):
    assert not is_formula_like(cell)
    assert escape_formulas(pd.DataFrame({"c": [cell]}))["c"].tolist() == [cell]


def test_numeric_columns_and_missing_values_are_untouched():
    df = pd.DataFrame(
        {
            "x": [-1.5, -2.0, np.nan],
            "n": [-1, 2, 3],
            "b": [True, False, True],
            "t": ["=1", None, "ok"],
        }
    )
    out = escape_formulas(df)
    pd.testing.assert_frame_equal(out[["x", "n", "b"]], df[["x", "n", "b"]])
    assert out["t"].tolist()[0] == "'=1" and pd.isna(out["t"].tolist()[1])
    assert df["t"].tolist()[0] == "=1"  # a copy: the input is not modified


def test_header_cells_are_escaped():
    df = pd.DataFrame({"=cmd()": [1], "-2+3": [2], "-1.5": [3], "ok": [4]})
    text = to_csv_text(df)
    assert text.splitlines()[0] == "'=cmd(),'-2+3,-1.5,ok"
    assert list(df.columns) == ["=cmd()", "-2+3", "-1.5", "ok"]


def test_categorical_string_and_mixed_columns():
    df = pd.DataFrame(
        {
            "cat": pd.Categorical(["=x", "y", "=x"]),
            "str": pd.array(["@a", None, "b"], dtype="string"),
            "mixed": [1, "=2", 3.5],
        }
    )
    out = escape_formulas(df)
    assert out["cat"].tolist() == ["'=x", "y", "'=x"]
    assert out["str"].tolist()[0] == "'@a" and out["str"].tolist()[2] == "b"
    assert out["mixed"].tolist() == [1, "'=2", 3.5]


def test_round_trip_through_pandas(tmp_path):
    cells = [
        '=HYPERLINK("http://x")',
        "+1",
        "-2+3",
        "@SUM(A1)",
        "\tx",
        "\r=1",
        "-1.5",
        "plain, with comma",
        "two\nlines",
    ]
    df = pd.DataFrame({"text": cells, "x": np.linspace(-1, 1, len(cells)) / 3, "n": range(-4, 5)})
    expected = [("'" + c if is_formula_like(c) else c) for c in cells]
    for written in (to_csv_text(df), _written(df, tmp_path / "out.csv")):
        back = pd.read_csv(io.StringIO(written))
        assert back["text"].tolist() == expected
        np.testing.assert_array_equal(back["x"], df["x"])  # floats exactly, not rounded
        np.testing.assert_array_equal(back["n"], df["n"])
        assert "index" not in back.columns and list(back.columns) == ["text", "x", "n"]


def test_write_csv_appends_chunks_to_an_open_file(tmp_path):
    path = tmp_path / "chunks.csv"
    df = pd.DataFrame({"a": ["=1", "b", "@c"], "x": [1.0, 2.0, 3.0]})
    with open(path, "w", newline="") as fh:
        write_csv(df.iloc[:2], fh)
        write_csv(df.iloc[2:], fh, header=False)
    assert pd.read_csv(path)["a"].tolist() == ["'=1", "b", "'@c"]
    assert path.read_bytes().endswith(b"\r\n")  # RFC 4180 line ends


def _written(df, path):
    write_csv(df, path)
    return path.read_bytes().decode("utf-8")

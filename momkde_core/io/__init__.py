"""Reading a user's CSV with checks a person can act on, and writing CSV files safely.

:func:`read_user_csv` (the app's upload page) and :func:`sniff_csv_file` /
:func:`read_csv_chunks` (``momkde score``, file by file in chunks) read; the ``check_*``
functions and :func:`numeric_matrix` turn the chosen columns into a float matrix or raise a
``ValueError`` naming the row and column to fix. :func:`write_csv` and :func:`to_csv_text`
write every CSV this project produces, with formula-like cells escaped (:func:`escape_formulas`,
:func:`escape_cell`, :func:`is_formula_like`) and lines ending with ``LINE_END`` (CRLF, as RFC
4180 says).
"""

from ._checks import (
    check_data_rows,
    check_enough_rows,
    check_has_numeric_column,
    check_not_constant,
    check_numeric_columns,
    float_columns,
    missing_values_error,
    numeric_matrix,
    text_in_numeric_columns,
)
from ._csv_safety import (
    LINE_END,
    escape_cell,
    escape_formulas,
    is_formula_like,
    to_csv_text,
    write_csv,
)
from ._user_csv import CsvFormat, read_csv_chunks, read_user_csv, sniff_csv_file

__all__ = [
    "LINE_END",
    "CsvFormat",
    "check_data_rows",
    "check_enough_rows",
    "check_has_numeric_column",
    "check_not_constant",
    "check_numeric_columns",
    "escape_cell",
    "escape_formulas",
    "float_columns",
    "is_formula_like",
    "missing_values_error",
    "numeric_matrix",
    "read_csv_chunks",
    "read_user_csv",
    "sniff_csv_file",
    "text_in_numeric_columns",
    "to_csv_text",
    "write_csv",
]

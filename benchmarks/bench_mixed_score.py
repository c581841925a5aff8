"""``momkde score`` on a mixed table: 5 numeric and 5 categorical columns against the
numeric columns alone, and IsolationForest on one-hot columns beside it.

Run: ``python benchmarks/bench_mixed_score.py [--rows N] [--write-docs]`` (default 1,000,000).

The file: 5 standard normal columns, the first shifted by its row's level of the first
categorical column; 5 categorical columns of 3, 4, 5, 8 and 12 text levels of unequal
frequencies. Each command runs once, wall clock, end to end (read, fit on its sample,
score every row, write): ``momkde score`` with its default detector on the 10 columns, then
on the 5 numeric columns (``--columns``); and a pandas + scikit-learn script that reads the
file, one-hot encodes the categorical columns (``pandas.get_dummies``), fits
IsolationForest on 20,000 rows, scores every row and writes the file. The target of issue
45: the mixed table within 2x the time of the numeric columns alone.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd
from _docs_tables import machine_line, write_section  # (a sibling: run as a script)

LEVELS = (3, 4, 5, 8, 12)
NUMERIC = [f"x{j}" for j in range(5)]
CATEGORICAL = [f"c{j}" for j in range(5)]

IFOREST_SCRIPT = """
import sys
import numpy as np, pandas as pd
from sklearn.ensemble import IsolationForest
data, out = sys.argv[1], sys.argv[2]
df = pd.read_csv(data)
X = pd.get_dummies(df, columns={categorical!r}, dtype=float).to_numpy()
rng = np.random.default_rng(0)
fit = X[rng.choice(len(X), min(20000, len(X)), replace=False)]
forest = IsolationForest(random_state=0).fit(fit)
df["score"] = forest.decision_function(X)
df["is_outlier"] = df["score"] < 0
df.to_csv(out, index=False)
"""


def write_table(path: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    columns = {}
    codes = []
    for j, c in enumerate(LEVELS):
        p = np.arange(1, c + 1, dtype=float)[::-1]
        code = rng.choice(c, n, p=p / p.sum())
        codes.append(code)
        columns[CATEGORICAL[j]] = np.array([f"level_{j}_{k}" for k in range(c)])[code]
    for j, name in enumerate(NUMERIC):
        columns[name] = rng.standard_normal(n) + (2.0 * codes[0] if j == 0 else 0.0)
    pd.DataFrame(columns)[NUMERIC + CATEGORICAL].to_csv(path, index=False, float_format="%.6g")


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--write-docs", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        data, out = Path(folder) / "mixed.csv", Path(folder) / "out.csv"
        write_table(data, args.rows)
        score = [
            sys.executable,
            "-m",
            "momkde_core.cli",
            "score",
            str(data),
            "--out",
            str(out),
            "-q",
        ]
        mixed = timed(score)
        numeric = timed([*score, "--columns", *NUMERIC])
        script = Path(folder) / "iforest.py"
        script.write_text(IFOREST_SCRIPT.format(categorical=CATEGORICAL))
        forest = timed([sys.executable, str(script), str(data), str(out)])
    table = "\n".join(
        [
            "| file | command | total | ratio to the numeric columns alone |",
            "|---|---|---|---|",
            f"| {args.rows:,} x (5 numeric + 5 categorical) | momkde score (every column) "
            f"| {mixed:.1f} s | {mixed / numeric:.2f}x |",
            f"| {args.rows:,} x (5 numeric + 5 categorical) | momkde score --columns x0 .. x4 "
            f"| {numeric:.1f} s | 1.00x |",
            f"| {args.rows:,} x (5 numeric + 5 categorical) | pandas + one-hot + "
            f"IsolationForest | {forest:.1f} s | {forest / numeric:.2f}x |",
            "",
            machine_line(),
        ]
    )
    print(table)
    if args.write_docs:
        write_section("mixed-score", table)


if __name__ == "__main__":
    main()

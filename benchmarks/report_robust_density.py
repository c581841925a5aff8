"""Markdown tables of the robust-density runs, for docs/robust_density.md.

Run: ``python benchmarks/report_robust_density.py eval robust_density.csv`` (the comparison of
benchmarks/bench_robust_density.py) or ``... dev screen_design.csv`` (the design study of
benchmarks/studies/screen_design_study.py). A "win" is a cell (setting, ratio, size, seed) where the
method's JS to the true inlier density is below the reference's (KDE-cv unless named); ties
count as losses. Ratios are the method's JS over KDE-cv's in the same cell.
"""

from __future__ import annotations

import argparse

import pandas as pd

KEYS = ["setting", "ratio", "n", "seed"]


def _with_reference(df: pd.DataFrame, method_col: str, reference: str) -> pd.DataFrame:
    ref = df[df[method_col] == reference].drop_duplicates(KEYS).set_index(KEYS).js.rename("ref")
    out = df[df[method_col] != reference].join(ref, on=KEYS)
    out["win"] = out.js < out.ref
    out["rel"] = out.js / out.ref
    return out


def _table(frame: pd.DataFrame, index: str, columns: str, value: str, how: str) -> str:
    pivot = frame.pivot_table(index=index, columns=columns, values=value, aggfunc=how)
    return pivot.to_markdown(floatfmt=".2f", missingval="-")


def report(kind: str, path: str) -> str:
    df = pd.read_csv(path)
    col = "rule" if kind == "dev" else "method"
    if kind == "dev":
        df = df.drop_duplicates(KEYS + ["stated", col])
    d = _with_reference(df, col, "kde_cv")
    cont, clean = d[d.ratio > 0], d[d.ratio == 0]
    parts = [
        f"{len(df.drop_duplicates(KEYS))} cells ({cont.drop_duplicates(KEYS).shape[0]} "
        f"contaminated, {clean.drop_duplicates(KEYS).shape[0]} clean)"
    ]
    parts += [
        "\nShare of contaminated cells where the method beats KDE-cv, by the share stated:\n",
        _table(cont, col, "stated", "win", "mean"),
        "\nMedian JS ratio to KDE-cv, contaminated cells:\n",
        _table(cont, col, "stated", "rel", "median"),
    ]
    true = cont[cont.stated == "true"]
    parts += [
        "\nWins against KDE-cv by setting (share stated true):\n",
        _table(true, col, "setting", "win", "mean"),
    ]
    if kind == "eval":
        per_cell = cont.set_index(KEYS + ["stated", col]).js.unstack(col)
        duel = (per_cell.screened_kde < per_cell.mom_kde).rename("win").reset_index()
        parts += [
            "\nScreenedKDE beats MoM-KDE (the same stated share), share of cells:\n",
            _table(duel, "setting", "stated", "win", "mean"),
        ]
        others = true.pivot_table(
            index=col, values=["win", "rel"], aggfunc={"win": "mean", "rel": "median"}
        )
        parts += [
            "\nEvery method at the true share: wins against KDE-cv and median JS ratio:\n",
            others.to_markdown(floatfmt=".2f", missingval="-"),
        ]
    if len(clean):
        parts += [
            "\nClean densities: median JS ratio to KDE-cv, by share stated:\n",
            clean.pivot_table(
                index=col, columns=["setting", "stated"], values="rel", aggfunc="median"
            ).to_markdown(floatfmt=".2f", missingval="-"),
        ]
    if "error" in df and df.error.notna().any():
        parts += [
            f"\nFits that raised: {int(df.error.notna().sum())}: "
            + "; ".join(sorted(set(df.error.dropna())))
        ]
    return "\n".join(parts)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind", choices=("dev", "eval"))
    parser.add_argument("csv")
    args = parser.parse_args(argv)
    print(report(args.kind, args.csv))


if __name__ == "__main__":
    main()

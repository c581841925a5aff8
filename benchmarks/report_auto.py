"""Markdown tables of "Choosing S and h without an oracle" (docs/reproduction.md) from results CSVs.

    python benchmarks/report_auto.py contaminated.csv.gz [--clean clean.csv.gz]
                                     [--methods kde mom_kde_oracle mom_kde_auto ...]

For each scheme: mean JS x 1000 per method (rows) and ratio (columns); then the number of the
12 cells (4 schemes x ratios 0.05 / 0.1 / 0.2) where each method beats the KDE with the CV
bandwidth (``kde``); with ``--clean``, mean JS x 1000 per clean density and the ratio to ``kde``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

GOAL_RATIOS = (0.05, 0.1, 0.2)


def js_means(df: pd.DataFrame) -> pd.DataFrame:
    """Mean JS x 1000 indexed by (source, method), one column per ratio."""
    js = df[df["metric"] == "js"]
    return (js.groupby(["source", "method", "ratio"])["value"].mean() * 1000).unstack("ratio")


def markdown(table: pd.DataFrame, digits: int = 1) -> str:
    """A DataFrame as a Markdown table (the index as the first column)."""
    head = [str(table.index.name or "")] + [str(c) for c in table.columns]
    n_columns = sum(cell.count("|") + 1 for cell in head)  # "source | ratio" spans two
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * n_columns]
    for key, row in table.iterrows():
        cells = [f"{v:.{digits}f}" if isinstance(v, float) else str(v) for v in row]
        lines.append("| " + " | ".join([str(key)] + cells) + " |")
    return "\n".join(lines)


def wins_over_kde(means: pd.DataFrame, methods: list[str]) -> pd.Series:
    """How many of the goal cells (schemes x GOAL_RATIOS) each method has a lower JS than kde."""
    cols = [c for c in means.columns if any(abs(c - r) < 1e-9 for r in GOAL_RATIOS)]
    kde = means.xs("kde", level="method")[cols]
    return pd.Series(
        {
            m: int((means.xs(m, level="method")[cols] < kde).to_numpy().sum())
            for m in methods
            if m != "kde"
        },
        name=f"cells won of {kde.size}",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--clean", type=Path, default=None)
    parser.add_argument("--methods", nargs="+", default=None)
    args = parser.parse_args()
    means = js_means(pd.read_csv(args.results))
    methods = args.methods or list(pd.unique(means.index.get_level_values("method")))
    for source in pd.unique(means.index.get_level_values("source")):
        table = means.loc[source].reindex([m for m in methods if m in means.loc[source].index])
        table.index.name = source
        print(markdown(table) + "\n")
    wins = wins_over_kde(means, methods)
    print(markdown(wins.to_frame().rename_axis("method"), digits=0) + "\n")
    if args.clean is not None:
        clean = js_means(pd.read_csv(args.clean)).iloc[:, 0].unstack("source")
        clean = clean.reindex([m for m in methods if m in clean.index])
        ratio = clean.div(clean.loc["kde"]).add_suffix(" / kde")
        both = pd.concat([clean, ratio], axis=1)
        both.index.name = "method"
        print(markdown(both, digits=2))


if __name__ == "__main__":
    main()

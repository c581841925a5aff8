"""Markdown tables of a reproduction (docs/reproduction.md) from its results CSV(s).

    python benchmarks/report_reproduction.py results.csv.gz [more.csv.gz ...] [--ratios 0.1 0.25 0.5]

Several tables are read as one (e.g. a stored sweep of repetitions 0..9 and its extension
``--first-rep 10``); a sample present in two of them is an error. Synthetic tables: mean JS
and mean AUC per scheme x ratio x method at the chosen ratios; the number of ratios (of all in
the table) at which one method's mean JS is strictly below another's, for the comparisons the
document discusses; the share of samples where the oracle picks S = 1. Real data (AUC only):
the repetitions per cell, mean AUC at the chosen ratios, and the number of ratios at which
each method's mean AUC is above the KDE's.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd
from report_auto import markdown

COMPARISONS: tuple[tuple[str, str], ...] = (
    ("mom_kde_auto", "kde"),
    ("mom_kde_oracle", "kde"),
    ("mom_kde_oracle_blockh", "kde"),
    ("mom_kde", "kde"),
    ("mom_kde_blockh", "kde"),
    ("mom_kde_auto", "rkde"),
    ("mom_kde_auto", "spkde"),
    ("mom_kde_oracle", "rkde"),
    ("mom_kde_oracle", "spkde"),
)


def means_at(df: pd.DataFrame, metric: str, ratios: list[float]) -> pd.DataFrame:
    """Mean ``metric`` with one row per (source, ratio) and one column per method."""
    part = df[
        (df["metric"] == metric)
        & np.isclose(df["ratio"].to_numpy()[:, None], np.asarray(ratios)).any(axis=1)
    ]
    table = part.pivot_table(
        index=["source", "ratio"], columns="method", values="value", aggfunc="mean", sort=False
    )
    methods = [m for m in pd.unique(df["method"]) if m in table.columns]
    table = table[methods]
    table.index = [f"{s} | {r:g}" for s, r in table.index]
    table.index.name = "source | ratio"
    return table


def wins(df: pd.DataFrame) -> pd.DataFrame:
    """Ratios at which the first method's mean JS is strictly below the second's, per source."""
    js = df[df["metric"] == "js"].groupby(["source", "ratio", "method"])["value"].mean()
    js = js.unstack("method")
    rows = {}
    for first, second in COMPARISONS:
        if first in js.columns and second in js.columns:
            below = (js[first] < js[second]).groupby(level="source", sort=False).sum()
            rows[f"{first} < {second}"] = below
    table = pd.DataFrame(rows).T
    table.index.name = "mean JS below, ratios of 10"
    return table.astype(int)


def oracle_s1_share(df: pd.DataFrame) -> pd.Series:
    """Share of samples (%) where the oracle's S is 1 (the KDE), per source."""
    rows = df[(df["method"] == "mom_kde_oracle") & (df["metric"] == "js")]
    return (
        rows.groupby("source", sort=False)["n_blocks"]
        .apply(lambda s: 100 * (s == 1).mean())
        .round(0)
    )


def auc_above_kde(df: pd.DataFrame) -> pd.DataFrame:
    """Ratios at which each method's mean AUC is strictly above the KDE's, per source."""
    auc = df[df["metric"] == "auc"].groupby(["source", "ratio", "method"], sort=False)["value"]
    auc = auc.mean().unstack("method")
    rows = {
        f"{m} > kde": (auc[m] > auc["kde"]).groupby(level="source", sort=False).sum()
        for m in pd.unique(df["method"])
        if m != "kde"
    }
    table = pd.DataFrame(rows).T
    table.index.name = "mean AUC above the KDE, ratios of 10"
    return table.astype(int)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path, nargs="+")
    parser.add_argument("--ratios", type=float, nargs="+", default=[0.1, 0.25, 0.5])
    args = parser.parse_args()
    df = pd.concat([pd.read_csv(path) for path in args.results], ignore_index=True)
    if df.duplicated(["source", "ratio", "rep", "method", "metric"]).any():
        raise SystemExit("a sample is in two of the tables")
    if not (df["metric"] == "js").any():  # real data
        reps = df.drop_duplicates("seed").groupby(["source", "ratio"]).size()
        print(f"repetitions per cell: {reps.min()} to {reps.max()}\n")
        print(f"Mean AUC:\n\n{markdown(means_at(df, 'auc', args.ratios), digits=3)}\n")
        print(markdown(auc_above_kde(df), digits=0))
        return
    for metric in ("js", "auc"):
        print(f"Mean {metric}:\n\n{markdown(means_at(df, metric, args.ratios), digits=3)}\n")
    print(markdown(wins(df), digits=0) + "\n")
    print(
        "Oracle picks S = 1 (% of samples): "
        + ", ".join(f"{s} {v:.0f} %" for s, v in oracle_s1_share(df).items())
    )
    n_inf = int((~np.isfinite(df.loc[df["metric"].str.startswith("kl"), "value"])).sum())
    print(f"KL values that are infinite or NaN: {n_inf}")


if __name__ == "__main__":
    main()

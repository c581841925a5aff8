"""The default bandwidth of categorical columns: "rule" against "cv", on planted mixed tables.

Run: ``python benchmarks/studies/mixed_defaults.py`` (a few minutes); it prints a Markdown table.

Written, with its decision rule, before any result was seen. Tables (``n`` rows, seeds 0-4):

* ``staff``: a role (intern 30 %, engineer 50 %, manager 20 %) sets the salary (20, 60,
  100, sd 5); a country (3, uniform) sets the city (one per country); age independent
  (normal 40, 8). Planted anomalies (5 % of the rows): a salary of another role, or a city
  of another country.
* ``independent``: three categorical columns (2, 5 and 12 levels, unequal frequencies)
  independent of two normal continuous columns. Planted: continuous values 4 sd out.
* ``ordered``: an ordered level (5 levels) shifts a continuous column (mean 2 x level, sd
  1) beside a second normal column. Planted: a level 3 steps from its value's (2 from the
  middle level, which has no level 3 steps away).
* ``wide``: a 20-level category, each level with its own mean of a continuous column
  (normal, sd 1, means 0..19 x 3 shuffled once, the same for every table), and a 4-level
  category independent of it.
  Planted: the continuous value of another level.

Measures, per table and setting: the held-out log-likelihood per row of ``KDE`` fitted on a
clean table of n rows (scored on n other clean rows), and the ROC AUC of the planted rows
among a contaminated table's by the default detector's estimator with that setting
(``MoMKDE(n_blocks=21, bandwidth="scott")``, as ``OutlierDetector()``), mean over seeds.

Decision rule (fixed before running): the default is the setting with the higher mean AUC
over the four tables, unless its clean held-out log-likelihood is below the other's by more
than 0.05 nats per row on some table; an AUC difference below 0.005 is a tie, won by
"rule" (no search, no subsample).

A finished design study: benchmarks/README.md names the commit whose code it measured and
how to rerun it there (run on today's code, it measures today's rule, not the stored one).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from momkde_core import KDE, MoMKDE

SETTINGS = ("rule", "cv")
SEEDS = range(5)
N_ROWS = 1000
SHARE = 0.05


def staff(n: int, rng: np.random.Generator, planted: int) -> pd.DataFrame:
    role = rng.choice(["intern", "engineer", "manager"], n, p=[0.3, 0.5, 0.2])
    salary = np.select([role == "intern", role == "engineer"], [20.0, 60.0], 100.0)
    country = rng.choice(["FR", "DE", "US"], n)
    city = pd.Series(country).map({"FR": "Paris", "DE": "Berlin", "US": "NYC"}).to_numpy()
    table = pd.DataFrame(
        {
            "salary": salary + rng.normal(0, 5, n),
            "age": rng.normal(40, 8, n),
            "role": role,
            "country": country,
            "city": city,
        }
    )
    half = planted // 2
    table.loc[: half - 1, "salary"] = np.where(role[:half] == "manager", 20.0, 100.0)
    table.loc[half : planted - 1, "city"] = (
        pd.Series(country[half:planted]).map({"FR": "NYC", "DE": "Paris", "US": "Berlin"}).values
    )
    return table


def independent(n: int, rng: np.random.Generator, planted: int) -> pd.DataFrame:
    table = pd.DataFrame(
        {
            "x": rng.normal(0, 1, n),
            "y": rng.normal(0, 1, n),
            "a": rng.choice(["yes", "no"], n, p=[0.8, 0.2]),
            "b": rng.choice(list("vwxyz"), n, p=[0.4, 0.3, 0.15, 0.1, 0.05]),
            "c": rng.choice([f"k{i}" for i in range(12)], n),
        }
    )
    table.loc[: planted - 1, "x"] = 4.0 * rng.choice([-1, 1], planted)
    return table


def ordered(n: int, rng: np.random.Generator, planted: int) -> pd.DataFrame:
    level = rng.integers(0, 5, n)
    value = 2.0 * level + rng.normal(0, 1, n)
    first = level[:planted]  # 3 levels away where the scale allows it, else 2 (from "mid")
    level[:planted] = np.select([first >= 3, first <= 1], [first - 3, first + 3], 4)
    names = ["none", "low", "mid", "high", "top"]
    return pd.DataFrame(
        {
            "value": value,
            "other": rng.normal(0, 1, n),
            "level": pd.Categorical(np.array(names)[level], categories=names, ordered=True),
        }
    )


def wide(n: int, rng: np.random.Generator, planted: int) -> pd.DataFrame:
    means = np.random.default_rng(20).permutation(20) * 3.0  # (one map for train and test)
    code = rng.integers(0, 20, n)
    value = means[code] + rng.normal(0, 1, n)
    value[:planted] = means[(code[:planted] + 7) % 20] + rng.normal(0, 1, planted)
    return pd.DataFrame(
        {
            "value": value,
            "product": np.array([f"p{i:02d}" for i in range(20)])[code],
            "shop": rng.choice(["north", "south", "east", "west"], n),
        }
    )


TABLES = {"staff": staff, "independent": independent, "ordered": ordered, "wide": wide}


def run() -> pd.DataFrame:
    rows = []
    for name, make in TABLES.items():
        for setting in SETTINGS:
            for seed in SEEDS:
                rng = np.random.default_rng(seed)
                train, test = make(N_ROWS, rng, 0), make(N_ROWS, rng, 0)
                start = time.perf_counter()
                kde = KDE(categorical_bandwidth=setting).fit(train)
                seconds = time.perf_counter() - start
                held_out = float(np.mean(kde.score_samples(test)))
                planted = int(SHARE * N_ROWS)
                dirty = make(N_ROWS, rng, planted)
                truth = np.zeros(N_ROWS, bool)
                truth[:planted] = True
                est = MoMKDE(
                    n_blocks=21,
                    bandwidth="scott",
                    normalize=False,
                    categorical_bandwidth=setting,
                    random_state=seed,
                ).fit(dirty)
                auc = roc_auc_score(truth, -est.score_samples(dirty))
                rows.append(
                    {
                        "table": name,
                        "setting": setting,
                        "seed": seed,
                        "held_out": held_out,
                        "auc": auc,
                        "fit_s": seconds,
                        "lambdas": np.round(kde.categorical_bandwidth_, 4).tolist(),
                    }
                )
    return pd.DataFrame(rows)


def main() -> None:
    results = run()
    summary = results.groupby(["table", "setting"]).agg(
        held_out=("held_out", "mean"), auc=("auc", "mean"), fit_s=("fit_s", "mean")
    )
    print(summary.round(4).to_markdown())
    print()
    print(results.groupby(["table", "setting"])["lambdas"].first().to_markdown())
    means = summary.groupby("setting")["auc"].mean()
    print()
    print("mean AUC over the tables:", means.round(4).to_dict())


if __name__ == "__main__":
    main()

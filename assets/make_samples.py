"""Write the sample CSVs of the app's "Your data" page (run: python assets/make_samples.py).

Small synthetic tables with a known outlier label, each teaching one thing (the page says
which): ``sensor_glitches.csv``, where MoM-KDE wins (a stuck-value glitch is a tight cluster
the KDE grows a hill on and the median of blocks ignores); ``spike_on_a_mode.csv``, where a
spike defeats every density method (outliers on an inlier mode look like the most normal
points); ``card_transactions.csv``, a real-looking table (id, timestamp and text columns, a
label found by its name); ``staff.csv``, a mixed table (roles, countries, cities, a
remote flag: categorical columns scored with the numbers). Deterministic (fixed seeds), each well under 200 kB.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from momkde_core.synthetic import make_contaminated

HERE = Path(__file__).resolve().parent


def sensor_glitches(rng: np.random.Generator) -> pd.DataFrame:
    """A temperature / humidity sensor in two regimes (day, night) plus a stuck-value glitch."""
    n = 900
    night = rng.random(n) < 0.4
    temp = np.where(night, rng.normal(14, 1.2, n), rng.normal(22, 1.5, n))
    humidity = np.where(night, rng.normal(78, 4, n), rng.normal(55, 5, n)) + 0.5 * (temp - 18)
    glitch = 60
    rows = pd.DataFrame(
        {
            "hour": np.concatenate(
                [
                    np.where(night, rng.integers(0, 7, n), rng.integers(8, 20, n)),
                    rng.integers(0, 24, glitch),
                ]
            ),
            "temperature_c": np.concatenate([temp, rng.normal(30, 0.2, glitch)]),
            "humidity_pct": np.concatenate([humidity, rng.normal(40, 0.5, glitch)]),
            "status": ["ok"] * n + ["glitch"] * glitch,
        }
    )
    return rows.sample(frac=1.0, random_state=1).round(2)


def transactions(rng: np.random.Generator) -> pd.DataFrame:
    """Card payments as a bank exports them: an id, a timestamp, text columns, amounts by time
    of day, and two kinds of fraud: bursts of small "card testing" charges at night and a few
    large night purchases. Teaches reading a real table: the id and text columns are left
    out of the scores, the label is found by its name, and the densities rank the fraud."""
    n, testing, large = 1500, 50, 20
    amount = np.concatenate(
        [
            rng.lognormal(3.2, 0.6, n),
            np.clip(rng.normal(1.0, 0.3, testing), 0.5, None),
            rng.lognormal(6.5, 0.4, large),
        ]
    )
    hour = np.concatenate(
        [rng.normal(14, 3.5, n) % 24, rng.normal(3, 1.0, testing) % 24, rng.uniform(0, 5, large)]
    )
    total = n + testing + large
    day = rng.integers(1, 29, total)
    frame = pd.DataFrame(
        {
            "timestamp": [
                f"2024-03-{d:02d} {int(h):02d}:{int(60 * (h % 1)):02d}" for d, h in zip(day, hour)
            ],
            "merchant": rng.choice(["grocery", "fuel", "restaurant", "online", "travel"], total),
            "country": rng.choice(
                ["FR", "DE", "IT", "ES", "NL"], total, p=[0.5, 0.2, 0.1, 0.1, 0.1]
            ),
            "amount_eur": amount.round(2),
            "hour": hour.round(2),
            "is_fraud": np.r_[np.zeros(n, int), np.ones(testing + large, int)],
        }
    ).sample(frac=1.0, random_state=2)
    return frame.assign(row_id=np.arange(100_001, 100_001 + total))[["row_id", *frame.columns]]


def spike_on_a_mode() -> pd.DataFrame:
    """The paper's adversarial scheme (d) in 1-D: 1000 inliers 0.5 N(0, 0.5) + 0.5 N(6, 0.5)
    and 10 % outliers N(0, 0.01), a spike on the inlier mode at 0. Teaches the limit of every
    density method: the outliers sit where the inliers are densest, so any density (robust
    or not) scores them as the most normal points and every AUC is below chance."""
    data = make_contaminated("adversarial", n_inliers=1000, ratio=0.1, dim=1, random_state=0)
    return pd.DataFrame({"x": data.X[:, 0].round(4), "outlier": data.is_outlier.astype(int)})


def staff() -> pd.DataFrame:
    """A staff table: the role sets the salary, the country the city, an employee id, a
    remote flag. Planted (``is_planted`` 1): interns paid a manager's salary and cities of
    another country, 2 % of the rows each: odd only in a pair of columns, invisible to a
    detector of the numbers alone."""
    rng = np.random.default_rng(45)  # (its own seed: the other samples do not move)
    n = 1200
    roles = {"intern": 28_000, "engineer": 62_000, "analyst": 55_000, "manager": 95_000}
    cities = {"France": "Paris", "Germany": "Berlin", "Spain": "Madrid", "Italy": "Rome"}
    role = rng.choice(list(roles), n, p=[0.2, 0.4, 0.25, 0.15])
    country = rng.choice(list(cities), n, p=[0.35, 0.3, 0.2, 0.15])
    table = pd.DataFrame(
        {
            "employee_id": [f"E{10000 + i}" for i in range(n)],
            "role": role,
            "salary_eur": (pd.Series(role).map(roles) * rng.lognormal(0, 0.08, n)).round(-2),
            "age": np.clip(rng.normal(38, 9, n), 19, 66).round(),
            "country": country,
            "city": pd.Series(country).map(cities),
            "remote": rng.random(n) < 0.3,
            "is_planted": 0,
        }
    )
    pay, place = np.arange(0, 24), np.arange(24, 48)
    table.loc[pay, ["role", "salary_eur"]] = ["intern", 95_000]
    table.loc[place, "city"] = table.loc[place, "country"].map(
        {"France": "Berlin", "Germany": "Madrid", "Spain": "Rome", "Italy": "Paris"}
    )
    table.loc[np.r_[pay, place], "is_planted"] = 1
    return table.sample(frac=1.0, random_state=2).reset_index(drop=True)


def main() -> None:
    """Write every sample next to this script."""
    rng = np.random.default_rng(0)
    for name, frame in {
        "sensor_glitches.csv": sensor_glitches(rng),
        "card_transactions.csv": transactions(rng),
        "spike_on_a_mode.csv": spike_on_a_mode(),
        "staff.csv": staff(),
    }.items():
        frame.to_csv(HERE / name, index=False)
        print(name, len(frame), "rows,", (HERE / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()

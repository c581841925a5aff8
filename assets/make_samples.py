"""Write the sample CSVs of the app's "Your data" page (run: python assets/make_samples.py).

Small synthetic tables with a known outlier label, so a first-time user sees at once what
the page does: where the KDE grows a bump that MoM-KDE does not, and the AUC of each method.
Deterministic (fixed seeds), each well under 200 kB.
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
    rows = pd.DataFrame({
        "hour": np.concatenate([np.where(night, rng.integers(0, 7, n), rng.integers(8, 20, n)),
                                rng.integers(0, 24, glitch)]),
        "temperature_c": np.concatenate([temp, rng.normal(30, 0.2, glitch)]),
        "humidity_pct": np.concatenate([humidity, rng.normal(40, 0.5, glitch)]),
        "status": ["ok"] * n + ["glitch"] * glitch,
    })
    return rows.sample(frac=1.0, random_state=1).round(2)


def transactions(rng: np.random.Generator) -> pd.DataFrame:
    """Card payments: log-normal amounts by time of day, with a burst of small test charges."""
    n, fraud = 1500, 80
    amount = np.concatenate([rng.lognormal(3.2, 0.6, n), rng.normal(1.0, 0.05, fraud)])
    hour = np.concatenate([rng.normal(14, 3.5, n) % 24, rng.normal(3, 0.5, fraud) % 24])
    return pd.DataFrame({
        "amount_eur": amount.round(2), "hour": hour.round(2),
        "is_fraud": np.r_[np.zeros(n, int), np.ones(fraud, int)],
    }).sample(frac=1.0, random_state=2)


def paper_thin_gaussian() -> pd.DataFrame:
    """The paper's 1-D thin-Gaussian scheme (c): 1000 inliers, 15 % outliers at x = 3."""
    data = make_contaminated("thin_gaussian", n_inliers=1000, ratio=0.15, dim=1, random_state=0)
    return pd.DataFrame({"x": data.X[:, 0].round(4), "outlier": data.is_outlier.astype(int)})


def main() -> None:
    """Write every sample next to this script."""
    rng = np.random.default_rng(0)
    for name, frame in {"sensor_glitches.csv": sensor_glitches(rng), "card_transactions.csv": transactions(rng),
                        "paper_thin_gaussian.csv": paper_thin_gaussian()}.items():
        frame.to_csv(HERE / name, index=False)
        print(name, len(frame), "rows,", (HERE / name).stat().st_size, "bytes")


if __name__ == "__main__":
    main()

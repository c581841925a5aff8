"""Write assets/pump_readings.csv, the worked example of "Explaining a flag" in
docs/guide/outlier-detection.md (run: python assets/make_explain_sample.py).

A pump's readings: the flow follows the pressure closely, the temperature and vibration
vary on their own. Twelve planted rows, labelled in the text column ``planted`` (which
``momkde score`` leaves out, being no number): six where the pressure and the flow are each
ordinary but not together (the pair broken apart), six with a vibration spike (one feature
shifted). Deterministic (a fixed seed), about 25 kB.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent


def pump_readings(rng: np.random.Generator) -> pd.DataFrame:
    """600 ordinary readings, 6 with the pressure-flow pair broken, 6 with a vibration spike."""
    n, broken, spikes = 600, 6, 6
    total = n + broken + spikes
    pressure = rng.normal(6.0, 0.8, total)
    flow = 20.0 * pressure + rng.normal(0.0, 3.0, total)
    temperature = rng.normal(45.0, 3.0, total)
    vibration = rng.gamma(8.0, 0.25, total)
    side = rng.choice([-1.0, 1.0], broken)
    pressure[n : n + broken] = 6.0 + side * rng.uniform(1.4, 1.8, broken)
    flow[n : n + broken] = 20.0 * (6.0 - side * rng.uniform(1.4, 1.8, broken))
    vibration[n + broken :] = rng.uniform(6.0, 7.0, spikes)
    planted = ["none"] * n + ["pressure-flow pair"] * broken + ["vibration spike"] * spikes
    frame = pd.DataFrame(
        {
            "pressure_bar": pressure.round(3),
            "flow_lpm": flow.round(2),
            "temperature_c": temperature.round(2),
            "vibration_mm_s": vibration.round(3),
            "planted": planted,
        }
    )
    return frame.sample(frac=1.0, random_state=3).reset_index(drop=True)


def main() -> None:
    """Write the sample next to this script."""
    path = HERE / "pump_readings.csv"
    pump_readings(np.random.default_rng(35)).to_csv(path, index=False)
    print(path.name, path.stat().st_size, "bytes")


if __name__ == "__main__":
    main()

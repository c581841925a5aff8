"""Shared test set-up: the IDA data directory beside the project, when present, and the
hypothesis profile.

Hypothesis draws new examples on every run by default (that is how it finds new bugs, as the
OverflowError of commit 10f68cd was found). ``HYPOTHESIS_PROFILE=ci`` (set by ``.ci/run``)
derandomizes it: the gate that decides whether work lands explores the same examples on every
run, so its verdict does not depend on luck; run the suite without it to explore.
"""

import os
from pathlib import Path

import pytest
from hypothesis import settings

# the app's servers and AppTest runs skip computing Explore's views ahead
# (app_support.compute.warm_views): the suite starts many, each would spend a minute of CPU
os.environ.setdefault("MOMKDE_APP_WARM", "0")

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

REPO = Path(__file__).resolve().parents[1]
SHARED_IDA = REPO.parent / "shared" / "data" / "ida"


@pytest.fixture(scope="session")
def ida_dir() -> Path:
    """Directory of banana/german/titanic .csv.gz: $MOMKDE_DATA_DIR, else ../shared/data/ida."""
    env = os.environ.get("MOMKDE_DATA_DIR")
    path = Path(env) if env else SHARED_IDA
    if not (path / "banana.csv.gz").exists():
        pytest.skip(
            f"IDA data sets not found in {path}: set MOMKDE_DATA_DIR to the folder "
            "holding banana.csv.gz, german.csv.gz and titanic.csv.gz"
        )
    return path

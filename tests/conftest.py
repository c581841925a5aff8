"""Shared test set-up: the IDA data directory beside the project, when present."""

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_IDA = REPO.parent / "shared" / "data" / "ida"


@pytest.fixture(scope="session")
def ida_dir() -> Path:
    """Directory of banana/german/titanic .csv.gz: $MOMKDE_DATA_DIR, else ../shared/data/ida."""
    env = os.environ.get("MOMKDE_DATA_DIR")
    path = Path(env) if env else SHARED_IDA
    if not (path / "banana.csv.gz").exists():
        pytest.skip(f"IDA data sets not found in {path}: set MOMKDE_DATA_DIR to the folder "
                    "holding banana.csv.gz, german.csv.gz and titanic.csv.gz")
    return path

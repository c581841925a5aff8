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
# (app_support.cache.warm_server): the suite starts many, each would spend a minute of CPU
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


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The files the app offers for download, by URL (the app tests: tests/app): AppTest keeps them in a media storage
    that it drops after each run, so each one is recorded as it is stored."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    stored: dict[str, bytes] = {}
    store = MemoryMediaFileStorage.load_and_get_id

    def record(self, path_or_data, mimetype, kind, filename=None):
        file_id = store(self, path_or_data, mimetype, kind, filename)
        stored[self.get_url(file_id)] = self.get_file(file_id).content
        return file_id

    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", record)
    return stored

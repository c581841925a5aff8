"""Fixtures of the AppTest suites of tests/app."""

from __future__ import annotations

import pytest


@pytest.fixture
def downloads(monkeypatch) -> dict[str, bytes]:
    """The files the app offers for download, by URL: AppTest keeps them in a media storage
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

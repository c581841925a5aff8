"""Your data's preparation (app_support.prepare): the rows scored, the matrices the estimators
read against independent references, and the key the scores are cached on, which changes
with every choice that changes the scores: in one session, a choice moved gives the scores a
fresh session computes (no stale scores from the cache)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
import streamlit as st

from app_support.prepare import fingerprint, prepare_table
from app_support.tables import guess_roles
from tests.app._apptest import read_download, upload

#: Same computation on the same rows, the cache the only difference: agreement to rounding.
SAME_PATH = dict(rtol=1e-12, atol=0.0)


def _table(n: int = 300, seed: int = 1) -> pd.DataFrame:
    """x (a missing value every 17th row), y (9 units out on its first 4 rows), z (missing
    every 13th row) and a categorical town (missing every 23rd row)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "x": rng.normal(size=n).round(3),
            "y": rng.normal(size=n).round(3),
            "z": rng.normal(size=n).round(3),
            "town": rng.choice(["a", "b", "c"], n),
        }
    )
    frame.loc[::17, "x"] = np.nan
    frame.loc[::13, "z"] = np.nan
    frame.loc[::23, "town"] = None
    frame.loc[:3, "y"] += 9
    return frame


def _prepare(frame: pd.DataFrame, **choices) -> object:
    settings = dict(
        plot_columns=["x"],
        score_columns=["y", "town"],
        drop_missing=True,
        scale=True,
        max_rows=10_000,
    )
    settings.update(choices)
    return prepare_table(frame, guess_roles(frame), **settings)


def test_rows_missing_a_numeric_value_drawn_or_scored_are_left_out():
    frame = _table()
    table = _prepare(frame)
    expected = frame.index[frame["x"].isna()]  # x is drawn; y has no gap; town's is a level
    assert list(table.unscored) == list(expected)
    assert table.used == ("x", "y")
    assert table.kept.equals(frame.index.difference(expected))
    assert table.X_score["town"].isna().sum() == frame.loc[table.kept, "town"].isna().sum()


def test_the_matrices_are_the_kept_rows_standardised():
    frame = _table()
    table = _prepare(frame, plot_columns=["x", "z"], score_columns=["y", "z"])
    kept = frame.dropna(subset=["x", "y", "z"])
    assert table.kept.equals(kept.index)
    for X, columns in ((table.X_plot, ["x", "z"]), (table.X_score, ["y", "z"])):
        values = kept[columns].to_numpy()
        reference = (values - values.mean(axis=0)) / values.std(axis=0)  # population sd
        np.testing.assert_allclose(X, reference, rtol=1e-10, atol=1e-12)  # float rounding
    raw = _prepare(frame, plot_columns=["x", "z"], score_columns=["y", "z"], scale=False)
    np.testing.assert_array_equal(raw.X_score, kept[["y", "z"]].to_numpy())


def test_a_file_over_the_limit_is_scored_on_a_sample_that_keeps_its_rows_numbers():
    frame = _table(500)
    table = _prepare(frame, max_rows=200)
    assert len(table.rows) == 200 and table.rows.is_monotonic_increasing
    assert table.rows.isin(frame.index).all() and table.kept.isin(table.rows).all()
    assert _prepare(frame, max_rows=200).key == table.key  # the same sample every time


def test_missing_values_kept_are_named_in_an_error():
    with pytest.raises(ValueError, match="missing or infinite values"):
        _prepare(_table(), drop_missing=False)


@pytest.mark.parametrize(
    "choice",
    [
        {"plot_columns": ["z"]},  # other rows missing a value
        {"score_columns": ["y"]},
        {"score_columns": ["town", "y"]},  # the columns' order
        {"scale": False},
        {"max_rows": 250},
    ],
    ids=lambda c: next(iter(c)),
)
def test_every_choice_that_changes_the_input_changes_the_key(choice):
    frame = _table()
    base, moved = _prepare(frame), _prepare(frame, **choice)
    assert base.key == _prepare(frame).key  # a digest of the content, not of the call
    assert fingerprint(base.X_score) != fingerprint(moved.X_score)
    assert moved.key != base.key


def test_a_choice_that_leaves_the_input_as_it_was_keeps_the_key():
    """Drawing y instead of x drops no row here when x is scored too: same input, same key
    (the scores are not computed again)."""
    frame = _table()
    drawn_x = _prepare(frame, plot_columns=["x"], score_columns=["x", "y"])
    drawn_y = _prepare(frame, plot_columns=["y"], score_columns=["x", "y"])
    assert drawn_x.key == drawn_y.key


#: The session's choices before the move: y drawn, y and town scored, h by hand (so that no
#: choice below moves h, which the scores are also cached on).
BASE = dict(plot=["y"], score=["y", "town"], methods=["kde", "mom_kde"], hmode="slider", h="0.5")


@pytest.mark.parametrize(
    ("kind", "key", "value"),
    [
        ("toggle", "std", False),
        ("multiselect", "plot", ["x"]),
        ("multiselect", "score", ["y"]),
        ("selectbox", "kernel", "epanechnikov"),
        ("number_input", "seed", 3),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_choice_moved_in_a_session_gives_a_fresh_sessions_scores(downloads, kind, key, value):
    """The stale-score check: each choice below changes the scores, and the scores the page
    shows after it moved in a session are those a new session opened on it computes."""
    raw = _table().to_csv(index=False).encode()
    st.cache_data.clear()
    at = upload("mixed.csv", raw, **BASE)
    before = read_download(downloads, at)
    getattr(at.sidebar, kind)(key=key).set_value(value).run()
    assert not at.exception, [e.value for e in at.exception]
    after = read_download(downloads, at)
    st.cache_data.clear()
    url_value = value if isinstance(value, list) else str(value).lower()
    fresh = read_download(downloads, upload("mixed.csv", raw, **{**BASE, key: url_value}))
    scores = [c for c in fresh.columns if c.startswith("score_")]
    assert scores and list(after.columns) == list(fresh.columns)
    assert not np.allclose(before[scores], after[scores], equal_nan=True)  # it moved them
    np.testing.assert_allclose(after[scores], fresh[scores], **SAME_PATH)

"""The tuning knobs (momkde_core.config_context): defaults from the machine, scoped changes,
checked values, and results that do not depend on them."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from joblib import cpu_count

from momkde_core import (
    MoMKDE,
    config_context,
    get_config,
    get_kernel,
    make_contaminated,
    set_config,
)
from momkde_core._config import chunk_elements, memo_bytes, n_threads
from momkde_core._engine import _memo, _threads
from momkde_core.bandwidth import select_bandwidth


def test_defaults_come_from_the_machine() -> None:
    config = get_config()
    assert config == {"n_threads": None, "working_memory": 16, "memo_size": 128}
    assert n_threads() == cpu_count()
    assert chunk_elements() == 2**21  # 16 MiB of float64
    assert memo_bytes() == 2**27


def test_config_context_is_scoped_to_the_block_and_the_thread() -> None:
    seen = []
    with config_context(n_threads=1, working_memory=4, memo_size=0):
        assert (n_threads(), chunk_elements(), memo_bytes()) == (1, 2**19, 0)
        other = threading.Thread(target=lambda: seen.append(get_config()["n_threads"]))
        other.start()
        other.join()
    assert seen == [None]  # another thread keeps its own settings
    assert get_config()["working_memory"] == 16


def test_set_config_holds_until_changed_back() -> None:
    set_config(working_memory=8)
    try:
        assert chunk_elements() == 2**20
    finally:
        set_config(working_memory=16)
    assert chunk_elements() == 2**21


@pytest.mark.parametrize(
    "changes, message",
    [
        ({"n_threads": 0}, "n_threads must be None or a positive integer"),
        ({"n_threads": 1.5}, "n_threads must be None or a positive integer"),
        ({"working_memory": 0.5}, "working_memory must be a number of MiB >= 1"),
        ({"memo_size": -1}, "memo_size must be a number of MiB >= 0"),
    ],
)
def test_bad_values_are_refused(changes, message) -> None:
    with pytest.raises(ValueError, match=message), config_context(**changes):
        pass
    with pytest.raises(ValueError, match=message):
        set_config(**changes)
    assert get_config()["working_memory"] == 16


def test_an_unknown_key_is_refused() -> None:
    with pytest.raises(TypeError, match="unknown configuration key"), config_context(threads=2):
        pass


def test_the_pool_follows_n_threads() -> None:
    with config_context(n_threads=3):
        pool = _threads.worker_pool()
        assert _threads._STATE["workers"] == 3
        assert _threads.map_on_pool(lambda x: x + 1, [1, 2, 3]) == [2, 3, 4]
    assert _threads.worker_pool() is not pool


def _knobs_seen() -> tuple[bool, int, int]:
    """(on another thread than this test's, threads, float64 values of a working matrix)."""
    return threading.current_thread() is not threading.main_thread(), n_threads(), chunk_elements()


def test_the_pools_tasks_take_the_callers_settings() -> None:
    """A task on the kept pool runs with the settings of the thread that gave it: the knobs of
    its config_context and its replay limits inside the block, the defaults outside."""
    inside = (True, 1, 2**19)
    with config_context(n_threads=1, working_memory=4):
        assert _threads.map_on_pool(lambda _: _knobs_seen(), range(2)) == [inside] * 2
        assert _threads.submit_to_pool(_knobs_seen).result(timeout=30) == inside
    outside = (True, cpu_count(), 2**21)
    assert _threads.map_on_pool(lambda _: _knobs_seen(), range(2)) == [outside] * 2
    assert _threads.submit_to_pool(_knobs_seen).result(timeout=30) == outside
    with _memo.replay_limits(2**23, 2**28):
        assert _threads.submit_to_pool(_memo._limits).result(timeout=30) == (2**23, 2**28)
    assert _threads.submit_to_pool(_memo._limits).result(timeout=30) == _memo._limits()


def test_the_robust_search_threads_take_the_callers_knobs(monkeypatch) -> None:
    """The robust bandwidth search scores its candidates on threads of its own, each with the
    caller's knobs: n_threads=1 and working_memory=4 inside config_context, the defaults
    outside."""
    from momkde_core.bandwidth import _robust

    seen = []
    scores = _robust.leave_own_block_out_scores

    def recording(*args, **kwargs):
        seen.append(_knobs_seen())
        return scores(*args, **kwargs)

    monkeypatch.setattr(_robust, "leave_own_block_out_scores", recording)
    X = make_contaminated("uniform", n_inliers=300, ratio=0.1, random_state=0).X
    gauss = get_kernel("gaussian")
    with config_context(n_threads=1, working_memory=4):
        select_bandwidth(X, "robust", gauss, random_state=0, contamination=0.1)
    assert set(seen) == {(True, 1, 2**19)}
    seen.clear()
    select_bandwidth(X, "robust", gauss, random_state=0, contamination=0.1)
    assert set(seen) == {(True, cpu_count(), 2**21)}


@pytest.mark.parametrize("dim", [1, 2])
def test_results_do_not_depend_on_the_knobs(dim) -> None:
    """One thread, small working matrices and no memo give the same fit and densities as the
    defaults: the knobs split the same sums differently. Tolerance: chunks of other sizes
    sum the same terms in another order, a few ulps per sum (1e-12 relative is far above)."""
    X = make_contaminated("uniform", n_inliers=400, ratio=0.1, dim=dim, random_state=0).X
    axes = [np.linspace(-4, 10, 64)] * dim

    def run():
        est = MoMKDE(contamination=0.1, random_state=0).fit(X)
        return est.bandwidth_, est.log_norm_, est.score_samples(X), est.pdf_grid(*axes)

    reference = run()
    with config_context(n_threads=1, working_memory=1, memo_size=0):
        small = run()
    np.testing.assert_allclose(small[0], reference[0], rtol=1e-12)
    np.testing.assert_allclose(small[1], reference[1], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(small[2], reference[2], rtol=1e-12)
    np.testing.assert_allclose(small[3], reference[3], rtol=1e-12, atol=1e-300)

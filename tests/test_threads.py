"""momkde_core.threads: BLAS on one thread inside the block, the original limit after; one
kept pool per process."""

from __future__ import annotations

import threading

import pytest
from threadpoolctl import OpenBLASController, ThreadpoolController, threadpool_info

from momkde_core.threads import one_blas_thread, worker_pool


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def several_blas_threads():
    """BLAS on two threads for the test (the app's pages, run by other tests in this
    process, leave it on one), with no thread holding threadpoolctl's control of OpenBLAS
    (only one thread at a time may change it), and the previous limit back after."""
    if not _blas_threads():
        pytest.skip("no BLAS library seen by threadpoolctl")
    limiter = ThreadpoolController().limit(limits=2, user_api="blas")
    OpenBLASController.clear_controlling_thread(force=True)
    yield _blas_threads()
    limiter.restore_original_limits()
    OpenBLASController.clear_controlling_thread(force=True)


def test_one_thread_inside_nested_and_restored_after(several_blas_threads):
    with one_blas_thread():
        assert _blas_threads() == {1}
        with one_blas_thread():
            assert _blas_threads() == {1}
        assert _blas_threads() == {1}  # (the outer block is still running)
    assert _blas_threads() == several_blas_threads


def test_callers_on_threads_take_turns_and_restore_the_original_limit(several_blas_threads):
    """Two threads asking at once: each runs its block on one BLAS thread, one after the
    other (never both inside), and the original limit is back once both are done."""
    inside, seen, overlap = [], [], []
    start = threading.Barrier(2)

    def caller(name: str) -> None:
        start.wait(5)
        with one_blas_thread():
            inside.append(name)
            overlap.append(len(inside))
            seen.append(_blas_threads())
            threading.Event().wait(0.05)
            inside.remove(name)

    threads = [threading.Thread(target=caller, args=(k,)) for k in "ab"]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [{1}, {1}]
    assert overlap == [1, 1]
    assert _blas_threads() == several_blas_threads


def test_an_exception_inside_still_restores(several_blas_threads):
    with pytest.raises(RuntimeError):
        with one_blas_thread():
            raise RuntimeError("boom")
    assert _blas_threads() == several_blas_threads


def test_the_kept_pool_is_one_per_process_and_made_again_after_a_fork():
    """worker_pool() gives the same pool on every call in a process; a forked child (whose
    copy of the parent's pool has no threads) gets a pool of its own that runs tasks."""
    import multiprocessing

    pool = worker_pool()
    assert worker_pool() is pool
    assert list(pool.map(lambda x: x * x, range(5))) == [0, 1, 4, 9, 16]
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    context = multiprocessing.get_context("fork")
    with context.Pool(1) as children:
        assert children.apply(_squares_in_a_child) == [0, 1, 4]


def _squares_in_a_child() -> list[int]:
    return list(worker_pool().map(lambda x: x * x, range(3)))

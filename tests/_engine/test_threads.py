"""momkde_core._engine._threads: BLAS on one thread inside the block, the original limit after; one
kept pool per process."""

from __future__ import annotations

import threading

import pytest
from threadpoolctl import OpenBLASController, ThreadpoolController, threadpool_info

from momkde_core._engine._threads import map_on_pool, one_blas_thread, submit_to_pool, worker_pool


def _blas_threads() -> set[int]:
    return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}


@pytest.fixture
def several_blas_threads():
    """BLAS on two threads for the test (the app's pages, run by other tests in this
    process, leave it on one), with no thread holding threadpoolctl's control of OpenBLAS
    (only one thread at a time may change it), and the previous limit back after."""
    if not _blas_threads():
        pytest.skip("no BLAS library seen by threadpoolctl")
    OpenBLASController.clear_controlling_thread(force=True)  # (before: or ours is ignored)
    limiter = ThreadpoolController().limit(limits=2, user_api="blas")
    OpenBLASController.clear_controlling_thread(force=True)
    assert _blas_threads() == {2}
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
        assert children.apply_async(_squares_in_a_child).get(timeout=60) == [0, 1, 4]


def _squares_in_a_child() -> list[int]:
    return list(worker_pool().map(lambda x: x * x, range(3)))


def test_work_asked_for_from_a_pool_thread_runs_inline_instead_of_waiting_for_the_pool():
    """A task of the pool that maps or submits more work (both threads busy with such
    tasks) gets it done on its own thread: waiting for the pool would wait forever."""

    def task(k: int) -> list:
        inner = map_on_pool(lambda x: (x, threading.current_thread().name), range(3))
        done = submit_to_pool(lambda: k * 10).result(timeout=5)
        return [done, *inner]

    results = map_on_pool(task, range(4))
    assert [r[0] for r in results] == [0, 10, 20, 30]
    for r in results:  # the inner items ran on the thread of the task that asked for them
        assert len({name for _, name in r[1:]}) == 1
    with pytest.raises(ZeroDivisionError):
        map_on_pool(lambda _: submit_to_pool(lambda: 1 / 0).result(), [0])


def test_a_block_that_need_not_wait_runs_at_once_while_another_thread_limits(several_blas_threads):
    """one_blas_thread(wait=False) while another thread is inside a limited block: it runs
    at once (BLAS is on one thread already) and leaves the limit to that thread."""
    inside, release, seen = threading.Event(), threading.Event(), {}

    def holder() -> None:
        with one_blas_thread():
            inside.set()
            release.wait(5)

    thread = threading.Thread(target=holder)
    thread.start()
    assert inside.wait(5)
    with one_blas_thread(wait=False):
        seen["inside"] = _blas_threads()
    seen["after"] = _blas_threads()
    release.set()
    thread.join(5)
    assert seen == {"inside": {1}, "after": {1}}
    assert _blas_threads() == several_blas_threads


def test_a_child_forked_inside_a_limited_block_gets_blas_back_and_its_own_lock(
    several_blas_threads,
):
    """Forked while this thread limits BLAS: the child starts with the original limit and a
    free lock (a limited block there neither hangs nor is ignored)."""
    import multiprocessing

    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip("no fork here")
    context = multiprocessing.get_context("fork")
    with one_blas_thread():
        with context.Pool(1) as children:
            seen = children.apply_async(_limits_in_a_child).get(timeout=60)
    assert seen == ({2}, {1}, {2})


def _limits_in_a_child() -> tuple:
    first = _blas_threads()
    with one_blas_thread():
        inside = _blas_threads()
    return first, inside, _blas_threads()

"""momkde_core.blas_threads: BLAS on one thread inside the block, the original limit after."""

from __future__ import annotations

import threading

import pytest
from threadpoolctl import OpenBLASController, ThreadpoolController, threadpool_info

from momkde_core.blas_threads import one_blas_thread


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

"""Our own worker threads (one kept pool) and BLAS's (one thread while ours run).

**The pool.** The engine spreads some loops over ``n_threads`` threads (the knob of
:func:`momkde_core.config_context`, by default the machine's cores): the plane's exact tails
(compiled and GIL-free) and the cell tables built beside the binned product (compiled, and
a distance transform that releases the GIL). A pool made per call costs its start and its
new threads' first compiled call, which can be as much as such a split saves; a kept pool
costs a small fraction of that per split. It is made again in a forked child
(its threads do not survive a fork, nor may a lock held by one of the parent's threads).
:func:`map_on_pool` and :func:`submit_to_pool` run the work inline when called from one of
the pool's own threads: a task that waited for other tasks of the pool could wait forever.
Callers on several threads (app sessions, the robust search's threads) share the pool's
threads: their tasks queue.

**BLAS.** OpenBLAS's worker threads spin for a while after every call that used them. A small
matrix product (the binned product's cells x nodes) gains little from a second BLAS thread,
and the spinning thread then holds the second core while our own threads run, which then
run slower on two threads than on one. So such products run on one BLAS thread, as do
the engine's BLAS-tiled Gaussian sums, which run their own threads.

The BLAS limit is process-wide, and threadpoolctl lets one thread at a time change
OpenBLAS's (the others' changes are silently ignored until it is done). So each limit is set
and restored by the same thread, as one ``with`` block, and one lock serialises those blocks:
set / restore pairs interleaved by two threads could otherwise leave BLAS on one thread for
good. A block that only gains speed from the limit does not wait for that lock: while
another thread holds it, BLAS is on one thread already. Left as a limitation: another
library's own ``threadpool_limits`` block overlapping one of ours on another thread can still
restore the other's snapshot (threadpoolctl's limits are not nestable across threads).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager

from threadpoolctl import OpenBLASController, ThreadpoolController

from .._config import n_threads, with_callers_config

_PREFIX = "momkde-worker"  # the pool's thread names (to tell its threads from others)
_STATE: dict = {}  # "pool", "workers" (its size), "pid", "lock" (the BLAS limit's), "pool_lock", "active"
_CONTROLLER: list[ThreadpoolController] = []  # built once: it inspects the loaded libraries


def _reset() -> None:
    """Fresh locks and no pool: at import, and in a child after a fork (where a lock held
    by another of the parent's threads would stay held for good)."""
    active = _STATE.get("active")
    if active:  # a block of the parent's was limiting BLAS: the child gets the original back
        active[0].restore_original_limits()
        OpenBLASController.clear_controlling_thread(force=True)  # (the parent's thread's)
    _STATE.update(
        pool=None,
        workers=0,
        pid=os.getpid(),
        lock=threading.RLock(),
        pool_lock=threading.Lock(),
        active=[],
    )


_reset()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset)


def worker_pool() -> ThreadPoolExecutor:
    """The kept pool of ``n_threads()`` threads of this process (made on first use, and
    again when the ``n_threads`` knob changes; a pool of the old size is left to finish
    what it was given)."""
    workers = n_threads()
    pool = _STATE["pool"]
    if pool is None or _STATE["pid"] != os.getpid() or _STATE["workers"] != workers:
        with _STATE["pool_lock"]:
            pool = _STATE["pool"]
            if pool is None or _STATE["pid"] != os.getpid() or _STATE["workers"] != workers:
                if pool is not None and _STATE["pid"] == os.getpid():
                    pool.shutdown(wait=False)
                pool = ThreadPoolExecutor(workers, thread_name_prefix=_PREFIX)
                _STATE.update(pid=os.getpid(), pool=pool, workers=workers)
    return pool


def _on_pool_thread() -> bool:
    return threading.current_thread().name.startswith(_PREFIX)


def map_on_pool(fn: Callable, items: Iterable) -> list:
    """[fn(item) for item in items], on the kept pool (inline from one of its threads), with
    the caller's settings (:func:`momkde_core._config.with_callers_config`)."""
    if _on_pool_thread():
        return [fn(item) for item in items]
    return list(worker_pool().map(with_callers_config(fn), items))


def submit_to_pool(fn: Callable, *args) -> Future:
    """fn(*args) as a future from the kept pool (run inline, done, from one of its threads),
    with the caller's settings (:func:`momkde_core._config.with_callers_config`)."""
    if not _on_pool_thread():
        return worker_pool().submit(with_callers_config(fn), *args)
    done: Future = Future()
    try:
        done.set_result(fn(*args))
    except Exception as err:  # (as the pool would: raised by result())
        done.set_exception(err)
    return done


@contextmanager
def one_blas_thread(wait: bool = True) -> Iterator[None]:
    """Run the block with BLAS limited to one thread; the original limit is restored after.
    ``wait=False``: when another thread holds the limit (BLAS is on one thread already),
    run the block at once without touching it."""
    lock = _STATE["lock"]
    if not lock.acquire(blocking=wait):
        yield
        return
    try:
        if not _CONTROLLER:
            _CONTROLLER.append(ThreadpoolController())
        with _CONTROLLER[0].limit(limits=1, user_api="blas") as limiter:
            _STATE["active"].append(limiter)
            try:
                yield
            finally:
                _STATE["active"].pop()
    finally:
        lock.release()

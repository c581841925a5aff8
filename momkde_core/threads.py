"""Our own worker threads (one kept pool) and BLAS's (one thread while ours run).

**The pool.** The engine splits some compiled, GIL-free loops over FFT_WORKERS threads (the
plane's exact tails; the cell tables built beside the binned product). A pool made per call
costs ~0.2 ms to start and its new threads more on their first compiled call, which is as
much as such a split saves on a 2-core machine; a kept pool costs ~0.06 ms per split. It is
made again in a forked child (its threads do not survive a fork). Its tasks never wait for
other tasks of the pool, so callers on several threads (app sessions, the robust search's
threads) only queue: they cannot deadlock it.

**BLAS.** OpenBLAS's worker threads spin for ~0.1 s after every call that used them. A small
matrix product (the binned product's cells x nodes) gains little from a second BLAS thread,
and the spinning thread then holds the second core while our own threads run: measured,
those ran slower on two threads than on one. So such products run on one BLAS thread, as do
the engine's BLAS-tiled Gaussian sums, which run their own threads.

The BLAS limit is process-wide, and threadpoolctl lets one thread at a time change
OpenBLAS's (the others' changes are silently ignored until it is done). So each limit is set
and restored by the same thread, as one ``with`` block, and one lock serialises those blocks:
set / restore pairs interleaved by two threads could otherwise leave BLAS on one thread for
good. Keep the blocks short.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

WORKERS = 2  # threads of the kept pool (the machines here: 2 cores)
_LOCK = threading.RLock()  # (re-entrant: a limited block may call another one)
_CONTROLLER: list[ThreadpoolController] = []  # built once: it inspects the loaded libraries
_POOL_LOCK = threading.Lock()
_POOL: dict = {}  # process id -> its pool


def worker_pool() -> ThreadPoolExecutor:
    """The kept pool of WORKERS threads of this process (made on first use)."""
    pid = os.getpid()
    pool = _POOL.get(pid)
    if pool is None:
        with _POOL_LOCK:
            pool = _POOL.get(pid)
            if pool is None:
                _POOL.clear()  # (a parent's pool, copied by a fork: its threads are gone)
                pool = _POOL[pid] = ThreadPoolExecutor(WORKERS, thread_name_prefix="momkde")
    return pool


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with BLAS limited to one thread; the original limit is restored after."""
    with _LOCK:
        if not _CONTROLLER:
            _CONTROLLER.append(ThreadpoolController())
        with _CONTROLLER[0].limit(limits=1, user_api="blas"):
            yield

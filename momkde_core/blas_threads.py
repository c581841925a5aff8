"""One BLAS thread for a short call, safe from several threads at once.

OpenBLAS's worker threads spin for ~0.1 s after every call that used them. A small matrix
product (the binned product's cells x nodes) gains ~30 us from a second BLAS thread, and
the spinning thread then holds the second core while our own GIL-free loops (the exact
tails in the plane) run on two threads: measured, those ran slower on two threads than on
one. The engine's BLAS-tiled Gaussian sums, which run their own threads, take the same limit.

The limit is process-wide, and threadpoolctl lets one thread at a time change OpenBLAS's
(the others' changes are silently ignored until it is done). So each limit is set and
restored by the same thread, as one ``with`` block, and one lock serialises those blocks:
set / restore pairs interleaved by two threads (app sessions, the robust search's threads)
could otherwise leave BLAS on one thread for good. Keep the blocks short.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

_LOCK = threading.RLock()  # (re-entrant: a limited block may call another one)
_CONTROLLER: list[ThreadpoolController] = []  # built once: it inspects the loaded libraries


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run the block with BLAS limited to one thread; the original limit is restored after."""
    with _LOCK:
        if not _CONTROLLER:
            _CONTROLLER.append(ThreadpoolController())
        with _CONTROLLER[0].limit(limits=1, user_api="blas"):
            yield

"""The replay memo: kernel values of recent evaluations, kept to be replayed to the bit.

MoM-KDE for several numbers of blocks S on the same data and bandwidth (the oracle's
candidates, the S rule, a slider over S) shuffles the points once per seed, so its fits
differ only in the block boundaries and share every kernel value. The exact sums at points
(:mod:`momkde_core._engine._point_sums`), the band's pairs (:mod:`momkde_core._engine._band`)
and the dense Gram matrix (:mod:`momkde_core._engine._gram`) therefore hand their chunks of
kernel values to :func:`_replay`, which keeps them under a key made of digests of the
inputs' bytes and yields the very same arrays when the key comes back: results are the
same bit for bit, replayed or not.

The memo is a least-recently-used dictionary bounded twice: an evaluation is kept only up
to ``MAX_CACHED_PAIRS`` kernel values, and all of them up to the ``memo_size`` knob
(:func:`momkde_core.config_context`). Both limits are settings of the thread
(:func:`replay_limits`), which the library's worker threads take from the thread that gives
them a task (:func:`momkde_core._config.with_callers_config`); the dictionary itself is
shared under a lock, as the app evaluates in several threads.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

from .._config import memo_bytes, thread_setting, thread_settings

MAX_CACHED_PAIRS = 2**22  # kernel values of one evaluation are kept up to this many (n = 2048)
_MEMO: OrderedDict = OrderedDict()  # key -> (list of chunks, bytes), least recently used first
_MEMO_LOCK = threading.Lock()


def _replay(key: tuple, make_chunks: Callable[[], Iterator[tuple]], size: int) -> Iterator[tuple]:
    """The chunks of kernel values ``make_chunks()`` yields, replayed when a recent evaluation
    had the same key (one is kept when ``size`` <= MAX_CACHED_PAIRS; the least recently used
    ones are dropped beyond the ``memo_size`` knob in all; :func:`replay_limits` sets other limits).

    ``key`` is (kind, data, queries or grid axes, kernel, h, chunk size); the arrays enter
    it through a digest of their bytes. MoM-KDE for several S on the same data and h (the
    oracle's candidates, the S rule, a slider over S) shuffles the points once per seed, so
    its fits differ only in the block boundaries and share all the kernel values.
    Consumers must not modify the chunks.
    """
    if size > _limits()[0]:
        yield from make_chunks()
        return
    key = _memo_key(key)
    with _MEMO_LOCK:  # the app evaluates in several threads
        cached = _MEMO.get(key)
        if cached is not None:
            _MEMO.move_to_end(key)
    if cached is not None:
        yield from cached[0]
        return
    chunks = []
    for chunk in make_chunks():
        chunks.append(chunk)
        yield chunk
    size = sum(a.nbytes for chunk in chunks for a in chunk if isinstance(a, np.ndarray))
    with _MEMO_LOCK:
        _MEMO[key] = (chunks, size)
        _trim_memo()


def _limits() -> tuple[int, int]:
    """The replay limits of the calling thread: (kernel values kept per evaluation, bytes
    kept in all); MAX_CACHED_PAIRS and the ``memo_size`` knob
    (:func:`momkde_core.config_context`) unless within :func:`replay_limits`."""
    return thread_setting("replay_limits") or (MAX_CACHED_PAIRS, memo_bytes())


@contextmanager
def replay_limits(max_pairs: int, max_bytes: int) -> Iterator[None]:
    """Within the block (in the calling thread, and in the library's worker threads for
    the tasks it gives them), keep evaluations of up to ``max_pairs`` kernel values for
    replay, and up to ``max_bytes`` in all (:func:`_replay`); on exit the thread's previous
    limits are back and the kept evaluations are trimmed to them. Results are the same bit
    for bit: a replay yields the very chunks that were computed. For a task that refits one
    sample many times, such as the experiment runner's (the oracle's 20 values of S on n up to ~5000
    points)."""
    try:
        with thread_settings(replay_limits=(max_pairs, max_bytes)):
            yield
    finally:
        with _MEMO_LOCK:
            _trim_memo()


def _trim_memo() -> None:
    """Drop the least recently used evaluations beyond the calling thread's byte limit
    (the caller holds the lock)."""
    max_bytes = _limits()[1]
    while sum(b for _, b in _MEMO.values()) > max_bytes:
        _MEMO.popitem(last=False)


def _memo_key(key: tuple) -> tuple:
    """``key`` with every array replaced by (shape, digest of its bytes) and the kernel by
    its name, so that equal inputs give equal keys."""

    def part(item):
        if isinstance(item, np.ndarray):
            digest = hashlib.blake2b(np.ascontiguousarray(item).tobytes(), digest_size=16)
            return item.shape, digest.digest()
        if isinstance(item, (list, tuple)):
            return tuple(part(i) for i in item)
        return getattr(item, "name", item)

    return tuple(part(item) for item in key)

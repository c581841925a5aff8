"""Global tuning knobs, as in scikit-learn: :func:`get_config`, :func:`set_config` and the
:func:`config_context` manager.

The knobs change speed and memory, never results beyond floating-point round-off:

``n_threads``
    Threads of the engine's kept pool, of the robust bandwidth search and of the FFT over a
    batch of blocks. None (default): the cores this process may use (``joblib.cpu_count``,
    which honours CPU affinity and container quotas).
``working_memory``
    MiB of one working matrix of kernel values (the chunks of point sums, tail windows and
    Gram products). Default 16.
``memo_size``
    MiB of kernel values the engine keeps to replay an evaluation that is asked for again
    (a refit on the same data and bandwidth). Default 128; 0 keeps none.

Settings made by :func:`set_config` hold for the calling thread and every thread started
afterwards; :func:`config_context` changes them for the calling thread within a ``with``
block. The library's own worker threads (the engine's kept pool, the robust bandwidth
search's threads) run each task with the settings of the thread that gave it
(:func:`with_callers_config`), so a ``with`` block reaches the work it starts.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from numbers import Integral, Real

from joblib import cpu_count

_DEFAULTS = {"n_threads": None, "working_memory": 16, "memo_size": 128}
_GLOBAL = dict(_DEFAULTS)
_LOCAL = threading.local()


def _thread_config() -> dict:
    """This thread's settings: the knobs, and the library's own per-thread settings
    (:func:`thread_settings`)."""
    if not hasattr(_LOCAL, "config"):
        _LOCAL.config = dict(_GLOBAL)
    return _LOCAL.config


def get_config() -> dict:
    """The current values of the tuning knobs.

    Returns
    -------
    config : dict
        Keys ``n_threads`` (None: every core this process may use), ``working_memory`` (MiB)
        and ``memo_size`` (MiB).

    See Also
    --------
    set_config : Set the knobs.
    config_context : Set them within a ``with`` block.

    Examples
    --------
    >>> from momkde_core import get_config
    >>> sorted(get_config())
    ['memo_size', 'n_threads', 'working_memory']
    """
    config = _thread_config()
    return {name: config[name] for name in _DEFAULTS}


def _check(name: str, value) -> None:
    if name == "n_threads":
        if value is not None and (
            not isinstance(value, Integral) or isinstance(value, bool) or value < 1
        ):
            raise ValueError(f"n_threads must be None or a positive integer, got {value!r}")
    elif name == "working_memory":
        if not isinstance(value, Real) or isinstance(value, bool) or not value >= 1:
            raise ValueError(f"working_memory must be a number of MiB >= 1, got {value!r}")
    elif not isinstance(value, Real) or isinstance(value, bool) or not value >= 0:
        raise ValueError(f"memo_size must be a number of MiB >= 0, got {value!r}")


def set_config(
    n_threads: int | None = None,
    working_memory: float | None = None,
    memo_size: float | None = None,
) -> None:
    """Set the tuning knobs for this thread and the threads started afterwards.

    Parameters
    ----------
    n_threads : int, optional
        Threads of the engine's pool and of the robust bandwidth search.
    working_memory : float, optional
        MiB of one working matrix of kernel values.
    memo_size : float, optional
        MiB of kernel values kept to replay a repeated evaluation.

    See Also
    --------
    get_config : The current values.
    config_context : Set the knobs within a ``with`` block.

    Notes
    -----
    A knob left as None keeps its value; to go back to every core after setting
    ``n_threads``, use :func:`config_context` or set an explicit count.

    Examples
    --------
    >>> from momkde_core import get_config, set_config
    >>> before = get_config()["working_memory"]
    >>> set_config(working_memory=32)
    >>> get_config()["working_memory"]
    32
    >>> set_config(working_memory=before)
    """
    given = {"n_threads": n_threads, "working_memory": working_memory, "memo_size": memo_size}
    changes = {k: v for k, v in given.items() if v is not None}
    for name, value in changes.items():
        _check(name, value)
    _GLOBAL.update(changes)
    _thread_config().update(changes)


@contextmanager
def config_context(**changes) -> Iterator[None]:
    """Set tuning knobs within a ``with`` block, for the calling thread.

    Parameters
    ----------
    **changes
        Any of ``n_threads`` (None: every core), ``working_memory`` and ``memo_size``
        (:func:`set_config`).

    Yields
    ------
    None
        The block runs with the changed knobs; the previous values are back after it.

    See Also
    --------
    set_config : Set the knobs for good.

    Examples
    --------
    >>> import numpy as np
    >>> from momkde_core import KDE, config_context
    >>> X = np.random.default_rng(0).normal(size=(500, 1))
    >>> with config_context(n_threads=1, working_memory=4):
    ...     logs = KDE().fit(X).score_samples(X[:3])
    >>> logs.shape
    (3,)
    """
    unknown = set(changes) - set(_DEFAULTS)
    if unknown:
        raise TypeError(
            f"unknown configuration key(s) {sorted(unknown)}; known: {sorted(_DEFAULTS)}"
        )
    for name, value in changes.items():
        if not (name == "n_threads" and value is None):
            _check(name, value)
    with thread_settings(**changes):
        yield


@contextmanager
def _settings_replaced(settings: dict) -> Iterator[None]:
    """The calling thread's settings are ``settings`` within the block, its own after it."""
    config = _thread_config()
    saved = dict(config)
    config.clear()
    config.update(settings)
    try:
        yield
    finally:
        config.clear()
        config.update(saved)


@contextmanager
def thread_settings(**changes) -> Iterator[None]:
    """Change settings of the calling thread within a ``with`` block, unchecked: the knobs
    (for :func:`config_context`, which checks them) or the library's own per-thread
    settings, such as the engine's replay limits, which :func:`get_config` does not show
    and :func:`with_callers_config` carries to the worker threads with the knobs."""
    with _settings_replaced({**_thread_config(), **changes}):
        yield


def thread_setting(name: str, default=None):
    """The calling thread's setting ``name`` (:func:`thread_settings`), or ``default``."""
    return _thread_config().get(name, default)


def with_callers_config(fn: Callable) -> Callable:
    """``fn`` wrapped to run, in whichever thread calls it, with the settings of the thread
    that wraps it, for the call's duration (settings are per thread: a worker thread would
    otherwise see the global ones, not the caller's :func:`config_context`).

    Examples
    --------
    >>> from concurrent.futures import ThreadPoolExecutor
    >>> from momkde_core import config_context, get_config
    >>> def knob():
    ...     return get_config()["working_memory"]
    >>> with config_context(working_memory=4), ThreadPoolExecutor(1) as pool:
    ...     pool.submit(knob).result(), pool.submit(with_callers_config(knob)).result()
    (16, 4)
    """
    settings = dict(_thread_config())

    def run(*args, **kwargs):
        with _settings_replaced(settings):
            return fn(*args, **kwargs)

    return run


def n_threads() -> int:
    """The number of threads to use now (the ``n_threads`` knob, resolved)."""
    value = _thread_config()["n_threads"]
    return cpu_count() if value is None else int(value)


def chunk_elements() -> int:
    """float64 values in one working matrix (the ``working_memory`` knob)."""
    return max(1, int(_thread_config()["working_memory"] * 2**20) // 8)


def memo_bytes() -> int:
    """Bytes of kernel values the engine may keep for replays (the ``memo_size`` knob)."""
    return int(_thread_config()["memo_size"] * 2**20)

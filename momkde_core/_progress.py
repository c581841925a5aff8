"""Progress of long work on stderr: a line redrawn in place on a terminal, a log line every
few seconds otherwise (a file, a pipe, a CI log), with the rate; and one-off lines for the
phases of a run (:func:`note`, :func:`phase`)."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

REDRAW_SECONDS = 0.2  # a terminal's line is redrawn at most this often
LOG_SECONDS = 5.0  # elsewhere a line is written at most this often


def note(message: str, enabled: bool = True, stream: TextIO | None = None) -> None:
    """Write the line ``momkde: <message>`` on ``stream`` (default: stderr), unless disabled."""
    if not enabled:
        return
    stream = sys.stderr if stream is None else stream
    stream.write(f"momkde: {message}\n")
    stream.flush()


@contextmanager
def phase(
    start: str, done: str, enabled: bool = True, stream: TextIO | None = None
) -> Iterator[None]:
    """A phase of a run: the line ``momkde: <start> ...`` when it begins, and
    ``momkde: <done> in <seconds> s`` when the ``with`` block ends without an error."""
    note(f"{start} ...", enabled, stream)
    began = time.monotonic()
    yield
    note(f"{done} in {time.monotonic() - began:.1f} s", enabled, stream)


class Progress:
    """Count work done and report it on ``stream`` (default: stderr) while it runs.

    Used as a context manager around a loop that calls :meth:`update`. Nothing is written
    when ``enabled`` is false, or before ``LOG_SECONDS`` have passed on a stream that is not
    a terminal; on a terminal the line is erased at the end. With ``summary``, a last line
    (count, time, rate) is written when the block ends without an error, on any stream.
    """

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None = None,
        enabled: bool = True,
        stream: TextIO | None = None,
        summary: bool = False,
    ):
        self.desc, self.unit, self.total, self.enabled = desc, unit, total, enabled
        self.summary = summary
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._start = self._last = time.monotonic()
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type, *exc) -> None:
        if self._drawn and self._tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
        if self.enabled and self.summary and exc_type is None:
            elapsed = time.monotonic() - self._start
            text = f"momkde: {self.desc}: {self.done:,} {self.unit} in {elapsed:.1f} s"
            self.stream.write(f"{text}{self._rate(elapsed)}\n")
            self.stream.flush()

    def line(self) -> str:
        """The progress as words: count, share of the total, rate (once some work is done).

        Examples
        --------
        >>> bar = Progress("running", "samples", total=8)
        >>> bar.line()
        'momkde: running: 0 of 8 samples (0 %)'
        >>> bar.done, bar._start = 1, bar._start - 3.0  # one sample in 3 seconds
        >>> bar.line()
        'momkde: running: 1 of 8 samples (12 %), 0.33 samples/s'
        """
        text = f"momkde: {self.desc}: {self.done:,}"
        if self.total:
            text += f" of {self.total:,} {self.unit} ({100 * self.done / self.total:.0f} %)"
        else:
            text += f" {self.unit}"
        return text + self._rate(time.monotonic() - self._start)

    def _rate(self, elapsed: float) -> str:
        """ ", <rate> <unit>/s" for the work done in ``elapsed`` seconds, with two significant
        digits below 10 (a sweep's samples take seconds each: 0.33 samples/s, not 0), or ""
        before any work is done (no rate to tell yet)."""
        if self.done <= 0 or elapsed <= 0:
            return ""
        rate = self.done / elapsed
        return f", {rate:,.0f} {self.unit}/s" if rate >= 10 else f", {rate:.2g} {self.unit}/s"

    def update(self, n: int = 1) -> None:
        """Add ``n`` units of work done, and report when it is time to."""
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self._last < (REDRAW_SECONDS if self._tty else LOG_SECONDS):
            return
        self._last, self._drawn = now, True
        self.stream.write(f"\r\x1b[K{self.line()}" if self._tty else f"{self.line()}\n")
        self.stream.flush()

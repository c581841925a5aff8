"""Progress of long loops on stderr: a line redrawn in place on a terminal, a log line every
few seconds otherwise (a file, a pipe, a CI log), with the rate."""

from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_SECONDS = 0.2  # a terminal's line is redrawn at most this often
LOG_SECONDS = 5.0  # elsewhere a line is written at most this often


class Progress:
    """Count work done and report it on ``stream`` (default: stderr) while it runs.

    Used as a context manager around a loop that calls :meth:`update`. Nothing is written
    when ``enabled`` is false, or before ``LOG_SECONDS`` have passed on a stream that is not
    a terminal; on a terminal the line is erased at the end.
    """

    def __init__(
        self,
        desc: str,
        unit: str,
        total: int | None = None,
        enabled: bool = True,
        stream: TextIO | None = None,
    ):
        self.desc, self.unit, self.total, self.enabled = desc, unit, total, enabled
        self.stream = sys.stderr if stream is None else stream
        self.done = 0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self._start = self._last = time.monotonic()
        self._drawn = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self._drawn and self._tty:
            self.stream.write("\r\x1b[K")
            self.stream.flush()

    def line(self) -> str:
        """The progress as words: count, share of the total, rate."""
        elapsed = max(time.monotonic() - self._start, 1e-9)
        text = f"momkde: {self.desc}: {self.done:,}"
        if self.total:
            text += f" of {self.total:,} {self.unit} ({100 * self.done / self.total:.0f} %)"
        else:
            text += f" {self.unit}"
        return f"{text}, {self.done / elapsed:,.0f} {self.unit}/s"

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

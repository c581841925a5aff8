"""What the subcommands of ``momkde`` share: the one-line usage error and its exit codes,
argparse reporting as one line, integer arguments, checks of --out and --scheduler, and
signals that stop a run as Ctrl-C does."""

from __future__ import annotations

import argparse
import os
import re
import signal
from pathlib import Path

EXIT_USAGE = 2
EXIT_FAILED = 1  # a sample of a sweep failed (its finished samples are kept)
EXIT_INTERRUPTED = 130  # Ctrl-C, as a shell reports SIGINT


class UsageError(Exception):
    """An error in the user's input: reported as one line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports errors as one line (``momkde: error: ...``) with exit code 2."""

    def error(self, message: str):
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def _integer(text: str, all_cores: bool = False) -> int:
    """An integer >= 1 (or -1, "all cores", when ``all_cores``); ArgumentTypeError otherwise."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1 and not (all_cores and value == -1):
        raise argparse.ArgumentTypeError(
            f"must be >= 1{' or -1 (all cores)' if all_cores else ''}, got {text}"
        )
    return value


def _seed(text: str) -> int:
    """A seed or a repetition number: an integer >= 0 (what numpy's SeedSequence takes)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    return _integer(text)


def _jobs(text: str) -> int:
    return _integer(text, all_cores=True)


def _check_out(out: Path) -> None:
    """UsageError unless ``out`` is the path of a file that can be written (checked before
    anything is computed)."""
    if out.is_dir():
        raise UsageError(f"--out is a folder: {out}; give the path of the CSV file to write")
    if not out.parent.is_dir():
        raise UsageError(f"the folder of --out does not exist: {out.parent}")
    if not os.access(out.parent, os.W_OK | os.X_OK):
        raise UsageError(f"cannot write in the folder of --out: {out.parent}")
    if out.exists() and not os.access(out, os.W_OK):
        raise UsageError(f"--out exists and is not writable: {out}")


_SCHEDULER = re.compile(r"(?:(?:tcp|tls|ws|wss|ucx)://)?(?:\[[0-9a-fA-F:]+\]|[^\s/:\[\]]+):\d{1,5}")


def _check_scheduler(address: str) -> None:
    """UsageError unless ``address`` reads as a Dask scheduler address and dask.distributed
    is installed (whether the scheduler answers is known only when connecting)."""
    if not _SCHEDULER.fullmatch(address):
        raise UsageError(
            f"--scheduler {address!r} is not a Dask scheduler address; give "
            "[tcp://]host:port, e.g. tcp://127.0.0.1:8786"
        )
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise UsageError(
            "--scheduler needs dask.distributed: pip install 'momkde[distributed]'"
        ) from None


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def _stop_on_signals() -> None:
    """SIGTERM, and SIGINT even in a process started in the background (where a shell
    ignores it), stop a sweep as Ctrl-C does: its finished samples are kept and the
    message says how to resume."""
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def _first_line(err: BaseException) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else type(err).__name__

"""What the browser test (tests/test_browser.py) and the browser benchmarks (bench_app_redraw,
load_test, screenshots) share: Debian's Chromium and its flags, a free port, the app's idle
wait, the drawn curves, and the console noise that is not an app error.

Imported as ``benchmarks.browser`` with the repository root first on ``sys.path`` (the
benchmarks insert it; the tests get it from ``pythonpath`` in pyproject.toml), so no
installed package named ``tests`` or ``benchmarks`` can stand in for it. It imports neither
playwright nor the app: the pages it is given are Playwright's (sync API), and asking for
Chromium here never skips or fails anything.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")  # Debian's package: never a downloaded browser build
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
TRACE = ".js-plotly-plot .scatterlayer .trace"


def streamlit_command(port: int) -> list[str]:
    """The command that serves the app (``app.py``, run from the repository root) headless on
    ``port``, with no usage statistics sent."""
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        "app.py",
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def is_path_probe(url: str) -> bool:
    """Streamlit's frontend, opened on a page's path (/explore), first looks for its server
    endpoints under that path (/explore/_stcore/health), gets a 404, then finds them at the
    root: expected noise, not an app error."""
    return "/_stcore/" in url and not url.split("://", 1)[-1].split("/", 1)[-1].startswith(
        "_stcore/"
    )


#: True while the app has not finished a script or fragment run: Streamlit marks the app
#: ``data-test-script-state`` ("initial" before its first run, "running" during a run or a
#: fragment's rerun); the toolbar's status widget, when the toolbar shows it, says the same.
RUNNING_JS = """() => { const app = document.querySelector('[data-testid="stApp"]');
    return !app || ['initial', 'running', 'rerunRequested'].includes(
            app.getAttribute('data-test-script-state'))
        || !!document.querySelector('[data-testid="stStatusWidget"]'); }"""


def wait_until_idle(tab, timeout: float = 60_000) -> None:
    """Wait for the app to load and for the script run to finish (:data:`RUNNING_JS` false)."""
    tab.wait_for_selector('[data-testid="stApp"]', timeout=timeout)
    tab.wait_for_function(f"() => !({RUNNING_JS})()", timeout=timeout)


def curve_path(tab) -> str:
    """The drawn paths of the page's curves, joined (MoM-KDE's is the one after the truth
    and the KDE): what changes when a slider redraws the figure."""
    return tab.evaluate("""() => Array.from(document.querySelectorAll('.js-plotly-plot .scatterlayer .trace path.js-line'))
                                .map(p => p.getAttribute('d')).join('|')""")

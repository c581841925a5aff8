"""The ``momkde`` command: ``score`` (flag a CSV's anomalous rows), ``reproduce`` (the
paper's experiments) and ``figures`` (their plots).

Layer 7, the top of the package (``docs/architecture.md``): it parses and checks the
arguments before any computation, then calls the layers below.
"""

from ._main import main

__all__ = ["main"]

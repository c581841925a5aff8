"""``python -m momkde_core.cli``: the ``momkde`` command."""

import sys

from ._main import main

sys.exit(main())

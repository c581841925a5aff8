"""Sphinx configuration of the API reference, generated from momkde_core's docstrings.

Build it (warnings are errors, as in the tests):
``sphinx-build -W -b html docs/api docs/api/_build/html``.
"""

import os
import re
import sys

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..")))

project = "momkde"
author = "the momkde authors"
copyright = "the momkde authors, BSD-3-Clause"
release = "0.1.0"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_inherit_docstrings = False
# the docstrings write plain names in backquotes (``h``, `X`): literal text, not references
default_role = "literal"
exclude_patterns = ["_build"]
html_theme = "alabaster"
napoleon_use_ivar = True  # "Attributes" as fields: properties keep their own entries

# The docstrings write |O|, |p - q| and ||f||_H for cardinals, absolute values and norms,
# which reST reads as substitutions: escape every bar outside ``literals`` (the docstrings
# stay plain text for help()).
_LITERAL = re.compile(r"(``.+?``)")


def _escape_bars(app, what, name, obj, options, lines):
    lines[:] = ["".join(part if part.startswith("``") else part.replace("|", "\\|")
                        for part in _LITERAL.split(line)) for line in lines]


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out what scikit-learn adds to our classes (the set_*_request methods)."""
    if getattr(obj, "__module__", "") and not obj.__module__.startswith("momkde_core") \
            and what == "class":
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("autodoc-skip-member", _skip_foreign)

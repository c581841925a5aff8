"""Sphinx configuration of the momkde documentation: the guide, the studies and the API reference.

The pages are Markdown (MyST); the API reference (api.rst) is generated from the docstrings
of ``momkde_core``. Build it, warnings as errors as in tests/test_api_docs.py:

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs /tmp/site

then open /tmp/site/index.html.
"""

import os
import re
import sys

# the repository root, so that autodoc imports the momkde_core of this checkout
sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

project = "momkde"
author = "the momkde authors"
copyright = "the momkde authors, BSD-3-Clause"
release = "0.1.0"

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon"]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "results", "figures/**/*.html"]

# MyST: anchors for the headings down to level 4, so that links such as
# reproduction.md#choosing-s-and-h-without-an-oracle resolve (as they do on GitHub)
myst_heading_anchors = 4

napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_ivar = True  # "Attributes" as fields: properties keep their own entries
# napoleon escapes a trailing underscore in Attributes (n_blocks\_): shown as written
strip_signature_backslash = True
autodoc_default_options = {"members": True, "member-order": "bysource"}
autodoc_typehints = "description"
autodoc_typehints_description_target = "documented"
autodoc_inherit_docstrings = False
# the docstrings write plain names in backquotes (``h``, `X`): literal text, not references
default_role = "literal"
html_theme = "alabaster"
html_title = "momkde"

# The docstrings write |O|, |p - q| and ||f||_H for cardinals, absolute values and norms,
# which reST reads as substitutions: escape every bar outside ``literals`` (the docstrings
# stay plain text for help()).
_LITERAL = re.compile(r"(``.+?``)")


def _escape_bars(app, what, name, obj, options, lines):
    lines[:] = [
        "".join(
            part if part.startswith("``") else part.replace("|", "\\|")
            for part in _LITERAL.split(line)
        )
        for line in lines
    ]


def _skip_foreign(app, what, name, obj, skip, options):
    """Leave out what scikit-learn adds to our classes (get_params, the set_*_request methods)."""
    if (
        getattr(obj, "__module__", "")
        and not obj.__module__.startswith("momkde_core")
        and what == "class"
    ):
        return True
    return None


def setup(app):
    app.connect("autodoc-process-docstring", _escape_bars)
    app.connect("autodoc-skip-member", _skip_foreign)

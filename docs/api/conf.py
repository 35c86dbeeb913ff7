"""Sphinx configuration of ferz's API reference (built from the docstrings).

Build: sphinx-build -W -b html docs/api build/api   (pip install -e '.[docs]')
"""

project = "ferz"
author = "the ferz developers"
copyright = "2026, the ferz developers (GPL-3.0-or-later)"  # noqa: A001 (Sphinx's name)
extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
default_role = "code"  # `e4` in a docstring is code, as in the rest of the docs
html_theme = "alabaster"
exclude_patterns = ["_build"]

"""pytest, for the whole tree.

With the compiled build (docs/speed.md) a hot module's file is its extension module, not the
``.py`` beside it that pytest collects the doctests from; pytest's check that the two are one
file is switched off, so the doctests run against whichever build is installed.
"""

import os

os.environ.setdefault("PY_IGNORE_IMPORTMISMATCH", "1")

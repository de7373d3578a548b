"""The ``laizi`` command: one Typer application, one module per subcommand.

Each subcommand module registers itself on :data:`app` when imported; the list below is the
whole command set.  Exit codes follow INTERFACES.md (see :mod:`laizi.cli.common`).
"""

from __future__ import annotations

import sys

# Subcommand modules register their commands on `app` when imported.
from laizi.cli import analyze as _analyze  # noqa: F401
from laizi.cli import arena as _arena  # noqa: F401
from laizi.cli import botcheck as _botcheck  # noqa: F401
from laizi.cli import dataset as _dataset  # noqa: F401
from laizi.cli import deal as _deal  # noqa: F401
from laizi.cli import export as _export  # noqa: F401
from laizi.cli import fairplay as _fairplay  # noqa: F401
from laizi.cli import play as _play  # noqa: F401
from laizi.cli import replay as _replay  # noqa: F401
from laizi.cli import score as _score  # noqa: F401
from laizi.cli import serve as _serve  # noqa: F401
from laizi.cli import tournament as _tournament  # noqa: F401
from laizi.cli import train as _train  # noqa: F401
from laizi.cli import verify as _verify  # noqa: F401
from laizi.cli.common import app

__all__ = ["app", "main"]


def main() -> None:
    """Entry point of the ``laizi`` console script."""
    try:
        app()
    except KeyboardInterrupt:  # pragma: no cover - interactive only
        sys.exit(130)

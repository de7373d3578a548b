"""The web client (issue 9): static ES modules served at ``/``, plus two read-only JSON helpers.

:func:`routes` is what the server's app mounts: the page (``/``, ``/r/{code}`` join links,
``/replay/{code}/{n}``), the static files under ``/web/``, ``GET /api/presets`` (every preset with
every setting's default, and the table settings' defaults — the lobby's form is built from it) and
``GET /api/rooms/{code}/hands/{n}/replay`` (a finished hand step by step with all hands open).
``docs/web.md`` describes the client.
"""

from laizi.web.replay import frames
from laizi.web.routes import presets, routes

__all__ = ["frames", "presets", "routes"]

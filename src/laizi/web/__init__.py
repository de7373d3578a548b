"""The web client: static ES modules served at ``/``, plus two read-only JSON helpers.

:func:`routes` is what the server's app mounts: the page (``/``, ``/r/{code}`` join links,
``/replay/{code}/{n}``), the static files under ``/web/`` and
``GET /api/rooms/{code}/hands/{n}/replay`` (a finished hand step by step with all hands open).
The lobby's form is built from the server's ``GET /api/settings/schema``.  The server imports
this package; this package never imports the server.
``docs/web.md`` describes the client.
"""

from laizi.web.replay import frames
from laizi.web.routes import routes

__all__ = ["frames", "routes"]

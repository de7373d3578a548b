"""``--ray [ADDRESS]``: an option whose value may be left out (then: a local Ray cluster).

Typer has no option with an optional value, so the commands that take ``--ray`` use
:class:`RayCommand`, which reads ``--ray`` without an address as ``--ray local`` before the usual
parsing.  What follows ``--ray`` is taken as its address only when it reads as one (``auto``,
``local``, ``HOST:PORT``, ``ray://HOST:PORT``), so ``laizi arena --ray greedy random`` still has
its two bots.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand

from laizi.sim.distributed import LOCAL, is_ray_address

__all__ = ["RayCommand", "RayOption", "ray_workers"]

RayOption: Any = typer.Option(
    None,
    "--ray",
    metavar="[ADDRESS]",
    help="Spread the work over a Ray cluster: ADDRESS (auto, HOST:PORT, ray://HOST:PORT), or a "
    "local cluster when left out; --workers K (K > 1) caps the Ray workers (default: the "
    "cluster's CPUs). Same results as one process. Needs pip install 'laizi\\[cluster]'.",
)


class RayCommand(TyperCommand):
    """A command whose ``--ray`` may come without an address."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        fixed: list[str] = []
        for k, arg in enumerate(args):
            fixed.append(arg)
            if arg == "--":
                fixed += args[k + 1 :]
                break
            if arg == "--ray" and (k + 1 == len(args) or not is_ray_address(args[k + 1])):
                fixed.append(LOCAL)
        return super().parse_args(ctx, fixed)


def ray_workers(workers: int) -> int | None:
    """With ``--ray``, ``--workers K`` (K > 1) is the number of Ray workers; else all CPUs."""
    return workers if workers > 1 else None

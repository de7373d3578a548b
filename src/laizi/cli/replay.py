"""``laizi replay SCRIPT|-``: play a scripted hand through the engine and print its events.

Exit 0 with the events as JSON lines (the last one is ``end`` with ``winner`` and
``payments``); 1 for bad input or a script that ends before the hand does (naming who was to
act); 3 for an illegal action (its 0-based index, the action, why, and what was legal) — the
events before it are printed, none of it or after it.
"""

from __future__ import annotations

import typer

from laizi.cli.common import (
    EXIT_ILLEGAL_ACTION,
    LangOption,
    app,
    fail,
    lang_or_exit,
    load_json,
)
from laizi.engine.record import dumps_event
from laizi.engine.script import ScriptError, ScriptIllegal, ScriptUnfinished, run_script
from laizi.i18n import pick

__all__ = ["replay"]


@app.command("replay")
def replay(
    script: str = typer.Argument(..., help="A replay script (JSON), or - for standard input."),
    lang: str | None = LangOption,
) -> None:
    """Replay a scripted hand: hands, indicator, draws, replacements and actions → events."""
    language = lang_or_exit(lang)
    obj = load_json(script)
    try:
        result = run_script(obj)
    except ScriptError as error:
        fail(f"{pick(language, '输入有误', 'bad input')}: {error}")
    except ScriptIllegal as error:
        _print(error.result.events)  # type: ignore[attr-defined]
        fail(f"{pick(language, '非法动作', 'illegal action')}: {error}", EXIT_ILLEGAL_ACTION)
    except ScriptUnfinished as error:
        _print(error.result.events)  # type: ignore[attr-defined]
        fail(f"{pick(language, '脚本提前结束', 'script unfinished')}: {error}")
    _print(result.events)


def _print(events: list[dict]) -> None:
    for event in events:
        typer.echo(dumps_event(event))

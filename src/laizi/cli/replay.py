"""``laizi replay SCRIPT|-``: play a scripted hand through the engine and print its events.

``laizi replay FILE --html OUT`` writes one self-contained HTML page replaying FILE — a hand
record, a script or an events log (:mod:`laizi.cli.replay_html`) — and prints one JSON line.

Exit 0 with the events as JSON lines (the last one is ``end`` with ``winner`` and
``payments``); 1 for bad input or a script that ends before the hand does (naming who was to
act); 3 for an illegal action (its 0-based index, the action, why, and what was legal) — the
events before it are printed, none of it or after it.  ``--stop-after N`` plays the first N
actions and adds a last line saying who may act there and what is legal (``legal``).
"""

from __future__ import annotations

import re

import typer

from laizi.cli.common import (
    EXIT_ILLEGAL_ACTION,
    LangOption,
    app,
    dumps,
    fail,
    lang_or_exit,
    load_json,
    read_text,
)
from laizi.engine.illegal import why_illegal
from laizi.engine.record import dumps_event
from laizi.engine.script import (
    ScriptError,
    ScriptIllegal,
    ScriptUnfinished,
    legal_now,
    run_script,
)
from laizi.i18n import pick

__all__ = ["replay"]


@app.command("replay")
def replay(
    script: str = typer.Argument(
        ...,
        help="A replay script (JSON), or - for standard input; with --html also a hand record"
        " (JSON Lines, as laizi verify reads) or an events log (laizi export --format events).",
    ),
    lang: str | None = LangOption,
    json_output: bool = typer.Option(
        False, "--json", help="Accepted for uniformity: the output is always JSON lines."
    ),
    stop_after: int | None = typer.Option(
        None,
        "--stop-after",
        min=0,
        help="Play only the first N actions, then print who may act and their legal actions.",
    ),
    html: str | None = typer.Option(
        None,
        "--html",
        metavar="OUT",
        help="Write one self-contained HTML page replaying the file to OUT (step, jump to a"
        " decision, each seat's view or all hands; opens from file://, fetches nothing) and print"
        " one JSON line: html, kind, hands, steps, bytes.",
    ),
) -> None:
    """Replay a scripted hand: hands, indicator, draws, replacements and actions → events.

    With --stop-after N the last line is {"type": "legal", "after": N, "phase", "turn",
    "claim"?, "to_act": [{"seat", "legal": [actions in the script's notation]}]}.

    With --html OUT: one replay page of a script, a record or an events log (docs/web.md)."""
    language = lang_or_exit(lang)
    if html is not None:
        if stop_after is not None:
            raise typer.BadParameter("--stop-after plays a script; --html replays a whole file")
        from laizi.cli.replay_html import write_page

        typer.echo(dumps(write_page(script, read_text(script), html, language)))
        return
    obj = load_json(script)
    try:
        result = run_script(obj, stop_after)
    except ScriptError as error:
        fail(f"{pick(language, '输入有误', 'bad input')}: {script_error_text(error, language)}")
    except ScriptIllegal as error:
        _print(error.result.events if error.result else [])
        fail(illegal_text(error, language), EXIT_ILLEGAL_ACTION)
    except ScriptUnfinished as error:
        _print(error.result.events if error.result else [])
        who = "、".join(f"座位 {s}" for s in error.seats)
        fail(
            pick(
                language,
                f"脚本用完了，这一局还没结束：该{who}行动（{error.phase}）",
                f"script unfinished: {error}",
            )
        )
    except (ValueError, TypeError, KeyError, IndexError) as error:  # never a traceback
        fail(f"{pick(language, '输入有误', 'bad input')}: {type(error).__name__}: {error}")
    _print(result.events)
    if stop_after is not None:
        typer.echo(dumps({"type": "legal", "after": stop_after, **legal_now(result.state)}))


_SCRIPT_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), zh)
    for pattern, zh in (
        (r"must be tile notation or a list of tiles", "必须是牌的写法（如 123m）或牌的列表"),
        (r"must be a JSON object", "必须是一个 JSON 对象"),
        (r"unknown key", "没有这个键"),
        (r"missing", "缺少"),
        (r"must be a seat 0–3", "必须是座位 0–3"),
        (r"must be four hands, index = seat", "必须是四手牌，下标就是座位"),
        (r"must be tile notation", "必须是牌的写法（如 123m）"),
        (r"has (\d+) tiles, needs (\d+)", "有 {0} 张牌，应是 {1} 张"),
        (r'missing: one tile, e\.g\. "5m"', '缺少：一张牌，例如 "5m"'),
        (r"this game turns no indicator", "这种玩法不翻牌"),
        (
            r"draws and replacements name more than the (\d+) tiles left",
            "摸牌和补牌列出的牌比剩下的 {0} 张还多",
        ),
        (r"must be a list of actions", "必须是动作的列表"),
    )
)


def script_error_text(error: ScriptError, language: str) -> str:
    """A bad script's message (``field: why``) in ``language``; the field stays as written.

    >>> script_error_text(ScriptError("hands[2]", "has 12 tiles, needs 13"), "zh")
    'hands[2]：有 12 张牌，应是 13 张'
    >>> script_error_text(ScriptError("hands[2]", "has 12 tiles, needs 13"), "en")
    'hands[2]: has 12 tiles, needs 13'
    """
    if language != "zh":
        return str(error)
    why = str(error).removeprefix(f"{error.field}: ")
    for pattern, zh in _SCRIPT_ZH:
        found = pattern.fullmatch(why)
        if found:
            return f"{error.field}：{zh.format(*found.groups())}"
    return f"{error.field}：{why}"


def illegal_text(error: ScriptIllegal, language: str) -> str:
    """An illegal action's message: its index, the action, why, and what was legal."""
    if language != "zh":
        return f"illegal action: {error}"
    reason = error.reason
    if error.result is not None:
        reason = why_illegal(error.result.state, error.action, "zh")
    legal = "、".join(a.notation() for a in error.legal) or "无"
    return (
        f"非法动作：第 {error.index} 个动作（{error.action.notation()}）不合法：{reason}；"
        f"合法的动作：{legal}"
    )


def _print(events: list[dict]) -> None:
    for event in events:
        typer.echo(dumps_event(event))

"""``laizi replay FILE --html OUT``: one self-contained HTML page replaying FILE.

FILE is a hand record (JSON Lines, one hand or a match, as ``laizi verify`` reads), a replay
script (as ``laizi replay`` plays) or an events log (``laizi export --format events``, full or one
seat's).  A record or a script is replayed by the engine here and the page carries its frames —
the same frames the server's replay page shows (:func:`laizi.web.replay.frames`): every hand,
the multipliers, the tiles left and how many legal actions each decision had.  A log carries what
its seat saw and nothing of the rules: the page folds it itself (``static/recordfold.js``).
Bad input: exit 1 with the reason in the chosen language; an illegal action in a script: exit 3.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from laizi import jsonsafe
from laizi.cli.common import fail
from laizi.cli.verdict_text import problem_text
from laizi.engine.record import RecordError, parse_record
from laizi.i18n import Lang, pick

__all__ = ["kind_of", "page_data", "write_page"]


def kind_of(text: str) -> str:
    """``script`` (one JSON object without ``type``), ``record`` (events from ``start``), ``log``
    (from ``start_game``); RecordError when it is none of them.

    >>> kind_of('{"rules": "baishan", "actions": []}'), kind_of('{"type": "start_game"}')
    ('script', 'log')
    """
    try:
        whole = jsonsafe.loads(text)
    except jsonsafe.JSONInputError:
        whole = None
    if isinstance(whole, dict) and "type" not in whole:
        return "script"
    events = parse_record(text)
    if not events:
        raise RecordError(0, "the file is empty", "文件是空的")
    first = events[0]["type"]
    if first == "start":
        return "record"
    if first == "start_game":
        return "log"
    raise RecordError(
        0,
        f"starts with {first}: neither a record (start) nor an events log (start_game)",
        f"以 {first} 开头：既不是对局记录（start 开头）也不是事件日志（start_game 开头）",
    )


def _hands(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each hand of a record (a match: each begins with ``start``) as the server's frames."""
    from laizi.web.replay import frames

    starts = [i for i, e in enumerate(events) if e.get("type") == "start"]
    out = []
    for number, (lo, hi) in enumerate(itertools.pairwise([*starts, len(events)])):
        try:
            steps = frames(events[lo:hi])
        except RecordError as error:  # the index within the whole file
            detail = str(error).split(": ", 1)[-1]
            raise RecordError(lo + error.index, detail, error.message_zh) from None
        except (ValueError, TypeError, KeyError, IndexError) as error:
            raise RecordError(
                lo, f"hand {number} does not replay: {error}", f"第 {number} 局重放不了：{error}"
            ) from None
        out.append(
            {
                "number": events[lo].get("hand", number),
                "game": events[lo].get("game"),
                "frames": steps,
            }
        )
    return out


def _log_checked(text: str) -> str:
    """An events log, checked as far as the page needs: JSON lines from ``start_game`` through
    ``start_kyoku`` to ``end_kyoku``."""
    types = [e["type"] for e in parse_record(text)]
    for needed in ("start_kyoku", "end_kyoku"):
        if needed not in types:
            raise RecordError(len(types), f"an events log has {needed}", f"事件日志里应有 {needed}")
    return text


def page_data(text: str, name: str, language: Lang) -> dict[str, Any]:
    """What the page carries for FILE's text; exits 1 (3 for an illegal action) on bad input."""
    try:
        kind = kind_of(text)
        if kind == "log":
            return {"name": name, "kind": kind, "log": _log_checked(text)}
        if kind == "record":
            return {"name": name, "kind": kind, "hands": _hands(parse_record(text))}
    except RecordError as error:
        fail(f"{name}: {_problem(error, language)}")
    return {"name": name, "kind": "script", "hands": _hands(_script_events(text, language))}


def _problem(error: RecordError, language: Lang) -> str:
    if language == "zh" and error.message_zh:
        return f"第 {error.index} 个事件（从 0 数）：{error.message_zh}"
    return problem_text(str(error), language)


def _script_events(text: str, language: Lang) -> list[dict[str, Any]]:
    from laizi.cli.common import EXIT_ILLEGAL_ACTION
    from laizi.cli.replay import script_error_text
    from laizi.engine.script import ScriptError, ScriptIllegal, ScriptUnfinished, run_script

    try:
        return list(run_script(jsonsafe.loads(text), None).events)
    except ScriptError as error:
        fail(f"{pick(language, '输入有误', 'bad input')}: {script_error_text(error, language)}")
    except ScriptIllegal as error:
        from laizi.cli.replay import illegal_text

        fail(illegal_text(error, language), EXIT_ILLEGAL_ACTION)
    except ScriptUnfinished as error:
        fail(pick(language, f"脚本用完了，这一局还没结束：{error}", f"script unfinished: {error}"))
    except (ValueError, TypeError, KeyError, IndexError) as error:
        fail(f"{pick(language, '输入有误', 'bad input')}: {type(error).__name__}: {error}")


def write_page(source: str, text: str, out: str, language: Lang) -> dict[str, Any]:
    """Write the page of ``text`` (read from ``source``) to ``out``; the summary line's fields."""
    from laizi.rules.schema import settings_schema
    from laizi.server.schema import game_words
    from laizi.web.standalone import replay_page

    name = "stdin" if source == "-" else Path(source).name
    data = page_data(text, name, language)
    page = replay_page(data, {"rules": settings_schema(), "words": game_words()})
    try:
        Path(out).write_text(page, encoding="utf-8")
    except OSError as error:
        fail(
            pick(
                language,
                f"写不了 {out}：{error.strerror or error}",
                f"cannot write {out}: {error.strerror or error}",
            )
        )
    hands = data.get("hands")
    return {
        "html": out,
        "kind": data["kind"],
        "hands": len(hands) if hands is not None else None,
        "steps": sum(len(h["frames"]) for h in hands) if hands is not None else None,
        "bytes": len(page.encode("utf-8")),
    }

"""``laizi analyze``: one hand in readable form, or JSON lines in and out (INTERFACES.md)."""

from __future__ import annotations

import sys
from typing import Any

import typer

from laizi import jsonsafe
from laizi.analysis import Analysis, analyze, analyze_text
from laizi.cli.common import (
    EXIT_BAD_INPUT,
    RULES_HELP,
    LangOption,
    app,
    dumps,
    fail,
    lang_or_exit,
    load_json_option,
)
from laizi.i18n import Lang, pick
from laizi.rules.registry import GAMES, ruleset_class
from laizi.rules.settings import Settings, SettingsError
from laizi.tiles import count_vector, format_tile, parse_tile, parse_tiles, tile_name

_INPUT_KEYS = frozenset(("hand", "laizi", "game"))


@app.command("analyze")
def analyze_command(
    hand: str = typer.Argument(
        None,
        help="The concealed tiles, e.g. 123456789m1255p7z. Omit to read JSON lines from stdin.",
    ),
    laizi: str = typer.Option(None, "--laizi", "-l", help="The laizi (wildcard) kind, e.g. 7z."),
    rules: str = typer.Option(
        "wuhan-hongzhong-kaikou",
        "--rules",
        help=RULES_HELP + " Only its game matters here (baishan: seven pairs, thirteen orphans); "
        "a game id (" + ", ".join(GAMES) + ") also works.",
    ),
    game: str | None = typer.Option(None, "--game", hidden=True, help="Old spelling of --rules."),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as one JSON object."),
    lang: str = LangOption,
) -> None:
    """Is a hand complete (with laizi)? What does it wait on? How far from ready is it?

    With HAND: a readable answer.  Without HAND: every non-blank stdin line is a JSON object
    {"hand": "...", "laizi": "6m"} and gets one JSON line back, in order.
    """
    if hand is None:
        if laizi is not None:
            fail('--laizi goes with HAND; in JSON-lines mode give "laizi" on each line', code=2)
        sys.exit(_batch())
    language = lang_or_exit(lang)
    game = game if game is not None else _game_of(rules)
    try:
        result = analyze_text(hand, laizi, game)
    except ValueError as error:
        fail(str(error))
    if as_json:
        typer.echo(dumps(result.to_json()))
    else:
        typer.echo(readable(result, language))


def _game_of(rules: str) -> str:
    """The game ``--rules`` names: a game id, a preset or JSON rules (exit 1 naming it if bad)."""
    if rules in GAMES:
        return rules
    try:
        return Settings.from_json(load_json_option("--rules", rules)).game
    except SettingsError as error:
        fail(f"--rules: {error}")


def readable(result: Analysis, lang: Lang) -> str:
    """The answer as a few lines of text in ``lang``."""

    def yes(value: bool) -> str:
        return pick(lang, "是", "yes") if value else pick(lang, "否", "no")

    def tile_list(tiles: tuple[int, ...]) -> str:
        if not tiles:
            return pick(lang, "无", "none")
        return " ".join(format_tile(tile) for tile in tiles)

    laizi = (
        f"{format_tile(result.laizi)} {tile_name(result.laizi, lang)}"
        if result.laizi is not None
        else pick(lang, "无", "none")
    )
    lines = [
        f"{pick(lang, '手牌', 'hand')}: {result.tiles}"
        f" ({sum(result.counts)} {pick(lang, '张', 'tiles')})",
        f"{pick(lang, '癞子', 'laizi')}: {laizi}",
    ]
    if sum(result.counts) % 3 == 2:
        lines += [
            f"{pick(lang, '和牌型', 'complete')}: {yes(result.complete)}"
            f"   {pick(lang, '二五八将', '2/5/8 pair')}: {yes(result.complete_258)}",
            f"{pick(lang, '硬胡', 'hard')}: {yes(result.hard)}"
            f"   {pick(lang, '硬胡二五八将', 'hard, 2/5/8 pair')}: {yes(result.hard_258)}",
        ]
    else:
        lines += [
            f"{pick(lang, '听牌', 'waits')}: {tile_list(result.waits)}",
            f"{pick(lang, '二五八将听牌', 'waits, 2/5/8 pair')}: {tile_list(result.waits_258)}",
        ]
    if ruleset_class(result.game).wins_special_shapes():
        if sum(result.counts) % 3 == 2:
            lines.append(
                f"{pick(lang, '七对', 'seven pairs')}: {yes(result.seven_pairs)}"
                f"   {pick(lang, '十三幺', 'thirteen orphans')}: {yes(result.thirteen_orphans)}"
            )
        else:
            lines.append(
                f"{pick(lang, '七对/十三幺听牌', 'seven pairs / orphans waits')}: "
                f"{tile_list(result.special_waits)}"
            )
    shanten_note = {
        -1: pick(lang, "和牌", "complete"),
        0: pick(lang, "听牌", "ready"),
    }.get(result.shanten, pick(lang, f"差{result.shanten}张听牌", f"{result.shanten} from ready"))
    lines.append(f"{pick(lang, '向听数', 'shanten')}: {result.shanten} ({shanten_note})")
    return "\n".join(lines)


def analyze_line(line: str) -> dict[str, Any]:
    """One JSON-lines request to its answer (or ``{"error": ...}``)."""
    try:
        request = jsonsafe.loads(line)
    except jsonsafe.JSONInputError as error:
        if error.column is not None:
            return {"error": f"not valid JSON: {error.message} at column {error.column}"}
        return {"error": f"not valid JSON: {error}"}
    if not isinstance(request, dict):
        return {"error": "each line must be a JSON object"}
    unknown = sorted(set(request) - _INPUT_KEYS)
    if unknown:
        return {"error": f"unknown field {unknown[0]!r}"}
    hand_text = request.get("hand")
    if not isinstance(hand_text, str):
        return {"error": "field 'hand' must be a string of tiles, e.g. \"123m55p\""}
    laizi_text = request.get("laizi")
    if laizi_text is not None and not isinstance(laizi_text, str):
        return {"error": "field 'laizi' must be a tile such as \"6m\", or null"}
    game = request.get("game", "wuhan")
    if game not in GAMES:
        return {"error": f"field 'game': {game!r} is not one of {', '.join(GAMES)}"}
    if not ruleset_class(game).has_wild_tiles() and laizi_text is not None:
        return {"error": f"field 'laizi': {game.capitalize()} mahjong has no laizi"}
    try:
        laizi = parse_tile(laizi_text) if laizi_text is not None else None
    except ValueError as error:
        return {"error": f"field 'laizi': {error}"}
    try:
        counts = count_vector(parse_tiles(hand_text))
        return analyze(counts, laizi, game).to_json()
    except ValueError as error:
        return {"error": f"field 'hand': {error}"}


def _batch() -> int:
    bad = False
    for raw in sys.stdin.buffer:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            line = None
        if line is not None and not line.strip():
            continue
        answer = analyze_line(line) if line is not None else {"error": "not UTF-8 text"}
        bad = bad or "error" in answer
        sys.stdout.write(dumps(answer) + "\n")
    sys.stdout.flush()
    return EXIT_BAD_INPUT if bad else 0

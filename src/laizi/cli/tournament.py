"""``laizi tournament A B C … --rules PRESET --walls N [--seed S] [--workers K] [--json]``:
a round-robin of duplicate arenas (:mod:`laizi.sim.tournament`).

Readable output: the pairwise margins (row bot minus column bot, points per hand ± the 95%
half-width), the ranking, and each pair's two arenas; off a terminal the tables are plain
fixed-width lines that never wrap.
With ``--json`` the last stdout line is the report (docs/bots.md lists its keys).  The progress
bar, across every pair's walls, goes to stderr.
"""

from __future__ import annotations

from typing import Any

import typer

from laizi.bots.base import BOTS, BotError, make_bot
from laizi.cli.arena import (
    DEFAULT_WALLS,
    SEED_HELP,
    _guarded,
    _Out,
    run_seed,
    seed_line,
    seed_warning,
)
from laizi.cli.common import (
    RULES_HELP,
    LangOption,
    app,
    dumps,
    fail,
    lang_or_exit,
    load_json_option,
)
from laizi.cli.ray_option import RayCommand, RayOption, ray_workers
from laizi.engine import make_ruleset
from laizi.i18n import Lang, pick
from laizi.rules import SettingsError
from laizi.rules.settings import PRESETS
from laizi.sim.tournament import tournament as run_tournament

__all__ = ["tournament"]

BotsArgument: Any = typer.Argument(
    None,
    metavar="BOT",
    help="Two or more different bots, named as laizi arena names them: random, greedy, "
    "strong, expert (expert@MS: its budget), expert-blind, learned, module:Class or "
    "cmd:COMMAND (bot protocol).",
    show_default=False,
)
"""The bots (a list: a module-level value, as a call in the signature would be one per call)."""


@app.command("tournament", cls=RayCommand)
def tournament(
    bots: list[str] | None = BotsArgument,
    rules: str = typer.Option("wuhan-hongzhong-kaikou", "--rules", help=RULES_HELP),
    walls: int = typer.Option(
        DEFAULT_WALLS,
        "--walls",
        help="Walls per pair; each is played four times, and every pair plays the same walls.",
    ),
    seed: int | None = typer.Option(None, "--seed", help=SEED_HELP, show_default=False),
    workers: int = typer.Option(1, "--workers", help="Worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    lang: str | None = LangOption,
    ray: str | None = RayOption,
) -> None:
    """Round-robin of duplicate arenas: every pair plays laizi arena A B and B A on the same
    walls; pairwise margins with 95% intervals and a rating per bot (least squares, points per
    hand relative to the field)."""
    language = lang_or_exit(lang)
    names = [name.strip() for name in bots or []]
    _check(names, rules, walls, workers, language)
    warning = None if seed is None else seed_warning(names, seed, language)
    if warning is not None:
        typer.echo(warning, err=True)
    chosen = run_seed(seed, language)
    report = _guarded(
        lambda: run_tournament(
            names,
            load_json_option("--rules", rules),
            walls=walls,
            seed=chosen,
            workers=workers,
            progress=True,
            ray=ray,
            ray_workers=ray_workers(workers),
        )
    )
    if as_json:
        typer.echo(dumps(report))
        return
    _print(report, language)


def _check(names: list[str], rules: str, walls: int, workers: int, lang: Lang) -> None:
    """Bad input is told in the user's language, exit 1, before any wall is played."""
    if len(names) < 2:
        fail(
            pick(
                lang,
                "比赛至少要两个机器人，例如：laizi tournament random greedy strong",
                "a tournament needs at least two bots, e.g. laizi tournament random greedy strong",
            )
        )
    if not all(names):
        fail(pick(lang, "机器人名字不能为空", "a bot name is empty"))
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        fail(
            pick(
                lang,
                f"每个机器人只能列出一次：{', '.join(repeated)} 重复了",
                f"each bot may be named only once: {', '.join(repeated)} is repeated",
            )
        )
    if walls < 1:
        fail(
            pick(
                lang,
                f"--walls 至少为 1（给的是 {walls}）",
                f"--walls must be at least 1, not {walls}",
            )
        )
    if workers < 1:
        fail(
            pick(
                lang,
                f"--workers 至少为 1（给的是 {workers}）",
                f"--workers must be at least 1, not {workers}",
            )
        )
    chosen = load_json_option("--rules", rules)
    try:
        settings = make_ruleset(chosen).settings
    except SettingsError as error:
        if isinstance(chosen, str) and chosen not in PRESETS:
            fail(
                pick(
                    lang,
                    f"未知的规则预设 {chosen!r}；已知：{', '.join(PRESETS)}",
                    f"unknown preset {chosen!r}; known: {', '.join(PRESETS)}",
                )
            )
        fail(pick(lang, f"规则有误：{error}", str(error)))
    for name in names:
        try:
            make_bot(name, settings, 0)
        except BotError as error:
            fail(_bot_error(name, error, lang))


def _bot_error(name: str, error: BotError, lang: Lang) -> str:
    if ":" not in name and "@" not in name:
        return pick(
            lang,
            f"未知的机器人 {name!r}；内置的有 {', '.join(sorted(BOTS))}，外部机器人写作 "
            "module:Class，或 cmd:COMMAND（机器人协议的进程）",
            str(error),
        )
    return pick(lang, f"机器人 {name!r} 无法使用：{error}", str(error))


def _print(report: dict[str, Any], lang: Lang) -> None:
    out = _Out()
    bots, pairs, walls = report["bots"], report["pairs"], report["walls"]
    out.line(
        pick(
            lang,
            f"循环赛（{report['rules']}）：{len(bots)} 个机器人，{len(pairs)} 对 × {walls} 副牌，"
            f"共 {report['hands_played']} 局",
            f"tournament ({report['rules']}): {len(bots)} bots, {len(pairs)} pairs × {walls} "
            f"walls, {report['hands_played']} hands",
        )
    )
    out.line(
        pick(
            lang,
            "每局分差：行减列，± 95% 区间的半宽",
            "points per hand, row bot minus column bot, ± the 95% interval's half-width:",
        )
    )
    out.table(*margin_cells(report))
    out.line(
        pick(
            lang,
            "排名：评分 = 相对全体平均的每局得分（最小二乘），附 95% 区间：",
            "ranking: rating = points per hand relative to the field (least squares), "
            "with its 95% interval:",
        )
    )
    out.table(*_rating_cells(report, lang))
    out.line(
        pick(
            lang,
            "每一对打两种安排，用同样的牌墙：A 独坐对三个 B（laizi arena A B）与 B 独坐对三个 A"
            "（laizi arena B A）；分差取两者的平均（A 的分差减 B 的分差，除以 2）：",
            "each pair plays both ways on the same walls: A alone against three B's (laizi arena "
            "A B) and B alone against three A's (laizi arena B A); the margin is their mean (A's "
            "margin minus B's, halved):",
        )
    )
    out.table(*pair_cells(report, lang))
    if walls < 2:
        out.line(
            pick(
                lang,
                "注意：一副牌看不出离散度，以上区间只是它本身的值；至少要 2 副（--walls 2）",
                "note: one wall says nothing about the spread, so each interval above is just its "
                "value; play at least two (--walls 2)",
            )
        )
    out.line(
        pick(
            lang,
            f"速度 {report['hands_per_s']:.1f} 局/秒",
            f"{report['hands_per_s']:.1f} hands/s",
        )
    )
    out.line(seed_line(report["seed"], lang))


def margin_cells(report: dict[str, Any]) -> tuple[list[str], list[list[str]]]:
    """The margins table, bots in ranking order: each cell is the row bot's margin over the
    column bot, ``+12.3 ± 4.5`` (a pair named column first reads negated: the margin is
    antisymmetric).

    >>> report = {"ratings": [{"bot": "g"}, {"bot": "r"}], "pairs": [
    ...     {"a": "r", "b": "g", "margin": -12.3, "low": -16.8, "high": -7.8}]}
    >>> margin_cells(report)
    (['', 'g', 'r'], [['g', '—', '+12.3 ± 4.5'], ['r', '-12.3 ± 4.5', '—']])
    """
    order = [r["bot"] for r in report["ratings"]]
    cell: dict[tuple[str, str], str] = {}
    for pair in report["pairs"]:
        cell[(pair["a"], pair["b"])] = _plus_minus(pair)
        reverse = {"margin": -pair["margin"], "low": -pair["high"], "high": -pair["low"]}
        cell[(pair["b"], pair["a"])] = _plus_minus(reverse)
    rows = [[x, *(cell.get((x, y), "—") for y in order)] for x in order]
    return ["", *order], rows


def pair_cells(report: dict[str, Any], lang: Lang) -> tuple[list[str], list[list[str]]]:
    """The pairs table: each pair's margin and interval, and its two arenas'.

    >>> pair = {"a": "g", "b": "r", "margin": 3.0, "low": 1.0, "high": 5.0,
    ...         "a_alone": {"margin": 5.0, "low": 2.0, "high": 8.0},
    ...         "b_alone": {"margin": -1.0, "low": -2.0, "high": 0.0}}
    >>> pair_cells({"pairs": [pair]}, "en")[1]
    [['g', 'r', '+3.0', '+1.0 … +5.0', '+5.0 ± 3.0', '-1.0 ± 1.0']]
    """
    headers = [
        "A",
        "B",
        pick(lang, "分差", "margin"),
        pick(lang, "95% 区间", "95% interval"),
        pick(lang, "A 独坐对三个 B", "A alone vs three B"),
        pick(lang, "B 独坐对三个 A", "B alone vs three A"),
    ]
    rows = [
        [
            pair["a"],
            pair["b"],
            f"{pair['margin']:+.1f}",
            f"{pair['low']:+.1f} … {pair['high']:+.1f}",
            _plus_minus(pair["a_alone"]),
            _plus_minus(pair["b_alone"]),
        ]
        for pair in report["pairs"]
    ]
    return headers, rows


def _plus_minus(margin: dict[str, Any]) -> str:
    """``+12.3 ± 4.5``: a margin and the half-width of its 95% interval."""
    return f"{margin['margin']:+.1f} ± {(margin['high'] - margin['low']) / 2:.1f}"


def _rating_cells(report: dict[str, Any], lang: Lang) -> tuple[list[str], list[list[str]]]:
    headers = [
        pick(lang, "名次", "rank"),
        pick(lang, "机器人", "bot"),
        pick(lang, "评分", "rating"),
        pick(lang, "95% 区间", "95% interval"),
    ]
    rows = [
        [str(r["rank"]), r["bot"], f"{r['rating']:+.1f}", f"{r['low']:+.1f} … {r['high']:+.1f}"]
        for r in report["ratings"]
    ]
    return headers, rows

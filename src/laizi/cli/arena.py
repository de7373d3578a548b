"""``laizi arena A B --rules PRESET --hands N [--seed S] [--workers K] [--json]`` and
``laizi simulate --bots A,B,C,D --rules P --hands N [--seed S] [--json] [--workers K]``: self-play.

Progress bars go to stderr; with ``--json`` the last stdout line is the report (INTERFACES.md).
Without ``--seed`` the run seed is a secret drawn at random (the walls derive from it, and a
``cmd:`` bot must not guess them), reported on stderr, in the readable report and as the JSON
report's ``seed``: ``--seed`` with it replays the run exactly (docs/bot-protocol.md).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer
from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from laizi.bots.base import BotError
from laizi.bots.external import PREFIX
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
from laizi.i18n import Lang, pick
from laizi.rules import SettingsError
from laizi.sim import arena as run_arena
from laizi.sim import simulate as run_simulate
from laizi.sim.distributed import RayUnavailable

__all__ = ["DEFAULT_WALLS", "arena", "simulate"]

DEFAULT_WALLS = 500
"""Walls the arena plays by default: enough to decide a margin of about 12 points per hand in
Wuhan 开口翻 and about 1.3 in Baishan (the spreads measured in docs/bots.md); a smaller margin
gets ``walls_needed``."""

BIG_WIN_NAMES = {
    "pengpenghu": "碰碰胡",
    "qingyise": "清一色",
    "fengyise": "风一色",
    "jiangyise": "将一色",
    "quanqiuren": "全求人",
    "haidilao": "海底捞",
    "gangshanghua": "杠上花",
    "qiangganghu": "抢杠胡",
}


GUESSABLE_SEED = 2**40
"""Run seeds below this (in absolute value) can be found by trying them all: with a ``cmd:``
bot playing, ``laizi arena`` and ``simulate`` warn that the walls are then no secret to it."""

SEED_HELP = (
    "Run seed: walls and bots derive from it. Without it a secret one is drawn at random "
    "(from 2^40 up to 2^63) and reported, so a cmd: bot can't guess the walls and the run can "
    "be replayed with --seed. A given seed is public: one a cmd: bot can guess (small) is "
    "warned about."
)


def run_seed(seed: int | None, lang: Lang) -> int:
    """The run's seed: ``--seed`` as given, or a secret drawn with :mod:`secrets` from
    [2^40, 2^63) (too many to try, and never one the guessable-seed warning names) and reported
    on stderr, so the run can be replayed.

    >>> run_seed(7, "en")
    7
    """
    if seed is not None:
        return seed
    drawn = GUESSABLE_SEED + secrets.randbelow(2**63 - GUESSABLE_SEED)
    typer.echo(
        pick(
            lang,
            f"种子 {drawn}（随机抽取的秘密种子；用 --seed {drawn} 可重放这次运行）",
            f"seed {drawn} (a secret drawn at random; --seed {drawn} replays this run)",
        ),
        err=True,
    )
    return drawn


def seed_line(seed: int, lang: Lang) -> str:
    """The readable report's last line: the run seed, which replays the run."""
    return pick(
        lang, f"种子 {seed}（--seed {seed} 可重放）", f"seed {seed} (--seed {seed} replays it)"
    )


def seed_warning(bots: Sequence[str], seed: int, lang: Lang) -> str | None:
    """The warning for a guessable ``--seed`` when an outside (``cmd:``) bot plays, or None.

    >>> seed_warning(["greedy", "random"], 0, "en") is None
    True
    >>> seed_warning(["cmd:python3 bot.py", "random"], 2**62, "en") is None
    True
    >>> seed_warning(["cmd:python3 bot.py", "random"], 0, "en").startswith("note: the walls")
    True
    """
    if not any(name.strip().startswith(PREFIX) for name in bots) or abs(seed) >= GUESSABLE_SEED:
        return None
    secret = "--seed $(python3 -c 'import secrets; print(secrets.randbits(63))')"
    return pick(
        lang,
        f"注意：牌墙由 --seed {seed} 推出，cmd: 机器人可以试出这样的种子（任何绝对值小于 2^40 "
        f"的数），从而知道每一副牌墙。比赛时请不给 --seed（会随机抽取一个秘密种子并报告出来），"
        f"或给一个大的秘密种子：{secret}",
        f"note: the walls derive from --seed {seed}, which a cmd: bot can find by trying (any "
        f"number below 2^40 in absolute value) and then know every wall. For a contest omit "
        f"--seed (a secret one is drawn at random and reported), or give a large secret one: "
        f"{secret}",
    )


def _rules(text: str) -> Any:
    return load_json_option("--rules", text)


def _guarded(call: Any) -> dict[str, Any]:
    try:
        return call()
    except (BotError, SettingsError, RayUnavailable) as error:
        fail(str(error))
    except ValueError as error:
        fail(str(error))
    except OSError as error:  # --records: a directory that can't be written
        fail(f"{getattr(error, 'filename', None) or ''}: {error.strerror or error}")


SaveOption = typer.Option(
    None,
    "--save",
    metavar="DIR",
    help="A folder that keeps every finished slice of walls: the same command run again "
    "(same bots, rules and --seed) plays only the walls still missing.",
    show_default=False,
)


@app.command("arena", cls=RayCommand)
def arena(
    a: str = typer.Argument(
        ...,
        help="Bot A: random, greedy, strong, expert (expert@MS: its budget; expert-blind: its "
        "search without the learned policy), learned (a trained policy), module:Class or "
        "cmd:COMMAND (bot protocol).",
    ),
    b: str = typer.Argument(..., help="Bot B, three copies of which A plays against."),
    rules: str = typer.Option("wuhan-hongzhong-kaikou", "--rules", help=RULES_HELP),
    hands: int = typer.Option(
        DEFAULT_WALLS,
        "--hands",
        min=1,
        help="Walls; each is played four times (default 500: see docs/bots.md).",
    ),
    seed: int | None = typer.Option(None, "--seed", help=SEED_HELP, show_default=False),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
    save: Path | None = SaveOption,
    lang: str | None = LangOption,
    ray: str | None = RayOption,
) -> None:
    """Duplicate play: every wall four times, A in each seat against three B's."""
    language = lang_or_exit(lang)
    warning = None if seed is None else seed_warning([a, b], seed, language)
    if warning is not None:
        typer.echo(warning, err=True)
    chosen = run_seed(seed, language)
    report = _guarded(
        lambda: run_arena(
            a,
            b,
            _rules(rules),
            walls=hands,
            seed=chosen,
            workers=workers,
            progress=True,
            ray=ray,
            ray_workers=ray_workers(workers),
            save=save,
        )
    )
    if as_json:
        typer.echo(dumps(report))
        return
    _print_arena(report, language)


def _print_arena(report: dict[str, Any], lang: Lang) -> None:
    out = _Out()
    low, high = report["diff_ci95"]
    out.line(
        pick(
            lang,
            f"{report['a']} 对 {report['b']}（{report['rules']}）：{report['hands']} 副牌，"
            f"共 {report['hands_played']} 局",
            f"{report['a']} vs {report['b']} ({report['rules']}): {report['hands']} walls, "
            f"{report['hands_played']} hands",
        )
    )
    out.line(
        pick(
            lang,
            f"每局分差 {report['diff_mean']:+.2f}（95% 区间 {low:+.2f} … {high:+.2f}）",
            f"points per hand, A minus B: {report['diff_mean']:+.2f} "
            f"(95% interval {low:+.2f} … {high:+.2f})",
        )
    )
    out.line(_verdict(report, lang))
    out.stats(
        lang, [(f"A {report['a']}", report["a_stats"]), (f"B {report['b']}", report["b_stats"])]
    )
    out.line(
        pick(
            lang,
            f"流局率 {report['drawn_rate']:.1%}；速度 {report['hands_per_s']:.1f} 局/秒",
            f"drawn hands {report['drawn_rate']:.1%}; {report['hands_per_s']:.1f} hands/s",
        )
    )
    out.line(seed_line(report["seed"], lang))


def _verdict(report: dict[str, Any], lang: Lang) -> str:
    """Whether the interval excludes zero and, when not, how many walls would likely do it."""
    a, b = report["a"], report["b"]
    if report["decided"]:
        better, worse = (a, b) if report["diff_mean"] > 0 else (b, a)
        return pick(
            lang,
            f"已判定：95% 区间不含 0 —— {better} 强于 {worse}",
            f"decided: the 95% interval excludes zero — {better} is stronger than {worse}",
        )
    needed = report["walls_needed"]
    if report["hands"] < 2:
        return pick(
            lang,
            "未判定：一副牌看不出离散度，至少要 2 副（--hands 2）",
            "not decided: one wall says nothing about the spread; play at least two (--hands 2)",
        )
    if needed is None:
        return pick(
            lang,
            "未判定：95% 区间含 0，平均分差为 0，无法估计所需副数",
            "not decided: the 95% interval contains zero and the mean difference is zero; "
            "no estimate of the walls needed",
        )
    return pick(
        lang,
        f"未判定：95% 区间含 0。按目前的均值和离散度，约需 {needed} 副牌"
        f"（--hands {needed}）才能判定",
        f"not decided: the 95% interval contains zero. At the observed mean and spread about "
        f"{needed} walls (--hands {needed}) would likely decide it",
    )


def _stats_cells(
    lang: Lang, rows: list[tuple[str, dict[str, Any]]]
) -> tuple[list[str], list[list[str]]]:
    """The statistics table's headers and cells, as text."""
    headers = [
        pick(lang, "玩家", "player"),
        pick(lang, "局数", "hands"),
        pick(lang, "平均得分", "mean points"),
        pick(lang, "胡牌率", "win rate"),
        pick(lang, "自摸率", "self-draw rate"),
        pick(lang, "放冲率", "deal-in rate"),
        pick(lang, "大胡", "big wins"),
    ]
    cells = []
    for label, stats in rows:
        bigs = (
            ", ".join(
                f"{BIG_WIN_NAMES.get(name, name) if lang == 'zh' else name} {n} "
                f"({stats['big_win_rate'][name]:.2%})"
                for name, n in stats["big_wins"].items()
            )
            or "—"
        )
        cells.append(
            [
                label,
                str(stats["hands"]),
                f"{stats['mean_points']:+.2f}",
                f"{stats['win_rate']:.1%}",
                f"{stats['self_draw_rate']:.1%}",
                f"{stats['deal_in_rate']:.1%}",
                bigs,
            ]
        )
    return headers, cells


def _stats_table(lang: Lang, rows: list[tuple[str, dict[str, Any]]]) -> Table:
    headers, cells = _stats_cells(lang, rows)
    table = Table()
    for header in headers:
        table.add_column(header)
    for row in cells:
        table.add_row(*row)
    return table


def plain_table(headers: list[str], cells: list[list[str]]) -> list[str]:
    """A table as plain fixed-width lines (for output that is not a terminal: a file, a pipe, a
    CI log): one line per row, never wrapped, columns padded to their widest cell (counted in
    terminal cells, so Chinese text lines up) and separated by two spaces; the last column is
    not padded.

    >>> plain_table(["bot", "hands"], [["greedy", "8"], ["random", "24"]])
    ['bot     hands', 'greedy  8', 'random  24']
    """
    widths = [max(cell_len(row[i]) for row in [headers, *cells]) for i in range(len(headers))]

    def line(row: list[str]) -> str:
        padded = [c + " " * (w - cell_len(c)) for c, w in zip(row[:-1], widths, strict=False)]
        return "  ".join([*padded, row[-1]]).rstrip()

    return [line(headers), *(line(row) for row in cells)]


class _Out:
    """Where a report goes: rich on a terminal; off one, plain lines that never wrap (rich would
    fold them at 80 columns and draw the table in box characters)."""

    def __init__(self) -> None:
        self.console = Console()
        self.terminal = self.console.is_terminal

    def line(self, text: str) -> None:
        if self.terminal:
            self.console.print(text)
        else:
            typer.echo(text)

    def stats(self, lang: Lang, rows: list[tuple[str, dict[str, Any]]]) -> None:
        if self.terminal:
            self.console.print(_stats_table(lang, rows))
        else:
            for text in plain_table(*_stats_cells(lang, rows)):
                typer.echo(text)

    def table(self, headers: list[str], cells: list[list[str]]) -> None:
        """A table of short cells: rich on a terminal (no cell folded), plain lines off one."""
        if self.terminal:
            table = Table()
            for header in headers:
                table.add_column(header, no_wrap=True)
            for row in cells:
                table.add_row(*row)
            self.console.print(table)
        else:
            for text in plain_table(headers, cells):
                typer.echo(text)


@app.command("simulate", cls=RayCommand)
def simulate(
    bots: str = typer.Option(..., "--bots", help="Four bot names, seat order: A,B,C,D."),
    rules: str = typer.Option("wuhan-hongzhong-kaikou", "--rules", help=RULES_HELP),
    hands: int = typer.Option(100, "--hands", min=1, help="Hands to play."),
    seed: int | None = typer.Option(None, "--seed", help=SEED_HELP, show_default=False),
    workers: int = typer.Option(1, "--workers", min=1, help="Worker processes."),
    as_json: bool = typer.Option(False, "--json", help="Print the statistics as JSON."),
    lang: str | None = LangOption,
    ray: str | None = RayOption,
    records: str | None = typer.Option(
        None,
        "--records",
        metavar="DIR",
        help="Also write each hand's record (JSON Lines, as laizi verify reads) under DIR.",
    ),
) -> None:
    """Self-play of four bots: mean points, win and deal-in rates, big wins, drawn hands."""
    language = lang_or_exit(lang)
    names = [name.strip() for name in bots.split(",")]
    if len(names) != 4 or not all(names):
        fail(f"--bots: four comma-separated bot names are needed, got {bots!r}")
    warning = None if seed is None else seed_warning(names, seed, language)
    if warning is not None:
        typer.echo(warning, err=True)
    chosen = run_seed(seed, language)
    report = _guarded(
        lambda: run_simulate(
            names,
            _rules(rules),
            hands=hands,
            seed=chosen,
            workers=workers,
            progress=True,
            ray=ray,
            ray_workers=ray_workers(workers),
            records=records,
        )
    )
    if as_json:
        typer.echo(dumps(report))
        return
    out = _Out()
    out.line(pick(language, f"{report['rules']}：{hands} 局", f"{report['rules']}: {hands} hands"))
    out.stats(language, [(f"{s['seat']} {s['bot']}", s) for s in report["seats"]])
    out.line(
        pick(
            language,
            f"流局 {report['drawn']}（{report['drawn_rate']:.1%}）；"
            f"速度 {report['hands_per_s']:.1f} 局/秒",
            f"drawn hands {report['drawn']} ({report['drawn_rate']:.1%}); "
            f"{report['hands_per_s']:.1f} hands/s",
        )
    )
    out.line(seed_line(report["seed"], language))

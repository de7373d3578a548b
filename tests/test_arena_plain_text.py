"""``laizi arena`` and ``simulate`` off a terminal (a pipe, a file, a CI log) print plain
fixed-width lines: no box drawing, one line per table row, nothing folded at 80 columns
(issue 28 item 6); on a terminal the rich table stays."""

from __future__ import annotations

import io

from rich.console import Console

from laizi.cli import arena as arena_cli
from laizi.cli.arena import _Out, plain_table
from tests.cli_helpers import run

BOX = set("┏┓┗┛┃━│─┡┩╇┳┻╋└┘┌┐")


def test_arena_text_through_a_pipe_is_plain_and_unwrapped() -> None:
    done = run("arena", "greedy", "random", "--hands", "2", "--seed", "3", "--lang", "en")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert not BOX & set(done.stdout)
    header = next(line for line in lines if line.startswith("player"))
    assert header.split("  ")[0] == "player"
    assert "self-draw rate" in header and "deal-in rate" in header and header.endswith("big wins")
    rows = [line for line in lines if line.startswith(("A greedy", "B random"))]
    assert len(rows) == 2  # one line each
    # the columns line up: each row's cells start where the header's do
    starts = [header.index(h) for h in ("hands", "mean points", "win rate", "big wins")]
    for row in rows:
        for start in starts:
            assert row[start - 2 : start] == "  " and row[start] != " "
    assert any(line.startswith("decided:") or line.startswith("not decided:") for line in lines)
    assert lines[-1] == "seed 3 (--seed 3 replays it)"


def test_simulate_text_through_a_pipe_is_plain() -> None:
    done = run("simulate", "--bots", "greedy,random,greedy,random", "--hands", "4", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert not BOX & set(done.stdout)
    rows = [line for line in done.stdout.splitlines() if line[:2] in ("0 ", "1 ", "2 ", "3 ")]
    assert [r.split()[:2] for r in rows] == [
        ["0", "greedy"],
        ["1", "random"],
        ["2", "greedy"],
        ["3", "random"],
    ]


def test_a_long_row_is_never_folded_and_chinese_lines_up() -> None:
    long = "pengpenghu 3 (1.20%), qingyise 2 (0.80%), fengyise 1 (0.40%), jiangyise 1 (0.40%)"
    lines = plain_table(["玩家", "大胡"], [["A 贪心", long], ["B random", "—"]])
    assert lines == ["玩家      大胡", f"A 贪心    {long}", "B random  —"]


def test_on_a_terminal_the_rich_table_stays(monkeypatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(arena_cli, "Console", lambda: Console(file=buffer, force_terminal=True))
    out = _Out()
    stats = {
        "hands": 4,
        "mean_points": 1.5,
        "win_rate": 0.25,
        "self_draw_rate": 0.0,
        "deal_in_rate": 0.25,
        "big_wins": {},
        "big_win_rate": {},
    }
    out.stats("en", [("A greedy", stats)])
    assert out.terminal and "┃" in buffer.getvalue() and "A greedy" in buffer.getvalue()

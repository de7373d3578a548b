"""``laizi tournament``: a round-robin of duplicate arenas, pairwise margins and ratings
(issue 28 item 3; docs/bots.md "laizi tournament")."""

from __future__ import annotations

import io
import json
from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest
from rich.console import Console
from typer.testing import CliRunner

from laizi.cli import app
from laizi.cli import arena as arena_cli
from laizi.cli.arena import _Out
from laizi.cli.tournament import margin_cells
from laizi.sim import tournament as sim_tournament
from laizi.sim.arena import arena_jobs, play_walls
from laizi.sim.tournament import ratings, tournament
from tests.cli_helpers import run

BOTS = ["random", "greedy", "strong"]
RULES = "wuhan-hongzhong-kaikou"
WALLS = 3
SEED = 7
TIMING = ("hands_per_s", "seconds")
BOX = set("┏┓┗┛┃━│─┡┩╇┳┻╋└┘┌┐")


def _untimed(report: dict) -> dict:
    return {k: v for k, v in report.items() if k not in TIMING}


@pytest.fixture(scope="module")
def report() -> dict:
    """The command's JSON last line for three cheap bots."""
    done = run("tournament", *BOTS, "--walls", str(WALLS), "--seed", str(SEED), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_every_pair_plays_both_ways_and_is_listed_once(report) -> None:
    assert (report["rules"], report["walls"], report["seed"]) == (RULES, WALLS, SEED)
    assert report["bots"] == BOTS
    assert [(p["a"], p["b"]) for p in report["pairs"]] == list(combinations(BOTS, 2))
    for pair in report["pairs"]:
        assert (pair["walls"], pair["hands"]) == (WALLS, 8 * WALLS)
        assert pair["low"] <= pair["margin"] <= pair["high"]
        for alone in (pair["a_alone"], pair["b_alone"]):
            assert alone["low"] <= alone["margin"] <= alone["high"]
    assert report["hands_played"] == 3 * 8 * WALLS


def _arena_json(a: str, b: str) -> dict:
    done = run("arena", a, b, "--hands", str(WALLS), "--seed", str(SEED), "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_a_pairs_two_arrangements_are_exactly_laizi_arena_both_ways(report) -> None:
    """Each pair is `laizi arena A B` and `laizi arena B A` with the same walls and seed: the
    same margins and intervals, to the last bit; the pair's margin is their mean."""
    for pair in report["pairs"]:
        for alone, (x, y) in (
            (pair["a_alone"], (pair["a"], pair["b"])),
            (pair["b_alone"], (pair["b"], pair["a"])),
        ):
            arena_report = _arena_json(x, y)
            assert alone["margin"] == arena_report["diff_mean"]
            assert [alone["low"], alone["high"]] == arena_report["diff_ci95"]
        half_difference = (pair["a_alone"]["margin"] - pair["b_alone"]["margin"]) / 2
        assert pair["margin"] == pytest.approx(half_difference, rel=1e-12)


def test_a_pairs_margin_is_exact() -> None:
    """Summed as fractions: the margin is (mean of A B − mean of B A) / 2 to the last bit."""
    exact = {}
    for x, y in (("greedy", "strong"), ("strong", "greedy")):
        diffs = [d for job in arena_jobs(x, y, RULES, SEED, WALLS) for d in play_walls(job)[0]]
        exact[(x, y)] = sum(diffs, Fraction(0)) / WALLS
    report = tournament(["greedy", "strong"], RULES, walls=WALLS, seed=SEED)
    (pair,) = report["pairs"]
    margin = (exact[("greedy", "strong")] - exact[("strong", "greedy")]) / 2
    assert pair["margin"] == float(margin)
    best, worst = report["ratings"]
    assert {best["rating"], worst["rating"]} == {float(margin / 2), float(-margin / 2)}


def test_the_order_the_bots_are_named_in_changes_nothing(report) -> None:
    """margin(B, A) = −margin(A, B) exactly; the ratings are the same."""
    backwards = tournament(BOTS[::-1], RULES, walls=WALLS, seed=SEED)
    forward = {(p["a"], p["b"]): p for p in report["pairs"]}
    for pair in backwards["pairs"]:
        same = forward[(pair["b"], pair["a"])]
        assert pair["margin"] == -same["margin"]
        assert (pair["low"], pair["high"]) == pytest.approx((-same["high"], -same["low"]))
        assert pair["a_alone"] == same["b_alone"] and pair["b_alone"] == same["a_alone"]
    assert [(r["bot"], r["rank"]) for r in backwards["ratings"]] == [
        (r["bot"], r["rank"]) for r in report["ratings"]
    ]
    for got, want in zip(backwards["ratings"], report["ratings"], strict=True):
        assert got["rating"] == pytest.approx(want["rating"], rel=1e-12)


def test_the_same_seed_gives_the_same_json(report) -> None:
    again = run("tournament", *BOTS, "--walls", str(WALLS), "--seed", str(SEED), "--json")
    assert again.returncode == 0, again.stderr
    assert _untimed(json.loads(again.stdout.splitlines()[-1])) == _untimed(report)
    other = run("tournament", *BOTS, "--walls", str(WALLS), "--seed", str(SEED + 1), "--json")
    assert _untimed(json.loads(other.stdout.splitlines()[-1]))["pairs"] != report["pairs"]


def test_two_workers_give_what_one_does(monkeypatch) -> None:
    bars: list[sim_tournament._Bar] = []

    class Recorded(sim_tournament._Bar):
        def __init__(self, total: int) -> None:
            super().__init__(total)
            bars.append(self)

    monkeypatch.setattr(sim_tournament, "_Bar", Recorded)
    one = tournament(BOTS, RULES, walls=WALLS, seed=SEED, workers=1)
    two = tournament(BOTS, RULES, walls=WALLS, seed=SEED, workers=2, progress=True)
    assert _untimed(one) == _untimed(two)
    # one bar across every pair's walls, run to its end, naming the last pair
    (bar,) = bars
    task = bar.progress.tasks[0]
    assert task.total == task.completed == 6 * WALLS  # three pairs, two arenas each
    assert task.description == "tournament 6/6 strong vs greedy"


def test_ratings_are_the_least_squares_fit_of_the_margins(report) -> None:
    """r_A − r_B fits every margin in the least-squares sense, Σ r = 0: the same as numpy's
    minimum-norm solution of the pairs' equations."""
    index = {bot: k for k, bot in enumerate(BOTS)}
    design = np.zeros((len(report["pairs"]), len(BOTS)))
    for row, pair in enumerate(report["pairs"]):
        design[row, index[pair["a"]]], design[row, index[pair["b"]]] = 1, -1
    margins = np.array([pair["margin"] for pair in report["pairs"]])
    fitted = np.linalg.lstsq(design, margins, rcond=None)[0]
    got = {r["bot"]: r["rating"] for r in report["ratings"]}
    assert [got[bot] for bot in BOTS] == pytest.approx(list(fitted), abs=1e-9)
    assert sum(got.values()) == pytest.approx(0, abs=1e-9)
    for r in report["ratings"]:
        assert r["low"] <= r["rating"] <= r["high"]


def test_ratings_are_exact_and_ties_share_a_rank() -> None:
    table = ratings(
        ["a", "b", "c", "d"],
        {
            ("a", "b"): [Fraction(1, 3), Fraction(2, 3)],
            ("a", "c"): [Fraction(1), Fraction(0)],
            ("a", "d"): [Fraction(1), Fraction(1)],
            ("b", "c"): [Fraction(0), Fraction(0)],
            ("b", "d"): [Fraction(1, 2), Fraction(1, 2)],
            ("c", "d"): [Fraction(1, 2), Fraction(1, 2)],
        },
    )
    # a: (1/2 + 1/2 + 1) / 4 = 1/2; b: (-1/2 + 0 + 1/2) / 4 = 0; c: (-1/2 + 0 + 1/2) / 4 = 0;
    # d: (-1 - 1/2 - 1/2) / 4 = -1/2
    assert [(r["bot"], r["rating"], r["rank"]) for r in table] == [
        ("a", 0.5, 1),
        ("b", 0, 2),
        ("c", 0, 2),
        ("d", -0.5, 4),
    ]
    # per wall, a's rating is (1/3 + 1 + 1) / 4 = 7/12 and (2/3 + 0 + 1) / 4 = 5/12: s = √2/12
    # and the half-width 1.96 · s / √2 = 1.96/12
    assert table[0]["low"] == pytest.approx(0.5 - 1.96 / 12)
    assert table[0]["high"] == pytest.approx(0.5 + 1.96 / 12)
    assert table[3]["low"] == table[3]["high"] == -0.5  # the same on both walls


def test_a_clearly_stronger_bot_is_rated_above_random(report) -> None:
    ranks = {r["bot"]: r["rank"] for r in report["ratings"]}
    assert ranks["random"] == 3
    assert {ranks["greedy"], ranks["strong"]} == {1, 2}
    worst = report["ratings"][-1]
    assert worst["bot"] == "random" and worst["high"] < 0  # decided below the field


def test_the_table_reads_each_pair_both_ways() -> None:
    """The margins table shows each pair from both sides, negated."""
    report = tournament(["random", "greedy"], RULES, walls=2, seed=SEED)
    (pair,) = report["pairs"]
    headers, rows = margin_cells(report)
    assert headers == ["", "greedy", "random"]  # ranking order
    half = (pair["high"] - pair["low"]) / 2
    assert rows == [
        ["greedy", "—", f"{-pair['margin']:+.1f} ± {half:.1f}"],
        ["random", f"{pair['margin']:+.1f} ± {half:.1f}", "—"],
    ]
    best, worst = report["ratings"]
    assert best["bot"] == "greedy" and best["rating"] == pytest.approx(-pair["margin"] / 2)
    assert worst["rating"] == pytest.approx(pair["margin"] / 2)


def test_text_through_a_pipe_is_plain_and_unwrapped() -> None:
    done = run("tournament", *BOTS, "--walls", "2", "--seed", "3", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert not BOX & set(done.stdout)
    lines = done.stdout.splitlines()
    assert lines[0] == f"tournament ({RULES}): 3 bots, 3 pairs × 2 walls, 48 hands"
    header = lines[2]
    order = header.split()
    assert sorted(order) == sorted(BOTS)  # the margin columns, in ranking order
    rows = lines[3:6]
    assert [row.split()[0] for row in rows] == order
    for k, row in enumerate(rows):  # the diagonal, where each bot meets itself
        cells = [c.strip() for c in row.split("  ") if c.strip()]
        assert cells[1 + k] == "—" and len(cells) == 4
    ranking = lines[lines.index(next(x for x in lines if x.startswith("rank "))) :]
    assert ranking[0].split() == ["rank", "bot", "rating", "95%", "interval"]
    assert [line.split()[:2] for line in ranking[1:4]] == [
        [str(k + 1), bot] for k, bot in enumerate(order)
    ]
    details = lines.index(next(x for x in lines if x.startswith("A  ")))
    assert lines[details].split()[:3] == ["A", "B", "margin"]
    assert [line.split()[:2] for line in lines[details + 1 : details + 4]] == [
        list(pair) for pair in combinations(BOTS, 2)
    ]
    assert lines[-1] == "seed 3 (--seed 3 replays it)"
    assert all(len(line) < 200 for line in lines)


def test_chinese_text() -> None:
    done = run("tournament", "greedy", "random", "--walls", "1", "--seed", "3", "--lang", "zh")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("循环赛（wuhan-hongzhong-kaikou）：2 个机器人，1 对 × 1 副牌")
    assert "名次" in done.stdout and done.stdout.splitlines()[-1] == "种子 3（--seed 3 可重放）"
    assert "一副牌看不出离散度" in done.stdout  # one wall: no spread, said so


def test_one_wall_is_said_to_give_no_interval() -> None:
    done = run("tournament", "greedy", "random", "--walls", "1", "--seed", "3", "--lang", "en")
    assert done.returncode == 0, done.stderr
    assert "note: one wall says nothing about the spread" in done.stdout
    two = run("tournament", "greedy", "random", "--walls", "2", "--seed", "3", "--lang", "en")
    assert "one wall says nothing" not in two.stdout


def test_on_a_terminal_the_tables_are_rich(monkeypatch) -> None:
    buffer = io.StringIO()
    monkeypatch.setattr(arena_cli, "Console", lambda: Console(file=buffer, force_terminal=True))
    out = _Out()
    out.table(["", "greedy"], [["greedy", "+12.3 ± 4.5"]])
    assert out.terminal and "┃" in buffer.getvalue() and "+12.3 ± 4.5" in buffer.getvalue()


@pytest.mark.parametrize(
    ("args", "en", "zh"),
    [
        (["random"], "a tournament needs at least two bots", "比赛至少要两个机器人"),
        ([], "a tournament needs at least two bots", "比赛至少要两个机器人"),
        (["random", "nosuch"], "unknown bot 'nosuch'", "未知的机器人 'nosuch'"),
        (["random", "random"], "random is repeated", "random 重复了"),
        (["random", "greedy", "--rules", "nosuch"], "unknown preset 'nosuch'", "未知的规则预设"),
        (
            ["random", "greedy", "--walls", "0"],
            "--walls must be at least 1, not 0",
            "--walls 至少为 1",
        ),
        (["random", "greedy", "--workers", "0"], "--workers must be at least 1", "--workers 至少"),
        (
            ["random", "expert@-5"],
            "budget after '@' must be a positive",
            "机器人 'expert@-5' 无法使用",
        ),
    ],
)
def test_bad_input_is_told_in_both_languages_exit_1(args, en, zh) -> None:
    for lang, text in (("en", en), ("zh", zh)):
        done = CliRunner().invoke(app, ["tournament", *args, "--lang", lang])
        assert done.exit_code == 1, done.output
        assert text in done.stderr and "Traceback" not in done.stderr
        assert done.stdout == ""


def test_bad_input_from_the_command_line_is_exit_1_without_a_traceback() -> None:
    done = run("tournament", "random", "nosuch", "--lang", "zh")
    assert done.returncode == 1
    assert done.stderr.startswith("laizi: 未知的机器人 'nosuch'") and done.stdout == ""

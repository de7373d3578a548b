"""``laizi export`` (issue 18): records → Parquet decision rows and mjai-style event logs.

The round trips replay the dataset against the engine on their own: at every row the observation
must equal the independent from-the-view encoder's, the mask the engine's legal actions, and the
action taken, applied, must reproduce the record event for event.
"""

from __future__ import annotations

import json
import random
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from laizi.dataset.events import mjai_events, mjai_tile
from laizi.dataset.export import OutputError, export
from laizi.dataset.parquet import DatasetWriter, read_rows
from laizi.dataset.sources import Hand, hands_from_db, hands_from_paths
from laizi.engine import Game, legal_actions, view
from laizi.engine.actions import Action
from laizi.engine.record import check_events, deal_record, parse_record, to_jsonl
from laizi.env.table import action_index
from laizi.env.views import encode_view
from laizi.sim import simulate
from laizi.tiles import parse_tiles
from tests.cli_helpers import run
from tests.engine_helpers import apply_json


def random_record(rules: str, seed: int, abandon_at: int | None = None) -> list[dict]:
    """A hand of uniformly random legal play (optionally a seat escaping at decision N)."""
    rng = random.Random(seed)
    game = Game.deal(rules, seed=bytes([seed % 256]) * 32, dealer=seed % 4)
    step = 0
    while not game.over:
        seat = game.to_act[0]
        if step == abandon_at:
            game.play(Action(seat, "abandon"))
            break
        game.play(rng.choice(game.legal_actions(seat)))
        step += 1
    return game.record


@pytest.fixture(scope="module")
def records(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A self-play run's records (both games) plus hand-made ones: an escape, Baishan 报听."""
    root = tmp_path_factory.mktemp("records")
    simulate(
        ["greedy", "random", "greedy", "random"],
        "wuhan-hongzhong-kaikou",
        hands=5,
        seed=11,
        records=root / "wuhan",
    )
    simulate(["greedy"] * 4, "baishan", hands=3, seed=12, records=root / "baishan")
    extra = root / "extra"
    extra.mkdir()
    (extra / "escape.jsonl").write_text(to_jsonl(random_record("wuhan-qipi-koukou", 3, 9)))
    # Baishan hands of random play: some declare ready (报听) on the way.
    for k in range(4):
        (extra / f"baishan-{k}.jsonl").write_text(to_jsonl(random_record("baishan", 40 + k)))
    return root


def all_hands(root: Path) -> list[Hand]:
    return list(hands_from_paths([str(root)]))


def test_simulate_records_verify_and_name_each_hand(records: Path) -> None:
    names = sorted(p.name for p in (records / "wuhan").iterdir())
    assert names == [f"hand-{i:06d}.jsonl" for i in range(5)]
    result = run(*["verify", str(records / "wuhan" / "hand-000003.jsonl")])
    assert result.returncode == 0, result.stderr
    start = parse_record((records / "wuhan" / "hand-000003.jsonl").read_text())[0]
    assert start["dealer"] == 3  # hand i is dealt by seat i mod 4, as in the run


def test_the_parquet_dataset_replays_to_the_records(records: Path, tmp_path: Path) -> None:
    hands = all_hands(records)
    report = export(iter(hands), tmp_path / "ds")
    assert report["hands"] == len(hands) == 13 and report["bad"] == 0
    rows = {
        k: np.concatenate([b[k] for b in read_rows(tmp_path / "ds")])
        for k in (
            "hand",
            "source",
            "step",
            "event",
            "seat",
            "obs",
            "mask",
            "legal",
            "action",
            "points",
            "points_exact",
            "payments",
            "winner",
            "reason",
            "game",
        )
    }
    assert len(rows["hand"]) == report["rows"]
    declared = escaped = 0
    for h, hand in enumerate(hands):
        mine = np.flatnonzero(rows["hand"] == h)
        assert list(rows["step"][mine]) == list(range(len(mine)))
        assert set(rows["source"][mine]) == {hand.source}
        events = hand.events
        state, produced = deal_record(events)
        index = len(produced)
        for r in mine:
            # Consequences only between decisions; an escape is played but is no row.
            if events[index]["type"] == "abandon":
                produced += apply_json(state, Action(events[index]["seat"], "abandon"))
                escaped += 1
                break
            assert rows["event"][r] == index
            seat = int(rows["seat"][r])
            legal = {action_index(a, state.claim_tile): a for a in legal_actions(state, seat)}
            assert sorted(np.flatnonzero(rows["mask"][r])) == sorted(legal)
            assert rows["legal"][r] == len(legal)
            seat_view = view(state, seat)
            expected = encode_view(
                seat_view,
                after_kong=state.after_kong and state.turn == seat,
                win_locked=state.players[seat].win_locked,
            )
            np.testing.assert_array_equal(rows["obs"][r], expected)
            action = legal[int(rows["action"][r])]
            declared += action.type == "declare_ready"
            new = apply_json(state, action)
            check_events(new, events, index)
            produced += new
            index += len(new)
        else:
            if not state.over:
                produced += apply_json(state, Action(events[index]["seat"], "abandon"))
                escaped += 1
        assert state.over and len(produced) == len(events)
        result = state.result
        for r in mine:
            seat = int(rows["seat"][r])
            assert Fraction(rows["points_exact"][r]) == result["payments"][seat]
            assert rows["points"][r] == float(result["payments"][seat])
            assert list(rows["payments"][r]) == [float(p) for p in result["payments"]]
            assert rows["reason"][r] == result["reason"]
            assert rows["winner"][r] == (-1 if result["winner"] is None else result["winner"])
    assert escaped == 1 and declared >= 1
    assert set(rows["game"]) == {"wuhan", "baishan"}


def test_the_schema_is_the_documented_one(records: Path, tmp_path: Path) -> None:
    export(iter(all_hands(records)), tmp_path / "ds")
    (path,) = sorted((tmp_path / "ds").glob("part-*.parquet"))
    schema = pq.read_schema(path)
    doc = (Path(__file__).parents[1] / "docs" / "dataset.md").read_text()
    for field in schema:
        kind = re.sub(r"<(item|element): ", "<", str(field.type))
        assert f"| `{field.name}` | `{kind}` |" in doc, field.name
    meta = json.loads(schema.metadata[b"laizi.dataset"])
    assert meta == {
        "version": 1,
        "encoder": "v1",
        "obs_shape": [22, 34],
        "num_actions": 177,
        "encoding": "laizi.env encoder v1 (docs/env.md)",
    }


def test_rows_are_written_a_row_group_at_a_time(records: Path, tmp_path: Path) -> None:
    out = tmp_path / "ds"
    out.mkdir()
    writer = DatasetWriter(out, row_group=64)
    capacity = len(writer.rows.seat)
    for hand in all_hands(records):
        writer.add(hand)
        # Never more than a row group plus the hand just added is held.
        assert writer.rows.size < 64 + 400
    (path,) = writer.close()
    assert len(writer.rows.seat) == capacity  # the buffer never had to grow
    meta = pq.ParquetFile(path).metadata
    assert meta.num_row_groups >= 5 and meta.num_rows == writer.total_rows
    assert all(meta.row_group(i).num_rows >= 64 for i in range(meta.num_row_groups - 1))


def test_a_bad_hand_is_skipped_named_and_fails_the_command(records: Path, tmp_path: Path) -> None:
    source = records / "wuhan" / "hand-000001.jsonl"
    events = parse_record(source.read_text())
    k = next(i for i, e in enumerate(events) if e["type"] == "discard" and i > 5)
    events[k]["tile"] = "9m" if events[k]["tile"] != "9m" else "1m"
    bad = tmp_path / "in"
    bad.mkdir()
    (bad / "a.jsonl").write_text(to_jsonl(events))
    (bad / "b.jsonl").write_text(source.with_name("hand-000002.jsonl").read_text())
    result = run(*["export", str(bad), "--out", str(tmp_path / "ds"), "--json"])
    assert result.returncode == 4, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["hands"] == 1 and report["bad"] == 1 and report["rows"] > 0
    assert f"{bad / 'a.jsonl'}#0: skipped, event {k}:" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "RECORDS"),
        (["/nonexistent/records"], "no such file or directory"),
        (["RECORDS", "--format", "csv"], "--format"),
    ],
)
def test_bad_export_input_is_exit_1(records: Path, tmp_path: Path, args, message) -> None:
    args = [str(records) if a == "RECORDS" else a for a in args]
    result = run(*["export", *args, "--out", str(tmp_path / "ds")])
    assert result.returncode == 1 and message in result.stderr and "Traceback" not in result.stderr


def test_an_existing_dataset_is_not_overwritten(records: Path, tmp_path: Path) -> None:
    export(iter(all_hands(records / "baishan")), tmp_path / "ds")
    with pytest.raises(OutputError, match="holds a dataset already"):
        export(iter(all_hands(records / "baishan")), tmp_path / "ds")
    result = run(*["export", str(records / "baishan"), "--out", str(tmp_path / "ds")])
    assert result.returncode == 1 and "holds a dataset already" in result.stderr


def test_a_not_json_line_is_exit_1(tmp_path: Path) -> None:
    (tmp_path / "x.jsonl").write_text('{"type":"start"}\nnot json\n')
    result = run(*["export", str(tmp_path / "x.jsonl"), "--out", str(tmp_path / "ds")])
    assert result.returncode == 1 and "line 2 is not JSON" in result.stderr


def test_export_reads_a_server_database(records: Path, tmp_path: Path) -> None:
    from laizi.server.store import Store

    url = f"sqlite:///{tmp_path / 'server.sqlite3'}"
    store = Store(url)
    room = store.create_room("ABCD", "wuhan-hongzhong-kaikou", {})
    sources = sorted((records / "wuhan").glob("*.jsonl"))[:3]
    for number, path in enumerate(sources):
        events = parse_record(path.read_text())
        seed = bytes.fromhex(events[-1]["seed"])
        hand_id = store.start_hand(room, number, events[0]["dealer"], seed, events[:2])
        store.append(hand_id, 2, events[2:], finished=number != 2)  # the last one is unfinished
        store.commit()
    store.close()
    hands = list(hands_from_db(url, batch=1))
    assert [h.source for h in hands] == ["db:ABCD/0", "db:ABCD/1"]
    assert hands[1].events == parse_record(sources[1].read_text())
    result = run(*["export", "--db", url, "--out", str(tmp_path / "ds"), "--json"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    direct = export(hands_from_paths([str(p) for p in sources[:2]]), tmp_path / "direct")
    assert report["hands"] == 2 and report["rows"] == direct["rows"]


def test_export_cli_reports_the_interface_keys(records: Path, tmp_path: Path) -> None:
    result = run(*["export", str(records / "baishan"), "--out", str(tmp_path / "ds"), "--json"])
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["hands"] == 3 and report["rows"] > 0 and report["rows_per_s"] > 0
    text = run(*["export", str(records / "baishan"), "--out", str(tmp_path / "d2"), "--lang", "zh"])
    assert text.returncode == 0 and "已导出 3 局" in text.stdout


# --- the mjai-style event log -----------------------------------------------------------------


def _read_back(log: list[dict]) -> dict:
    """An independent reader of an event log: every seat's concealed tiles, tracked from the
    deal through every draw, discard and meld; the public sequence; the final deltas."""
    start = log[1]
    assert log[0]["type"] == "start_game" and start["type"] == "start_kyoku"
    hands = [sorted(t) for t in start["tehais"]]
    sequence = []
    deltas = None
    for e in log[2:]:
        kind, actor = e["type"], e.get("actor")
        if kind == "tsumo":
            hands[actor].append(e["pai"])
        elif kind in ("dahai", "nukidora"):
            hands[actor].remove(e["pai"])
        elif kind in ("chi", "pon", "daiminkan", "ankan"):
            for t in e["consumed"]:
                hands[actor].remove(t)
        elif kind == "kakan":  # the pung's three are on the table already: one tile from hand
            hands[actor].remove(e["pai"])
        elif kind in ("hora", "ryukyoku"):
            deltas = e["deltas"]  # (a tile won on a discard never enters the hand)
        if kind not in ("reach", "end_kyoku", "end_game"):
            sequence.append((kind, actor, e.get("pai")))
    return {
        "hands": [sorted(h) for h in hands],
        "sequence": sequence,
        "deltas": deltas,
        "end_hands": [sorted(h) for h in log[-2]["tehais"]],
        "scores": log[-1]["scores"],
    }


def _expected_sequence(events: list[dict]) -> list[tuple]:
    names = {
        "chow": "chi",
        "pung": "pon",
        "kong": "daiminkan",
        "concealed_kong": "ankan",
        "added_kong": "kakan",
        "lay_out": "nukidora",
        "draw": "tsumo",
        "win": "hora",
        "kong_paid": "kong_paid",
        "abandon": "abandon",
    }
    out = []
    dealer = events[0]["dealer"]
    state, _ = deal_record(events)
    out.append(("tsumo", dealer, mjai_tile(_tile(state.drawn))))
    for e in events[2:]:
        kind = e["type"]
        tile = mjai_tile(e["tile"]) if "tile" in e else None
        if kind == "discard":
            out.append(("nukidora" if e.get("lay_out") else "dahai", e["seat"], tile))
        elif kind == "concealed_kong":
            out.append(("ankan", e["seat"], None))
        elif kind == "end":
            if e["reason"] != "win":
                out.append(("ryukyoku", e.get("seat") if e["reason"] == "abandon" else None, None))
        elif kind in names:
            out.append((names[kind], e.get("seat"), None if kind == "abandon" else tile))
    return out


def _tile(t: int) -> str:
    from laizi.engine.events import TILE

    return TILE[t]


def test_the_event_logs_read_back_to_the_records(records: Path, tmp_path: Path) -> None:
    result = run(
        *["export", str(records), "--out", str(tmp_path / "ev"), "--format", "events", "--json"]
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    hands = all_hands(records)
    logs = sorted((tmp_path / "ev").glob("hand-*.mjson"))
    assert report["hands"] == len(logs) == len(hands)
    lines = 0
    for hand, path in zip(hands, logs, strict=True):
        log = [json.loads(line) for line in path.read_text().splitlines()]
        lines += len(log)
        assert log == mjai_events(hand.events)
        back = _read_back(log)
        start, end = hand.events[0], hand.events[-1]
        # Every seat's concealed tiles at the end, tracked through the log, are the record's.
        record_hands = [sorted(mjai_tile(_tile(t)) for t in parse_tiles(h)) for h in end["hands"]]
        assert back["hands"] == record_hands == back["end_hands"]
        assert back["sequence"] == _expected_sequence(hand.events)
        assert back["deltas"] == end["payments"]
        assert back["scores"] == [
            a + b for a, b in zip(start["scores"], end["payments"], strict=True)
        ]
        assert log[1]["oya"] == start["dealer"]
        if start["game"] == "wuhan":
            assert log[1]["dora_marker"] == mjai_tile(hand.events[1]["indicator"])
            assert log[1]["laizi"] == mjai_tile(hand.events[1]["laizi"])
    assert report["rows"] == lines


def test_a_database_that_cant_be_read_is_exit_1(tmp_path: Path) -> None:
    for url in ("nosuchdialect://x/y", f"sqlite:///{tmp_path / 'empty.sqlite3'}"):
        result = run("export", "--db", url, "--out", str(tmp_path / "ds"))
        assert result.returncode == 1, result.stderr
        assert result.stderr.strip().startswith("laizi: --db: ")
        assert "Traceback" not in result.stderr


def test_export_reads_standard_input(records: Path, tmp_path: Path) -> None:
    text = (records / "baishan" / "hand-000001.jsonl").read_text()
    result = run("export", "-", "--out", str(tmp_path / "ds"), "--json", stdin=text + text)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    sources = {str(s) for b in read_rows(tmp_path / "ds", columns=["source"]) for s in b["source"]}
    assert report["hands"] == 2 and sources == {"-#0", "-#1"}

"""laizi.env.encoders: ``v1`` as before, ``v2``'s planes checked against a scripted hand."""

from __future__ import annotations

import json

import gymnasium
import numpy as np
import pyarrow.parquet as pq
import pytest

from laizi.dataset.decisions import DecisionRows, replay_decisions
from laizi.dataset.export import OutputError, export
from laizi.dataset.parquet import dataset_metadata, read_rows
from laizi.dataset.sources import Hand
from laizi.engine import Game, make_ruleset
from laizi.engine.record import to_jsonl
from laizi.env import baishan_v0, wuhan_v0
from laizi.env.batch import BatchEnv
from laizi.env.encoders import RECENT, V1, V2, V2_ROWS, get_encoder
from laizi.env.spaces import PASS_ACTION, PUNG_ACTION
from laizi.env.table import EnvTable
from laizi.env.vector import LaiziVectorEnv, SelfPlayEnv
from laizi.tiles import format_tile, parse_tiles
from tests.cli_helpers import run


def _tile(name: str) -> int:
    (t,) = parse_tiles(name)
    return t


def _scripted_table() -> EnvTable:
    """Forty decisions of a fixed script on the all-zero seed (dealer 0, 红中 kaikou): pung when
    offered, else pass; on turn lay out on even steps, else discard the drawn tile (摸切) except
    every third step (the lowest other tile, 手切)."""
    table = EnvTable(make_ruleset("wuhan-hongzhong-kaikou"))
    table.deal(bytes(32), dealer=0)
    state = table.state
    for step in range(40):
        seat = table.current_seat()
        legal = table.legal(seat)
        if state.phase in ("claim", "rob"):
            index = PUNG_ACTION if PUNG_ACTION in legal else PASS_ACTION
        else:
            discards = [i for i in legal if i < 34]
            if state.drawn is not None and state.drawn in discards and step % 3 != 1:
                index = state.drawn
            else:
                others = [i for i in discards if i != state.drawn]
                index = others[0] if others else discards[0]
            lay = [i for i in legal if 34 <= i < 68]
            if lay and step % 2 == 0:
                index = lay[0]
        table.step(seat, index)
    return table


def test_the_scripted_hand_is_the_one_the_values_below_describe():
    table = _scripted_table()
    sp = table.state.specials
    assert (sp.indicator, sp.laizi, sp.must_gang) == (_tile("2p"), _tile("3p"), {_tile("7z")})
    rivers = [[format_tile(t) for t in p.river] for p in table.state.players]
    assert rivers[0] == ["2m", "2m", "4m", "4m", "7s", "5m", "2p", "6p"]
    assert [p.from_draw for p in table.state.players] == [
        [1, 4, 6, 7],
        [0, 2, 3, 4, 6, 7],
        [0, 5, 6],
        [1, 2, 3, 4, 6],
    ]
    assert [p.claimed for p in table.state.players] == [[], [1], [0], []]


def _one_hot_tiles(rows: np.ndarray) -> list[str]:
    """The tile of each one-hot row ('' for an empty row), as names."""
    out = []
    for row in rows:
        hot = np.flatnonzero(row)
        assert len(hot) <= 1 and row.sum() == len(hot)
        out.append(format_tile(int(hot[0])) if len(hot) else "")
    return out


def test_v2_planes_of_the_scripted_hand_for_seat_0():
    table = _scripted_table()
    out = np.full(V2.shape, -1.0, np.float32)  # every cell must be written
    V2.write(table, 0, out)
    v1 = np.zeros(V1.shape, np.float32)
    table.write_observation(0, v1)
    np.testing.assert_array_equal(out[:22], v1)
    # Recent discards, newest first, per relative seat (0 = self, 1 = 下家, 2 = 对家, 3 = 上家).
    recent = [_one_hot_tiles(out[22 + RECENT * k : 22 + RECENT * (k + 1)]) for k in range(4)]
    assert recent[0] == ["6p", "2p", "5m", "7s", "4m", "4m", "2m", "2m"]
    assert recent[1] == ["1p", "4m", "4m", "4s", "1p", "2p", "1m", "9m"]
    assert recent[2] == ["4p", "8m", "6m", "2p", "8m", "7m", "5m", "2z"]
    assert recent[3] == [*["6s", "3m", "8p", "3s", "7m", "4z", "2m"], ""]  # seven discards only
    flags = out[54:58]
    # 摸切 (columns 0-7), claimed by another seat (8-15), present (16-23), count (24)
    assert flags[0, :8].tolist() == [1, 1, 0, 1, 0, 0, 1, 0]
    assert flags[1, :8].tolist() == [1, 1, 0, 1, 1, 1, 0, 1]
    assert flags[2, :8].tolist() == [0, 1, 1, 0, 0, 0, 0, 1]
    assert flags[3, :8].tolist() == [1, 0, 1, 1, 1, 1, 0, 0]
    assert flags[:, 8:16].tolist() == [[0] * 8, [0, 0, 0, 0, 0, 0, 1, 0], [0] * 7 + [1], [0] * 8]
    assert flags[:, 16:24].tolist() == [[1] * 8, [1] * 8, [1] * 8, [1] * 7 + [0]]
    assert flags[:, 24].tolist() == [8, 8, 8, 7]
    assert not flags[:, 25:].any()
    specials = out[58]
    assert specials[0:4].tolist() == [0, 1, 1, 0]  # laizi (3p) laid out per relative seat
    assert specials[4:8].tolist() == [0, 0, 0, 0]  # no 皮 in 红中 Wuhan
    assert specials[8:12].tolist() == [1, 0, 2, 0]  # 红中 laid out
    assert specials[12:15].tolist() == [0, 0, 0]  # own laizi, 皮, must-gang tiles held
    assert not specials[15:].any()
    mult = out[59:63]
    assert out[20, 15:19].tolist() == [2, 2, 4, 0]  # v1's log2 multipliers
    assert mult.sum(axis=1).tolist() == [2, 2, 4, 0]
    assert mult[2, :5].tolist() == [1, 1, 1, 1, 0]


def test_v2_is_relative_to_the_viewer():
    table = _scripted_table()
    seen = {}
    for viewer in range(4):
        out = np.zeros(V2.shape, np.float32)
        V2.write(table, viewer, out)
        seen[viewer] = out
    for viewer in range(4):
        for k in range(4):
            absolute = (viewer + k) % 4
            block = slice(22 + RECENT * k, 22 + RECENT * (k + 1))
            np.testing.assert_array_equal(
                seen[viewer][block], seen[0][22 + RECENT * absolute : 22 + RECENT * (absolute + 1)]
            )
            np.testing.assert_array_equal(seen[viewer][54 + k], seen[0][54 + absolute])
            np.testing.assert_array_equal(seen[viewer][59 + k], seen[0][59 + absolute])
            assert seen[viewer][58, k] == seen[0][58, absolute]


def test_v2_counts_a_players_own_laizi_and_pi_in_a_qipi_hand():
    table = EnvTable(make_ruleset("wuhan-qipi-kaikou"))
    table.deal(bytes(32), dealer=0)
    state = table.state
    out = np.zeros(V2.shape, np.float32)
    V2.write(table, 0, out)
    own = state.players[0].counts
    assert state.specials.pi  # 七皮: pi tiles exist
    assert out[58, 12] == own[state.specials.laizi]
    assert out[58, 13] == sum(own[t] for t in state.specials.pi)
    assert out[58, 14] == sum(own[t] for t in state.specials.must_gang)
    assert V2_ROWS["multiplier"] == (59, 63)


def test_every_env_takes_the_encoder_option():
    assert get_encoder("v2") is V2
    with pytest.raises(ValueError, match="v1, v2"):
        get_encoder("v3")
    batch = BatchEnv(3, encoder="v2", seed=1)
    obs, _, seat = batch.reset()
    assert obs.shape == (3, 63, 34)
    rng = np.random.default_rng(0)
    for _ in range(120):
        obs, _, seat, _, _ = batch.step(batch.random_actions(rng))
        for i in range(3):
            expected = np.zeros(V2.shape, np.float32)
            V2.write(batch.tables[i], int(seat[i]), expected)
            np.testing.assert_array_equal(obs[i], expected)
    envs = gymnasium.make_vec("laizi/Wuhan-v0", num_envs=2, encoder="v2")
    assert isinstance(envs, LaiziVectorEnv)
    obs, _ = envs.reset(seed=0)
    assert obs.shape == (2, 63, 34) and envs.single_observation_space.shape == (63, 34)
    single = SelfPlayEnv(encoder="v2")
    obs, _ = single.reset(seed=0)
    assert obs.shape == (63, 34) and single.observation_space.contains(obs)
    aec = wuhan_v0.env(encoder="v2")
    aec.reset(seed=0)
    obs, *_ = aec.last()
    assert obs["observation"].shape == (63, 34)
    par = baishan_v0.parallel_env(encoder="v2")
    observations, _ = par.reset(seed=0)
    assert observations["player_0"]["observation"].shape == (63, 34)


def test_export_encoder_v2_writes_v2_rows_and_names_it_in_the_metadata(tmp_path):
    game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(range(32)), dealer=1)
    rng = np.random.default_rng(3)
    while not game.over:
        legal = game.legal_actions(game.to_act[0])
        game.play(legal[int(rng.integers(len(legal)))])
    hands = [Hand("scripted", game.record)]
    report = export(iter(hands), tmp_path / "v2", encoder="v2")
    assert report["encoder"] == "v2" and report["bad"] == 0
    (path,) = sorted((tmp_path / "v2").glob("part-*.parquet"))
    meta = json.loads(pq.read_schema(path).metadata[b"laizi.dataset"])
    assert meta["encoder"] == "v2" and meta["obs_shape"] == [63, 34]
    assert dataset_metadata(path)["encoder"] == "v2"
    rows = DecisionRows(encoder="v2")
    replay_decisions(game.record, EnvTable(make_ruleset("wuhan-hongzhong-kaikou")), rows)
    (batch,) = list(read_rows(tmp_path / "v2"))
    assert batch["obs"].shape == (rows.size, 63, 34)
    np.testing.assert_array_equal(batch["obs"], rows.obs[: rows.size])
    assert (batch["obs"][:, 54:58, 24] > 0).any()  # discards counted
    v1 = export(iter(hands), tmp_path / "v1")
    assert v1["encoder"] == "v1" and v1["rows"] == report["rows"]
    assert dataset_metadata(next((tmp_path / "v1").glob("*.parquet")))["obs_shape"] == [22, 34]
    with pytest.raises(OutputError, match="--encoder"):
        export(iter(hands), tmp_path / "bad", encoder="v9")
    with pytest.raises(OutputError, match="Parquet rows only"):
        export(iter(hands), tmp_path / "events", fmt="events", encoder="v2")
    assert not (tmp_path / "events").exists()


def test_the_export_command_takes_encoder_v2_and_refuses_an_unknown_one(tmp_path):
    game = Game.deal("baishan", seed=bytes(32), dealer=0)
    while not game.over:
        game.play(game.legal_actions(game.to_act[0])[0])
    (tmp_path / "hand.jsonl").write_text(to_jsonl(game.record))
    out = tmp_path / "ds"
    result = run(
        "export", str(tmp_path / "hand.jsonl"), "--out", str(out), "--encoder", "v2", "--json"
    )
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["encoder"] == "v2" and report["rows"] > 0
    assert dataset_metadata(next(out.glob("part-*.parquet")))["obs_shape"] == [63, 34]
    bad = run(
        "export", str(tmp_path / "hand.jsonl"), "--out", str(tmp_path / "x"), "--encoder", "v7"
    )
    assert bad.returncode == 1 and "--encoder" in bad.stderr

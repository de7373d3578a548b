"""Server pieces without a server process: table settings, the safe default, forgetting rooms."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from laizi.engine import Action, Game
from laizi.server import hub as server_hub
from laizi.server.app import Hub
from laizi.server.seats import safe_default
from laizi.server.store import Store
from laizi.server.table import TableSettings, TableSettingsError
from laizi.tiles import parse_tile


def test_table_settings_defaults_and_json_round_trip() -> None:
    t = TableSettings.from_json(None)
    assert (t.players, t.hands, t.action_seconds, t.bank_seconds) == (1, 4, 15.0, 60.0)
    assert (t.escape_grace_seconds, t.settlement_seconds) == (120.0, 20.0)
    assert TableSettings.from_json(t.to_json()) == t


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"players": 5}, "table.players"),
        ({"action_seconds": 0}, "table.action_seconds"),
        ({"bank_seconds": -1}, "table.bank_seconds"),
        ({"bot_level": "god"}, "table.bot_level"),
        ({"hands": "four"}, "table.hands"),
    ],
)
def test_bad_table_settings_name_the_field(obj: dict[str, object], field: str) -> None:
    with pytest.raises(TableSettingsError, match=field):
        TableSettings.from_json(obj)


def test_safe_default_passes_a_claim() -> None:
    legal = [Action(1, "pung"), Action(1, "pass")]
    assert safe_default({"drawn": None}, legal) == Action(1, "pass")


def test_safe_default_discards_the_drawn_tile() -> None:
    game = Game.deal("wuhan-hongzhong-kaikou", seed=bytes(32))
    seat = game.to_act[0]
    game.play(next(a for a in game.legal_actions(seat) if a.type == "discard"))
    while game.state.phase != "turn":
        s = game.to_act[0]
        game.play(next(a for a in game.legal_actions(s) if a.type == "pass"))
    turn = game.to_act[0]
    view = game.view(turn)
    action = safe_default(view, game.legal_actions(turn))
    assert view["drawn"] is not None
    assert action == Action(turn, "discard", parse_tile(view["drawn"]))


def test_a_finished_room_is_forgotten_later(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(server_hub, "FORGET_AFTER_S", 0.01)

    async def main() -> None:
        hub = Hub(Store(f"sqlite:///{tmp_path / 'db.sqlite3'}"))
        room = hub.create_room({"rules": "wuhan-qipi-kaikou", "table": {"players": 2}})
        assert hub.rooms[room.code] is room
        hub.forget_later(room)
        await asyncio.sleep(0.1)
        assert room.code not in hub.rooms
        assert hub.store.room_id(room.code) is not None  # the database keeps it

    asyncio.run(main())


def test_an_older_database_is_migrated_and_keeps_its_rooms(tmp_path: Path) -> None:
    from alembic import command
    from alembic.config import Config
    from sqlalchemy import create_engine, text

    url = f"sqlite:///{tmp_path / 'old.sqlite3'}"
    config = Config()
    config.set_main_option("script_location", str(Path(server_hub.__file__).parent / "migrations"))
    engine = create_engine(url)
    with engine.begin() as connection:
        config.attributes["connection"] = connection
        command.upgrade(config, "0001")  # the first schema, before the seats' clocks
        connection.execute(
            text(
                "INSERT INTO rooms (id, code, rules, table_settings, status, created)"
                " VALUES (1, 'OLD123', '\"wuhan-qipi-kaikou\"', '{}', 'waiting', 0)"
            )
        )
        connection.execute(
            text("INSERT INTO seats (room_id, seat, kind, name) VALUES (1, 2, 'human', 'Ann')")
        )
    engine.dispose()
    store = Store(url)
    [row] = store.rooms(("waiting",))
    assert row.code == "OLD123"
    assert row.seats == [
        {
            "seat": 2,
            "kind": "human",
            "name": "Ann",
            "token": None,
            "bank": None,
            "auto": False,
            "auto_shown": False,
        }
    ]
    store.close()

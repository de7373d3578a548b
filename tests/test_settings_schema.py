"""The settings schema (``laizi.rules.schema``, ``laizi.server.schema``) is generated from the
settings themselves: every field is there, and every bound it states is the one enforced."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from laizi.rules import PRESETS, SettingsError, preset
from laizi.rules.schema import settings_schema
from laizi.server.chat import chat_words
from laizi.server.schema import game_words, room_schema, table_schema
from laizi.server.table import TableSettings, TableSettingsError

RULES = settings_schema()
FIELDS = {f["key"]: f for f in RULES["fields"]}


def test_every_settings_field_is_in_the_schema_in_order() -> None:
    # each game's settings in their JSON order, the first game's first (Baishan's are Wuhan's)
    assert list(FIELDS) == list(PRESETS["wuhan-hongzhong-kaikou"].to_json())
    assert set(PRESETS["baishan"].to_json()) < set(FIELDS)


def test_every_field_choice_preset_and_game_has_a_chinese_and_an_english_name() -> None:
    labels = [f["label"] for f in RULES["fields"]]
    labels += [c["label"] for f in RULES["fields"] for c in f.get("choices", [])]
    labels += [p["label"] for p in RULES["presets"]] + [g["label"] for g in RULES["games"]]
    labels += [f["label"] for f in table_schema()["fields"]]
    labels += [c["label"] for f in table_schema()["fields"] for c in f.get("choices", [])]
    for label in labels:
        assert set(label) == {"zh", "en"} and label["zh"] and label["en"], label
        assert label["zh"] != label["en"] or label["en"].isdigit(), label  # translated


def test_kinds_follow_the_field_types() -> None:
    assert FIELDS["mode"]["type"] == "choice"
    assert FIELDS["pass_win_locked"]["type"] == "bool"
    assert FIELDS["haidi_reserve"]["type"] == "int"
    assert FIELDS["big_self_draw_factor"]["type"] == "number"
    assert [c["value"] for c in FIELDS["preset"]["choices"]] == list(PRESETS)
    assert [f["key"] for f in RULES["fields"] if f["fixed"]] == ["preset", "game"]


def test_each_presets_values_are_its_defaults() -> None:
    assert {p["name"]: p["values"] for p in RULES["presets"]} == {
        name: s.to_json() for name, s in PRESETS.items()
    }


def test_a_baishan_room_has_no_wuhan_only_field() -> None:
    baishan = PRESETS["baishan"].to_json()
    for key, field in FIELDS.items():
        assert ("baishan" in field["games"]) == (key in baishan), key
        assert "wuhan" in field["games"], key


def _accepts(name: str, overrides: dict[str, Any]) -> None:
    preset(name).with_overrides(overrides)


def _refuses(name: str, overrides: dict[str, Any], key: str) -> None:
    with pytest.raises(SettingsError) as error:
        preset(name).with_overrides(overrides)
    assert error.value.key == key


LADDER = ("cap", "golden_cap", "sunshine_cap", "three_suns_cap")


@pytest.mark.parametrize("key", [k for k, f in FIELDS.items() if f["type"] in ("int", "number")])
def test_each_stated_bound_is_the_enforced_one(key: str) -> None:
    field = FIELDS[key]
    name = "wuhan-hongzhong-kaikou"
    step = 1 if field["type"] == "int" else Fraction(1, 2)
    if "max" in field:
        top = field["max"]
        above = {k: top for k in LADDER[LADDER.index(key) :]} if key in LADDER else {key: top}
        _accepts(name, above)
        _refuses(name, {key: top + step}, key)
    if "min" in field:
        low = field["min"]
        if field.get("exclusive_min"):
            _refuses(name, {key: low}, key)
            _accepts(name, {key: low + step})
        else:
            _accepts(name, {key: low})
            _refuses(name, {key: low - step}, key)
    if "at_least" in field:
        below = preset(name).to_json()[field["at_least"]] - step
        _refuses(name, {key: below}, key)
    assert {"min", "at_least"} & set(field), f"{key}: the schema states no lower bound"
    assert "max" in field, f"{key}: the schema states no upper bound"


def test_table_fields_are_every_table_setting_with_msgspecs_bounds() -> None:
    table = table_schema()
    assert [f["key"] for f in table["fields"]] == list(TableSettings().to_json())
    assert table["defaults"] == TableSettings().to_json()
    for field in table["fields"]:
        key = field["key"]
        if field["type"] == "choice":
            for choice in field["choices"]:
                TableSettings.from_json({key: choice["value"]})
            with pytest.raises(TableSettingsError):
                TableSettings.from_json({key: "no such choice"})
            continue
        if field["type"] == "bool":  # explain_bots: true or false, nothing else
            assert TableSettings.from_json({key: True}).to_json()[key] is True
            with pytest.raises(TableSettingsError, match=f"table.{key}"):
                TableSettings.from_json({key: "yes"})
            continue
        step = 1 if field["type"] == "int" else 0.5
        TableSettings.from_json({key: field["max"]})
        with pytest.raises(TableSettingsError, match=f"table.{key}"):
            TableSettings.from_json({key: field["max"] + step})
        if field.get("exclusive_min"):
            with pytest.raises(TableSettingsError, match=f"table.{key}"):
                TableSettings.from_json({key: field["min"]})
        else:
            TableSettings.from_json({key: field["min"]})
            with pytest.raises(TableSettingsError, match=f"table.{key}"):
                TableSettings.from_json({key: field["min"] - step})


def test_the_room_schema_is_both_parts_and_the_games_words() -> None:
    assert room_schema() == {
        "rules": settings_schema(),
        "table": table_schema(),
        "words": game_words(),
        "chat": chat_words(),
    }

"""Room settings: presets carry RULES.md's defaults; overrides are validated; JSON and hash."""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from laizi.rules import PRESETS, Settings, SettingsError, preset
from laizi.rules.wuhan import WuhanSettings

KAIKOU = ["wuhan-hongzhong-kaikou", "wuhan-facai-kaikou", "wuhan-qipi-kaikou"]
KOUKOU = ["wuhan-hongzhong-koukou", "wuhan-facai-koukou", "wuhan-qipi-koukou"]
WUHAN = {name: s for name, s in PRESETS.items() if s.game == "wuhan"}


def test_the_six_wuhan_presets_and_baishan_exist() -> None:
    assert sorted(WUHAN) == sorted(KAIKOU + KOUKOU)
    assert sorted(PRESETS) == sorted([*KAIKOU, *KOUKOU, "baishan"])


@pytest.mark.parametrize(
    ("name", "variant", "mode"),
    [
        ("wuhan-hongzhong-kaikou", "hongzhong", "kaikou"),
        ("wuhan-hongzhong-koukou", "hongzhong", "koukou"),
        ("wuhan-facai-kaikou", "hongzhong_facai", "kaikou"),
        ("wuhan-facai-koukou", "hongzhong_facai", "koukou"),
        ("wuhan-qipi-kaikou", "qipi_silai", "kaikou"),
        ("wuhan-qipi-koukou", "qipi_silai", "koukou"),
    ],
)
def test_preset_variant_and_mode(name: str, variant: str, mode: str) -> None:
    s = preset(name)
    assert (s.game, s.variant, s.mode, s.preset) == ("wuhan", variant, mode, name)


def test_defaults_shared_by_every_wuhan_preset() -> None:
    for s in WUHAN.values():
        assert s.big_self_draw_factor == Fraction(3, 2)
        assert s.big_discard_factor == Fraction(3, 2)
        assert s.cap == 300
        assert s.sunshine_cap == 600
        assert s.three_suns_cap == 800
        assert s.haidi_reserve == 10
        assert s.win_priority == "from_dealer"
        assert s.pass_win_locked is False
        assert s.base == 1


def test_min_points_a10_defaults() -> None:
    assert [preset(n).min_points for n in KAIKOU] == [16, 16, 32]
    assert [preset(n).min_points for n in KOUKOU] == [64, 64, 64]


def test_golden_cap_and_escape_penalty_rise_in_koukou() -> None:
    assert {preset(n).golden_cap for n in KAIKOU} == {400}
    assert {preset(n).golden_cap for n in KOUKOU} == {500}
    assert {preset(n).escape_penalty for n in KAIKOU} == {400}
    assert {preset(n).escape_penalty for n in KOUKOU} == {500}


def test_laizi_gang_factor_by_variant() -> None:
    assert preset("wuhan-hongzhong-kaikou").laizi_gang_factor == 2
    assert preset("wuhan-facai-koukou").laizi_gang_factor == 4
    assert preset("wuhan-qipi-kaikou").laizi_gang_factor == 4


def test_overrides_make_a_new_value_and_leave_the_preset_alone() -> None:
    base = preset("wuhan-hongzhong-kaikou")
    room = base.with_overrides({"big_self_draw_factor": 2, "cap": 400, "golden_cap": 500})
    assert room.big_self_draw_factor == 2 and room.cap == 400 and room.golden_cap == 500
    assert base.cap == 300
    with pytest.raises(AttributeError):
        room.cap = Fraction(1)  # type: ignore[misc]


def test_decimal_factors_are_exact_fractions() -> None:
    room = preset("wuhan-hongzhong-kaikou").with_overrides({"big_discard_factor": 1.5})
    assert room.big_discard_factor == Fraction(3, 2)


@pytest.mark.parametrize(
    ("overrides", "key"),
    [
        ({"capp": 300}, "capp"),
        ({"mode": "kou"}, "mode"),
        ({"variant": "sichuan"}, "variant"),
        ({"win_priority": "random"}, "win_priority"),
        ({"laizi_gang_factor": 0}, "laizi_gang_factor"),
        ({"big_self_draw_factor": "1.5"}, "big_self_draw_factor"),
        ({"big_discard_factor": True}, "big_discard_factor"),
        ({"cap": -1}, "cap"),
        ({"cap": 0}, "cap"),
        ({"golden_cap": 200}, "golden_cap"),
        ({"sunshine_cap": 350}, "sunshine_cap"),
        ({"three_suns_cap": 100}, "three_suns_cap"),
        ({"min_points": -16}, "min_points"),
        ({"escape_penalty": -1}, "escape_penalty"),
        ({"base": 0}, "base"),
        ({"haidi_reserve": -2}, "haidi_reserve"),
        ({"haidi_reserve": 10.5}, "haidi_reserve"),
        ({"haidi_reserve": 200}, "haidi_reserve"),
        ({"pass_win_locked": "no"}, "pass_win_locked"),
        ({"game": "baishan"}, "game"),
        ({"cap": float("nan")}, "cap"),
        ({"laizi_gang_factor": 1000}, "laizi_gang_factor"),
        ({"base": 10**12}, "base"),
    ],
)
def test_bad_overrides_are_rejected_naming_the_key(overrides: dict, key: str) -> None:
    with pytest.raises(SettingsError) as error:
        preset("wuhan-hongzhong-kaikou").with_overrides(overrides)
    assert error.value.key == key
    assert key in str(error.value)


def test_unknown_preset_is_rejected() -> None:
    with pytest.raises(SettingsError) as error:
        preset("wuhan-baozi")
    assert error.value.key == "preset"


def test_from_json_accepts_a_name_or_an_object() -> None:
    assert Settings.from_json("wuhan-qipi-koukou") == preset("wuhan-qipi-koukou")
    room = Settings.from_json({"preset": "wuhan-qipi-koukou", "min_points": 0})
    assert room.min_points == 0 and room.variant == "qipi_silai"
    with pytest.raises(SettingsError) as error:
        Settings.from_json({"min_points": 0})
    assert error.value.key == "preset"
    with pytest.raises(SettingsError):
        Settings.from_json(3)


@pytest.mark.parametrize("name", sorted(WUHAN))
def test_json_round_trip(name: str) -> None:
    s = preset(name).with_overrides({"big_self_draw_factor": 1.5, "cap": 350})
    text = json.dumps(s.to_json())
    assert Settings.from_json(json.loads(text)) == s
    assert json.loads(text)["big_self_draw_factor"] == 1.5


def test_short_hash_is_stable_and_ignores_the_preset_label() -> None:
    a = preset("wuhan-hongzhong-kaikou")
    assert a.short_hash() == preset("wuhan-hongzhong-kaikou").short_hash()
    assert len(a.short_hash()) == 12 and int(a.short_hash(), 16) >= 0
    assert a.short_hash() != a.with_overrides({"min_points": 0}).short_hash()
    # the same rules reached from another preset hash the same
    b = preset("wuhan-hongzhong-koukou").with_overrides(
        {"mode": "kaikou", "golden_cap": 400, "escape_penalty": 400, "min_points": 16}
    )
    assert b.short_hash() == a.short_hash()
    assert len({s.short_hash() for s in PRESETS.values()}) == len(PRESETS)


def test_repr_shows_preset_and_changes() -> None:
    s = preset("wuhan-facai-kaikou").with_overrides({"cap": 400})
    assert repr(s) == "Settings.preset('wuhan-facai-kaikou', cap=400)"


@given(
    factor=st.decimals(min_value=1, max_value=8, places=2),
    cap=st.integers(min_value=1, max_value=1000),
)
def test_any_valid_room_round_trips_exactly(factor: Decimal, cap: int) -> None:
    s = preset("wuhan-facai-koukou").with_overrides(
        {
            "laizi_gang_factor": float(factor),
            "cap": cap,
            "golden_cap": 1000,
            "sunshine_cap": 1000,
            "three_suns_cap": 1000,
        }
    )
    assert s.laizi_gang_factor == Fraction(factor)
    again = Settings.from_json(json.loads(json.dumps(s.to_json())))
    assert again == s and again.short_hash() == s.short_hash()


def test_built_by_hand_numbers_are_stored_exactly() -> None:
    fields = preset("wuhan-hongzhong-kaikou").to_json()
    fields["cap"] = 300
    fields["big_self_draw_factor"] = 1.5
    built = WuhanSettings(**fields)
    assert built == preset("wuhan-hongzhong-kaikou")
    assert isinstance(built.cap, Fraction) and built.big_self_draw_factor == Fraction(3, 2)
    assert built.short_hash() == preset("wuhan-hongzhong-kaikou").short_hash()
    fields["haidi_reserve"] = "10"
    with pytest.raises(SettingsError) as error:
        WuhanSettings(**fields)
    assert error.value.key == "haidi_reserve"

"""RULES.md A1: the (variant, mode) pair *is* the preset.  Naming another variant or mode gives
the new pair's defaults, with only the settings named on top, and the new pair's name and hash."""

from __future__ import annotations

from fractions import Fraction

import pytest

from laizi.engine import make_ruleset
from laizi.rules import PRESETS, Settings, SettingsError, preset

# Every default that follows the pair, written out from RULES.md (A3, A9, A10):
# (laizi_gang_factor, min_points, golden_cap, escape_penalty) per (variant, mode).
PAIRS = {
    ("hongzhong", "kaikou"): ("wuhan-hongzhong-kaikou", 2, 16, 400, 400),
    ("hongzhong", "koukou"): ("wuhan-hongzhong-koukou", 2, 64, 500, 500),
    ("hongzhong_facai", "kaikou"): ("wuhan-facai-kaikou", 4, 16, 400, 400),
    ("hongzhong_facai", "koukou"): ("wuhan-facai-koukou", 4, 64, 500, 500),
    ("qipi_silai", "kaikou"): ("wuhan-qipi-kaikou", 4, 32, 400, 400),
    ("qipi_silai", "koukou"): ("wuhan-qipi-koukou", 4, 64, 500, 500),
}
WUHAN = [name for name, s in PRESETS.items() if s.game == "wuhan"]


def test_the_issue_example_gets_the_koukou_defaults() -> None:
    s = Settings.from_json({"preset": "wuhan-hongzhong-kaikou", "mode": "koukou"})
    assert s.preset == "wuhan-hongzhong-koukou"
    assert (s.min_points, s.golden_cap, s.escape_penalty) == (64, 500, 500)
    assert s.short_hash() == preset("wuhan-hongzhong-koukou").short_hash()
    assert make_ruleset({"preset": "wuhan-hongzhong-kaikou", "mode": "koukou"}).settings == s


@pytest.mark.parametrize("start", WUHAN)
@pytest.mark.parametrize("pair", list(PAIRS), ids=lambda p: f"{p[0]}-{p[1]}")
def test_every_start_and_pair_gives_the_pairs_exact_defaults(
    start: str, pair: tuple[str, str]
) -> None:
    name, gang, minimum, golden, escape = PAIRS[pair]
    variant, mode = pair
    s = Settings.from_json({"preset": start, "variant": variant, "mode": mode})
    assert (s.preset, s.variant, s.mode) == (name, variant, mode)
    assert s.laizi_gang_factor == gang
    assert s.min_points == minimum
    assert s.golden_cap == golden
    assert s.escape_penalty == escape
    assert (s.cap, s.sunshine_cap, s.three_suns_cap) == (300, 600, 800)
    assert s.big_self_draw_factor == s.big_discard_factor == Fraction(3, 2)
    assert s == preset(name)
    assert s.short_hash() == preset(name).short_hash()
    assert s.to_json()["preset"] == name


@pytest.mark.parametrize("start", WUHAN)
def test_changing_only_one_of_the_two_keeps_the_other(start: str) -> None:
    base = preset(start)
    for variant, mode in PAIRS:
        if mode == base.mode:
            got = Settings.from_json({"preset": start, "variant": variant})
            assert got == preset(PAIRS[(variant, mode)][0])
        if variant == base.variant:
            got = Settings.from_json({"preset": start, "mode": mode})
            assert got == preset(PAIRS[(variant, mode)][0])


def test_settings_named_explicitly_stay_on_top_of_the_new_pair() -> None:
    s = Settings.from_json(
        {"preset": "wuhan-hongzhong-kaikou", "mode": "koukou", "min_points": 16, "cap": 200}
    )
    assert s.preset == "wuhan-hongzhong-koukou"
    assert (s.min_points, s.cap, s.golden_cap, s.escape_penalty) == (16, 200, 500, 500)
    assert s.short_hash() != preset("wuhan-hongzhong-koukou").short_hash()
    # the same rules however they were reached: the hash is the rules'
    same = Settings.from_json({"preset": "wuhan-qipi-koukou", "variant": "hongzhong"})
    assert same.with_overrides({"min_points": 16, "cap": 200}).short_hash() == s.short_hash()


def test_a_setting_set_before_a_later_pair_change_is_kept() -> None:
    s = preset("wuhan-hongzhong-kaikou").with_overrides({"min_points": 0, "base": 2})
    moved = s.with_overrides({"variant": "qipi_silai", "mode": "koukou"})
    assert moved.preset == "wuhan-qipi-koukou"
    assert (moved.min_points, moved.base) == (0, 2)
    assert (moved.laizi_gang_factor, moved.golden_cap, moved.escape_penalty) == (4, 500, 500)
    # values that only followed the old pair do not come along
    back = moved.with_overrides({"variant": "hongzhong", "mode": "kaikou"})
    assert back == s


def test_the_same_pair_changes_nothing_and_round_trips() -> None:
    s = Settings.from_json({"preset": "wuhan-facai-koukou", "mode": "koukou", "min_points": 8})
    assert s.preset == "wuhan-facai-koukou" and s.min_points == 8
    assert Settings.from_json(s.to_json()) == s
    moved = Settings.from_json({"preset": "wuhan-facai-koukou", "mode": "kaikou"})
    assert Settings.from_json(moved.to_json()) == moved


@pytest.mark.parametrize(
    ("rules", "key"),
    [
        ({"preset": "wuhan-hongzhong-kaikou", "mode": "both"}, "mode"),
        ({"preset": "wuhan-hongzhong-kaikou", "variant": "none"}, "variant"),
        ({"preset": "wuhan-hongzhong-kaikou", "variant": 3}, "variant"),
        ({"preset": "baishan", "mode": "koukou"}, "mode"),
        ({"preset": "wuhan-hongzhong-kaikou", "mode": "koukou", "preset_x": 1}, "preset_x"),
        (
            {"preset": "wuhan-hongzhong-kaikou", "mode": "koukou", "golden_cap": 250},
            "golden_cap",
        ),
    ],
)
def test_bad_pairs_are_refused_naming_the_key(rules: dict[str, object], key: str) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_json(rules)
    assert caught.value.key == key


def test_the_preset_label_may_be_given_as_the_new_pairs() -> None:
    s = preset("wuhan-hongzhong-kaikou").with_overrides(
        {"preset": "wuhan-hongzhong-koukou", "mode": "koukou"}
    )
    assert s == preset("wuhan-hongzhong-koukou")
    with pytest.raises(SettingsError) as caught:
        preset("wuhan-hongzhong-kaikou").with_overrides({"preset": "wuhan-facai-kaikou"})
    assert caught.value.key == "preset"

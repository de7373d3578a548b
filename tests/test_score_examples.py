"""The three worked examples of RULES.md A7, reproduced exactly."""

from __future__ import annotations

from tests.score_helpers import chow, concealed, kong, player, pung, settle


def test_example_1_seed_000_koukou_small_hard_win() -> None:
    # hongzhong, koukou, min 0; C (seat 2) deals; A (seat 0) discards to D (seat 3).
    s = settle(
        [
            player(None, pung("999s", 1)),  # A: one opening, discarder
            player(None, pung("111s", 0), pung("111p", 3), laid_out="7z6m"),  # B: 红中杠, 癞子杠
            player(None, pung("444s", 0), pung("444p", 0)),  # C: dealer, two openings
            player("123m456m789m5p", chow("234p", 2)),  # D: one opening, small hard
        ],
        rules={"preset": "wuhan-hongzhong-koukou", "min_points": 0},
        dealer=2,
        indicator="5m",
        winner=3,
        src=0,
        tile="5p",
    )
    assert s.allowed and s.wins == ("small",) and s.hard is True
    assert [m.total for m in s.multipliers] == [4, 16, 8, 4]
    assert s.payments == (-16, -64, -32, 112)


def test_example_2_seed_001_fans() -> None:
    # fans A 3, B 2, C 3, winner D 4 → multipliers 8, 4, 8, 16 (2^fans), small win.
    s = settle(
        [
            player(None, pung("111s", 1), laid_out="6z"),  # A: discarder, opened, 发财杠
            player(None, kong("9999s", 0)),  # B: opened, exposed kong
            player(None, pung("111p", 0), laid_out="7z"),  # C: dealer, opened, 红中杠
            player("123m456m5p", chow("234p", 2), kong("7777s", 1), laid_out="7z"),  # D
        ],
        rules="wuhan-facai-kaikou",
        dealer=2,
        indicator="5m",
        winner=3,
        src=0,
        tile="5p",
    )
    assert [m.total for m in s.multipliers] == [8, 4, 8, 16]
    assert s.payments == (-128, -64, -128, 320)


def test_example_3_seed_003_minimum_check_passes() -> None:
    # qipi_silai room with min 64: winner 8, others 16, 16, 32, small win → 128, 128, 256.
    s = settle(
        [
            # dealer: three openings ×8, dealer ×2 → 16
            player(None, pung("111p", 1), pung("999p", 2), pung("777m", 1)),
            # one opening ×2, 红中杠 ×2, two 癞子皮杠 (5m and 4m) ×2 ×2 → 16
            player(None, pung("111s", 0), laid_out="7z5m4m"),
            # three openings ×8, a concealed kong ×4 → 32
            player(None, pung("222p", 0), pung("333p", 1), pung("666p", 0), concealed("8888s")),
            player("123m789m123s5p", chow("234p", 2)),  # self-drawn 5p: opened ×2 self ×2 hard ×2
        ],
        rules="wuhan-qipi-koukou",
        dealer=0,
        indicator="5m",
        winner=3,
        win="self_draw",
        tile="5p",
    )
    assert s.situation.settings.min_points == 64
    assert [m.total for m in s.multipliers] == [16, 16, 32, 8]
    assert s.raw == (128, 128, 256, None)
    assert s.allowed and s.payments == (-128, -128, -256, 512)

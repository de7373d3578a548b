"""One winner per discard, the dealer's seat and escape (RULES.md A6, A9)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from laizi.rules import make_ruleset, preset
from laizi.rules.ruleset import claim_order
from laizi.scoring import escape_payments

next_dealer = make_ruleset("wuhan-hongzhong-kaikou").next_dealer


def test_one_winner_per_discard_counts_from_the_dealer() -> None:
    # 以庄家逆时针为序: dealer, dealer+1, …, never the discarder
    assert claim_order("from_dealer", dealer=0, discarder=1) == (0, 2, 3)
    assert claim_order("from_dealer", dealer=2, discarder=0) == (2, 3, 1)
    assert claim_order("from_dealer", dealer=1, discarder=1) == (2, 3, 0)


def test_win_priority_from_discarder() -> None:
    assert claim_order("from_discarder", dealer=0, discarder=1) == (2, 3, 0)
    assert claim_order("from_discarder", dealer=0, discarder=3) == (0, 1, 2)


def test_unknown_win_priority() -> None:
    with pytest.raises(ValueError, match="win_priority"):
        claim_order("random", 0, 1)


def test_dealer_stays_on_its_win_or_a_drawn_hand_else_passes_on() -> None:
    assert next_dealer(1, 1) == 1
    assert next_dealer(1, None) == 1
    assert next_dealer(1, 3) == 2
    assert next_dealer(3, 0) == 0


def test_escape_pays_the_penalty_split_among_the_others() -> None:
    assert escape_payments(preset("wuhan-hongzhong-kaikou"), 2) == (
        Fraction(400, 3),
        Fraction(400, 3),
        -400,
        Fraction(400, 3),
    )
    koukou = escape_payments(preset("wuhan-qipi-koukou"), 0)
    assert koukou[0] == -500 and sum(koukou) == 0


def test_escape_penalty_is_a_setting_of_its_own() -> None:
    room = preset("wuhan-hongzhong-kaikou").with_overrides({"escape_penalty": 300, "base": 2})
    assert escape_payments(room, 1) == (200, -600, 200, 200)
    with pytest.raises(ValueError):
        escape_payments(room, 4)

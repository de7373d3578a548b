"""``laizi score``/``replay``/``verify``/``analyze`` print, byte for byte, what they printed when
the outputs were recorded (``tests/golden/``; ``tests/golden_corpus.py`` records them again)."""

from __future__ import annotations

import pytest

from tests.golden_corpus import GOLDEN, Case, cases, run

CASES = cases()


def test_every_recorded_output_has_a_case() -> None:
    recorded = {p.relative_to(GOLDEN).as_posix() for p in GOLDEN.rglob("*.txt")}
    assert recorded == {c.path.relative_to(GOLDEN).as_posix() for c in CASES}


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_output_is_byte_identical(case: Case) -> None:
    assert run(case) == case.path.read_text("utf-8")

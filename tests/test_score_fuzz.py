"""Any JSON at all gives a settlement or an InputError naming a field — never another exception."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from laizi.scoring import InputError, score, situation_from_json

EXAMPLES = sorted((Path(__file__).resolve().parent.parent / "examples" / "score").glob("*.json"))
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["5m", "7z", "0", "123m", "x", "wuhan-qipi-koukou", "discard", "rob_kong"]),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=8,
)


def paths(obj: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(obj, dict):
        for key, value in obj.items():
            out += paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for index, value in enumerate(obj):
            out += paths(value, (*prefix, index))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(EXAMPLES), st.data(), json_values)
def test_mutated_examples_never_crash(path: Path, data: st.DataObject, value: Any) -> None:
    doc = json.loads(path.read_text())
    where = data.draw(st.sampled_from(paths(doc)[1:]))
    mutated = copy.deepcopy(doc)
    target = mutated
    for step in where[:-1]:
        target = target[step]
    target[where[-1]] = value
    try:
        result = score(situation_from_json(mutated))
    except InputError as error:
        assert error.field
        return
    assert sum(result.payments) == 0
    json.dumps(result.to_json())

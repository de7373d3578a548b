"""Whatever is done to a record or a script, the answer is a verdict or a named error — never a
crash (INTERFACES.md: no traceback for any input), and a changed record never verifies."""

from __future__ import annotations

import contextlib
import copy
import json
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from laizi.engine import make_ruleset, play_out, verify
from laizi.engine.script import ScriptError, ScriptIllegal, ScriptUnfinished, run_script
from tests.cli_helpers import script_of
from tests.engine_helpers import deal_json

RULES = {"preset": "wuhan-qipi-kaikou", "min_points": 0}
_state, RECORD = deal_json(make_ruleset(RULES), 1, seed=bytes(range(32)))
RECORD = RECORD + play_out(_state, random.Random(1).choice)
RECORD = json.loads(json.dumps(RECORD))
SCRIPT = script_of(RECORD, RULES)

ODD_VALUES = [None, 0, -1, 7, 1.5, True, "", "5m", "zz", "9z", [], {}, ["1m"], "1111m", 10**9]


def mutate(obj, rng: random.Random):
    """Change one value somewhere inside ``obj`` (JSON-like) to an odd one, or drop a key."""
    target = obj
    while True:
        if isinstance(target, dict) and target:
            key = rng.choice(sorted(target))
            if rng.random() < 0.4 or not isinstance(target[key], dict | list) or not target[key]:
                if rng.random() < 0.2:
                    del target[key]
                else:
                    target[key] = rng.choice(ODD_VALUES)
                return
            target = target[key]
        elif isinstance(target, list) and target:
            index = rng.randrange(len(target))
            inner = target[index]
            if rng.random() < 0.4 or not isinstance(inner, dict | list) or not inner:
                target[index] = rng.choice(ODD_VALUES)
                return
            target = target[index]
        else:
            return


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
@example(105787)  # renumbers the hand 0 → 7: a hand after 0 must link to the one before it
@example(95228)  # min_points 0 → 7 in a drawn hand: the same hand under other rules (see below)
def test_a_changed_record_gets_a_verdict_and_never_passes(seed):
    rng = random.Random(seed)
    events = copy.deepcopy(RECORD)
    index = rng.randrange(len(events))
    before = json.dumps(events[index], sort_keys=True)
    mutate(events[index], rng)
    verdict = verify(events)
    if json.dumps(events[index], sort_keys=True) != before and not _other_rules(events, index):
        assert not verdict.ok


def _other_rules(events, index: int) -> bool:
    """Only a setting of a one-hand record's rules changed, to a value the rules accept.

    Nothing outside the record fixes a lone hand's rules: a setting the hand never used (the
    minimum points of a drawn hand) gives the same events, a valid record of other rules.  Within
    a match every hand must have the first one's rules (tests/test_verify_forgeries.py)."""
    if index != 0 or not isinstance(events[0].get("rules"), dict):
        return False
    original, changed = dict(RECORD[0]), dict(events[0])
    original.pop("rules")
    rules = changed.pop("rules")
    try:
        make_ruleset(rules)
    except ValueError:
        return False
    return original == changed


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=2**32))
def test_a_changed_script_replays_or_fails_with_a_named_error(seed):
    rng = random.Random(seed)
    obj = copy.deepcopy(SCRIPT)
    mutate(obj, rng)
    with contextlib.suppress(ScriptError, ScriptIllegal, ScriptUnfinished):
        run_script(obj)

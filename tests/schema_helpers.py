"""Helpers for tests that check bot-protocol messages against ``docs/bot-protocol.schema.json``:
the checked-in schema, a validator, and the misbehaving example bot that logs what it was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from laizi.botproto.messages import SCHEMA_PATH

ROOT = Path(__file__).resolve().parent.parent
MISBEHAVING = ROOT / "tests/outside/misbehaving_bot.py"
SCHEMA = json.loads((ROOT / SCHEMA_PATH).read_text(encoding="utf-8"))
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def check(message: dict[str, Any], side: str) -> None:
    """Validate against the root and against the one definition its ``type`` names (a clearer
    failure than the root's anyOf)."""
    VALIDATOR.validate(message)
    union = SCHEMA["$defs"][side]
    ref = union["discriminator"]["mapping"][message["type"]]
    one = {"$schema": SCHEMA["$schema"], "$defs": SCHEMA["$defs"], "$ref": ref}
    jsonschema.Draft202012Validator(one).validate(message)

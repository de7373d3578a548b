"""The compiled build and the pure-Python sources: same records, and never stale compiled code.

``laizi._native`` decides at import whether the compiled hot modules run (docs/speed.md).  The
finder is checked here on a copy of the package in a temporary folder, with placeholder
"compiled" files that can't load: when the finder lets Python import one, the import fails, so
each test can tell which way the import went, with or without a C compiler on the machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

import pytest
from typer.testing import CliRunner

import laizi
from laizi import _native
from laizi.cli import app

SRC = Path(laizi.__file__).resolve().parents[1]
SUFFIX = EXTENSION_SUFFIXES[0]

# Plays seeded random hands of every preset and steps a BatchEnv; prints the build and a digest
# of the records and the batch's arrays.
RECORDS_SCRIPT = """
import hashlib, json, random, sys
from laizi import _native
from laizi.engine import apply, legal_actions, make_ruleset, new_hand, to_jsonl
from laizi.engine.events import encode_all
from laizi.rules import PRESETS

hands = int(sys.argv[1])
digest = hashlib.sha256()
presets = sorted(PRESETS)
rulesets = {p: make_ruleset(p) for p in presets}
for i in range(hands):
    rng = random.Random(i)
    state, dealt = new_hand(rulesets[presets[i % len(presets)]], i % 4, seed=rng.randbytes(32))
    events = encode_all(dealt)
    while not state.over:
        seat = state.to_act()[0]
        events += encode_all(apply(state, rng.choice(legal_actions(state, seat))))
    digest.update(to_jsonl(events).encode())
# the batch env (its loop is compiled too): every array of 200 steps of 16 tables
import numpy as np
from laizi.env.batch import BatchEnv
batch = BatchEnv(16, "wuhan-qipi-kaikou", seed=5, reward_scale=0.5)
arrays = batch.reset()
rng = np.random.default_rng(0)
for _ in range(200):
    for array in arrays:
        digest.update(array.tobytes())
    arrays = batch.step(batch.random_actions(rng))
print(json.dumps({"build": _native.build(), "digest": digest.hexdigest()}))
"""


def _run(code: str, *args: str, pythonpath: Path = SRC, pure: bool = False) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LAIZI_PURE"}
    env["PYTHONPATH"] = str(pythonpath)
    if pure:
        env["LAIZI_PURE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", code, *args], env=env, capture_output=True, text=True, timeout=600
    )
    return {"out": done.stdout, "err": done.stderr, "code": str(done.returncode)}


def test_pure_and_installed_build_give_identical_records_for_1000_hands() -> None:
    pure = _run(RECORDS_SCRIPT, "1000", pure=True)
    built = _run(RECORDS_SCRIPT, "1000")
    assert pure["code"] == "0", pure["err"]
    assert built["code"] == "0", built["err"]
    pure_out = json.loads(pure["out"].splitlines()[-1])
    built_out = json.loads(built["out"].splitlines()[-1])
    assert pure_out["build"] == "pure"
    # scripts/test.sh builds the compiled modules first; a plain checkout compares pure to pure.
    compiled_here = all(
        _native._has_extension(_native.source_path(m)) for m in _native.COMPILED_MODULES
    )
    if compiled_here and not _native.install().stale:
        assert built_out["build"] == "compiled"
    assert built_out["digest"] == pure_out["digest"]


# --- the finder, on a copy of the package with placeholder compiled modules ----------------------


def _fake_build(tmp_path: Path, *, stale: str | None = None) -> Path:
    """A copy of ``laizi`` whose compiled modules are placeholders (any import of one fails),
    with a build record of the current sources — but for ``stale``, recorded as another."""
    root = tmp_path / "site"
    shutil.copytree(
        SRC / "laizi",
        root / "laizi",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "_build_info.json"),
    )
    sources = {}
    for module in _native.COMPILED_MODULES:
        source = root.joinpath(*module.split(".")).with_suffix(".py")
        source.with_name(source.stem + SUFFIX).write_bytes(b"not a shared library")
        sources[module] = hashlib.sha256(source.read_bytes()).hexdigest()
    if stale is not None:
        sources[stale] = "0" * 64
    info = {"build": "compiled", "compiler": "mypyc test", "sources": sources}
    (root / "laizi" / "_build_info.json").write_text(json.dumps(info))
    return root


IMPORT_GAME = """
import json, warnings
warnings.simplefilter("always")
from laizi import _native
import laizi.engine.game as game, laizi.hand as hand
print(json.dumps({"game": game.__file__, "hand": hand.__file__, "build": _native.build(),
                  "describe": _native.describe()}))
"""


def test_a_fresh_build_is_imported_compiled(tmp_path: Path) -> None:
    root = _fake_build(tmp_path)
    result = _run(IMPORT_GAME, pythonpath=root)
    # The finder let Python load the "compiled" placeholder: it can't load, so the import fails.
    assert result["code"] != "0"
    assert "ImportError" in result["err"]
    assert "StaleBuildWarning" not in result["err"]


def test_an_edited_source_is_never_shadowed_by_its_stale_compiled_module(tmp_path: Path) -> None:
    root = _fake_build(tmp_path, stale="laizi.engine.state")
    result = _run(IMPORT_GAME, pythonpath=root)
    assert result["code"] == "0", result["err"]
    out = json.loads(result["out"].splitlines()[-1])
    # All the compiled modules run from source, not only the stale one (one shared library).
    assert out["game"] == str(root / "laizi" / "engine" / "game.py")
    assert out["hand"] == str(root / "laizi" / "hand.py")
    assert out["build"] == "pure"
    assert out["describe"] == "pure Python (stale build: laizi.engine.state)"
    assert "StaleBuildWarning" in result["err"]
    assert "laizi.engine.state was built from another version of the source" in result["err"]


def test_an_edit_after_the_build_is_detected(tmp_path: Path) -> None:
    root = _fake_build(tmp_path)
    hand_py = root / "laizi" / "hand.py"
    hand_py.write_text(hand_py.read_text() + "\n# edited after the build\n")
    result = _run(IMPORT_GAME, pythonpath=root)
    assert result["code"] == "0", result["err"]
    out = json.loads(result["out"].splitlines()[-1])
    assert out["hand"] == str(hand_py)
    assert "laizi.hand was built from another version" in result["err"]


def test_laizi_pure_forces_the_sources_without_a_warning(tmp_path: Path) -> None:
    root = _fake_build(tmp_path)
    result = _run(IMPORT_GAME, pythonpath=root, pure=True)
    assert result["code"] == "0", result["err"]
    out = json.loads(result["out"].splitlines()[-1])
    assert out["game"] == str(root / "laizi" / "engine" / "game.py")
    assert out["build"] == "pure"
    assert out["describe"] == "pure Python (LAIZI_PURE=1)"
    assert "StaleBuildWarning" not in result["err"]


def test_version_names_the_build(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAIZI_PURE", "1")
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output == f"laizi {laizi.__version__} — pure Python (LAIZI_PURE=1)\n"
    monkeypatch.delenv("LAIZI_PURE")
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0
    assert result.output.startswith(f"laizi {laizi.__version__} — ")
    expected = "compiled (mypyc" if _native.build() == "compiled" else "pure Python ("
    assert expected in result.output


def test_actions_and_states_survive_pickling() -> None:
    """Workers (Ray, multiprocessing) send actions and states between processes — also the
    compiled build's native classes."""
    import pickle

    from laizi.engine import legal_actions, make_ruleset, new_hand
    from laizi.engine.actions import Action

    for action in (Action(1, "chow", None, (2, 3, 4)), Action(0, "discard", 5), Action(2, "pass")):
        back = pickle.loads(pickle.dumps(action))
        assert back == action
        assert hash(back) == hash(action)
        assert back.notation() == action.notation()
    state, _ = new_hand(make_ruleset("wuhan-hongzhong-kaikou"), 0, seed=bytes(32))
    back_state = pickle.loads(pickle.dumps(state))
    assert back_state.wall == state.wall
    assert [p.counts for p in back_state.players] == [p.counts for p in state.players]
    assert legal_actions(back_state, 0) == legal_actions(state, 0)

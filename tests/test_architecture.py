"""The layers keep their import rules, and only the registry names a game (docs/architecture.md).

- ``laizi.rules`` never imports the engine, the server, the web client, the bots, the envs or
  ``laizi.scoring`` (which reads ``laizi score``'s input and imports the rules);
- the engine never imports a game's folder (``laizi.rules.wuhan``, ``laizi.rules.baishan``): it
  gets a ruleset from the registry;
- ``laizi.scoring`` (shared values) never imports a game's folder;
- the base of ``laizi.rules`` (the question list, registry, settings, melds) imports no game;
- nothing but ``laizi/rules/registry.py`` compares a value with a game id;
- nothing outside ``laizi.rules`` reads a game flag (:data:`GAME_FLAGS`): the engine, the hints,
  the bots, the envs and the CLI ask the ruleset a question instead (``Ruleset.hand_locked``,
  ``must_open_to_win``, ``loss_estimate`` …);
- the suit/honor boundary (tile id 27) is written only in ``laizi/tiles.py``
  (``FIRST_HONOR``, ``is_suited``, ``HONORS``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from laizi.rules.registry import GAMES
from laizi.tiles import FIRST_HONOR
from tests import import_helpers

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "laizi"
GAME_FOLDERS = tuple(f"laizi.rules.{game}" for game in GAMES)


def module_name(path: Path) -> str:
    return import_helpers.module_name(path, SRC)


def imports_of(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top, in a function or under TYPE_CHECKING."""
    package = import_helpers.package_of(path, SRC)
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            found |= import_helpers.import_targets(node, package)
    return found


MODULES = {module_name(p): imports_of(p) for p in sorted(PACKAGE.rglob("*.py"))}


def within(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def offenders(importers: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    return sorted(
        f"{module} imports {target}"
        for module, targets in MODULES.items()
        if within(module, importers)
        for target in targets
        if within(target, forbidden)
    )


def test_the_walk_sees_the_modules_and_their_imports() -> None:
    assert "laizi.rules.wuhan.ruleset" in MODULES and "laizi.engine.game" in MODULES
    assert "laizi.rules.ruleset.Ruleset" in MODULES["laizi.engine.state"]
    assert "laizi.rules.wuhan.settle" in MODULES["laizi.rules.wuhan.ruleset"]


def test_rules_import_no_engine_server_web_bots_env_or_scoring() -> None:
    outer = ("laizi.engine", "laizi.server", "laizi.web", "laizi.bots", "laizi.env", "laizi.sim")
    assert offenders(("laizi.rules",), (*outer, "laizi.scoring")) == []


def test_the_engine_imports_no_game_folder() -> None:
    assert offenders(("laizi.engine",), GAME_FOLDERS) == []


def test_scoring_imports_no_game_folder() -> None:
    assert offenders(("laizi.scoring",), GAME_FOLDERS) == []


def test_the_base_of_rules_imports_no_game_folder() -> None:
    base = [m for m in MODULES if within(m, ("laizi.rules",)) and not within(m, GAME_FOLDERS)]
    assert "laizi.rules.registry" in base and "laizi.rules" in base
    found = [f"{m} imports {t}" for m in base for t in MODULES[m] if within(t, GAME_FOLDERS)]
    assert found == []


def test_a_game_folder_imports_no_other_game() -> None:
    for folder in GAME_FOLDERS:
        others = tuple(f for f in GAME_FOLDERS if f != folder)
        assert offenders((folder,), others) == []


_IDS = "|".join(GAMES)
GAME_COMPARISON = re.compile(
    rf"""(==|!=)=?\s*["']({_IDS})["']|["']({_IDS})["']\s*(==|!=)|startswith\(\s*["']({_IDS})"""
)
GAME_TUPLE = re.compile(rf"""["']({_IDS})["']\s*,\s*["']({_IDS})["']""")
REGISTRY = PACKAGE / "rules" / "registry.py"


def game_name_checks() -> set[tuple[str, str]]:
    found = set()
    for path in sorted(PACKAGE.rglob("*")):
        if path.suffix not in (".py", ".js") or path == REGISTRY:
            continue
        for line in path.read_text("utf-8").splitlines():
            text = line.strip()
            python_tuple = path.suffix == ".py" and GAME_TUPLE.search(text)
            if GAME_COMPARISON.search(text) or python_tuple:
                found.add((path.relative_to(PACKAGE).as_posix(), text))
    return found


def test_only_the_registry_compares_a_game_name() -> None:
    assert game_name_checks() == set()


@pytest.mark.parametrize(
    "line",
    [
        'if settings.game == "baishan":',
        "x = g != 'wuhan'",
        'if (m.game === "wuhan") {',
        'name.startswith("wuhan")',
        'GAMES = ("wuhan", "baishan")',
    ],
)
def test_the_check_catches_a_game_name(line: str) -> None:
    assert GAME_COMPARISON.search(line) or GAME_TUPLE.search(line)


GAME_FLAGS = frozenset({"doubling", "wild_tiles", "special_shapes", "variant", "mode"})
"""Attribute names that stand for a game rather than ask it something: the registry entry's
former flags (``doubling`` — Wuhan's multipliers —, ``wild_tiles``, ``special_shapes``; gone
from ``Game``, so a new one by those names is caught) and the settings that name a Wuhan
variant (``Settings.variant``, ``Settings.mode`` — 开口翻 or 口口翻).  Outside
``laizi.rules`` nobody reads them: a bot that branched on ``table.doubling`` now asks the
ruleset ``loss_estimate``; the engine's 报听 lock is ``Ruleset.hand_locked``.  (``game`` is not
among them: it is the id written into records, views and ratings, and any comparison with a
game's id is caught by :func:`test_only_the_registry_compares_a_game_name`.)"""
RULES = PACKAGE / "rules"
TILES = PACKAGE / "tiles.py"


def flag_reads(tree: ast.AST) -> list[str]:
    """Every game flag ``tree`` reads or sets: ``x.mode``, ``getattr(x, "doubling")``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in GAME_FLAGS:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "hasattr", "setattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and node.args[1].value in GAME_FLAGS
        ):
            found.append(f"line {node.lineno}: {node.func.id}(…, {node.args[1].value!r})")
    return found


def boundary_literals(tree: ast.AST) -> list[str]:
    """Every integer literal 27 in ``tree`` (strings and comments are not literals)."""
    return [
        f"line {node.lineno}: {FIRST_HONOR}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and type(node.value) is int and node.value == FIRST_HONOR
    ]


def findings(check: Callable[[ast.AST], list[str]], skip: Callable[[Path], bool]) -> list[str]:
    """What ``check`` finds in every module of the package but those ``skip`` names."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if skip(path):
            continue
        for where in check(ast.parse(path.read_text("utf-8"))):
            found.append(f"{path.relative_to(PACKAGE).as_posix()} {where}")
    return found


def test_nothing_outside_the_rules_reads_a_game_flag() -> None:
    assert findings(flag_reads, lambda path: path.is_relative_to(RULES)) == []


def test_the_rules_still_have_the_flags_the_check_looks_for() -> None:
    # The check is not vacuous: inside laizi.rules the settings' flags are read (Wuhan's
    # special tiles by variant, its doubling by mode).
    inside = findings(flag_reads, lambda path: not path.is_relative_to(RULES))
    assert any(".variant" in f for f in inside) and any(".mode" in f for f in inside)


def test_only_tiles_py_writes_the_suit_honor_boundary() -> None:
    assert findings(boundary_literals, lambda path: path == TILES) == []


@pytest.mark.parametrize(
    "line",
    [
        "if table.doubling: pass",
        "special = find_game(game).special_shapes",
        "if not rules.wild_tiles and laizi is not None: pass",
        'if self.rules.mode == "koukou": pass',
        "x = settings.variant",
        'doubling = getattr(entry, "doubling", False)',
        "self.mode = mode",
    ],
)
def test_the_check_catches_a_game_flag(line: str) -> None:
    assert flag_reads(ast.parse(line)) != []


@pytest.mark.parametrize(
    "line",
    [
        "if tile < 27: pass",
        "for kind in range(27): pass",
        "honors = packed[27:34]",
        "suits = {t // 9 for t in tiles if t >= 27}",
        "stand_in = [27, 27, 27, 27]",
    ],
)
def test_the_check_catches_the_boundary_literal(line: str) -> None:
    assert boundary_literals(ast.parse(line)) != []


@pytest.mark.parametrize(
    "line",
    [
        "if ruleset.must_open_to_win(): pass",
        "factor = ruleset.claim_loss_factor(openings, kong=False)",
        "text = '27 tiles'  # 27 in a string or a comment is no tile",
        "if tile < FIRST_HONOR or 270 > x or 2.7 < y: pass",
        "if stat.st_mode or opened.modes: pass",
    ],
)
def test_the_checks_pass_a_question_and_a_named_boundary(line: str) -> None:
    tree = ast.parse(line)
    assert flag_reads(tree) == [] and boundary_literals(tree) == []


def test_no_test_module_imports_another_test_module() -> None:
    tests = Path(__file__).resolve().parent
    found = []
    for path in sorted(tests.glob("test_*.py")):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            names = []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            found += [
                f"{path.name} imports {n}"
                for n in names
                if n.rpartition(".")[2].startswith("test_")
            ]
    assert found == []


BASE_OF_SETTINGS = ("registry.py", "settings.py", "schema.py")
"""The registry and the shared settings: a game's entry and what every game has, no game's own."""


def code_words(path: Path) -> set[str]:
    """The strings (docstrings left out) and attribute names ``path``'s code uses."""
    tree = ast.parse(path.read_text("utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    words = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if id(node) not in docstrings:
                words.add(node.value)
        elif isinstance(node, ast.Attribute):
            words.add(node.attr)
    return words


def test_the_registry_and_the_shared_settings_name_no_games_setting_or_preset() -> None:
    from laizi.rules.settings import PRESETS, Settings, kinds

    shared = set(kinds(Settings))
    own = {key for g in GAMES for key in kinds(GAMES[g].settings_class())} - shared
    assert {"variant", "min_points", "golden_cap"} <= own
    for name in BASE_OF_SETTINGS:
        found = code_words(PACKAGE / "rules" / name) & (own | set(PRESETS)) - set(GAMES)
        assert found == set(), f"rules/{name} names {sorted(found)}"


def test_the_settings_check_sees_a_planted_game_setting(tmp_path: Path) -> None:
    planted = tmp_path / "registry.py"
    planted.write_text('"""golden_cap in a docstring is fine."""\nONLY = {"golden_cap"}\n')
    assert code_words(planted) == {"golden_cap"}


ROOM = PACKAGE / "server" / "room"


def room_shape_faults(folder: Path) -> list[str]:
    """What makes the Room a bag again: a class of the room's folder built on another of its
    classes (a mixin), or on more than one base; code that reaches into ``__dict__``."""
    trees = {p.name: ast.parse(p.read_text("utf-8")) for p in sorted(folder.glob("*.py"))}
    ours = {n.name for t in trees.values() for n in ast.walk(t) if isinstance(n, ast.ClassDef)}
    faults = []
    for name, tree in trees.items():
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                bases = [ast.unparse(b) for b in node.bases]
                mixed = [b for b in bases if b in ours]
                if mixed or len(bases) > 1:
                    faults.append(f"{name}: class {node.name}({', '.join(bases)})")
            elif isinstance(node, ast.Attribute) and node.attr == "__dict__":
                faults.append(f"{name} line {node.lineno}: __dict__")
    return faults


def test_the_room_is_parts_not_mixins() -> None:
    """The Room owns its parts (``Seating``, ``Streams``, ``Prompts`` …) and hands each what it
    needs; no class of ``server/room`` is built on another, none keeps state in ``__dict__``."""
    assert {"Room", "Seating", "Streams", "Prompts", "MatchFlow"} <= {
        n.name
        for p in ROOM.glob("*.py")
        for n in ast.walk(ast.parse(p.read_text("utf-8")))
        if isinstance(n, ast.ClassDef)
    }
    assert room_shape_faults(ROOM) == []
    # nor does a part of the server outside the folder (bot notes kept state in room.__dict__)
    bags = [p.name for p in (PACKAGE / "server").rglob("*.py") if "__dict__" in p.read_text()]
    assert bags == []


def test_the_room_check_catches_a_mixin_and_a_bag(tmp_path: Path) -> None:
    (tmp_path / "base.py").write_text("class Base:\n    pass\n")
    (tmp_path / "parts.py").write_text(
        "class Notes(Base):\n    pass\n\n\nclass Room(Notes, Other):\n"
        "    def keep(self):\n        self.__dict__['x'] = 1\n"
    )
    assert room_shape_faults(tmp_path) == [
        "parts.py: class Notes(Base)",
        "parts.py: class Room(Notes, Other)",
        "parts.py line 7: __dict__",
    ]

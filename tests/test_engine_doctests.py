"""The engine's docstring examples run (STYLE.md: docstrings carry runnable examples)."""

import doctest
import importlib

import pytest

MODULES = ["actions", "events", "illegal", "match", "table", "wall", "__init__"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    path = "laizi.engine" if name == "__init__" else f"laizi.engine.{name}"
    module = importlib.import_module(path)
    result = doctest.testmod(module)
    assert result.failed == 0

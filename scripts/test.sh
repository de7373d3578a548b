#!/usr/bin/env bash
# Install everything the tests need, then run them all. This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
python3 -m ruff check .
python3 -m pytest -q

#!/usr/bin/env bash
# Install everything the tests need, then run them all. This is the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m pip install --quiet --disable-pip-version-check -e '.[test]'
# The web client's browser tests drive Debian's Chromium (never Playwright's own download) and need
# a CJK font to draw the tiles.
if ! command -v chromium >/dev/null || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK"; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q chromium fonts-noto-cjk
fi
python3 -m ruff check .
python3 -m pytest -q

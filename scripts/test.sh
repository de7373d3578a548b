#!/usr/bin/env bash
# Install everything the tests need, then run them all. This is the README's test command:
# ruff (lint and format check), mypy, Biome (the web client's lint), then the whole pytest suite (slow tests included) on every
# core (pytest-xdist, -n auto).
# The database tests run against SQLite and PostgreSQL: unless LAIZI_TEST_POSTGRES_URL names a
# server already, Debian's PostgreSQL is installed when missing and a throw-away server is started
# on 127.0.0.1 for the run (scripts/postgres.sh) and stopped at the end; likewise Redis for the
# cluster tests (scripts/redis.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# The editable install compiles the hot modules (mypyc, docs/speed.md) when a C compiler is there;
# the time it takes is printed, and `laizi --version` names the build the suite runs against.
build_start=$SECONDS
python3 -m pip install --quiet --disable-pip-version-check -e '.[test,train]'
echo "build: $((SECONDS - build_start)) s for pip install -e (compiling included)" >&2
laizi --version >&2
# The web client's browser tests drive Debian's Chromium (never Playwright's own download) and need
# a CJK font to draw the tiles; the cluster's proxy test runs Debian's nginx.
if ! command -v chromium >/dev/null || ! fc-list 2>/dev/null | grep -qi "Noto Sans CJK" \
    || ! PATH=$PATH:/usr/sbin command -v nginx >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q chromium fonts-noto-cjk nginx
fi
# The bot protocol's tests run the Node example bot (examples/bots/tile_efficiency.js); the web
# client's lint (Biome, pinned in package.json / package-lock.json) installs with npm, and its
# unit tests run on Node (node --test tests/js/, from tests/test_web_js.py).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q nodejs npm
fi
npm ci --no-audit --no-fund --loglevel=error
started=()  # "script dir" of each throw-away server, stopped on exit
cleanup() {
    local entry
    for entry in "${started[@]}"; do bash scripts/${entry% *}.sh stop "${entry#* }"; done
}
trap cleanup EXIT
# throwaway VAR SCRIPT WHAT: unless VAR is set, install and start a throw-away server with
# scripts/SCRIPT.sh and export its URL as VAR; CI fails without it, a local run warns.
throwaway() {
    local var=$1 script=$2 what=$3 dir url
    if [ -n "${!var:-}" ]; then return 0; fi
    dir=$(mktemp -d "/tmp/laizi-test-$script.XXXXXX")
    if bash "scripts/$script.sh" install && url=$(bash "scripts/$script.sh" start "$dir"); then
        started+=("$script $dir")
        export "$var=$url"
    elif [ "${CI:-}" = true ]; then
        echo "$what could not be started; CI needs it" >&2
        exit 1
    else
        echo "warning: $what could not be started: its tests will be skipped" >&2
    fi
}
throwaway LAIZI_TEST_POSTGRES_URL postgres PostgreSQL
# The cluster tests (issue 16) coordinate through Redis: Debian's redis-server, a throw-away one.
throwaway LAIZI_TEST_REDIS_URL redis Redis
python3 -m ruff check .
python3 -m ruff format --check .
python3 -m mypy
npx --no-install biome ci src/laizi/web/static tests/js
python3 -m pytest -q -n auto
# The core rule tests once more on the pure-Python sources (the compiled build's twin).
LAIZI_PURE=1 python3 -m pytest -q -n auto -p no:cacheprovider tests/test_golden.py \
    tests/test_hand.py tests/test_engine_rules.py tests/test_engine_properties.py \
    tests/test_wuhan_ruleset.py tests/test_baishan_engine.py tests/test_env.py tests/test_build.py

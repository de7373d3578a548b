#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests, on 127.0.0.1 only.
#   scripts/postgres.sh install     install Debian's postgresql when no server binaries are found
#   scripts/postgres.sh start DIR   initdb in DIR (empty or missing), start on a free port, print its URL
#   scripts/postgres.sh stop DIR    stop the server of DIR and delete DIR
# The server is deploy/postgres.sh's (as root it runs as the "postgres" user), with fsync off:
# it lives as long as the test run. To keep a server's data and port across a restart, use
# deploy/postgres.sh.
set -euo pipefail
deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/deploy/postgres.sh"

case "${1:-}" in
install)
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then
        echo "installing PostgreSQL (apt-get)…" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq postgresql >&2
    fi
    ;;
start)
    LAIZI_PG_FAST=yes exec bash "$deploy" start "${2:?usage: postgres.sh start DIR}"
    ;;
stop)
    exec bash "$deploy" destroy "${2:?usage: postgres.sh stop DIR}"
    ;;
*)
    echo "usage: scripts/postgres.sh install | start DIR | stop DIR" >&2
    exit 2
    ;;
esac

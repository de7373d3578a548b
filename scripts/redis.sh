#!/usr/bin/env bash
# A throw-away Redis server for the tests (the cluster's), on 127.0.0.1 only.
#   scripts/redis.sh install     install Debian's redis-server when it is not found
#   scripts/redis.sh start DIR   start one on a free port with its files in DIR, print its URL
#   scripts/redis.sh stop DIR    stop the server of DIR and delete DIR
# Nothing is saved to disk (no RDB, no AOF): it lives as long as the test run. To keep a server's
# data and port across a restart, use deploy/redis.sh (which this one runs).
set -euo pipefail
deploy="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/deploy/redis.sh"

case "${1:-}" in
install)
    if ! command -v redis-server >/dev/null 2>&1; then
        echo "installing Redis (apt-get)…" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq redis-server >&2
    fi
    ;;
start)
    dir=${2:?usage: redis.sh start DIR}
    command -v redis-server >/dev/null 2>&1 || { echo "no redis-server (run: scripts/redis.sh install)" >&2; exit 1; }
    LAIZI_REDIS_SAVE=no exec bash "$deploy" start "$dir"
    ;;
stop)
    exec bash "$deploy" destroy "${2:?usage: redis.sh stop DIR}"
    ;;
*)
    echo "usage: scripts/redis.sh install | start DIR | stop DIR" >&2
    exit 2
    ;;
esac

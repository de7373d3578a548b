#!/usr/bin/env bash
# A throw-away Redis server for the tests (the cluster's), on 127.0.0.1 only.
#   scripts/redis.sh install     install Debian's redis-server when it is not found
#   scripts/redis.sh start DIR   start one on a free port with its files in DIR, print its URL
#   scripts/redis.sh stop DIR    stop the server of DIR and delete DIR
# Nothing is saved to disk (no RDB, no AOF): it lives as long as the test run.
set -euo pipefail

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
    mkdir -p "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" --save "" --appendonly no \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
    for _ in $(seq 100); do
        if redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1; then
            echo "redis://127.0.0.1:$port/0"
            exit 0
        fi
        sleep 0.05
    done
    cat "$dir/redis.log" >&2
    exit 1
    ;;
stop)
    dir=${2:?usage: redis.sh stop DIR}
    if [ -f "$dir/redis.pid" ]; then
        kill "$(cat "$dir/redis.pid")" 2>/dev/null || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: scripts/redis.sh install | start DIR | stop DIR" >&2
    exit 2
    ;;
esac

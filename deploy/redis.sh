#!/usr/bin/env bash
# A Redis server for a cluster on one machine (docs/server.md, "Running a cluster"), on 127.0.0.1.
#   deploy/redis.sh start DIR [PORT]  start it with its files in DIR, print its URL; PORT: the
#                                     port it had before (kept in DIR/port), else a free one
#   deploy/redis.sh stop DIR          stop it: DIR (its data, its port) is kept for the next start
#   deploy/redis.sh destroy DIR       stop it and delete DIR
# Its data is saved in DIR (append-only file) and read back at the next start; with
# LAIZI_REDIS_SAVE=no nothing is written to disk (the tests' throw-away servers).
set -euo pipefail

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

stop() {
    local dir=$1 pid
    [ -f "$dir/redis.pid" ] || return 0
    pid=$(cat "$dir/redis.pid")
    kill "$pid" 2>/dev/null || return 0
    for _ in $(seq 200); do  # wait until it has written its data and gone
        kill -0 "$pid" 2>/dev/null || return 0
        sleep 0.05
    done
}

case "${1:-}" in
start)
    dir=${2:?usage: redis.sh start DIR [PORT]}
    command -v redis-server >/dev/null 2>&1 || { echo "no redis-server (apt-get install redis-server)" >&2; exit 1; }
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    port=${3:-$(cat "$dir/port" 2>/dev/null || free_port)}
    echo "$port" >"$dir/port"
    if [ "${LAIZI_REDIS_SAVE:-yes}" = no ]; then
        save=(--save "" --appendonly no)
    else
        save=(--appendonly yes --appendfsync everysec)
    fi
    redis-server --bind 127.0.0.1 --port "$port" --dir "$dir" "${save[@]}" \
        --daemonize yes --pidfile "$dir/redis.pid" --logfile "$dir/redis.log" >&2
    for _ in $(seq 200); do
        if redis-cli -h 127.0.0.1 -p "$port" ping 2>/dev/null | grep -q PONG; then
            echo "redis://127.0.0.1:$port/0"
            exit 0
        fi
        sleep 0.05
    done
    cat "$dir/redis.log" >&2
    exit 1
    ;;
stop)
    stop "${2:?usage: redis.sh stop DIR}"
    ;;
destroy)
    dir=${2:?usage: redis.sh destroy DIR}
    stop "$dir"
    rm -rf "$dir"
    ;;
*)
    echo "usage: deploy/redis.sh start DIR [PORT] | stop DIR | destroy DIR" >&2
    exit 2
    ;;
esac

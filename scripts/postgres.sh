#!/usr/bin/env bash
# A throw-away PostgreSQL server for the tests, on 127.0.0.1 only.
#   scripts/postgres.sh install     install Debian's postgresql when no server binaries are found
#   scripts/postgres.sh start DIR   initdb in DIR (empty or missing), start on a free port, print its URL
#   scripts/postgres.sh stop DIR    stop the server of DIR and delete DIR
# initdb refuses to run as root: as root the server runs as the "postgres" user (created by the
# Debian package; else a system user "laizi-pg" is made). Trust authentication is fine here: the
# server listens on 127.0.0.1 and a socket inside DIR only, and lives as long as the test run.
set -euo pipefail

bindir() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
    if [ -n "$dir" ] && [ -x "$dir/initdb" ]; then
        echo "$dir"
    elif command -v initdb >/dev/null 2>&1; then
        dirname "$(command -v initdb)"
    else
        return 1
    fi
}

run_as() {  # run_as USER CMD... (USER empty: as oneself)
    local user=$1
    shift
    if [ -z "$user" ]; then
        "$@"
    else
        local quoted
        printf -v quoted '%q ' "$@"
        su "$user" -s /bin/sh -c "$quoted"
    fi
}

owner() {
    if [ "$(id -u)" != 0 ]; then
        echo ""
    elif id postgres >/dev/null 2>&1; then
        echo postgres
    else
        id laizi-pg >/dev/null 2>&1 || useradd --system --no-create-home --shell /bin/sh laizi-pg
        echo laizi-pg
    fi
}

case "${1:-}" in
install)
    if ! bindir >/dev/null; then
        echo "installing PostgreSQL (apt-get)…" >&2
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq >&2
        apt-get install -y -qq postgresql >&2
    fi
    ;;
start)
    dir=${2:?usage: postgres.sh start DIR}
    bin=$(bindir) || { echo "no PostgreSQL server binaries (run: scripts/postgres.sh install)" >&2; exit 1; }
    user=$(owner)
    mkdir -p "$dir"
    if [ -n "$user" ]; then chown "$user" "$dir"; fi
    chmod 700 "$dir"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    run_as "$user" "$bin/initdb" -D "$dir/data" -U laizi --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    run_as "$user" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200" start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://laizi@127.0.0.1:$port/postgres"
    ;;
stop)
    dir=${2:?usage: postgres.sh stop DIR}
    if [ -f "$dir/data/postmaster.pid" ]; then
        bin=$(bindir)
        run_as "$(owner)" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: scripts/postgres.sh install | start DIR | stop DIR" >&2
    exit 2
    ;;
esac

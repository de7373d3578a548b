#!/usr/bin/env bash
# A PostgreSQL server for a cluster on one machine (docs/server.md, "Running a cluster"), on
# 127.0.0.1 and a socket inside DIR only.
#   deploy/postgres.sh start DIR [PORT]  start it with its data in DIR/data (made by initdb the
#                                        first time), print its URL; PORT: the port it had before
#                                        (kept in DIR/port), else a free one
#   deploy/postgres.sh stop DIR          stop it: DIR (its data, its port) is kept for the next start
#   deploy/postgres.sh destroy DIR       stop it and delete DIR
# initdb refuses to run as root: as root the server runs as the "postgres" user (created by the
# Debian package; else a system user "laizi-pg" is made). The superuser is "laizi", with trust
# authentication for 127.0.0.1 and the socket: for one machine you control (docs/server.md shows
# how to make a role with a password on a shared one). LAIZI_PG_FAST=yes turns fsync off (the
# tests' throw-away servers: a crash of the machine may then corrupt the data).
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
start)
    dir=${2:?usage: postgres.sh start DIR [PORT]}
    bin=$(bindir) || { echo "no PostgreSQL server binaries (apt-get install postgresql)" >&2; exit 1; }
    user=$(owner)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ -n "$user" ]; then chown "$user" "$dir"; fi
    chmod 700 "$dir"
    port=${3:-$(cat "$dir/port" 2>/dev/null || python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
    echo "$port" >"$dir/port"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
        run_as "$user" "$bin/initdb" -D "$dir/data" -U laizi --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
            || { cat "$dir/initdb.log" >&2; exit 1; }
    fi
    fast=""
    if [ "${LAIZI_PG_FAST:-no}" = yes ]; then fast="-c fsync=off"; fi
    run_as "$user" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $fast -c max_connections=200" start >&2 \
        || { cat "$dir/server.log" >&2; exit 1; }
    echo "postgresql://laizi@127.0.0.1:$port/postgres"
    ;;
stop)
    dir=${2:?usage: postgres.sh stop DIR}
    if [ -f "$dir/data/postmaster.pid" ]; then
        bin=$(bindir)
        run_as "$(owner)" "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2 || true
    fi
    ;;
destroy)
    dir=${2:?usage: postgres.sh destroy DIR}
    bash "$0" stop "$dir"
    rm -rf "$dir"
    ;;
*)
    echo "usage: deploy/postgres.sh start DIR [PORT] | stop DIR | destroy DIR" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# cluster.sh - sourced by test.sh and bench.sh: a throwaway PostgreSQL
# cluster run by the unprivileged user "postgres", with nvm_am preloaded
# and its pool on /dev/shm (PMEM_IS_PMEM_FORCE=1 emulates pmem there).

PGBIN=/usr/lib/postgresql/15/bin
PGXS_DIR=$(dirname "$(dirname "$($PGBIN/pg_config --pgxs)")")
export PATH=$PGBIN:$PATH
export PMEM_IS_PMEM_FORCE=1

# as_pg CMD... - run a shell command as postgres with our environment
as_pg() {
    if [ "$(id -un)" = postgres ]; then
        bash -c "$*"
    elif [ "$(id -u)" -eq 0 ]; then
        local envs="export PATH='$PATH' PMEM_IS_PMEM_FORCE=1"
        [ -n "${PGHOST:-}" ] && envs="$envs PGHOST='$PGHOST'"
        [ -n "${PGPORT:-}" ] && envs="$envs PGPORT='$PGPORT'"
        [ -n "${PGUSER:-}" ] && envs="$envs PGUSER='$PGUSER'"
        su postgres -s /bin/bash -c "$envs; $*"
    else
        bash -c "$*"
    fi
}

# make_workdir DIR - a copy of the source tree that postgres can write to
make_workdir() {
    local dir=$1
    rm -rf "$dir"
    mkdir -p "$dir"
    rsync -a --exclude .git --exclude '*.o' --exclude '*.so' ./ "$dir/"
    if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$dir"; fi
}

# cluster_start DIR PORT POOLFILE [EXTRA_CONF] - initdb and start
cluster_start() {
    local dir=$1 port=$2 pool=$3 extra=${4:-}
    rm -f "$pool"
    as_pg "initdb -D '$dir/data' -A trust -U postgres >'$dir/initdb.log' 2>&1" ||
        { cat "$dir/initdb.log"; return 1; }
    as_pg "cat >> '$dir/data/postgresql.conf'" <<CONF
shared_preload_libraries = 'nvm_am'
nvm_am.pool_path = '$pool'
nvm_am.pool_size = '512MB'
port = $port
listen_addresses = ''
unix_socket_directories = '$dir'
max_connections = 60
max_prepared_transactions = 10
fsync = on
synchronous_commit = on
$extra
CONF
    as_pg "pg_ctl -D '$dir/data' -l '$dir/server.log' -w -t 60 start >/dev/null" ||
        { cat "$dir/server.log"; return 1; }
    export PGHOST=$dir PGPORT=$port PGUSER=postgres
}

# cluster_stop DIR POOLFILE
cluster_stop() {
    local dir=$1 pool=$2
    as_pg "pg_ctl -D '$dir/data' -m fast -w stop >/dev/null 2>&1" || true
    rm -f "$pool"
}

# cluster_restart DIR - fast restart (empties shared_buffers and the merge cache)
cluster_restart() {
    local dir=$1
    as_pg "pg_ctl -D '$dir/data' -l '$dir/server.log' -m fast -w -t 60 restart >/dev/null" ||
        { tail -20 "$dir/server.log"; return 1; }
}

#!/usr/bin/env bash
# throwaway-server.sh DIR PORT WATCHED_PID: starts a throwaway MariaDB server for the tests on 127.0.0.1:PORT, its
# data in DIR (made here, removed at the end), and returns at once. The server is stopped, and DIR removed, once the
# process WATCHED_PID (the test run) has ended. Prints nothing on success; on a failure, the log and exit 1.
set -eu
dir=$1
port=$2
watched=$3
user=$(id -un)
mkdir -p "$dir"
if ! mariadb-install-db --no-defaults --auth-root-authentication-method=normal --datadir="$dir/data" \
    --user="$user" >"$dir/install.log" 2>&1; then
    cat "$dir/install.log"
    exit 1
fi
# The server and its watcher must not hold the descriptors of the process that started this script (its pipes):
# each closes every descriptor past stderr, then runs in a session of its own.
close_all='i=3; while [ $i -lt 256 ]; do eval "exec $i>&-" 2>/dev/null || true; i=$((i + 1)); done'
bash -c "$close_all; exec setsid mariadbd --no-defaults --datadir='$dir/data' --port=$port \
    --bind-address=127.0.0.1 --socket='$dir/sock' --pid-file='$dir/pid' --user='$user' \
    --max-connections=600 --innodb-buffer-pool-size=64M \
    --innodb-flush-log-at-trx-commit=0 --skip-log-bin" </dev/null >"$dir/server.log" 2>&1 &
server=$!
bash -c "$close_all; while kill -0 $watched 2>/dev/null; do sleep 1; done; kill $server; \
    n=0; while kill -0 $server 2>/dev/null && [ \$n -lt 60 ]; do sleep 1; n=\$((n + 1)); done; \
    kill -9 $server 2>/dev/null; rm -rf '$dir'" </dev/null >/dev/null 2>&1 &

#!/usr/bin/env bash
# pg-sandbox.sh — a throwaway PostgreSQL server for tests and experiments.
#
#   scripts/pg-sandbox.sh start DIR [NAME=VALUE ...]
#       Creates DIR (if needed), initialises a cluster in DIR/data (trust
#       authentication, UTF8, C.UTF-8), listens on 127.0.0.1 on a free port
#       chosen here and on a Unix socket in DIR, creates database "candor",
#       and prints the connection URL on stdout (also written to DIR/url):
#           postgres://postgres@127.0.0.1:PORT/candor?sslmode=disable
#       Extra NAME=VALUE arguments are appended to postgresql.conf
#       (e.g. synchronous_commit=off). Everything else goes to stderr.
#   scripts/pg-sandbox.sh stop DIR
#       Stops the server (pg_ctl stop -m fast) and removes DIR. It refuses to
#       remove a directory this script did not create.
#   scripts/pg-sandbox.sh url DIR
#       Prints the URL of a running sandbox.
#   scripts/pg-sandbox.sh restart DIR [SECONDS]
#       Stops the server (fast: sessions are cut), waits SECONDS (default 0)
#       and starts it again on the same port: a server restart mid-run.
#
# Works as root (initdb refuses root, so the cluster belongs to the postgres
# user and DIR is handed to it) or as an ordinary user. When no PostgreSQL is
# installed and we are root, installs the Debian package (which never starts
# a service here). PG_SANDBOX_VERSION picks a major version (default: 15 when
# present, else the newest installed).
#
# Usage in a test run:
#   U=$(scripts/pg-sandbox.sh start /tmp/pgtest)
#   CANDOR_TEST_POSTGRES_URL=$U go test ./...
#   scripts/pg-sandbox.sh stop /tmp/pgtest
set -euo pipefail

MARKER=.candor-pg-sandbox

SANDBOX=pg-sandbox
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"

# shellcheck source=pg-lib.sh
. "$(dirname "$0")/pg-lib.sh"

start() {
	local dir=$1; shift
	local bin
	bin=$(need_bin)

	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	[ -e "$dir/data" ] && die "$dir/data already exists: stop that sandbox first (pg-sandbox.sh stop $dir) or use another directory"
	: >"$dir/$MARKER"

	if is_root; then
		id postgres >/dev/null 2>&1 || die "user postgres does not exist (is the postgresql package installed?)"
		# mktemp -d makes 0700 directories: the postgres user must enter DIR,
		# own it (the socket lives there) and reach it through every parent.
		chown postgres: "$dir" "$dir/$MARKER"
		chmod 0755 "$dir"
		as_pg test -x "$dir" -a -w "$dir" ||
			die "user postgres cannot reach $dir (a parent directory is private, e.g. /root): use a directory under /tmp"
	fi

	log "initdb in $dir/data ($bin)"
	as_pg "$bin/initdb" -D "$dir/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 ||
		{ cat "$dir/initdb.log" >&2; die "initdb failed (log: $dir/initdb.log)"; }

	local logdir=""
	{
		echo "# added by pg-sandbox.sh"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$dir'"
		for kv in "$@"; do
			case $kv in
			log_directory=/*) logdir=${kv#*=} ;; # the logging collector's: a start's errors go there
			log_directory=*) logdir=$dir/data/${kv#*=} ;; # relative to the data directory, as PostgreSQL reads it
			esac
			case $kv in
			*=*) echo "${kv%%=*} = '${kv#*=}'" ;;
			*) die "extra setting $kv is not NAME=VALUE" ;;
			esac
		done
	} >>"$dir/data/postgresql.conf"

	# The port is free when picked but another process may take it before the
	# server binds it: retry with a new port when the start fails.
	local port attempt ok=""
	for attempt in 1 2 3 4 5; do
		port=$(pick_port)
		if as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -o "-p $port" -w -t 60 start >&2; then
			ok=1
			break
		fi
		log "start on port $port failed (attempt $attempt)"
		grep -qs "could not bind\|Address already in use\|could not create lock file" "$dir/postgres.log" ${logdir:+"$logdir"/*} ||
			{ tail -n 20 "$dir/postgres.log" >&2 || true; die "PostgreSQL did not start (log: $dir/postgres.log)"; }
	done
	[ -n "$ok" ] || { tail -n 20 "$dir/postgres.log" >&2 || true; die "PostgreSQL did not start after 5 ports (log: $dir/postgres.log)"; }

	echo "$port" >"$dir/port"
	as_pg "$bin/psql" -X -q -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -c "CREATE DATABASE candor" >&2 ||
		die "could not create database candor (log: $dir/postgres.log)"

	local url="postgres://postgres@127.0.0.1:$port/candor?sslmode=disable"
	echo "$url" >"$dir/url"
	log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') running on 127.0.0.1:$port, data in $dir/data; stop with: $0 stop $dir"
	echo "$url"
}

stop() {
	local dir=$1
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by pg-sandbox.sh (no $MARKER): refusing to remove it"
	if [ -f "$dir/data/postmaster.pid" ]; then
		local bin
		bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
		as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2 ||
			as_pg "$bin/pg_ctl" -D "$dir/data" -m immediate -w -t 30 stop >&2 ||
			log "pg_ctl stop failed (server already gone?); removing $dir anyway"
	fi
	rm -rf -- "$dir"
	log "removed $dir"
}

restart() {
	local dir=$1 pause=${2:-0}
	[ -e "$dir/$MARKER" ] && [ -f "$dir/port" ] || die "no sandbox in $dir"
	local bin port
	bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
	port=$(cat "$dir/port")
	as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 60 stop >&2
	sleep "$pause"
	as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/postgres.log" -o "-p $port" -w -t 60 start >&2 ||
		die "restart on port $port failed (log: $dir/postgres.log)"
	log "restarted on 127.0.0.1:$port after ${pause}s down"
}

[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
case $cmd in
start) start "$dir" "$@" ;;
stop) stop "$dir" ;;
url) [ -f "$dir/url" ] || die "no sandbox in $dir"; cat "$dir/url" ;;
restart) restart "$dir" "$@" ;;
*) usage ;;
esac

#!/usr/bin/env bash
# mariadb-sandbox.sh — a throwaway MariaDB server for tests and experiments.
#
#   scripts/mariadb-sandbox.sh start DIR [NAME=VALUE ...]
#       Creates DIR (if needed), initialises a data directory in DIR/data
#       (root@localhost without a password, no test database), starts mariadbd
#       in the background listening on 127.0.0.1 on a free port chosen here and
#       on the Unix socket DIR/sock, creates database "candor" and user
#       candor@127.0.0.1 (password "candor", all privileges on candor.* and on
#       every database named candor..., which tests create for themselves), and
#       prints the connection URL on stdout (also written to DIR/url):
#           mysql://candor:candor@127.0.0.1:PORT/candor
#       Extra NAME=VALUE arguments become mariadbd options --NAME=VALUE
#       (e.g. innodb_flush_log_at_trx_commit=2). Everything else goes to
#       stderr; the server log is DIR/err.log.
#   scripts/mariadb-sandbox.sh stop DIR
#       Shuts the server down (mariadb-admin shutdown, else SIGTERM to the PID
#       in DIR/pid), waits for it to exit and removes DIR. It refuses to remove
#       a directory this script did not create.
#   scripts/mariadb-sandbox.sh url DIR
#       Prints the URL of a running sandbox.
#
# Works as root (the server runs as the mysql user and DIR is handed to it) or
# as an ordinary user (the server runs as that user). When MariaDB is not
# installed (no /usr/sbin/mariadbd) and we are root, installs the Debian
# package mariadb-server, which never starts a service here. The server runs
# with --no-defaults: no /etc/mysql configuration is read, so every setting is
# MariaDB's compiled-in default unless given as NAME=VALUE.
#
# Usage in a test run:
#   U=$(scripts/mariadb-sandbox.sh start /tmp/mariadbtest)
#   CANDOR_TEST_MYSQL_URL=$U go test ./...
#   scripts/mariadb-sandbox.sh stop /tmp/mariadbtest
set -euo pipefail

MARKER=.candor-mariadb-sandbox
MARIADBD=/usr/sbin/mariadbd

SANDBOX=mariadb-sandbox
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"

# client_bin finds the command-line client or admin tool: MariaDB ≥ 10.5
# names them mariadb and mariadb-admin, older packages mysql and mysqladmin.
client_bin() {
	local c
	for c in "$@"; do
		command -v "$c" 2>/dev/null && return 0
	done
	return 1
}

install_mariadb() {
	is_root || die "MariaDB is not installed (no $MARIADBD) and we are not root: install the mariadb-server package"
	apt_install mariadb-server || die "could not install mariadb-server: see $APT_LOG"
}

alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

# server_pid prints the PID of the sandbox's server: the one mariadbd wrote,
# else the one this script recorded when it started it.
server_pid() {
	local dir=$1 f
	for f in "$dir/pid" "$dir/mariadbd.pid"; do
		if [ -s "$f" ]; then
			cat "$f"
			return 0
		fi
	done
	return 1
}

# sql runs statements as root through the Unix socket of the sandbox in $1.
sql() {
	local dir=$1; shift
	"$CLIENT" --no-defaults --protocol=socket --socket="$dir/sock" -uroot --batch --skip-column-names -e "$*"
}

# ping_server succeeds when the server answers on the socket in $1.
ping_server() {
	"$ADMIN" --no-defaults --protocol=socket --socket="$1/sock" -uroot --connect-timeout=2 ping >/dev/null 2>&1
}

start() {
	local dir=$1; shift
	[ -x "$MARIADBD" ] || install_mariadb
	[ -x "$MARIADBD" ] || die "MariaDB installed but $MARIADBD not found"
	local installdb
	installdb=$(client_bin mariadb-install-db mysql_install_db) || die "mariadb-install-db not found"
	CLIENT=$(client_bin mariadb mysql) || die "the mariadb client is not installed (package mariadb-client)"
	ADMIN=$(client_bin mariadb-admin mysqladmin) || die "mariadb-admin is not installed (package mariadb-client)"

	local extra=() kv
	for kv in "$@"; do
		case $kv in
		*=*) extra+=("--$kv") ;;
		*) die "extra setting $kv is not NAME=VALUE" ;;
		esac
	done

	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	[ -e "$dir/data" ] && die "$dir/data already exists: stop that sandbox first (mariadb-sandbox.sh stop $dir) or use another directory"
	# The socket path must fit in sun_path (108 bytes).
	[ ${#dir} -le 100 ] || die "$dir is too long for a Unix socket path: use a shorter directory, e.g. under /tmp"
	: >"$dir/$MARKER"

	local user_opt=()
	if is_root; then
		id mysql >/dev/null 2>&1 || die "user mysql does not exist (is the mariadb-server package installed?)"
		# mktemp -d makes 0700 directories: the mysql user must own DIR (the
		# socket, PID file and log live there) and reach it through every
		# parent.
		chown mysql: "$dir"
		chmod 0755 "$dir"
		runuser -u mysql -- test -x "$dir" -a -w "$dir" ||
			die "user mysql cannot reach $dir (a parent directory is private, e.g. /root): use a directory under /tmp"
		user_opt=(--user=mysql)
	fi

	log "mariadb-install-db in $dir/data"
	"$installdb" --no-defaults --datadir="$dir/data" "${user_opt[@]}" \
		--auth-root-authentication-method=normal --skip-test-db >"$dir/install.log" 2>&1 ||
		{ cat "$dir/install.log" >&2; die "mariadb-install-db failed (log: $dir/install.log)"; }

	# The port is free when picked but another process may take it before the
	# server binds it: retry with a new port when the start fails.
	local port attempt pid ok="" i
	for attempt in 1 2 3 4 5; do
		port=$(pick_port)
		: >"$dir/err.log"
		if is_root; then chown mysql: "$dir/err.log"; fi
		# setsid + nohup: the server outlives this script and its terminal.
		setsid nohup "$MARIADBD" --no-defaults --datadir="$dir/data" "${user_opt[@]}" \
			--bind-address=127.0.0.1 --port="$port" --socket="$dir/sock" \
			--pid-file="$dir/pid" --log-error="$dir/err.log" "${extra[@]}" \
			</dev/null >"$dir/mariadbd.out" 2>&1 &
		pid=$!
		echo "$pid" >"$dir/mariadbd.pid"
		for i in $(seq 1 300); do # up to 60 s
			if ping_server "$dir"; then
				ok=1
				break
			fi
			alive "$pid" || break
			sleep 0.2
		done
		[ -n "$ok" ] && break
		if alive "$pid"; then
			kill -TERM "$pid" 2>/dev/null || true
			tail -n 20 "$dir/err.log" >&2 || true
			die "MariaDB did not answer within 60 s (log: $dir/err.log)"
		fi
		log "start on port $port failed (attempt $attempt)"
		grep -q "Address already in use\|Can't start server: Bind" "$dir/err.log" 2>/dev/null ||
			{ tail -n 20 "$dir/err.log" >&2 || true; die "MariaDB did not start (log: $dir/err.log)"; }
	done
	[ -n "$ok" ] || { tail -n 20 "$dir/err.log" >&2 || true; die "MariaDB did not start after 5 ports (log: $dir/err.log)"; }
	echo "$port" >"$dir/port"

	sql "$dir" "CREATE DATABASE candor;
		CREATE USER 'candor'@'127.0.0.1' IDENTIFIED BY 'candor';
		GRANT ALL PRIVILEGES ON \`candor%\`.* TO 'candor'@'127.0.0.1';" >&2 ||
		die "could not create database and user candor (log: $dir/err.log)"

	local url="mysql://candor:candor@127.0.0.1:$port/candor"
	echo "$url" >"$dir/url"
	log "MariaDB $(sql "$dir" "SELECT VERSION()") running on 127.0.0.1:$port (pid $(server_pid "$dir")), data in $dir/data; stop with: $0 stop $dir"
	echo "$url"
}

stop() {
	local dir=$1
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by mariadb-sandbox.sh (no $MARKER): refusing to remove it"
	local pid i
	pid=$(server_pid "$dir" || true)
	if alive "$pid"; then
		ADMIN=$(client_bin mariadb-admin mysqladmin || true)
		if [ -z "$ADMIN" ] || ! "$ADMIN" --no-defaults --protocol=socket --socket="$dir/sock" -uroot \
			--connect-timeout=5 shutdown >/dev/null 2>&1; then
			kill -TERM "$pid" 2>/dev/null || true
		fi
		for i in $(seq 1 300); do # up to 60 s
			alive "$pid" || break
			sleep 0.2
		done
		if alive "$pid"; then
			log "server (pid $pid) still running after 60 s: killing it"
			kill -KILL "$pid" 2>/dev/null || true
			sleep 0.5
		fi
	fi
	rm -rf -- "$dir"
	log "removed $dir"
}

[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
case $cmd in
start) start "$dir" "$@" ;;
stop) stop "$dir" ;;
url) [ -f "$dir/url" ] || die "no sandbox in $dir"; cat "$dir/url" ;;
*) usage ;;
esac

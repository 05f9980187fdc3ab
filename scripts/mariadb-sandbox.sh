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
#   scripts/mariadb-sandbox.sh kill DIR
#       SIGKILLs the server (mariadbd is one process): it dies as if its
#       machine had, without a shutdown; the next start recovers InnoDB.
#   scripts/mariadb-sandbox.sh restart DIR [SECONDS]
#       Shuts the server down if it runs (sessions are cut), waits SECONDS
#       (default 0) and starts it again on the same port with the same
#       options: a server restart mid-run, or the recovery after a kill.
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

# launch starts mariadbd for the sandbox in $1 on port $2 with the options
# that follow, in the background, and waits until it answers on its socket:
# it succeeds then, fails when the server exited (a port taken), and dies
# when it does not answer within 60 s.
launch() {
	local dir=$1 port=$2 pid i
	shift 2
	: >"$dir/err.log"
	if is_root; then chown mysql: "$dir/err.log"; fi
	# setsid + nohup: the server outlives this script and its terminal.
	setsid nohup "$MARIADBD" --no-defaults --datadir="$dir/data" \
		--bind-address=127.0.0.1 --port="$port" --socket="$dir/sock" \
		--pid-file="$dir/pid" --log-error="$dir/err.log" "$@" \
		</dev/null >"$dir/mariadbd.out" 2>&1 &
	pid=$!
	echo "$pid" >"$dir/mariadbd.pid"
	for i in $(seq 1 300); do # up to 60 s
		ping_server "$dir" && return 0
		alive "$pid" || return 1
		sleep 0.2
	done
	kill -TERM "$pid" 2>/dev/null || true
	tail -n 20 "$dir/err.log" >&2 || true
	die "MariaDB did not answer within 60 s (log: $dir/err.log)"
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
	local port attempt ok=""
	for kv in "${extra[@]}"; do echo "$kv"; done >"$dir/options" # for restart
	for attempt in 1 2 3 4 5; do
		port=$(pick_port)
		if launch "$dir" "$port" "${user_opt[@]}" "${extra[@]}"; then
			ok=1
			break
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

# shutdown_server shuts the server of the sandbox in $1 down, if it runs
# (mariadb-admin shutdown, else SIGTERM; SIGKILL after 60 s), and waits for
# it to exit.
shutdown_server() {
	local dir=$1 pid i
	pid=$(server_pid "$dir" || true)
	alive "$pid" || return 0
	ADMIN=$(client_bin mariadb-admin mysqladmin || true)
	if [ -z "$ADMIN" ] || ! "$ADMIN" --no-defaults --protocol=socket --socket="$dir/sock" -uroot \
		--connect-timeout=5 shutdown >/dev/null 2>&1; then
		kill -TERM "$pid" 2>/dev/null || true
	fi
	for i in $(seq 1 300); do # up to 60 s
		alive "$pid" || return 0
		sleep 0.2
	done
	log "server (pid $pid) still running after 60 s: killing it"
	kill -KILL "$pid" 2>/dev/null || true
	sleep 0.5
}

stop() {
	local dir=$1
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by mariadb-sandbox.sh (no $MARKER): refusing to remove it"
	shutdown_server "$dir"
	rm -rf -- "$dir"
	log "removed $dir"
}

kill_server() {
	local dir=$1 pid i
	[ -e "$dir/$MARKER" ] && [ -f "$dir/port" ] || die "no sandbox in $dir"
	pid=$(server_pid "$dir" || true)
	alive "$pid" || die "the server of $dir is not running"
	kill -KILL "$pid"
	for i in $(seq 1 50); do # up to 10 s
		alive "$pid" || break
		sleep 0.2
	done
	log "server (pid $pid) killed"
}

restart() {
	local dir=$1 pause=${2:-0} port opts=() user_opt=() kv
	[ -e "$dir/$MARKER" ] && [ -f "$dir/port" ] || die "no sandbox in $dir"
	port=$(cat "$dir/port")
	ADMIN=$(client_bin mariadb-admin mysqladmin) || die "mariadb-admin is not installed (package mariadb-client)"
	shutdown_server "$dir"
	sleep "$pause"
	if is_root; then user_opt=(--user=mysql); fi
	while IFS= read -r kv; do opts+=("$kv"); done <"$dir/options"
	launch "$dir" "$port" "${user_opt[@]}" "${opts[@]}" ||
		{ tail -n 20 "$dir/err.log" >&2 || true; die "restart on port $port failed (log: $dir/err.log)"; }
	log "restarted on 127.0.0.1:$port after ${pause}s down"
}

[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
case $cmd in
start) start "$dir" "$@" ;;
stop) stop "$dir" ;;
url) [ -f "$dir/url" ] || die "no sandbox in $dir"; cat "$dir/url" ;;
kill) kill_server "$dir" ;;
restart) restart "$dir" "$@" ;;
*) usage ;;
esac

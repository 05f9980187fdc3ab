#!/usr/bin/env bash
# tidb-sandbox.sh — a throwaway TiDB server (the real TiDB SQL layer on its
# embedded "unistore" storage engine) for tests and experiments.
#
#   scripts/tidb-sandbox.sh build
#       Builds tidb-server once from the Go module proxy in a scratch module
#       under ${XDG_CACHE_HOME:-$HOME/.cache}/candor-tidb (about 10 minutes,
#       ~300 MB binary, ~3 GB of Go caches). Does nothing when the binary is
#       already there (delete it to rebuild).
#   scripts/tidb-sandbox.sh start DIR
#       Creates DIR (if needed), starts tidb-server with its data in DIR/data
#       and its log in DIR/tidb.log, listening on free ports of 127.0.0.1 (SQL
#       and status), waits until it answers queries, creates database "candor"
#       and prints the connection URL on stdout (also written to DIR/url):
#           mysql://root@127.0.0.1:PORT/candor
#       Everything else goes to stderr. Fails when the binary has not been
#       built, unless CANDOR_TIDB_BUILD=1 (then it builds first).
#   scripts/tidb-sandbox.sh stop DIR
#       Stops the server (SIGTERM, then SIGKILL after 30 s) and removes DIR.
#       It refuses to remove a directory this script did not create.
#   scripts/tidb-sandbox.sh url DIR
#       Prints the URL of a running sandbox.
#   scripts/tidb-sandbox.sh restart DIR [SECONDS]
#       Stops the server, waits SECONDS (default 0) and starts it again on the
#       same ports with the same data: a server restart mid-run.
#
# Environment: CANDOR_TIDB_BIN overrides the binary's path (default
# ${XDG_CACHE_HOME:-$HOME/.cache}/candor-tidb/tidb-server); CANDOR_TIDB_VERSION
# overrides the github.com/pingcap/tidb module version built (a pseudo-version
# vX.Y.Z-pre.0.yyyymmddhhmmss-commit: its nested parser module is required at
# v0.0.0-yyyymmddhhmmss-commit); CANDOR_TIDB_START_TIMEOUT is how long start
# waits for the server (120 s).
#
# Usage in a test run:
#   scripts/tidb-sandbox.sh build            # once per machine
#   U=$(scripts/tidb-sandbox.sh start /tmp/tidbtest)
#   CANDOR_TEST_TIDB_URL=$U go test ./internal/cli -run TiDB
#   scripts/tidb-sandbox.sh stop /tmp/tidbtest
set -euo pipefail

MARKER=.candor-tidb-sandbox
TIDB_MODULE=github.com/pingcap/tidb
TIDB_VERSION=${CANDOR_TIDB_VERSION:-v1.1.0-beta.0.20260424041109-25fa27a6a136}
CACHE_DIR=${XDG_CACHE_HOME:-$HOME/.cache}/candor-tidb
BIN=${CANDOR_TIDB_BIN:-$CACHE_DIR/tidb-server}

SANDBOX=tidb-sandbox
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"

# ---------------------------------------------------------------- build

# replace_directives prints, one per line as "OLD => NEW VERSION", the replace
# directives of TiDB's own go.mod (file $1). Replace directives of a dependency
# are ignored by the go command, so the scratch module must repeat them. The
# one local replacement (./pkg/parser, a nested module) becomes the parser
# module at the pseudo-version of the same commit.
replace_directives() {
	local gomod=$1 stamp
	stamp=${TIDB_VERSION##*.} # yyyymmddhhmmss-commit of a pseudo-version
	awk '
		/^replace[ \t]*\(/ { inblock = 1; next }
		inblock && /^\)/ { inblock = 0; next }
		/^replace[ \t]/ { sub(/^replace[ \t]+/, ""); print; next }
		inblock { print }
	' "$gomod" | sed 's#//.*##' | grep '=>' | while read -r line; do
		local old new
		old=$(echo "${line%%=>*}" | xargs)
		new=$(echo "${line#*=>}" | xargs)
		case $new in
		./*)
			local sub=${new#./}
			[ "$old" = "$TIDB_MODULE/$sub" ] || die "unexpected local replacement in TiDB's go.mod: $line"
			echo "$old => $old v0.0.0-$stamp"
			;;
		*) echo "$old => $new" ;;
		esac
	done
}

build() {
	if [ -x "$BIN" ]; then
		log "$BIN already exists ($(du -h "$BIN" | cut -f1)); delete it to rebuild"
		return 0
	fi
	command -v go >/dev/null 2>&1 || die "the go command is not installed"
	local src=$CACHE_DIR/src
	mkdir -p "$src"
	# One build at a time: a second caller waits for the first and then finds
	# the binary.
	exec 9>"$CACHE_DIR/build.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -n 9 || { log "another build is running; waiting for it"; flock 9; }
		[ -x "$BIN" ] && { log "built by the other process: $BIN"; return 0; }
	fi
	local t0=$SECONDS
	log "building tidb-server $TIDB_VERSION in $src (about 10 minutes, ~3 GB of Go caches)"
	cd "$src"
	export GOFLAGS="${GOFLAGS:-} -mod=mod"
	export GOTOOLCHAIN=${GOTOOLCHAIN:-local}
	cat >go.mod <<-EOF
	module candor.local/tidb-build

	go 1.25

	require $TIDB_MODULE $TIDB_VERSION
	EOF
	cat >tools.go <<-'EOF'
	//go:build tools

	// Package tools only exists to make the go command fetch tidb-server.
	package tools

	import _ "github.com/pingcap/tidb/cmd/tidb-server"
	EOF

	# The proxy refuses the .info of this version (403), so "go mod download
	# -json" fails, but the go.mod itself is fetched into the download cache:
	# read the replace directives from there.
	local modcache gomod
	modcache=$(go env GOMODCACHE)
	gomod=$modcache/cache/download/$TIDB_MODULE/@v/$TIDB_VERSION.mod
	if [ ! -f "$gomod" ]; then
		go mod download "$TIDB_MODULE" >&2 2>/dev/null || true
	fi
	if [ ! -f "$gomod" ] && [ -d "$modcache/$TIDB_MODULE@$TIDB_VERSION" ]; then
		gomod=$modcache/$TIDB_MODULE@$TIDB_VERSION/go.mod
	fi
	[ -f "$gomod" ] || die "could not fetch TiDB's go.mod ($TIDB_MODULE@$TIDB_VERSION) from the module proxy"

	local reps
	reps=$(replace_directives "$gomod")
	[ -n "$reps" ] || die "no replace directives found in $gomod"
	{
		echo
		echo "// Repeated from TiDB's own go.mod."
		echo "replace ("
		echo "$reps" | sed 's/^/	/'
		echo ")"
	} >>go.mod
	log "go.mod of the scratch module:"
	sed 's/^/    /' go.mod >&2

	log "go mod tidy -e"
	go mod tidy -e >&2 || die "go mod tidy -e failed in $src"
	# TiDB's Makefile stamps the version from git, which a module download
	# lacks: without these, VERSION() says "v8.4.0-this-is-a-placeholder"
	# whatever the commit. The release version becomes the Go pseudo-version
	# of the commit (v0.0.0-yyyymmddhhmmss-commit), the same for its parser.
	local stamp=${TIDB_VERSION##*.}
	local ldflags="-X $TIDB_MODULE/pkg/parser/mysql.TiDBReleaseVersion=v0.0.0-$stamp"
	ldflags+=" -X $TIDB_MODULE/pkg/util/versioninfo.TiDBGitHash=${stamp#*-}"
	ldflags+=" -X $TIDB_MODULE/pkg/util/versioninfo.TiDBGitBranch=module-$TIDB_VERSION"
	log "go build (this is the long part)"
	go build -ldflags "$ldflags" -o "$BIN.tmp" "$TIDB_MODULE/cmd/tidb-server" >&2 ||
		{ rm -f "$BIN.tmp"; die "go build failed in $src"; }
	mv "$BIN.tmp" "$BIN"
	log "built $BIN ($(du -h "$BIN" | cut -f1)) in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- server

# client prints the MySQL command-line client's name, if one is installed.
client() {
	command -v mariadb 2>/dev/null || command -v mysql 2>/dev/null || true
}

# is_ours succeeds when pid $1 is alive and runs tidb-server (not a recycled pid).
is_ours() {
	local pid=$1
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	[ -r "/proc/$pid/cmdline" ] || return 0
	tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q tidb-server
}

# launch starts tidb-server for sandbox $1 on SQL port $2 and status port $3,
# waits until it answers, and writes DIR/pid. It returns 1 when the server
# exited early because a port was taken (the caller retries), and dies on
# other failures.
launch() {
	local dir=$1 port=$2 sport=$3 t0=$SECONDS
	# setsid: the server must not die with the caller's terminal or process
	# group (pg_ctl detaches the same way). Its stdout/stderr go to a file so
	# that U=$(tidb-sandbox.sh start DIR) returns. Everything TiDB would put
	# in /tmp by default (its temp-dir /tmp/tidb, spill files under $TMPDIR,
	# the Unix socket /tmp/tidb-PORT.sock) or in the working directory (the
	# slow-query log tidb-slow.log) stays in DIR or is not created, so that
	# sandboxes do not share files and stop leaves nothing behind.
	mkdir -p "$dir/tmp"
	TMPDIR=$dir/tmp setsid "$BIN" -host 127.0.0.1 -P "$port" -status "$sport" -status-host 127.0.0.1 \
		-store unistore -path "$dir/data" -log-file "$dir/tidb.log" -log-slow-query "$dir/tidb-slow.log" \
		-temp-dir "$dir/tmp" -socket "" -initialize-sql-file "$dir/init.sql" \
		</dev/null >>"$dir/tidb.out" 2>&1 &
	local pid=$!
	echo "$pid" >"$dir/pid"
	local cli deadline=$((SECONDS + ${CANDOR_TIDB_START_TIMEOUT:-120}))
	cli=$(client)
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$dir/pid"
			if grep -qi "address already in use" "$dir/tidb.out" "$dir/tidb.log" 2>/dev/null; then
				return 1
			fi
			tail -n 20 "$dir/tidb.out" >&2 || true
			tail -n 20 "$dir/tidb.log" >&2 || true
			die "tidb-server exited during startup (log: $dir/tidb.log)"
		fi
		if port_in_use "$port"; then
			if [ -z "$cli" ]; then
				break
			elif "$cli" --no-defaults -h 127.0.0.1 -P "$port" -u root --connect-timeout=5 -N -e "SELECT 1" >/dev/null 2>&1; then
				break
			fi
		fi
		[ $SECONDS -lt $deadline ] || {
			kill -9 "$pid" 2>/dev/null || true
			rm -f "$dir/pid"
			die "tidb-server did not accept connections within ${CANDOR_TIDB_START_TIMEOUT:-120} s (log: $dir/tidb.log)"
		}
		sleep 0.2
	done
	log "tidb-server (pid $pid) answered after $((SECONDS - t0)) s"
	return 0
}

start() {
	local dir=$1
	if [ ! -x "$BIN" ]; then
		if [ "${CANDOR_TIDB_BUILD:-}" = 1 ]; then
			(build) || die "build failed"
		else
			die "no tidb-server at $BIN: run \`scripts/tidb-sandbox.sh build\` first (about 10 minutes, ~3 GB), or set CANDOR_TIDB_BUILD=1 to build it here"
		fi
	fi
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	[ -e "$dir/data" ] && die "$dir/data already exists: stop that sandbox first (tidb-sandbox.sh stop $dir) or use another directory"
	: >"$dir/$MARKER"
	# Runs once, when the store is bootstrapped: the database exists even when
	# no MySQL client is installed to create it.
	echo "CREATE DATABASE IF NOT EXISTS candor;" >"$dir/init.sql"

	local port sport attempt ok=""
	for attempt in 1 2 3 4 5; do
		port=$(pick_port)
		sport=$(pick_port "$port")
		if launch "$dir" "$port" "$sport"; then
			ok=1
			break
		fi
		log "start on ports $port/$sport failed: address in use (attempt $attempt)"
		rm -rf -- "$dir/data"
	done
	[ -n "$ok" ] || die "tidb-server did not start after 5 attempts (log: $dir/tidb.log)"
	echo "$port" >"$dir/port"
	echo "$sport" >"$dir/status_port"

	local cli version=""
	cli=$(client)
	if [ -n "$cli" ]; then
		"$cli" --no-defaults -h 127.0.0.1 -P "$port" -u root -e "CREATE DATABASE IF NOT EXISTS candor" >&2 ||
			die "could not create database candor (log: $dir/tidb.log)"
		version=$("$cli" --no-defaults -h 127.0.0.1 -P "$port" -u root -N -e "SELECT VERSION()" 2>/dev/null || true)
	else
		log "no mariadb/mysql client installed: relying on the init file for database candor"
	fi

	local url="mysql://root@127.0.0.1:$port/candor"
	echo "$url" >"$dir/url"
	log "TiDB ${version:-(version unknown)} running on 127.0.0.1:$port (status :$sport), data in $dir/data; stop with: $0 stop $dir"
	echo "$url"
}

# halt stops the server of sandbox $1 and waits for it to exit.
halt() {
	local dir=$1 pid
	[ -f "$dir/pid" ] || return 0
	pid=$(cat "$dir/pid")
	if is_ours "$pid"; then
		kill -TERM "$pid" 2>/dev/null || true
		local i
		for i in $(seq 1 150); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.2
		done
		if kill -0 "$pid" 2>/dev/null; then
			log "tidb-server (pid $pid) still running after 30 s: killing it"
			kill -KILL "$pid" 2>/dev/null || true
			for i in $(seq 1 50); do
				kill -0 "$pid" 2>/dev/null || break
				sleep 0.1
			done
		fi
	else
		log "pid $pid is not a running tidb-server (already gone?)"
	fi
	rm -f "$dir/pid"
}

stop() {
	local dir=$1
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by tidb-sandbox.sh (no $MARKER): refusing to remove it"
	halt "$dir"
	rm -rf -- "$dir"
	log "removed $dir"
}

restart() {
	local dir=$1 pause=${2:-0}
	[ -e "$dir/$MARKER" ] && [ -f "$dir/port" ] && [ -f "$dir/status_port" ] || die "no sandbox in $dir"
	dir=$(cd "$dir" && pwd -P)
	local port sport
	port=$(cat "$dir/port")
	sport=$(cat "$dir/status_port")
	halt "$dir"
	sleep "$pause"
	launch "$dir" "$port" "$sport" || die "restart on port $port failed: address in use (log: $dir/tidb.log)"
	log "restarted on 127.0.0.1:$port after ${pause}s down"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
build) [ $# -eq 0 ] || usage; build ;;
start) [ $# -eq 1 ] || usage; start "$1" ;;
stop) [ $# -eq 1 ] || usage; stop "$1" ;;
url) [ $# -eq 1 ] || usage; [ -f "$1/url" ] || die "no sandbox in $1"; cat "$1/url" ;;
restart) [ $# -ge 1 ] && [ $# -le 2 ] || usage; restart "$@" ;;
*) usage ;;
esac

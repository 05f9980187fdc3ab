# lib.sh — helpers the bench/ scripts share; source it from the project root
# (`. bench/lib.sh`). Messages are prefixed with BENCH_NAME ("bench").

log() { echo "${BENCH_NAME:-bench}: $*" >&2; }
die() { echo "${BENCH_NAME:-bench}: $*" >&2; exit 1; }

calc() { python3 -c "print($1)"; }

# cpu_seconds FILE [N] prints the user+system seconds of the children in a
# saved `times` output (its second line; N=1: the user seconds alone).
# `times` must run in the shell that ran the children, so callers write it
# to a file: `times >F`.
cpu_seconds() {
	sed -n 2p "$1" | awk -v fields="${2:-2}" '{
		n = 0
		for (i = 1; i <= fields; i++) { split($i, a, "m"); sub("s", "", a[2]); n += a[1] * 60 + a[2] }
		print n }'
}

# transactions FILE prints "X Y" from a sysbench-style report's
# "transactions: X (Y per sec.)" line.
transactions() {
	awk '/^ *transactions:/ { x = $2; y = $3; sub(/^\(/, "", y); print x, y; exit }' "$1"
}

# candor_bins sets BINS to the candor binaries in CANDORS (space-separated),
# or builds this tree and uses bin/candor when CANDORS is unset.
candor_bins() {
	if [ -z "${CANDORS:-}" ]; then
		log "building candor"
		make build >/dev/null
		CANDORS=bin/candor
	fi
	read -r -a BINS <<<"$CANDORS"
	local b
	for b in "${BINS[@]}"; do
		[ -x "$b" ] || die "CANDORS: $b is not an executable"
	done
}

install_sysbench() {
	command -v sysbench >/dev/null 2>&1 && return
	[ "$(id -u)" -eq 0 ] || die "sysbench is not installed and we are not root: install the sysbench package"
	log "installing sysbench with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -q sysbench >&2; then
		apt-get update -q >&2
		apt-get install -y -q sysbench >&2
	fi
}

# sysbench_conn DB URL sets SB to sysbench's connection options for a
# sandbox's URL (DB is postgres or mariadb), and DB_PORT, DB_USER, DB_PASS
# and DB_NAME to its parts.
sysbench_conn() {
	local rest userinfo
	rest=${2#*://}
	userinfo=${rest%%@*}
	DB_USER=${userinfo%%:*}
	DB_PASS=""
	[ "$userinfo" != "$DB_USER" ] && DB_PASS=${userinfo#*:}
	rest=${rest#*@}
	DB_PORT=$(echo "$rest" | sed 's#^[^:]*:\([0-9]*\)/.*#\1#')
	DB_NAME=${rest#*/}
	DB_NAME=${DB_NAME%%\?*}
	case $1 in
	postgres) SB=(--db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-port="$DB_PORT" --pgsql-user="$DB_USER" --pgsql-db="$DB_NAME") ;;
	mariadb) SB=(--db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$DB_PORT" --mysql-user="$DB_USER"
		--mysql-password="$DB_PASS" --mysql-db="$DB_NAME") ;;
	*) die "unknown database $1 (postgres, mariadb)" ;;
	esac
}

# sandbox_script DB prints the script that starts and stops a throwaway DB.
sandbox_script() {
	case $1 in
	postgres) echo scripts/pg-sandbox.sh ;;
	mariadb) echo scripts/mariadb-sandbox.sh ;;
	*) die "unknown database $1 (postgres, mariadb)" ;;
	esac
}

# Throwaway servers started by start_sandbox; stop_sandboxes stops them, and
# so does the script's exit (bench_exit).
SANDBOX_STOPS=()
stop_sandboxes() {
	local s
	for s in "${SANDBOX_STOPS[@]}"; do $s >/dev/null 2>&1 || true; done
	SANDBOX_STOPS=()
}

# AUTOGROUP (environment; empty by default) sets the kernel's
# sched_autogroup_enabled (0 or 1) before the first throwaway server starts,
# for as long as the script runs; the old value comes back at its exit.
# With autogroups on (Debian's default), the throwaway servers, which their
# scripts start in a session of their own, and the clients, in the caller's
# session, are scheduled as two groups, and that changes how the kernel
# places and preempts them (docs/BENCHMARKS.md §7, "two regimes"). Needs
# root. autogroup_setting prints the setting in effect.
AUTOGROUP=${AUTOGROUP:-}
AUTOGROUP_FILE=/proc/sys/kernel/sched_autogroup_enabled
AUTOGROUP_OLD=
set_autogroup() {
	[ -n "$AUTOGROUP" ] && [ -z "$AUTOGROUP_OLD" ] || return 0
	case $AUTOGROUP in 0 | 1) ;; *) die "AUTOGROUP=$AUTOGROUP: expected 0 or 1" ;; esac
	[ -w "$AUTOGROUP_FILE" ] || die "AUTOGROUP=$AUTOGROUP: $AUTOGROUP_FILE is not writable (run as root, on a kernel with autogroups)"
	AUTOGROUP_OLD=$(cat "$AUTOGROUP_FILE")
	echo "$AUTOGROUP" >"$AUTOGROUP_FILE"
}
autogroup_setting() {
	if [ -r "$AUTOGROUP_FILE" ]; then
		echo "kernel.sched_autogroup_enabled=$(cat "$AUTOGROUP_FILE")"
	else
		echo "kernel.sched_autogroup_enabled: none (no autogroups)"
	fi
}

# bench_exit stops the throwaway servers and restores AUTOGROUP's setting.
bench_exit() {
	stop_sandboxes
	if [ -n "$AUTOGROUP_OLD" ]; then
		echo "$AUTOGROUP_OLD" >"$AUTOGROUP_FILE" || true
		AUTOGROUP_OLD=
	fi
}

# start_sandbox DB NAME [NAME=VALUE ...] starts a throwaway DB (postgres or
# mariadb) with those server options in a new /tmp/candor-NAME-DB.XXXXXX,
# and sets SANDBOX (the script that started it), DIR and URL. It applies
# AUTOGROUP first.
start_sandbox() {
	local db=$1 name=$2
	shift 2
	trap bench_exit EXIT
	set_autogroup
	SANDBOX=$(sandbox_script "$db")
	[ -x "$SANDBOX" ] || die "$SANDBOX is missing"
	DIR=$(mktemp -d "/tmp/candor-$name-$db.XXXXXX") # the sandbox makes it anew
	rmdir "$DIR"
	SANDBOX_STOPS+=("$SANDBOX stop $DIR")
	URL=$("$SANDBOX" start "$DIR" "$@")
}

# sysbench_postgres NAME ROWS starts a throwaway PostgreSQL (start_sandbox),
# sets SB (sysbench_conn), and has sysbench prepare one table of ROWS rows,
# then VACUUM ANALYZE it. candor runs on that table with
# --allow-foreign-tables, so any of its options (--rand-type, ...) can be
# tried on one table (a table of candor's own is tied to the options it was
# loaded with).
sysbench_postgres() { sysbench_db postgres "$@"; }

# sysbench_db DB NAME ROWS is sysbench_postgres for DB (postgres or
# mariadb; no VACUUM on MariaDB).
sysbench_db() {
	local db=$1
	start_sandbox "$db" "$2"
	sysbench_conn "$db" "$URL"
	log "$db: sysbench prepares 1 table of $3 rows"
	sysbench oltp_common "${SB[@]}" --tables=1 --table-size="$3" prepare >/dev/null
	if [ "$db" = postgres ]; then
		psql -q "$URL" -c "VACUUM ANALYZE sbtest1"
	fi
}

# server_cpu_setup DB points server_ticks at the throwaway DB started by
# start_sandbox (its DIR). On PostgreSQL it counts the postmaster's CPU time
# and that of the children it has reaped (fields 14-17 of its stat file): a
# client's backends exit when it disconnects, so their whole time is counted
# once the run is over (wait a second for the reaping); the server's other
# processes (checkpointer, walwriter, autovacuum launcher) live on and are
# not counted. On MariaDB it is the one mariadbd process's (fields 14-15: all
# its threads, background ones included).
server_cpu_setup() {
	if [ "$1" = postgres ]; then
		SERVER_PID=$(head -1 "$DIR/data/postmaster.pid")
		SERVER_FIELDS='$14 + $15 + $16 + $17'
		SERVER_USER_FIELDS='$14 + $16'
	else
		SERVER_PID=$(cat "$DIR/pid" 2>/dev/null || cat "$DIR/mariadbd.pid")
		SERVER_FIELDS='$14 + $15'
		SERVER_USER_FIELDS='$14'
	fi
	TICK=$(getconf CLK_TCK)
}

# server_ticks prints the server's CPU time (see server_cpu_setup) in clock
# ticks of TICK per second.
server_ticks() { awk "{ print $SERVER_FIELDS }" "/proc/$SERVER_PID/stat"; }

# server_user_ticks prints the user-space part of server_ticks (field 14
# and, for PostgreSQL's reaped backends, 16).
server_user_ticks() { awk "{ print $SERVER_USER_FIELDS }" "/proc/$SERVER_PID/stat"; }

# settle waits until the machine has been at least 90% idle for a second
# (at most SETTLE_MAX seconds, default 120). A fresh 1M-row table comes
# with background work (InnoDB flushing the pages a bulk load dirtied,
# PostgreSQL's checkpoint and autovacuum); without the wait it lands in the
# first runs after a prepare, and a faster prepare leaves more of it behind.
settle() {
	local t0 a b
	t0=$(date +%s)
	while :; do
		a=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
		sleep 1
		b=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
		if python3 -c "a=[float(x) for x in '$a'.split()]; b=[float(x) for x in '$b'.split()]; exit(0 if (b[1]-a[1]) >= 0.9*(b[0]-a[0]) else 1)"; then
			break
		fi
		if [ $(($(date +%s) - t0)) -ge "${SETTLE_MAX:-120}" ]; then
			log "the machine did not settle within ${SETTLE_MAX:-120}s; going on"
			break
		fi
	done
	log "settled after $(($(date +%s) - t0))s"
}

# session_io_of RESULT prints the session I/O a candor result's run phase
# used (client.session_io), "-" when it records none.
session_io_of() {
	python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
ios = [p.get('client', {}).get('session_io') for p in d.get('phases', [])]
print(([i for i in ios if i] or ['-'])[-1])" "$1" 2>/dev/null || echo -
}


# go-ycsb, for the scripts that run it beside candor: GOYCSB (a binary;
# built by build_goycsb into ~/.cache/candor-bench when absent) at
# GOYCSB_VERSION, the newest release the Go module proxy serves.
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/candor-bench
GOYCSB=${GOYCSB:-$CACHE/go-ycsb}
GOYCSB_VERSION=v1.0.1

# build_goycsb builds GOYCSB in a scratch module unless it exists.
build_goycsb() {
	[ -x "$GOYCSB" ] && return
	log "building go-ycsb $GOYCSB_VERSION in a scratch module (a few minutes)"
	local src=$CACHE/goycsb-src
	mkdir -p "$src"
	cat >"$src/go.mod" <<EOG
module scratch/goycsb

go 1.26
EOG
	printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pingcap/go-ycsb/cmd/go-ycsb"\n' >"$src/tools.go"
	(cd "$src" && go get "github.com/pingcap/go-ycsb@$GOYCSB_VERSION" && go mod tidy -e >/dev/null 2>&1 &&
		go build -o "$GOYCSB" github.com/pingcap/go-ycsb/cmd/go-ycsb)
}

# final_total FILE prints the OPS of the TOTAL line of go-ycsb's final
# report (after its "Run finished" line), or fails when there is none.
final_total() {
	awk '/^Run finished/ {fin = 1; next}
		fin && /^TOTAL/ {for (i = 1; i <= NF; i++) if ($i == "OPS:") {gsub(",", "", $(i+1)); ops = $(i+1)}}
		END {if (ops == "") exit 1; print ops}' "$1" ||
		die "go-ycsb's final report is missing in $1 (it ended without \"Run finished\" and a TOTAL line)"
}

# AUTO["db what threads"]: the session I/O candor's --session-io auto chose
# for a cell (what: a sysbench test or a YCSB workload), from the cell's
# `candor` run or from ensure_auto's probe.
declare -A AUTO
# ensure_auto db what threads sets AUTO for the cell from a 1-second probe
# at one operation a second (the calling script's candor_run OUT WHAT
# THREADS [OPTIONS], after its before_probe DB WHAT when it has one), when
# no `candor` run has told it yet.
ensure_auto() {
	local key="$1 $2 $3" out="$OUT/$1-probe-$2-$3.txt"
	[ -n "${AUTO[$key]:-}" ] && return 0
	if declare -F before_probe >/dev/null; then before_probe "$1" "$2"; fi
	PERF=()
	DURATION=1 candor_run "$out" "$2" "$3" --rate 1 2>"$out.err" ||
		{ tail -n 20 "$out.err" >&2; die "$1: the probe of --session-io auto for $2 at $3 threads failed"; }
	AUTO[$key]=$(session_io_of "${out%.txt}.json")
}
# other_io KEY prints the session I/O auto did not choose for the cell.
other_io() { if [ "${AUTO[$1]:-}" = poller ]; then echo blocking; else echo poller; fi; }

#!/usr/bin/env bash
# sysbench-compare.sh — candor's sysbench workloads beside sysbench 1.0.20
# itself, on the same throwaway PostgreSQL and MariaDB, same table size, same
# thread counts.
#
#   bench/sysbench-compare.sh          # defaults below; prints Markdown tables
#
# Environment: TABLE_SIZE rows in the one table (1000000), THREADS ("4 8 16
# 64"), DURATION seconds per run (30), TESTS (all eleven of sysbench 1.0.20,
# in the order below), ROUNDS (1), PREPARE_THREADS (4), DBS ("postgres
# mariadb"), TOOLS ("candor sysbench"; one of them alone measures that tool
# only, e.g. to try the script out; see "Session I/O" below for the candor
# variants), SETTLE_MAX (120: the longest wait after a prepare, and before
# each run, for the machine to go idle, see settle), CANDOR_BIN (bin/candor,
# built by the script; another path measures that build, e.g. an older
# commit's), CANDOR_ARGS (more options for every `candor run`, e.g.
# "--session-io blocking"), WARMUP (10: seconds of each test, at the
# highest thread count, run unmeasured by the table's owner after the
# prepares, so that neither tool's first run meets the server fresh from a
# prepare; 0 for none), MARIADB_SETTINGS ("": mariadbd options NAME=VALUE
# for the throwaway MariaDB, e.g. innodb_buffer_pool_size=1G; see below),
# POSTGRES_SETTINGS ("": postgresql.conf lines NAME=VALUE), AUTOGROUP (""
# leaves the kernel's autogroups as they are; 0 turns them off for the run,
# see bench/lib.sh; the setting is printed with the results), PERF_STAT (0; 1
# runs each tool under `perf stat` and adds a table of the Go runtime's
# monitor wake-ups (nanosleep), futex calls and context switches per
# transaction, from Debian's linux-perf). Installs sysbench with apt-get
# when it is missing (as root).
#
# Session I/O. Besides `candor` (its --session-io auto), TOOLS may name
# candor-blocking and candor-poller (candor with --session-io blocking or
# poller) and candor-other: candor with the session I/O that auto does NOT
# choose for that test and thread count (auto's choice is read from the
# result of the cell's `candor` run, or from a 1-second probe run at one
# transaction per second when there is none yet). Every candor run's result
# records the session I/O it used; the tables print auto's choice beside
# each candor variant's rate over sysbench's, so
#   TOOLS="sysbench candor candor-other" bench/sysbench-compare.sh
# tells, cell by cell, whether auto chose the faster way to wait.
#
# Tests and their order. The read-only tests run first, then the ones that
# update rows in place or delete and re-insert the same ids, then
# oltp_insert (new ids) and oltp_delete (which empties the table as it
# goes: both tools of a cell delete from the same shrinking table, and a
# DELETE of a missing row is cheaper, so oltp_delete's ratios favour the
# tool that runs second; the order alternates between cells and rounds).
# bulk_insert writes tables of its own named like the shared one (sbtest1..N,
# one per thread), so it runs last: the shared table is dropped, and for
# each of its runs the tool prepares its own N empty tables and drops them
# afterwards.
#
# Both tools name their table sbtest1, so they cannot hold their tables side
# by side. Each round, per database, both tools prepare in turn (timed and
# checked; the first tool's table is dropped again), and the table of the
# second one is kept for the runs: every test at every thread count is then
# run by both tools one after the other on that same table (candor with
# --allow-foreign-tables when sysbench prepared it). Both tools thus see the
# same data in the same state. Odd rounds start with candor and run on
# sysbench's table, even rounds the other way round; with ROUNDS=1 candor
# always goes first, use ROUNDS=2 or more to cancel order effects. After each
# prepare, and before each run, the script waits for the machine to go idle
# (settle).
#
# The servers run with their compiled-in defaults unless the *_SETTINGS say
# otherwise (the settings are printed with the results). PostgreSQL reads
# through the page cache, so the table is in memory whatever its shared
# buffers; InnoDB reads past the page cache, and its default 128 MB buffer
# pool is smaller than a 1,000,000-row table (about 240 MB). A 1 GB pool
# did not make MariaDB's runs steadier, and it made sysbench's prepare
# faster than candor's (git show fdff5d5:docs/BENCHMARKS.md, §7).
#
# Prepare is checked as well as timed: after each prepare the table must hold
# TABLE_SIZE rows, and its column and index shape (from information_schema or
# pg_indexes) is compared between the tools. Prepare time is wall time of the
# whole command (connect, create, insert, secondary index); sysbench prepares
# a table with one thread whatever --threads says (it parallelises across
# tables only).
#
# Throughput is each tool's own "transactions: X (Y per sec.)" line (candor
# prints sysbench's report with --format sysbench). Client CPU per
# transaction is read from the kernel's accounting of each finished child
# process (user + system time, via the shell's `times`) divided by X; the
# servers run on the same machine, so a tool that burns more CPU also slows
# the server down. A last table sums each tool's transactions (and prepare
# times) over the rounds and gives candor's ratio with each round's.
set -euo pipefail
cd "$(dirname "$0")/.."

TABLE_SIZE=${TABLE_SIZE:-1000000}
THREADS=${THREADS:-"4 8 16 64"}
DURATION=${DURATION:-30}
TESTS=${TESTS:-"oltp_point_select oltp_read_only select_random_points select_random_ranges oltp_read_write oltp_write_only oltp_update_index oltp_update_non_index oltp_insert oltp_delete bulk_insert"}
ROUNDS=${ROUNDS:-1}
PREPARE_THREADS=${PREPARE_THREADS:-4}
DBS=${DBS:-"postgres mariadb"}
SETTLE_MAX=${SETTLE_MAX:-120}
WARMUP=${WARMUP:-10}
MARIADB_SETTINGS=${MARIADB_SETTINGS:-}
POSTGRES_SETTINGS=${POSTGRES_SETTINGS:-}
TOOLS=${TOOLS:-"candor sysbench"}
CANDOR_BIN=${CANDOR_BIN:-bin/candor}
# CANDOR_ARGS: more options for every candor run, split on spaces.
read -r -a CANDOR_EXTRA <<<"${CANDOR_ARGS:-}"
PERF_STAT=${PERF_STAT:-0}
# PERF is the command a run is wrapped in (set per run by timed_run).
PERF=()
# A run that has not finished long after its DURATION is killed.
RUN_LIMIT=$((DURATION * 3 + 300))

. bench/lib.sh

# base_tool TOOL prints the tool that prepares for TOOL: candor for every
# candor variant.
base_tool() { case $1 in candor*) echo candor ;; *) echo "$1" ;; esac; }
for tool in $TOOLS; do
	case $tool in
	sysbench | candor | candor-blocking | candor-poller | candor-other) ;;
	*) die "TOOLS: unknown tool $tool (sysbench, candor, candor-blocking, candor-poller, candor-other)" ;;
	esac
done
# have_tool BASE: some tool in TOOLS has that base tool.
have_tool() {
	local tool
	for tool in $TOOLS; do [ "$(base_tool "$tool")" = "$1" ] && return 0; done
	return 1
}
# base_tools LIST prints the base tools of LIST in order, each once.
base_tools() {
	local tool b seen=" "
	for tool in $1; do
		b=$(base_tool "$tool")
		case $seen in *" $b "*) continue ;; esac
		seen="$seen$b "
		echo "$b"
	done
}
# is_test NAME: NAME is in TESTS.
is_test() { case " $TESTS " in *" $1 "*) return 0 ;; esac; return 1; }

# ---------------------------------------------------------------- databases

# Each database defines: URL (candor's --target), SB (sysbench's connection
# options) and SQL (a command printing the tab-separated rows of one query).
setup_postgres() {
	sysbench_conn postgres "$URL"
	local psql=psql
	command -v psql >/dev/null 2>&1 || psql=$(ls /usr/lib/postgresql/*/bin/psql | tail -n 1)
	SQL=("$psql" -X -q -A -t -F $'\t' -h 127.0.0.1 -p "$DB_PORT" -U "$DB_USER" -d "$DB_NAME" -v ON_ERROR_STOP=1 -c)
	SHAPE_SQL=("SELECT column_name, data_type, character_maximum_length, is_nullable, column_default
		FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'sbtest1'
		ORDER BY ordinal_position"
		"SELECT regexp_replace(indexdef, '^CREATE (UNIQUE )?INDEX \\S+', '\\1INDEX') FROM pg_indexes
		WHERE schemaname = current_schema() AND tablename = 'sbtest1' ORDER BY 1")
}

setup_mariadb() {
	sysbench_conn mariadb "$URL"
	local cli=mariadb
	command -v mariadb >/dev/null 2>&1 || cli=mysql
	SQL=("$cli" --no-defaults -h 127.0.0.1 -P "$DB_PORT" -u "$DB_USER" --password="$DB_PASS" -D "$DB_NAME" -N -B -e)
	SHAPE_SQL=("SELECT column_name, column_type, is_nullable, column_default, extra
		FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'sbtest1'
		ORDER BY ordinal_position"
		"SELECT CONCAT(IF(index_name = 'PRIMARY', 'PRIMARY KEY', IF(non_unique = 0, 'UNIQUE INDEX', 'INDEX')),
		' (', column_name, ') ', index_type) AS ix
		FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = 'sbtest1'
		ORDER BY ix")
}

start_db() { # db -> URL, SB, SQL, SHAPE_SQL (start_sandbox; stop_sandboxes stops it)
	local db=$1 extra settings=MARIADB_SETTINGS
	[ "$db" = postgres ] && settings=POSTGRES_SETTINGS
	read -r -a extra <<<"${!settings}"
	start_sandbox "$db" bench "${extra[@]}"
	"setup_$db"
}

# ---------------------------------------------------------------- tools

# Each tool has prepare, run and cleanup; run writes the tool's report to $1.
candor_prepare() { # out
	"$CANDOR_BIN" prepare sysbench --tables 1 --table-size "$TABLE_SIZE" --threads "$PREPARE_THREADS" --target "$URL" -q \
		-o "${1%.txt}.json"
}
candor_run() { # out test threads [more run options]
	timeout -k 10 "$RUN_LIMIT" "${PERF[@]}" "$CANDOR_BIN" run "sysbench/$2" --tables 1 --table-size "$TABLE_SIZE" --threads "$3" --time "$DURATION" \
		--target "$URL" -q --format sysbench --load never --allow-foreign-tables -o "${1%.txt}.json" "${CANDOR_EXTRA[@]}" "${@:4}" >"$1"
}
candor_cleanup() {
	"$CANDOR_BIN" cleanup sysbench --tables 1 --target "$URL" -q
}

sysbench_prepare() { # out (unused: sysbench writes no result file)
	sysbench oltp_common "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$PREPARE_THREADS" prepare
}
sysbench_run() { # out test threads
	timeout -k 10 "$RUN_LIMIT" "${PERF[@]}" sysbench "$2" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$3" --time="$DURATION" run >"$1"
}
sysbench_cleanup() {
	sysbench oltp_common "${SB[@]}" --tables=1 cleanup
}

# bulk_insert's own tables, one per thread: BASE_bulk_prepare and
# BASE_bulk_cleanup out threads.
candor_bulk_prepare() {
	"$CANDOR_BIN" prepare sysbench/bulk_insert --threads "$2" --target "$URL" -q -o "${1%.txt}.json"
}
candor_bulk_cleanup() {
	"$CANDOR_BIN" cleanup sysbench/bulk_insert --threads "$2" --target "$URL" -q
}
sysbench_bulk_prepare() {
	sysbench bulk_insert "${SB[@]}" --threads="$2" prepare
}
sysbench_bulk_cleanup() {
	sysbench bulk_insert "${SB[@]}" --threads="$2" cleanup
}


# tool_run tool out test threads runs one measured run of TOOL (a base tool
# or a candor variant) for the cell of db DB_NOW.
tool_run() {
	local tool=$1
	shift
	case $tool in
	sysbench) sysbench_run "$@" ;;
	candor) candor_run "$@" ;;
	candor-blocking | candor-poller) candor_run "$@" --session-io "${tool#candor-}" ;;
	candor-other) candor_run "$@" --session-io "$(other_io "$DB_NOW $2 $3")" ;;
	esac
}

# cleanup_table db tool round: the tool that prepared the table drops it.
cleanup_table() {
	"${2}_cleanup" >"$OUT/$1-$2-cleanup-$3.txt" 2>&1 ||
		{ tail -n 20 "$OUT/$1-$2-cleanup-$3.txt" >&2; die "$1: $2 cleanup failed"; }
}

# Results, keyed "db test threads round tool".
declare -A TPS CPU SCHED USED
PREPARE_LINES=()
declare -A PREP # "db round tool" -> prepare seconds

# timed_prepare db tool round: prepares, checks the row count, records the
# table's shape and the wall time, then waits for the machine to settle.
timed_prepare() {
	local db=$1 tool=$2 round=$3 t0 t1 rows
	log "$db: $tool prepare, $TABLE_SIZE rows"
	t0=$(date +%s.%N)
	"${tool}_prepare" "$OUT/$db-$tool-prepare-$round.txt" >"$OUT/$db-$tool-prepare-$round.txt" 2>&1 ||
		{ tail -n 20 "$OUT/$db-$tool-prepare-$round.txt" >&2; die "$db: $tool prepare failed"; }
	t1=$(date +%s.%N)
	rows=$("${SQL[@]}" "SELECT COUNT(*) FROM sbtest1")
	{
		"${SQL[@]}" "${SHAPE_SQL[0]}"
		"${SQL[@]}" "${SHAPE_SQL[1]}"
	} >"$OUT/$db-$tool-shape.txt"
	local shape="-"
	if [ -f "$OUT/$db-candor-shape.txt" ] && [ -f "$OUT/$db-sysbench-shape.txt" ]; then
		if cmp -s "$OUT/$db-candor-shape.txt" "$OUT/$db-sysbench-shape.txt"; then
			shape="same"
		else
			shape="DIFFERENT (diff $OUT/$db-candor-shape.txt $OUT/$db-sysbench-shape.txt)"
			log "$db: the tables of candor and sysbench differ:"
			diff "$OUT/$db-candor-shape.txt" "$OUT/$db-sysbench-shape.txt" >&2 || true
		fi
	fi
	[ "$rows" = "$TABLE_SIZE" ] || log "$db: $tool prepared $rows rows, want $TABLE_SIZE"
	PREP[$db $round $tool]=$(calc "f'{$t1 - $t0:.3f}'")
	PREPARE_LINES+=("| $db | $tool | $round | $(calc "f'{$t1 - $t0:.1f}'") | $(calc "round($TABLE_SIZE / ($t1 - $t0))") | $rows | $shape |")
	settle
}

# warm_up db tool round: each test once for WARMUP seconds at the highest
# thread count, unmeasured. Without it, on MariaDB, the tool that ran first
# after the prepares was the slower one in every round (git show
# fdff5d5:docs/BENCHMARKS.md, §7, "Order, warm-up and noise").
warm_up() {
	local db=$1 tool=$2 round=$3 test t max=0
	[ "$WARMUP" -gt 0 ] || return 0
	for t in $THREADS; do [ "$t" -gt "$max" ] && max=$t; done
	PERF=()
	for test in $TESTS; do
		[ "$test" = bulk_insert ] && continue
		log "$db: $tool $test warm-up, $max threads, ${WARMUP}s (round $round)"
		DURATION=$WARMUP "${tool}_run" "$OUT/$db-$tool-$test-warmup-$round.txt" "$test" "$max" \
			2>"$OUT/$db-$tool-$test-warmup-$round.err" ||
			log "$db: the warm-up failed (output in $OUT/$db-$tool-$test-warmup-$round.*); going on"
	done
}

# timed_run db tool test threads round: one run, its tps and CPU µs/txn,
# once the machine is idle (the server may still be writing back or
# purging what the run before left).
timed_run() {
	local db=$1 tool=$2 test=$3 t=$4 round=$5 out c0 c1 x y
	local key="$db $test $t $round $tool"
	out="$OUT/$db-$tool-$test-$t-$round.txt"
	DB_NOW=$db
	[ "$tool" = candor-other ] && ensure_auto "$db" "$test" "$t"
	settle
	log "$db: $tool $test, $t threads, ${DURATION}s (round $round)"
	PERF=()
	[ "$PERF_STAT" = 1 ] && PERF=(perf stat -x, -o "$out.perf"
		-e syscalls:sys_enter_nanosleep,syscalls:sys_enter_futex,context-switches)
	times >"$OUT/t0"
	if ! tool_run "$tool" "$out" "$test" "$t" 2>"$out.err"; then
		times >"$OUT/t1"
		tail -n 20 "$out.err" >&2
		log "$db: $tool $test at $t threads failed (output in $out)"
		TPS[$key]=failed
		CPU[$key]=-
		return
	fi
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	read -r x y < <(transactions "$out") || true
	if [ -z "${x:-}" ] || [ "$x" = 0 ]; then
		log "$db: no transactions line in $out"
		TPS[$key]=?
		CPU[$key]=-
		return
	fi
	TPS[$key]=$(calc "f'{$y:.0f}'")
	case $tool in
	candor*) USED[$key]=$(session_io_of "${out%.txt}.json") ;;
	esac
	[ "$tool" = candor ] && AUTO[$db $test $t]=${USED[$key]}
	CPU[$key]=$(calc "f'{($c1 - $c0) * 1e6 / $x:.1f}'")
	if [ "$PERF_STAT" = 1 ]; then
		SCHED[$key]=$(awk -F, -v x="$x" '/nanosleep/ { n = $1 } /futex/ { f = $1 } /context-switches/ { c = $1 }
			END { printf "%.2f | %.2f | %.1f", n / x, f / x, c / x }' "$out.perf")
	fi
}

# ---------------------------------------------------------------- main

have_tool sysbench && install_sysbench
if [ "$PERF_STAT" = 1 ]; then
	perf stat -x, -o /dev/null -e syscalls:sys_enter_futex true 2>/dev/null ||
		die "PERF_STAT=1: perf stat cannot count syscalls:sys_enter_futex here (install linux-perf; run as root)"
fi
if have_tool candor; then
	[ "$CANDOR_BIN" = bin/candor ] && make -s build
	"$CANDOR_BIN" list workloads 2>/dev/null | grep -q 'sysbench/' ||
		die "$CANDOR_BIN has no sysbench workload"
fi
OUT=$(mktemp -d /tmp/candor-sysbench-compare.XXXXXX)
log "raw outputs in $OUT"

# cell_order N prints the tools' order for the round's N-th cell: the
# round's order, reversed in odd cells, so that within a round each tool
# runs first as often as last.
cell_order() {
	if [ $(($1 % 2)) -eq 1 ]; then
		echo "$order" | tr ' ' '\n' | tac | tr '\n' ' '
	else
		echo "$order"
	fi
}

for db in $DBS; do
	start_db "$db"
	for round in $(seq 1 "$ROUNDS"); do
		order=$TOOLS
		if [ $((round % 2)) -eq 0 ]; then
			order=$(echo "$TOOLS" | tr ' ' '\n' | tac | tr '\n' ' ')
		fi
		cell=0
		oltp=0
		for test in $TESTS; do [ "$test" != bulk_insert ] && oltp=1; done
		if [ "$oltp" = 1 ]; then
			# Both prepare (timed); the last one's table stays for the runs.
			owner=
			for tool in $(base_tools "$order"); do
				[ -n "$owner" ] && cleanup_table "$db" "$owner" "$round"
				timed_prepare "$db" "$tool" "$round"
				owner=$tool
			done
			warm_up "$db" "$owner" "$round"
			for test in $TESTS; do
				[ "$test" = bulk_insert ] && continue
				for t in $THREADS; do
					for tool in $(cell_order $cell); do
						timed_run "$db" "$tool" "$test" "$t" "$round"
					done
					cell=$((cell + 1))
				done
			done
			cleanup_table "$db" "$owner" "$round"
		fi
		if is_test bulk_insert; then
			# Each run on empty tables of the tool's own, dropped after it.
			for t in $THREADS; do
				for tool in $(cell_order $cell); do
					b=$(base_tool "$tool")
					f="$OUT/$db-$tool-bulk-$t-$round.txt"
					"${b}_bulk_prepare" "$f" "$t" >"$f" 2>&1 ||
						{ tail -n 20 "$f" >&2; die "$db: $b bulk_insert prepare failed"; }
					timed_run "$db" "$tool" bulk_insert "$t" "$round"
					"${b}_bulk_cleanup" "$f" "$t" >>"$f" 2>&1 ||
						{ tail -n 20 "$f" >&2; die "$db: $b bulk_insert cleanup failed"; }
				done
				cell=$((cell + 1))
			done
		fi
	done
	stop_sandboxes
done
echo "server settings: MariaDB ${MARIADB_SETTINGS:-(defaults)}; PostgreSQL ${POSTGRES_SETTINGS:-(defaults)}; $(autogroup_setting)"
echo "sysbench $(sysbench --version 2>/dev/null | awk '{print $2}') vs candor $("$CANDOR_BIN" version 2>/dev/null | awk 'NR == 1 {print $2}'); 1 table × $TABLE_SIZE rows, ${DURATION}s per run after a ${WARMUP}s warm-up of each test, $(nproc) cores, client and server on the same machine"
echo
echo "| db | tool | round | prepare s | rows/s | rows | table shape vs the other tool |"
echo "|---|---|---|---|---|---|---|"
printf '%s\n' "${PREPARE_LINES[@]}"
echo
# run_keys prints "db test threads round" for every test run, in table order.
run_keys() {
	local db round test t
	for db in $DBS; do
		for round in $(seq 1 "$ROUNDS"); do
			for test in $TESTS; do
				for t in $THREADS; do
					echo "$db $test $t $round"
				done
			done
		done
	done
}
# REF is the tool the others are compared with: sysbench when measured,
# else the first tool; VARIANTS are the others.
REF=$(echo "$TOOLS" | awk '{print $1}')
have_tool sysbench && REF=sysbench
VARIANTS=()
for tool in $TOOLS; do [ "$tool" != "$REF" ] && VARIANTS+=("$tool"); done
# ratio A B prints A/B to two places, or - when either is not a number.
ratio() {
	if [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ && $2 != 0 ]]; then calc "f'{$1 / $2:.2f}'"; else echo -; fi
}
head="| db | test | threads | round | auto chose |"
rule="|---|---|---|---|---|"
for tool in $TOOLS; do head="$head $tool tps |" rule="$rule---|"; done
for tool in "${VARIANTS[@]}"; do head="$head $tool / $REF |" rule="$rule---|"; done
for tool in $TOOLS; do head="$head $tool CPU µs/txn |" rule="$rule---|"; done
echo "$head"
echo "$rule"
while read -r db test t round; do
	k="$db $test $t $round"
	line="| $db | $test | $t | $round | ${AUTO[$db $test $t]:--} |"
	for tool in $TOOLS; do
		v=${TPS[$k $tool]:--}
		[ -n "${USED[$k $tool]:-}" ] && [ "$tool" != candor ] && v="$v (${USED[$k $tool]})"
		line="$line $v |"
	done
	for tool in "${VARIANTS[@]}"; do line="$line $(ratio "${TPS[$k $tool]:-}" "${TPS[$k $REF]:-}") |"; done
	for tool in $TOOLS; do line="$line ${CPU[$k $tool]:--} |"; done
	echo "$line"
done < <(run_keys)
# The summary: each tool over REF per point, from the tools' transactions
# summed over the rounds (prepare: summed time), with each round's ratio in
# brackets; "best" names the faster of auto's choice and the other way when
# both were measured (candor and candor-other).
echo
head="| db | test | threads | auto chose |"
rule="|---|---|---|---|"
for tool in "${VARIANTS[@]}"; do head="$head $tool / $REF (per round) |" rule="$rule---|"; done
echo "$head best |"
echo "$rule---|"
for db in $DBS; do
	for test in $TESTS; do
		for t in $THREADS; do
			line="| $db | $test | $t | ${AUTO[$db $test $t]:--} |"
			declare -A SUM=()
			for tool in "${VARIANTS[@]}"; do
				vsum=0 rsum=0 rounds=()
				for round in $(seq 1 "$ROUNDS"); do
					k="$db $test $t $round"
					v=${TPS[$k $tool]:-} r=${TPS[$k $REF]:-}
					[[ $v =~ ^[0-9]+$ && $r =~ ^[0-9]+$ && $r != 0 ]] || continue
					vsum=$((vsum + v)) rsum=$((rsum + r))
					rounds+=("$(ratio "$v" "$r")")
				done
				SUM[$tool]=$vsum
				if [ "$rsum" != 0 ]; then
					line="$line $(ratio "$vsum" "$rsum") (${rounds[*]}) |"
				else
					line="$line - |"
				fi
			done
			best=-
			if [ -n "${SUM[candor]:-}" ] && [ -n "${SUM[candor-other]:-}" ] && [ "${SUM[candor]}" != 0 ]; then
				other=$(other_io "$db $test $t")
				best="auto (${AUTO[$db $test $t]:-?})"
				[ "${SUM[candor-other]}" -gt "${SUM[candor]}" ] && best="$other, by $(calc "f'{(${SUM[candor-other]} / ${SUM[candor]} - 1) * 100:.0f}'")%"
			fi
			echo "$line $best |"
		done
	done
done
if have_tool candor && have_tool sysbench; then
	echo
	echo "| db | prepare time, candor / sysbench over the rounds | per round |"
	echo "|---|---|---|"
	for db in $DBS; do
		csum=0 ssum=0 rounds=()
		for round in $(seq 1 "$ROUNDS"); do
			c=${PREP[$db $round candor]:-} s=${PREP[$db $round sysbench]:-}
			if [ -z "$c" ] || [ -z "$s" ]; then continue; fi
			csum=$(calc "$csum + $c") ssum=$(calc "$ssum + $s")
			rounds+=("$(calc "f'{$c / $s:.2f}'")")
		done
		if [ "${#rounds[@]}" != 0 ]; then
			echo "| $db | $(calc "f'{$csum / $ssum:.2f}'") | ${rounds[*]} |"
		fi
	done
fi
if [ "$PERF_STAT" = 1 ]; then
	echo
	echo "| db | test | threads | round | tool | nanosleep/txn | futex/txn | context switches/txn |"
	echo "|---|---|---|---|---|---|---|---|"
	while read -r db test t round; do
		for tool in $TOOLS; do
			echo "| $db | $test | $t | $round | $tool | ${SCHED[$db $test $t $round $tool]:-- | - | -} |"
		done
	done < <(run_keys)
fi
log "raw outputs in $OUT"

#!/usr/bin/env bash
# ycsb-session-io.sh — does `--session-io auto` choose the faster way for
# candor's sessions to wait, on YCSB's core workloads? Runs each workload at
# each thread count with auto's choice and with the other way, alternating,
# on one throwaway PostgreSQL and one MariaDB.
#
#   bench/ycsb-session-io.sh           # defaults below; prints Markdown tables
#
# Environment: DBS ("postgres mariadb"), RECORDS (100000, loaded once per
# database by candor with 4 threads), WORKLOADS ("a b c d e f": the
# workloads/ property files), THREADS ("4 8 16 64"), DURATION seconds per
# run (30), ROUNDS (1), TOOLS ("candor candor-other": as in
# bench/sysbench-compare.sh, candor is --session-io auto, candor-other the
# way auto does not choose for that workload and thread count, known from
# the cell's candor run or a 1-second probe; candor-blocking and
# candor-poller force one), SETTLE_MAX (120), AUTOGROUP (bench/lib.sh),
# CANDOR_BIN (bin/candor, built by the script).
#
# The tools run one after the other on the same table; the order alternates
# between cells and rounds. Workloads D and E insert records from key
# RECORDS on, as YCSB does in every run phase, so before each of their runs
# the table is dropped and loaded again (a second run would insert keys the
# first one did). Before each run the
# script waits for the machine to go idle (settle). Throughput is the
# [OVERALL] line of candor's YCSB report; client CPU per operation is the
# kernel's user+system time of the finished candor process over its
# operations.
set -euo pipefail
cd "$(dirname "$0")/.."

DBS=${DBS:-"postgres mariadb"}
RECORDS=${RECORDS:-100000}
WORKLOADS=${WORKLOADS:-"a b c d e f"}
THREADS=${THREADS:-"4 8 16 64"}
DURATION=${DURATION:-30}
ROUNDS=${ROUNDS:-1}
TOOLS=${TOOLS:-"candor candor-other"}
CANDOR_BIN=${CANDOR_BIN:-bin/candor}
RUN_LIMIT=$((DURATION * 3 + 300))
BENCH_NAME=ycsb-session-io

. bench/lib.sh

for tool in $TOOLS; do
	case $tool in
	candor | candor-blocking | candor-poller | candor-other) ;;
	*) die "TOOLS: unknown tool $tool (candor, candor-blocking, candor-poller, candor-other)" ;;
	esac
done
[ "$CANDOR_BIN" = bin/candor ] && make -s build
OUT=$(mktemp -d /tmp/candor-ycsb-session-io.XXXXXX)
log "raw outputs in $OUT"

# candor_run out workload threads [more run options]
candor_run() {
	timeout -k 10 "$RUN_LIMIT" "$CANDOR_BIN" run ycsb -P "workloads/workload$2" -p recordcount="$RECORDS" \
		--target "$URL" --threads "$3" --time "$DURATION" --load never -q --format ycsb \
		-o "${1%.txt}.json" "${@:4}" >"$1"
}

# load db: candor (re)loads the table (cleanup first: --load always would
# run straight on, without settling).
load() {
	"$CANDOR_BIN" cleanup ycsb -P workloads/workloada --target "$URL" -q >"$OUT/$1-cleanup.txt" 2>&1 ||
		{ tail -n 20 "$OUT/$1-cleanup.txt" >&2; die "$1: the cleanup failed"; }
	"$CANDOR_BIN" load ycsb -P workloads/workloada -p recordcount="$RECORDS" --target "$URL" --threads 4 -q \
		-o "$OUT/$1-load.json" >"$OUT/$1-load.txt" 2>&1 ||
		{ tail -n 20 "$OUT/$1-load.txt" >&2; die "$1: the load failed"; }
}

# inserts workload: the workload's property file inserts records.
inserts() { grep -Eq '^insertproportion=0*\.?0*[1-9]' "workloads/workload$1"; }

declare -A OPS CPU USED
# before_probe db workload: the probe of a workload that inserts runs on a
# table loaded again (ensure_auto, bench/lib.sh).
before_probe() { if inserts "$2"; then load "$1"; fi; }

# timed_run db tool workload threads round
timed_run() {
	local db=$1 tool=$2 w=$3 t=$4 round=$5 out c0 c1 ops io=()
	local key="$db $w $t $round $tool"
	out="$OUT/$db-$tool-$w-$t-$round.txt"
	case $tool in
	candor-blocking | candor-poller) io=(--session-io "${tool#candor-}") ;;
	candor-other)
		ensure_auto "$db" "$w" "$t"
		io=(--session-io "$(other_io "$db $w $t")")
		;;
	esac
	inserts "$w" && load "$db"
	settle
	log "$db: $tool workload $w, $t threads, ${DURATION}s (round $round)"
	times >"$OUT/t0"
	if ! candor_run "$out" "$w" "$t" "${io[@]}" 2>"$out.err"; then
		tail -n 20 "$out.err" >&2
		log "$db: $tool workload $w at $t threads failed (output in $out)"
		OPS[$key]=failed
		return
	fi
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(awk -F', ' '/\[OVERALL\], Throughput/ {print $3}' "$out")
	[ -n "$ops" ] || die "$db: no [OVERALL] throughput line in $out"
	OPS[$key]=$(calc "f'{$ops:.0f}'")
	CPU[$key]=$(calc "f'{($c1 - $c0) * 1e6 / ($ops * $DURATION):.1f}'")
	USED[$key]=$(session_io_of "${out%.txt}.json")
	[ "$tool" = candor ] && AUTO[$db $w $t]=${USED[$key]}
	return 0
}

for db in $DBS; do
	start_sandbox "$db" ycsb-session-io
	log "$db: candor loads $RECORDS records"
	load "$db"
	cell=0
	for round in $(seq 1 "$ROUNDS"); do
		for w in $WORKLOADS; do
			for t in $THREADS; do
				order=$TOOLS
				if [ $(((cell + round) % 2)) -eq 0 ]; then
					order=$(echo "$TOOLS" | tr ' ' '\n' | tac | tr '\n' ' ')
				fi
				for tool in $order; do
					timed_run "$db" "$tool" "$w" "$t" "$round"
				done
				cell=$((cell + 1))
			done
		done
	done
	stop_sandboxes
done

read -r -a TOOLV <<<"$TOOLS"
REF=${TOOLV[0]}
echo "candor $("$CANDOR_BIN" version 2>/dev/null | awk 'NR == 1 {print $2}'); YCSB, $RECORDS records, ${DURATION}s per run, $(nproc) cores, client and server on the same machine; $(autogroup_setting)"
echo
head="| db | workload | threads | round | auto chose |"
rule="|---|---|---|---|---|"
for tool in $TOOLS; do head="$head $tool ops/s |" rule="$rule---|"; done
for tool in "${TOOLV[@]:1}"; do head="$head $tool / $REF |" rule="$rule---|"; done
for tool in $TOOLS; do head="$head $tool CPU µs/op |" rule="$rule---|"; done
echo "$head"
echo "$rule"
for db in $DBS; do
	for round in $(seq 1 "$ROUNDS"); do
		for w in $WORKLOADS; do
			for t in $THREADS; do
				k="$db $w $t $round"
				line="| $db | $w | $t | $round | ${AUTO[$db $w $t]:--} |"
				for tool in $TOOLS; do line="$line ${OPS[$k $tool]:--} (${USED[$k $tool]:--}) |"; done
				for tool in "${TOOLV[@]:1}"; do
					r=-
					[[ ${OPS[$k $tool]:-} =~ ^[0-9]+$ && ${OPS[$k $REF]:-} =~ ^[0-9]+$ ]] &&
						r=$(calc "f'{${OPS[$k $tool]} / max(${OPS[$k $REF]}, 1):.2f}'")
					line="$line $r |"
				done
				for tool in $TOOLS; do line="$line ${CPU[$k $tool]:--} |"; done
				echo "$line"
			done
		done
	done
done
log "raw outputs in $OUT"

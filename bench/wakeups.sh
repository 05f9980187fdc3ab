#!/usr/bin/env bash
# wakeups.sh — what a process that does nothing but wake up now and then does
# to a database server's rate on this machine: sysbench 1.0.20 runs one test
# alone, then beside a sleeper (a process that wakes every WAKE_MS ms and
# goes back to sleep), and candor runs the same test, in turn on one
# throwaway server on one table that sysbench prepared.
#
#   bench/wakeups.sh                     # MariaDB, oltp_point_select, 16 threads
#   WAKE_MS=1.5 ROUNDS=3 bench/wakeups.sh
#   DB=postgres THREADS=4 bench/wakeups.sh
#
# Environment: DB (mariadb or postgres; mariadb), TEST (oltp_point_select),
# THREADS (16), DURATION seconds per run (30), ROUNDS (2), TABLE_SIZE
# (1000000), WAKE_MS (10: the sleeper's period; 10 ms is how often the Go
# runtime's monitor thread wakes at the least while a Go program runs),
# MODES (runs per round, in order: "sysbench sleeper sysbench candor";
# sleeper is sysbench beside the sleeper), CANDORS (the candor binary to
# measure; bin/candor, built by the script, by default), AUTOGROUP ("": the
# kernel's autogroups as they are; 0 turns them off for the run, see
# bench/lib.sh). Installs sysbench with apt-get when it is missing (as root).
#
# For each run the script prints the rate, the rate of each 5-second
# interval (a server that changes regime shows it there), the server's CPU
# per transaction (server_cpu_setup in lib.sh) and, when perf can count
# tracepoints (Debian's linux-perf, as root), the futex calls and
# rescheduling interrupts per second of the whole machine over the middle
# of the run: on MariaDB the server's threads wait on a contended mutex
# with futex calls, so their rate says how contended the server is. The
# last table sums the runs of each mode over the rounds.
#
# The sleeper uses almost no CPU: python3 sleeping in a loop.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=wakeups
. bench/lib.sh

DB=${DB:-mariadb}
TEST=${TEST:-oltp_point_select}
THREADS=${THREADS:-16}
DURATION=${DURATION:-30}
ROUNDS=${ROUNDS:-2}
TABLE_SIZE=${TABLE_SIZE:-1000000}
WAKE_MS=${WAKE_MS:-10}
MODES=${MODES:-"sysbench sleeper sysbench candor"}
[ "$DURATION" -ge 15 ] || die "DURATION=$DURATION: runs must last at least 15 s (the counts skip the first 5 s and the last 5)"
for m in $MODES; do
	case $m in sysbench | sleeper | candor) ;; *) die "MODES: unknown mode $m (sysbench, sleeper, candor)" ;; esac
done

candor_bins
[ "${#BINS[@]}" -eq 1 ] || die "CANDORS: one candor binary, not ${#BINS[@]}"
CANDOR_BIN=${BINS[0]}
install_sysbench
OUT=$(mktemp -d /tmp/candor-wakeups.XXXXXX)
sysbench_db "$DB" wakeups "$TABLE_SIZE"
server_cpu_setup "$DB"

# Tracepoints counted over the middle of each run, when perf can.
EVENTS=syscalls:sys_enter_futex,irq_vectors:reschedule_entry
COUNT=$((DURATION - 10))
PERF=0
if command -v perf >/dev/null 2>&1 && perf stat -a -e "$EVENTS" -- true >/dev/null 2>&1; then
	PERF=1
else
	log "perf cannot count $EVENTS here: no futex or interrupt counts"
fi

sleeper() { # seconds: wakes every WAKE_MS ms until then
	python3 -c 'import sys, time
period, end = float(sys.argv[1]) / 1000, time.monotonic() + float(sys.argv[2])
while time.monotonic() < end:
    time.sleep(period)' "$WAKE_MS" "$1"
}

# label MODE names a mode in the tables.
label() { if [ "$1" = sleeper ]; then echo "sysbench + sleeper"; else echo "$1"; fi; }

# run MODE FILE: one run, its report in FILE.
run() {
	if [ "$1" = candor ]; then
		"$CANDOR_BIN" run "sysbench/$TEST" --tables 1 --table-size "$TABLE_SIZE" --threads "$THREADS" \
			--time "$DURATION" --report-interval 5 --target "$URL" --format sysbench --load never \
			--allow-foreign-tables -o "${2%.txt}.json" >"$2" 2>&1
	else
		sysbench "$TEST" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$THREADS" \
			--time="$DURATION" --report-interval=5 run >"$2"
	fi
}

# measure MODE FILE prints "transactions tps server-µs futex/s resched/s intervals".
measure() {
	local before after pid sleeper_pid="" counts="- -"
	[ "$1" = sleeper ] && { sleeper "$DURATION" & sleeper_pid=$!; }
	before=$(server_ticks)
	run "$1" "$2" &
	pid=$!
	if [ "$PERF" = 1 ]; then
		sleep 5
		counts=$(perf stat -x, -a -e "$EVENTS" -- sleep "$COUNT" 2>&1 >/dev/null |
			awk -F, -v s="$COUNT" '/sys_enter_futex/ { f = $1 } /reschedule_entry/ { r = $1 }
				END { printf "%d %d", f / s, r / s }')
	fi
	wait "$pid" || die "$1 failed (see $2)"
	[ -z "$sleeper_pid" ] || wait "$sleeper_pid"
	sleep 1 # the postmaster reaps the backends
	after=$(server_ticks)
	local tx tps
	read -r tx tps < <(transactions "$2")
	[ -n "$tx" ] && [ "$tx" -gt 0 ] || die "$1 reported no transactions (see $2)"
	echo "$tx $tps $(calc "f'{($after - $before) / $TICK * 1e6 / $tx:.1f}'") $counts" \
		"$(grep -o 'tps: [0-9.]*' "$2" | awk '{ printf "%s%.0f", sep, $2; sep = " " }')"
}

log "$DB, $TEST, $THREADS threads, ${DURATION}s runs, sleeper every ${WAKE_MS} ms, $(autogroup_setting); reports in $OUT"
declare -A TX RUNS # mode -> transactions, runs
echo "| round | run | tps | per 5 s | server CPU µs/txn | futex calls/s | resched IPIs/s |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
	i=0
	for mode in $MODES; do
		i=$((i + 1))
		sleep 2
		read -r tx tps srv futex resched intervals < <(measure "$mode" "$OUT/$round-$i-$mode.txt")
		[ -n "${tx:-}" ] || die "run $i of round $round ($mode) failed; see $OUT"
		echo "| $round | $(label "$mode") | $tps | $intervals | $srv | $futex | $resched |"
		TX[$mode]=$((${TX[$mode]:-0} + tx))
		RUNS[$mode]=$((${RUNS[$mode]:-0} + 1))
	done
done
echo
echo "| run | mean tps over the rounds | / sysbench alone |"
echo "|---|---|---|"
base=$(calc "${TX[sysbench]:-0} / ${RUNS[sysbench]:-1} / $DURATION")
for mode in sysbench sleeper candor; do
	[ -n "${TX[$mode]:-}" ] || continue
	mean=$(calc "${TX[$mode]} / ${RUNS[$mode]} / $DURATION")
	ratio=-
	[ "$base" != 0.0 ] && ratio=$(calc "f'{$mean / $base:.2f}'")
	echo "| $(label "$mode") | $(calc "f'{$mean:.0f}'") | $ratio |"
done

#!/usr/bin/env bash
# server-cpu.sh — what each client's transactions cost the server, not only
# the client: sysbench 1.0.20 and one or more candor builds run one sysbench
# test in turn on the same throwaway PostgreSQL or MariaDB, and for every
# run the script prints the rate and the CPU per transaction of the server
# and of the client.
#
#   bench/server-cpu.sh                               # this tree's candor
#   CANDORS="/tmp/old/bin/candor bin/candor" bench/server-cpu.sh
#   DB=mariadb TEST=oltp_read_write bench/server-cpu.sh
#
# Environment: DB (postgres or mariadb; postgres), CANDORS (candor binaries
# to measure, space-separated; bin/candor, built by the script, by default;
# build an older commit with `git worktree add /tmp/old COMMIT && (cd
# /tmp/old && make build)`), TEST (oltp_point_select), THREADS (4), DURATION
# seconds per run (8), ROUNDS (4), TABLE_SIZE (1000000), AUTOGROUP (""; 0
# turns the kernel's autogroups off for the run, see bench/lib.sh).
# sysbench prepares the one table. Each round runs sysbench, then every
# candor in the order given. Installs sysbench with apt-get when it is
# missing (as root).
#
# Server CPU is user + system time from /proc (server_cpu_setup in lib.sh:
# on PostgreSQL the postmaster's and its reaped backends', on MariaDB the
# mariadbd process's). Client CPU is the kernel's user + system time of the
# finished client process (`times`). Each run's line also gives the user-space
# part of both (the rest is the kernel's: system calls, the network stack,
# task switches).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=server-cpu
. bench/lib.sh

DB=${DB:-postgres}
TEST=${TEST:-oltp_point_select}
THREADS=${THREADS:-4}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-4}
TABLE_SIZE=${TABLE_SIZE:-1000000}
candor_bins

install_sysbench
OUT=$(mktemp -d /tmp/candor-server-cpu.XXXXXX) # reports, times, result files
sysbench_db "$DB" server-cpu "$TABLE_SIZE"
server_cpu_setup "$DB"

# measure NAME: one run of NAME (sysbench or a candor binary), in a subshell
# so that `times` counts that run alone; prints "transactions tps server-µs
# client-µs server-user-µs client-user-µs".
measure() {
	local before after ubefore uafter f="$OUT/$round-${2}"
	before=$(server_ticks)
	ubefore=$(server_user_ticks)
	(
		if [ "$1" = sysbench ]; then
			sysbench "$TEST" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$THREADS" \
				--time="$DURATION" run
		else
			"$1" run "sysbench/$TEST" --tables 1 --table-size "$TABLE_SIZE" --threads "$THREADS" \
				--time "$DURATION" --target "$URL" -q --format sysbench --load never \
				--allow-foreign-tables -o "$f.json"
		fi >"$f.out"
		times >"$f.times"
	)
	sleep 1 # the postmaster reaps the backends
	after=$(server_ticks)
	uafter=$(server_user_ticks)
	local tx tps
	read -r tx tps < <(transactions "$f.out")
	[ -n "$tx" ] && [ "$tx" -gt 0 ] || die "$1 reported no transactions (see $f.out)"
	echo "$tx $tps $(calc "f'{($after - $before) / $TICK * 1e6 / $tx:.2f}'") $(calc "f'{$(cpu_seconds "$f.times") * 1e6 / $tx:.2f}'")" \
		"$(calc "f'{($uafter - $ubefore) / $TICK * 1e6 / $tx:.2f}'") $(calc "f'{$(cpu_seconds "$f.times" 1) * 1e6 / $tx:.2f}'")"
}

declare -A SUM # tool -> "tx server client" sums
log "$DB, $TEST, $THREADS threads, $(autogroup_setting)"
echo "| round | tool | tps | server CPU µs/txn | client CPU µs/txn | of which user space: server | client |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
	i=0
	for tool in sysbench "${BINS[@]}"; do
		log "round $round: $tool $TEST, $THREADS threads, ${DURATION}s"
		read -r tx tps srv cli srvu cliu < <(measure "$tool" "$i")
		echo "| $round | $tool | $tps | $srv | $cli | $srvu | $cliu |"
		read -r a b c <<<"${SUM[$tool]:-0 0 0}"
		SUM[$tool]="$((a + tx)) $(calc "$b + $srv") $(calc "$c + $cli")"
		i=$((i + 1))
	done
done
echo
echo "| tool | transactions / sysbench's | mean server CPU µs/txn | mean client CPU µs/txn |"
echo "|---|---|---|---|"
read -r base _ _ <<<"${SUM[sysbench]}"
for tool in sysbench "${BINS[@]}"; do
	read -r a b c <<<"${SUM[$tool]}"
	echo "| $tool | $(calc "f'{$a / $base:.3f}'") | $(calc "f'{$b / $ROUNDS:.2f}'") | $(calc "f'{$c / $ROUNDS:.2f}'") |"
done
log "reports and result files in $OUT"

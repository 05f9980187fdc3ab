#!/usr/bin/env bash
# open-loop.sh — latency at a target rate (--rate), sysbench 1.0.20 beside
# one or more candor builds, on the same throwaway PostgreSQL and MariaDB.
# In an open loop latency counts from each operation's intended start, so a
# client that starts operations late adds its own lateness to every
# latency; at a rate the server meets easily both tools should report about
# the service time.
#
#   bench/open-loop.sh                                  # this tree's candor
#   CANDORS="/tmp/old/bin/candor bin/candor" bench/open-loop.sh
#
# Environment: CANDORS (candor binaries, space-separated; bin/candor, built by
# the script, by default), DBS ("postgres mariadb"), TEST (oltp_point_select),
# THREADS (2), RATES ("200 2000") events per second, DURATION seconds per run
# (5), ROUNDS (3), TABLE_SIZE (100000), AUTOGROUP (""; 0 turns the kernel's
# autogroups off for the run, see bench/lib.sh). sysbench prepares the one
# table per database (sysbench_db); candor runs on it with
# --allow-foreign-tables. Each round runs, per rate, sysbench and then every
# candor in the order given. Installs sysbench with apt-get when it is
# missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=open-loop
. bench/lib.sh

DBS=${DBS:-postgres mariadb}
TEST=${TEST:-oltp_point_select}
THREADS=${THREADS:-2}
RATES=${RATES:-200 2000}
DURATION=${DURATION:-5}
ROUNDS=${ROUNDS:-3}
TABLE_SIZE=${TABLE_SIZE:-100000}
candor_bins
install_sysbench

OUT=$(mktemp -d /tmp/candor-open-loop.XXXXXX)

# report FILE prints "transactions avg p95 max" from a sysbench-style report.
report() {
	awk '/^ *transactions:/ { tx = $2 }
		/^ *avg:/ { avg = $2 }
		/^ *max:/ { max = $2 }
		/percentile:/ { p = $3 }
		END { print tx, avg, p, max }' "$1"
}

echo "| db | rate | round | tool | transactions | avg ms | p95 ms | max ms |"
echo "|---|---|---|---|---|---|---|---|"
for db in $DBS; do
	sysbench_db "$db" open-loop "$TABLE_SIZE"
	for round in $(seq 1 "$ROUNDS"); do
		for rate in $RATES; do
			for tool in sysbench "${BINS[@]}"; do
				f="$OUT/$db-$rate-$round-$(echo "$tool" | tr / _).txt"
				log "round $round: $db, $tool $TEST at $rate/s, $THREADS threads, ${DURATION}s"
				if [ "$tool" = sysbench ]; then
					sysbench "$TEST" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$THREADS" \
						--time="$DURATION" --rate="$rate" run >"$f"
				else
					"$tool" sysbench "$TEST" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$THREADS" \
						--time="$DURATION" --rate="$rate" --allow-foreign-tables --out="$f.json" run >"$f" 2>/dev/null
				fi
				read -r tx avg p95 max < <(report "$f")
				echo "| $db | $rate | $round | $tool | $tx | $avg | $p95 | $max |"
			done
		done
	done
done
log "$(autogroup_setting); reports in $OUT"

#!/usr/bin/env bash
# pgfloor.sh — oltp_point_select on PostgreSQL by sysbench 1.0.20, by the
# least a Go client can do (bench/pgfloor: hand-written protocol messages,
# pgx's pgconn, candor's driver) and by candor, one after the other on the
# same throwaway PostgreSQL, to tell what of candor's distance to sysbench is
# candor's own.
#
#   bench/pgfloor.sh          # defaults below; prints Markdown tables
#
# Environment: TABLE_SIZE (1000000), THREADS (4), DURATION seconds per run
# (8), ROUNDS (4), RAND_TYPES ("special uniform": sysbench's --rand-type,
# special being 1.0.20's default). Each round runs, per distribution,
# sysbench, pgfloor -mode wire, pgconn and conn, and candor, in that order.
# Installs sysbench with apt-get when it is missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=pgfloor
. bench/lib.sh

TABLE_SIZE=${TABLE_SIZE:-1000000}
THREADS=${THREADS:-4}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-4}
RAND_TYPES=${RAND_TYPES:-"special uniform"}
TOOLS=(sysbench wire pgconn conn candor)

install_sysbench
log "building candor and pgfloor"
go build -o bin/candor ./cmd/candor
go build -o bin/pgfloor ./bench/pgfloor

OUT=$(mktemp -d /tmp/candor-pgfloor.XXXXXX) # candor's result files
# sysbench prepares the table, so candor runs on it with either distribution.
sysbench_postgres pgfloor "$TABLE_SIZE"

# tps tool rand-type: one run's transactions per second.
tps() {
	local out
	case $1 in
	sysbench) out=$(sysbench oltp_point_select "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" \
		--threads="$THREADS" --time="$DURATION" --rand-type="$2" run) ;;
	candor) out=$(bin/candor run sysbench/oltp_point_select --tables 1 --table-size "$TABLE_SIZE" \
		--threads "$THREADS" --time "$DURATION" --rand-type="$2" --target "$URL" -q --format sysbench \
		--load never --allow-foreign-tables -o "$OUT/candor-$round-$2.json") ;;
	*) out=$(bin/pgfloor -url "$URL" -mode "$1" -threads "$THREADS" -time "${DURATION}s" \
		-rand-type "$2" -table-size "$TABLE_SIZE") ;;
	esac
	echo "$out" | awk '/transactions:/ { y = $NF; if (y == "sec.)") y = $(NF-2); sub(/^\(/, "", y); printf "%d\n", y; exit }'
}

declare -A TPS # "rand-type tool" -> the rounds' tps, space-separated
echo "| round | rand-type | sysbench | pgfloor wire | pgfloor pgconn | pgfloor conn | candor |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
	for rt in $RAND_TYPES; do
		line="| $round | $rt |"
		for tool in "${TOOLS[@]}"; do
			log "round $round, $rt: $tool"
			t=$(tps "$tool" "$rt")
			TPS[$rt $tool]="${TPS[$rt $tool]:-} $t"
			line="$line $t |"
		done
		echo "$line"
	done
done
echo
echo "| rand-type | tool | mean tps | / sysbench |"
echo "|---|---|---|---|"
mean() { calc "sum(map(int, '$1'.split())) / len('$1'.split())"; }
for rt in $RAND_TYPES; do
	base=$(mean "${TPS[$rt sysbench]}")
	for tool in "${TOOLS[@]}"; do
		m=$(mean "${TPS[$rt $tool]}")
		echo "| $rt | $tool | $(calc "round($m)") | $(calc "f'{$m / $base:.2f}'") |"
	done
done
log "candor's result files in $OUT"

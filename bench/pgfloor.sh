#!/usr/bin/env bash
# pgfloor.sh — oltp_point_select by sysbench 1.0.20, by the least a Go client
# can do (bench/pgfloor: hand-written protocol messages, the driver alone,
# candor's driver) and by candor, one after the other on the same throwaway
# PostgreSQL or MariaDB, to tell what of candor's distance to sysbench is
# candor's own.
#
#   bench/pgfloor.sh                          # PostgreSQL; prints Markdown tables
#   AUTOGROUP=0 DB=mariadb THREADS=16 bench/pgfloor.sh
#
# Environment: DB (postgres or mariadb; postgres), TABLE_SIZE (1000000),
# THREADS (4), DURATION seconds per run (8), ROUNDS (4), RAND_TYPES ("special
# uniform": sysbench's --rand-type, special being 1.0.20's default),
# AUTOGROUP (""; 0 turns the kernel's autogroups off for the run, see
# bench/lib.sh), WARMUP (10: seconds of sysbench, not measured, after the
# prepare). Each round runs, per distribution, sysbench, the pgfloor
# modes (PostgreSQL: wire, pgconn, conn; MariaDB: wire, driver, conn) and
# candor, in that order; FLOOR_MODES ("wire conn", say) runs only those
# modes. Installs sysbench with apt-get when it is missing
# (as root).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=pgfloor
. bench/lib.sh

TABLE_SIZE=${TABLE_SIZE:-1000000}
THREADS=${THREADS:-4}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-4}
RAND_TYPES=${RAND_TYPES:-"special uniform"}
DB=${DB:-postgres}
WARMUP=${WARMUP:-10}
case $DB in
postgres) MODES=(wire pgconn conn) ;;
mariadb) MODES=(wire driver conn) ;;
*) die "DB=$DB: expected postgres or mariadb" ;;
esac
[ -z "${FLOOR_MODES:-}" ] || read -r -a MODES <<<"$FLOOR_MODES"
TOOLS=(sysbench "${MODES[@]}" candor)

install_sysbench
log "building candor and pgfloor"
go build -o bin/candor ./cmd/candor
go build -o bin/pgfloor ./bench/pgfloor

OUT=$(mktemp -d /tmp/candor-pgfloor.XXXXXX) # candor's result files
# sysbench prepares the table, so candor runs on it with either distribution.
sysbench_db "$DB" pgfloor "$TABLE_SIZE"
log "$DB, $THREADS threads, $(autogroup_setting)"
if [ "$WARMUP" -gt 0 ]; then # so that the first measured run does not meet the server fresh from the prepare
	log "warm-up: sysbench for ${WARMUP}s, not measured"
	sysbench oltp_point_select "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$THREADS" --time="$WARMUP" run >/dev/null
fi

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
head="| round | rand-type |" rule="|---|---|"
for tool in "${TOOLS[@]}"; do
	case $tool in sysbench | candor) head="$head $tool |" ;; *) head="$head pgfloor $tool |" ;; esac
	rule="$rule---|"
done
echo "$head"
echo "$rule"
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

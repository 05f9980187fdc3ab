#!/usr/bin/env bash
# ycsb-vs-goycsb.sh — candor beside go-ycsb (its `postgresql` driver) on the
# same throwaway PostgreSQL, same workload property files, alternating runs.
#
#   bench/ycsb-vs-goycsb.sh            # defaults below; prints a Markdown table
#
# Environment: RECORDS (100000), DURATION seconds per run (30), THREADS
# ("4 16"), WORKLOADS ("a c"), ROUNDS (1; each round alternates who goes
# first), LOAD_THREADS (4), LOAD_BATCH (1000: go-ycsb's batch.size in its
# batched load), MARIADB_LOAD (1: also compare the loads on a throwaway
# MariaDB; 0: PostgreSQL only), GOYCSB (path to a go-ycsb binary; built here
# from the Go module proxy into ~/.cache/candor-bench when absent).
#
# Loads are compared in two go-ycsb configurations: its default (one INSERT
# per record) and its best, batch.size=LOAD_BATCH. go-ycsb v1.0.1 batches
# only on MySQL wire (its mysql binding sends one multi-row INSERT IGNORE per
# batch); its pg binding has no batch path, so batch.size falls back to one
# INSERT per record there and the batched PostgreSQL figure shows that.
#
# go-ycsb v1.0.1 ignores maxexecutiontime, so its runs get a huge
# operationcount and one SIGINT after DURATION seconds, sent to go-ycsb
# alone (timeout --foreground; a second signal would make it exit without
# its final report). The script fails when that report ("Run finished", then
# TOTAL) is missing rather than read an interim line. Client CPU per
# operation is read from the kernel's accounting of each finished child
# process (user + system time).
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-100000}
DURATION=${DURATION:-30}
THREADS=${THREADS:-"4 16"}
WORKLOADS=${WORKLOADS:-"a c"}
ROUNDS=${ROUNDS:-1}
LOAD_THREADS=${LOAD_THREADS:-4}
LOAD_BATCH=${LOAD_BATCH:-1000}
MARIADB_LOAD=${MARIADB_LOAD:-1}

. bench/lib.sh

build_goycsb
make -s build
PGDIR=$(mktemp -d /tmp/candor-bench-pg.XXXXXX)
rmdir "$PGDIR"
MYDIR=$(mktemp -d /tmp/candor-bench-mariadb.XXXXXX)
rmdir "$MYDIR"
trap 'scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true; scripts/mariadb-sandbox.sh stop "$MYDIR" >/dev/null 2>&1 || true' EXIT
URL=$(scripts/pg-sandbox.sh start "$PGDIR")
PORT=$(echo "$URL" | sed 's/.*:\([0-9]*\)\/.*/\1/')
PGPROPS=(-p pg.host=127.0.0.1 -p pg.port="$PORT" -p pg.user=postgres -p pg.db=candor -p pg.sslmode=disable)
OUT=$(mktemp -d /tmp/candor-bench.XXXXXX)

# rate N T0 T1 prints N/(T1-T0) rounded.
rate() { python3 -c "print(round($1/($3-$2)))"; }

# load_all DB URL GOYCSB_DRIVER PROPS... loads RECORDS records by candor
# (table candor_usertable), by go-ycsb's default (usertable) and by go-ycsb
# with batch.size=LOAD_BATCH (usertable_batch), and prints a table row.
load_all() {
	local db=$1 url=$2 drv=$3 t0 t1 t2 t3
	shift 3
	t0=$(date +%s.%N)
	bin/candor load ycsb -P workloads/workloada -p recordcount="$RECORDS" -p table=candor_usertable \
		--target "$url" --threads "$LOAD_THREADS" -q -o "$OUT/load-$db.json" >/dev/null 2>&1
	t1=$(date +%s.%N)
	"$GOYCSB" load "$drv" -P workloads/workloada -p recordcount="$RECORDS" -p threadcount="$LOAD_THREADS" \
		"$@" >"$OUT/goycsb-load-$db.txt" 2>&1
	t2=$(date +%s.%N)
	"$GOYCSB" load "$drv" -P workloads/workloada -p recordcount="$RECORDS" -p threadcount="$LOAD_THREADS" \
		-p table=usertable_batch -p batch.size="$LOAD_BATCH" "$@" >"$OUT/goycsb-load-batch-$db.txt" 2>&1
	t3=$(date +%s.%N)
	# A load's report has no TOTAL line when nothing was measured (go-ycsb's
	# batch fallback on PostgreSQL inserts without measuring): require only
	# that it finished.
	for f in "$OUT/goycsb-load-$db.txt" "$OUT/goycsb-load-batch-$db.txt"; do
		grep -q '^Run finished' "$f" || die "go-ycsb's load did not finish: see $f"
	done
	echo "| $db | $(rate "$RECORDS" "$t0" "$t1") | $(rate "$RECORDS" "$t1" "$t2") | $(rate "$RECORDS" "$t2" "$t3") |"
}

echo "Load, $RECORDS records, $LOAD_THREADS threads (records/s; go-ycsb batched: batch.size=$LOAD_BATCH):"
echo
echo "| database | candor | go-ycsb default | go-ycsb batched |"
echo "|---|---|---|---|"
load_all postgresql "$URL" postgresql "${PGPROPS[@]}"
if [ "$MARIADB_LOAD" = 1 ]; then
	MYURL=$(scripts/mariadb-sandbox.sh start "$MYDIR")
	MYPORT=$(echo "$MYURL" | sed 's/.*:\([0-9]*\)\/.*/\1/')
	load_all mariadb "$MYURL" mysql -p mysql.host=127.0.0.1 -p mysql.port="$MYPORT" -p mysql.user=candor \
		-p mysql.password=candor -p mysql.db=candor
	scripts/mariadb-sandbox.sh stop "$MYDIR" >/dev/null 2>&1 || true
fi
echo
echo "| workload | threads | round | candor ops/s | go-ycsb ops/s | ratio | candor CPU µs/op | go-ycsb CPU µs/op |"
echo "|---|---|---|---|---|---|---|---|"

run_candor() { # workload threads -> "ops/s cpu_us_per_op"
	local c0 c1 ops
	times >"$OUT/t0"
	bin/candor run ycsb -P "workloads/workload$1" -p recordcount="$RECORDS" -p table=candor_usertable \
		--target "$URL" --threads "$2" --time "$DURATION" --load never -q --format ycsb \
		-o "$OUT/candor-$1-$2-$3.json" >"$OUT/candor-$1-$2-$3.txt" 2>/dev/null
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(awk -F', ' '/\[OVERALL\], Throughput/ {print $3}' "$OUT/candor-$1-$2-$3.txt")
	python3 -c "print(f'{$ops:.0f}', f'{($c1-$c0)*1e6/($ops*$DURATION):.1f}')"
}

run_goycsb() {
	local c0 c1 ops
	times >"$OUT/t0"
	# One SIGINT to go-ycsb alone (--foreground: not to its process group
	# as well); SIGKILL 60 s later if it hangs, and then no final report.
	timeout --foreground -k 60 -s INT "$DURATION" "$GOYCSB" run postgresql -P "workloads/workload$1" \
		-p recordcount="$RECORDS" -p operationcount=1000000000 -p threadcount="$2" "${PGPROPS[@]}" \
		>"$OUT/goycsb-$1-$2-$3.txt" 2>&1 || true
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(final_total "$OUT/goycsb-$1-$2-$3.txt") || exit 1
	python3 -c "print(f'{$ops:.0f}', f'{($c1-$c0)*1e6/($ops*$DURATION):.1f}')"
}

for round in $(seq 1 "$ROUNDS"); do
	for w in $WORKLOADS; do
		for t in $THREADS; do
			if [ $((round % 2)) -eq 1 ]; then
				read -r cops ccpu < <(run_candor "$w" "$t" "$round")
				read -r gops gcpu < <(run_goycsb "$w" "$t" "$round")
			else
				read -r gops gcpu < <(run_goycsb "$w" "$t" "$round")
				read -r cops ccpu < <(run_candor "$w" "$t" "$round")
			fi
			ratio=$(python3 -c "print(f'{$cops/$gops:.2f}')")
			echo "| $w | $t | $round | $cops | $gops | $ratio | $ccpu | $gcpu |"
		done
	done
done
log "raw outputs in $OUT"

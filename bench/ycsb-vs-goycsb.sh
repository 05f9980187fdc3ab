#!/usr/bin/env bash
# ycsb-vs-goycsb.sh — candor beside go-ycsb (its `postgresql` driver) on the
# same throwaway PostgreSQL, same workload property files, alternating runs.
#
#   bench/ycsb-vs-goycsb.sh            # defaults below; prints a Markdown table
#
# Environment: RECORDS (100000), DURATION seconds per run (30), THREADS
# ("4 16"), WORKLOADS ("a c"), ROUNDS (1; each round alternates who goes
# first), LOAD_THREADS (4), GOYCSB (path to a go-ycsb binary; built here from
# the Go module proxy into ~/.cache/candor-bench when absent).
#
# go-ycsb v1.0.1 ignores maxexecutiontime, so its runs get a huge
# operationcount and SIGINT after DURATION seconds (it then prints its
# totals). Client CPU per operation is read from the kernel's accounting of
# each finished child process (user + system time).
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-100000}
DURATION=${DURATION:-30}
THREADS=${THREADS:-"4 16"}
WORKLOADS=${WORKLOADS:-"a c"}
ROUNDS=${ROUNDS:-1}
LOAD_THREADS=${LOAD_THREADS:-4}
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/candor-bench
GOYCSB=${GOYCSB:-$CACHE/go-ycsb}
GOYCSB_VERSION=v1.0.1

. bench/lib.sh

build_goycsb() {
	[ -x "$GOYCSB" ] && return
	log "building go-ycsb $GOYCSB_VERSION in a scratch module (a few minutes)"
	local src=$CACHE/goycsb-src
	mkdir -p "$src"
	cat >"$src/go.mod" <<EOF
module scratch/goycsb

go 1.26
EOF
	printf '//go:build tools\n\npackage tools\n\nimport _ "github.com/pingcap/go-ycsb/cmd/go-ycsb"\n' >"$src/tools.go"
	(cd "$src" && go get "github.com/pingcap/go-ycsb@$GOYCSB_VERSION" && go mod tidy -e >/dev/null 2>&1 &&
		go build -o "$GOYCSB" github.com/pingcap/go-ycsb/cmd/go-ycsb)
}

build_goycsb
make -s build
PGDIR=$(mktemp -d /tmp/candor-bench-pg.XXXXXX)
rmdir "$PGDIR"
trap 'scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true' EXIT
URL=$(scripts/pg-sandbox.sh start "$PGDIR")
PORT=$(echo "$URL" | sed 's/.*:\([0-9]*\)\/.*/\1/')
PGPROPS=(-p pg.host=127.0.0.1 -p pg.port="$PORT" -p pg.user=postgres -p pg.db=candor -p pg.sslmode=disable)
OUT=$(mktemp -d /tmp/candor-bench.XXXXXX)

# Load both tables (candor's: candor_usertable; go-ycsb's: usertable).
t0=$(date +%s.%N)
bin/candor load ycsb -P workloads/workloada -p recordcount="$RECORDS" -p table=candor_usertable \
	--target "$URL" --threads "$LOAD_THREADS" -q -o "$OUT/load.json" >/dev/null 2>&1
t1=$(date +%s.%N)
"$GOYCSB" load postgresql -P workloads/workloada -p recordcount="$RECORDS" -p threadcount="$LOAD_THREADS" \
	"${PGPROPS[@]}" >"$OUT/goycsb-load.txt" 2>&1
t2=$(date +%s.%N)
echo "| load $RECORDS records, $LOAD_THREADS threads | candor $(python3 -c "print(round($RECORDS/($t1-$t0)))") records/s | go-ycsb $(python3 -c "print(round($RECORDS/($t2-$t1)))") records/s |"
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
	timeout -s INT "$DURATION" "$GOYCSB" run postgresql -P "workloads/workload$1" -p recordcount="$RECORDS" \
		-p operationcount=1000000000 -p threadcount="$2" "${PGPROPS[@]}" >"$OUT/goycsb-$1-$2-$3.txt" 2>&1 || true
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(awk '/^TOTAL/ {for (i=1;i<=NF;i++) if ($i=="OPS:") {gsub(",","",$(i+1)); print $(i+1)}}' "$OUT/goycsb-$1-$2-$3.txt" | tail -1)
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

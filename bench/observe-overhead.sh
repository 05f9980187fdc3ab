#!/usr/bin/env bash
# observe-overhead.sh — what the live metrics endpoint and the server-counter
# sampler cost: ycsb/c with both on (--metrics-addr, scraped every second,
# and the default --server-counters) against both off (--server-counters=false,
# no endpoint), alternating off/on ROUNDS times, on null:// and on a throwaway
# PostgreSQL (or PG_URL). Prints each pair (throughput, and the client's CPU
# per operation) and the median of on/off.
#
#   bench/observe-overhead.sh       # ROUNDS (5), TIME (10), THREADS (4), RECORDS (100000), PG_URL (a sandbox)
#
# Scraping every second is 15 times Prometheus's default interval: the cost
# of a scrape is in the figures with room to spare.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=observe-overhead
. bench/lib.sh
ROUNDS=${ROUNDS:-5}
TIME=${TIME:-10}
THREADS=${THREADS:-4}
RECORDS=${RECORDS:-100000}
candor_bins
BIN=${BINS[0]}
OUT=$(mktemp -d /tmp/candor-observe-bench.XXXXXX)
PGDIR=""
cleanup() {
	[ -n "${SCRAPER:-}" ] && kill "$SCRAPER" 2>/dev/null || true
	[ -n "$PGDIR" ] && scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true
}
trap cleanup EXIT
if [ -z "${PG_URL:-}" ]; then
	PGDIR=$(mktemp -d /tmp/candor-bench-pg.XXXXXX)
	rmdir "$PGDIR"
	PG_URL=$(scripts/pg-sandbox.sh start "$PGDIR" 2>/dev/null)
fi
PORT=$(python3 -c 'import socket;s=socket.socket();s.bind(("127.0.0.1",0));print(s.getsockname()[1])')

# one NAME URL MODE: one run, printing its throughput.
one() {
	local name=$1 url=$2 mode=$3 f="$OUT/$1-$3-$round.json"
	local args=(run ycsb/c --target "$url" -p recordcount="$RECORDS" --threads "$THREADS" --time "$TIME" --warmup 2s -q -o "$f")
	if [ "$mode" = on ]; then
		( while sleep 1; do curl -s -o /dev/null "http://127.0.0.1:$PORT/metrics" || true; done ) &
		SCRAPER=$!
		"$BIN" "${args[@]}" --metrics-addr "127.0.0.1:$PORT" >/dev/null
		kill "$SCRAPER"; wait "$SCRAPER" 2>/dev/null || true; SCRAPER=""
	else
		"$BIN" "${args[@]}" --server-counters=false >/dev/null
	fi
	python3 -c "import json;p=json.load(open('$f'))['phases'][-1];print(round(p['throughput']), round(p['client']['cpu_ns_per_op']))"
}

for target in "null null://" "postgres $PG_URL"; do
	read -r name url <<<"$target"
	"$BIN" load ycsb/c --target "$url" -p recordcount="$RECORDS" -q -o "$OUT/$name-load.json" >/dev/null 2>&1 || true
	echo "$name: | round | off ops/s | on ops/s | on/off | off client ns/op | on client ns/op |"
	echo "$name: |---|---|---|---|---|---|"
	ratios=()
	for round in $(seq 1 "$ROUNDS"); do
		read -r off offcpu <<<"$(one "$name" "$url" off)"
		read -r on oncpu <<<"$(one "$name" "$url" on)"
		r=$(calc "round($on/$off, 4)")
		ratios+=("$r")
		echo "$name: | $round | $off | $on | $r | $offcpu | $oncpu |"
	done
	echo "$name: median on/off $(python3 -c "import statistics,sys;print(statistics.median(map(float,sys.argv[1:])))" "${ratios[@]}")"
	"$BIN" cleanup ycsb --target "$url" >/dev/null 2>&1 || true
done

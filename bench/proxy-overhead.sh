#!/usr/bin/env bash
# proxy-overhead.sh — what the in-process network-fault proxy adds to a
# point select: sysbench's oltp_point_select at 4 threads, directly and
# through the proxy (--via-proxy: the proxy without any fault), alternating,
# on one throwaway PostgreSQL. The issue's bound: at most 50 µs on the
# median.
#
#   bench/proxy-overhead.sh
#   ROUNDS=5 DURATION=20 bench/proxy-overhead.sh
#
# Environment: CANDORS (a candor binary; bin/candor by default), PG_URL (a
# PostgreSQL to use instead of a throwaway one), ROUNDS (3), DURATION
# seconds per run (10), THREADS (4), TABLE_SIZE (10000).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=proxy-overhead
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
THREADS=${THREADS:-4}
TABLE_SIZE=${TABLE_SIZE:-10000}
candor_bins
CANDOR=${BINS[0]}
OUT=$(mktemp -d /tmp/candor-proxy-overhead.XXXXXX)
chmod 755 "$OUT" # the sandbox may run as user postgres
if [ -z "${PG_URL:-}" ]; then
	PG_URL=$(scripts/pg-sandbox.sh start "$OUT/pg")
	trap 'scripts/pg-sandbox.sh stop "$OUT/pg" >/dev/null 2>&1 || true' EXIT
fi
"$CANDOR" load sysbench/oltp_point_select --target "$PG_URL" --table-size "$TABLE_SIZE" -q -o "$OUT/load.json" >/dev/null

for r in $(seq "$ROUNDS"); do
	for v in direct proxy; do
		flag=()
		[ "$v" = proxy ] && flag=(--via-proxy)
		"$CANDOR" run sysbench/oltp_point_select --target "$PG_URL" --table-size "$TABLE_SIZE" --threads "$THREADS" \
			--time "$DURATION" "${flag[@]}" -q -o "$OUT/$v-$r.json" >/dev/null
		log "round $r $v done"
	done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, sys, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])
fig = {}
for v in ("direct", "proxy"):
    p50, thr = [], []
    for r in range(1, rounds + 1):
        p = [x for x in json.load(open(f"{out}/{v}-{r}.json"))["phases"] if x["name"] == "run"][-1]
        op = [o for o in p["operations"] if o.get("count", 0) > 0][0]
        p50.append(op["latency"]["p50"] / 1000)
        thr.append(p["throughput"])
    fig[v] = st.mean(p50)
    print(f"{v:6s} median {fig[v]:7.1f} µs  {st.mean(thr):9.0f} ops/s  (medians {', '.join(f'{x:.1f}' for x in p50)})")
print(f"proxy adds {fig['proxy'] - fig['direct']:+.1f} µs to the median")
PY

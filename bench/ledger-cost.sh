#!/usr/bin/env bash
# ledger-cost.sh — what the durability ledger costs: commit-loop with and
# without --ledger, alternating, on one throwaway PostgreSQL, and the
# ledger's append alone (a Go benchmark).
#
#   bench/ledger-cost.sh
#   ROUNDS=5 ROWS=20000 bench/ledger-cost.sh
#
# Environment: CANDORS (a candor binary; bin/candor, built by the script, by
# default), PG_URL (a PostgreSQL to use instead of a throwaway one), ROUNDS
# (3) pairs of runs, ROWS (20000) rows per run, JOBS (1), SYNC_COMMIT (off:
# the server does not wait for its disk, so commits are fast and the
# client's share of each is easiest to see; "on" for the published
# setting). Prints, per
# variant, the mean rows/s and client CPU per write over the rounds, and the
# differences. The issue's bounds: at most 2 µs of client CPU per write and
# at most 5% of commit-loop's rate.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=ledger-cost
. bench/lib.sh

ROUNDS=${ROUNDS:-3}
ROWS=${ROWS:-20000}
SYNC_COMMIT=${SYNC_COMMIT:-off}
JOBS=${JOBS:-1}
candor_bins
CANDOR=${BINS[0]}
OUT=$(mktemp -d /tmp/candor-ledger-cost.XXXXXX)
chmod 755 "$OUT" # the sandbox may run as user postgres
if [ -z "${PG_URL:-}" ]; then
	PG_URL=$(scripts/pg-sandbox.sh start "$OUT/pg")
	trap 'scripts/pg-sandbox.sh stop "$OUT/pg" >/dev/null 2>&1 || true' EXIT
fi

case $PG_URL in *\?*) URL="$PG_URL&" ;; *) URL="$PG_URL?" ;; esac
URL="${URL}options=-c%20synchronous_commit%3D$SYNC_COMMIT"

log "Go benchmark of the append alone"
go test -run '^$' -bench Append -benchtime 200000x ./internal/ledger/ | grep -E 'ns/op' >&2

for r in $(seq "$ROUNDS"); do
	for v in plain ledger; do
		flag=()
		[ "$v" = ledger ] && flag=(--ledger)
		"$CANDOR" run commit-loop --target "$URL" --rows "$ROWS" --jobs "$JOBS" "${flag[@]}" -q \
			-o "$OUT/$v-$r.json" >/dev/null
		log "round $r $v done"
	done
done

python3 - "$OUT" "$ROUNDS" <<'PY'
import json, sys, statistics as st
out, rounds = sys.argv[1], int(sys.argv[2])
fig = {}
for v in ("plain", "ledger"):
    rates, cpu = [], []
    for r in range(1, rounds + 1):
        p = [x for x in json.load(open(f"{out}/{v}-{r}.json"))["phases"] if x["name"] == "run"][-1]
        rates.append(p["throughput"])
        cpu.append(p["client"]["cpu_ns_per_op"] / 1000)
    fig[v] = (st.mean(rates), st.mean(cpu))
    print(f"{v:7s} {fig[v][0]:9.1f} rows/s  {fig[v][1]:7.2f} µs client CPU per write  (rates {', '.join(f'{x:.0f}' for x in rates)})")
d = 100 * (fig["ledger"][0] - fig["plain"][0]) / fig["plain"][0]
print(f"ledger: {d:+.1f}% rows/s, {fig['ledger'][1] - fig['plain'][1]:+.2f} µs client CPU per write")
PY

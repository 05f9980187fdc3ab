#!/usr/bin/env bash
# commitloop-vs-pgbench.sh — the single-session commit test: candor's
# commit-loop beside pgbench running a one-row INSERT per transaction with one
# client, on the same throwaway PostgreSQL, alternating, ROUNDS times; then
# commit-loop --in-server (the published DO-block loop) and kv-basic's client
# CPU figures.
#
#   bench/commitloop-vs-pgbench.sh     # ROWS (10000), ROUNDS (3), KV_PAIRS (20000), KV_TIME (20)
#
# pgbench's script is `INSERT INTO pgb_loop DEFAULT VALUES` into
# (i serial primary key, t timestamp default clock_timestamp()): pgbench has
# no per-transaction counter to supply i, so the key comes from a sequence;
# candor sends i itself. Both commit one row per transaction (autocommit).
set -euo pipefail
cd "$(dirname "$0")/.."
ROWS=${ROWS:-10000}
ROUNDS=${ROUNDS:-3}
KV_PAIRS=${KV_PAIRS:-20000}
KV_TIME=${KV_TIME:-20}

make -s build
PGDIR=$(mktemp -d /tmp/candor-bench-pg.XXXXXX)
rmdir "$PGDIR"
trap 'scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true' EXIT
URL=$(scripts/pg-sandbox.sh start "$PGDIR" 2>/dev/null)
PORT=$(cat "$PGDIR/port")
BIN=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
PSQL=("$BIN/psql" -X -q -h 127.0.0.1 -p "$PORT" -U postgres -d candor)
OUT=$(mktemp -d /tmp/candor-bench.XXXXXX)
echo 'INSERT INTO pgb_loop DEFAULT VALUES;' >"$OUT/insert.sql"

echo "| round | candor rows/s (client) | candor rows/s (server) | pgbench tps | ratio candor/pgbench |"
echo "|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
	"${PSQL[@]}" -c "DROP TABLE IF EXISTS pgb_loop; CREATE TABLE pgb_loop (i serial PRIMARY KEY, t timestamp DEFAULT clock_timestamp())"
	run_candor() {
		bin/candor run commit-loop --rows "$ROWS" --target "$URL" -q --format json -o "$OUT/c$round.json" >"$OUT/c$round.out"
		python3 -c "import json;p=json.load(open('$OUT/c$round.json'))['phases'][-1];print(round(p['throughput']),round(p['derived']['server_rows_per_s']))"
	}
	run_pgbench() {
		"$BIN/pgbench" -n -c 1 -t "$ROWS" -f "$OUT/insert.sql" -h 127.0.0.1 -p "$PORT" -U postgres candor 2>/dev/null |
			awk '/^tps = / {print int($3)}'
	}
	if [ $((round % 2)) -eq 1 ]; then
		read -r cc cs < <(run_candor); pg=$(run_pgbench)
	else
		pg=$(run_pgbench); read -r cc cs < <(run_candor)
	fi
	echo "| $round | $cc | $cs | $pg | $(python3 -c "print(f'{$cc/$pg:.3f}')") |"
done
bin/candor run commit-loop --rows "$ROWS" --in-server --target "$URL" -q -o "$OUT/inserver.json" >/dev/null
python3 -c "import json;p=json.load(open('$OUT/inserver.json'))['phases'][-1];print(f\"\nin-server DO block: {p['derived']['server_rows_per_s']:.0f} rows/s (server), {p['derived']['rows']:.0f} rows\")"

bin/candor run kv-basic --pairs "$KV_PAIRS" --threads 4 --time "$KV_TIME" --target "$URL" -q -o "$OUT/kv.json" >/dev/null
python3 - "$OUT/kv.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1])); p = r['phases'][-1]; c = p['client']
print(f"\nkv-basic, {r['run']['threads']} threads, 12 KB payloads: {p['throughput']:.0f} ops/s; client {c['cpu_ns_per_op']/1000:.1f} µs CPU per operation, "
      f"{c['avg_cores']:.2f} cores = {100*c['avg_cores']/r['provenance']['cores']:.0f}% of the machine; host {100*c['host_busy']:.0f}% busy; saturated: {c['saturated']}")
PY
echo "raw outputs in $OUT" >&2

#!/usr/bin/env bash
# pgbench-compare.sh — `candor pgbench` beside pgbench 15 itself, on the same
# throwaway PostgreSQL and the same tables, with the same command line:
# tpcb-like, select-only and a custom script (bench/pgbench-custom.sql),
# CLIENTS clients, alternating the tools' order round by round. Prints a
# Markdown table: each tool's tps and client CPU per transaction (user +
# system seconds of the process, from /usr/bin/time, over the transactions
# it reports), its context switches per transaction (voluntary +
# involuntary, from /usr/bin/time: a session that waits for its reply alone
# on a thread switches once a statement, a thread that waits for several
# clients at once less often), and candor's ratios to pgbench's, averaged
# over the rounds.
#
#   bench/pgbench-compare.sh     # DURATION (20 s), ROUNDS (3), CLIENTS ("4 16"),
#                                # SCALE (10), PROTOCOL (prepared), JOBS (1: -j of both tools; "clients":
#                                # -j equal to -c, a thread per client),
#                                # TESTS ("tpcb-like select-only custom"), CANDOR_ARGS (extra
#                                # options for candor, e.g. "--session-io poller")
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=pgbench-compare
. bench/lib.sh
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-3}
CLIENTS=${CLIENTS:-"4 16"}
SCALE=${SCALE:-10}
PROTOCOL=${PROTOCOL:-prepared}
JOBS=${JOBS:-1}
TESTS=${TESTS:-"tpcb-like select-only custom"}
read -r -a CANDOR_ARGS <<<"${CANDOR_ARGS:-}"
PGBENCH=$(ls -d /usr/lib/postgresql/*/bin/pgbench 2>/dev/null | sort -V | tail -1)
[ -x "$PGBENCH" ] || die "no pgbench (PostgreSQL's client)"

candor_bins
start_sandbox postgres pgbench
PORT=$(cat "$DIR/port")
OUT=$(mktemp -d /tmp/candor-pgbench-compare.XXXXXX)
log "loading scale $SCALE with candor pgbench -i"
"${BINS[0]}" pgbench -i -s "$SCALE" --target "$URL" -o "$OUT/init.json" >/dev/null 2>&1
"$PGBENCH" -h 127.0.0.1 -p "$PORT" -U postgres candor >/dev/null 2>&1 -c 1 -t 1 # warms the catalog caches

# run TOOL TEST C R: one run; prints "tps transactions cpu_seconds context_switches".
run() {
	local tool=$1 test=$2 c=$3 r=$4 script=(-b "$2")
	[ "$test" = custom ] && script=(-f bench/pgbench-custom.sql)
	local j=$JOBS
	[ "$j" = clients ] && j=$c
	local args=(-n -c "$c" -j "$j" -T "$DURATION" -M "$PROTOCOL" "${script[@]}" -h 127.0.0.1 -p "$PORT" -U postgres candor)
	local o="$OUT/$tool-$test-$c-$r"
	if [ "$tool" = pgbench ]; then
		/usr/bin/time -f "%U %S %w %c" -o "$o.cpu" "$PGBENCH" "${args[@]}" >"$o.out" 2>"$o.err"
	else
		/usr/bin/time -f "%U %S %w %c" -o "$o.cpu" "${BINS[0]}" pgbench "${args[@]}" "${CANDOR_ARGS[@]}" -o "$o.json" >"$o.out" 2>"$o.err"
	fi
	local tps n cpu cs
	tps=$(awk '/^tps = / {print $3}' "$o.out")
	n=$(awk -F': ' '/^number of transactions actually processed/ {print $2}' "$o.out")
	cpu=$(tail -1 "$o.cpu" | awk '{print $1 + $2}')
	cs=$(tail -1 "$o.cpu" | awk '{print $3 + $4}')
	echo "$tps $n $cpu $cs"
}

echo "| script | clients | pgbench tps | candor tps | tps ratio | pgbench µs CPU/tx | candor µs CPU/tx | CPU ratio | pgbench switches/tx | candor switches/tx |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for test in $TESTS; do
	for c in $CLIENTS; do
		rows=()
		for r in $(seq 1 "$ROUNDS"); do
			if [ $((r % 2)) -eq 1 ]; then
				p=$(run pgbench "$test" "$c" "$r"); k=$(run candor "$test" "$c" "$r")
			else
				k=$(run candor "$test" "$c" "$r"); p=$(run pgbench "$test" "$c" "$r")
			fi
			rows+=("$p $k")
			log "$test c=$c round $r: pgbench $p | candor $k"
		done
		printf '%s\n' "${rows[@]}" | python3 -c "
import sys
rs = [list(map(float, l.split())) for l in sys.stdin if l.strip()]
n = len(rs)
ptps = sum(r[0] for r in rs) / n; ktps = sum(r[4] for r in rs) / n
pcpu = sum(r[2] / r[1] * 1e6 for r in rs) / n; kcpu = sum(r[6] / r[5] * 1e6 for r in rs) / n
tr = sum(r[4] / r[0] for r in rs) / n; cr = sum((r[6] / r[5]) / (r[2] / r[1]) for r in rs) / n
pcs = sum(r[3] / r[1] for r in rs) / n; kcs = sum(r[7] / r[5] for r in rs) / n
print(f'| $test | $c | {ptps:.0f} | {ktps:.0f} | {tr:.2f} | {pcpu:.1f} | {kcpu:.1f} | {cr:.2f} | {pcs:.1f} | {kcs:.1f} |')
"
	done
done
log "outputs in $OUT"

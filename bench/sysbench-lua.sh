#!/usr/bin/env bash
# sysbench-lua.sh — sysbench Lua scripts run by candor's embedded Lua
# (sysbench-lua) beside sysbench 1.0.20 running the same scripts, and beside
# candor's Go implementation of oltp_read_write, on one throwaway MariaDB.
#
#   bench/sysbench-lua.sh      # TABLE_SIZE (100000), THREADS ("4 16"), DURATION (20), ROUNDS (2)
#
# Scripts: bench/sysbench-lua/point_update.lua (a user's transaction: BEGIN,
# a point SELECT, an UPDATE of the indexed column, COMMIT, with prepared
# statements) and sysbench's own /usr/share/sysbench/oltp_read_write.lua.
# Tools, one after the other for each script and thread count, their order
# alternating between rounds: sysbench SCRIPT run; candor sysbench SCRIPT
# run (the Lua path); and for oltp_read_write candor sysbench
# oltp_read_write run (candor's Go implementation, on sysbench's table with
# --allow-foreign-tables). sysbench prepares one table of TABLE_SIZE rows.
#
# Printed per run: transactions per second (each tool's own report) and
# client CPU per transaction (user + system seconds of the tool's process,
# from `times`, over its transactions, start-up and result file included),
# and for candor its own figure for the run phase alone (the result's
# client.cpu_ns_per_op); then the ratios per script and thread count,
# averaged over the rounds: candor-Lua's throughput over
# sysbench's, its CPU per transaction over sysbench's, and for
# oltp_read_write its CPU per transaction over candor-Go's.
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
BENCH_NAME=sysbench-lua
TABLE_SIZE=${TABLE_SIZE:-100000}
THREADS=${THREADS:-"4 16"}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-2}

install_sysbench
make -s build
start_sandbox mariadb lua
sysbench_conn mariadb "$URL"
log "sysbench prepares 1 table of $TABLE_SIZE rows"
sysbench oltp_common "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" prepare >/dev/null
OUT=$(mktemp -d /tmp/candor-bench-lua.XXXXXX)
CUSTOM=$PWD/bench/sysbench-lua/point_update.lua
ORW=/usr/share/sysbench/oltp_read_write.lua

# one TOOL SCRIPT THREADS FILE runs one tool and prints "tps cpu_us_per_txn".
one() {
	local tool=$1 script=$2 threads=$3 f=$4
	local common=("${SB[@]}" --table-size="$TABLE_SIZE" --threads="$threads" --time="$DURATION")
	(
		case $tool in
		sysbench) sysbench "${common[@]}" "$script" run ;;
		candor-lua) bin/candor sysbench "${common[@]}" --out="$f.json" "$script" run ;;
		candor-go) bin/candor sysbench "${common[@]}" --out="$f.json" --allow-foreign-tables oltp_read_write run ;;
		esac >"$f.out"
		times >"$f.times"
	)
	read -r n tps < <(transactions "$f.out")
	local inrun=-
	if [ -f "$f.json" ]; then
		inrun=$(python3 -c "import json, sys; print(round(json.load(open(sys.argv[1]))['phases'][-1]['client']['cpu_ns_per_op'] / 1000, 1))" "$f.json")
	fi
	echo "$tps $(calc "round($(cpu_seconds "$f.times") / $n * 1e6, 1)") $inrun"
}

echo "| round | script | threads | tool | tps | client CPU µs/txn | in the run phase (candor's own) |"
echo "|---|---|---|---|---|---|---|"
for round in $(seq 1 "$ROUNDS"); do
	for script in "$CUSTOM" "$ORW"; do
		name=$(basename "$script" .lua)
		tools=(sysbench candor-lua)
		[ "$script" = "$ORW" ] && tools+=(candor-go)
		if [ $((round % 2)) -eq 0 ]; then
			tools=($(printf '%s\n' "${tools[@]}" | tac))
		fi
		for th in $THREADS; do
			for tool in "${tools[@]}"; do
				settle
				read -r tps cpu inrun < <(one "$tool" "$script" "$th" "$OUT/$round-$name-$th-$tool")
				echo "| $round | $name | $th | $tool | $tps | $cpu | $inrun |"
				echo "$name $th $tool $tps $cpu $inrun" >>"$OUT/all"
			done
		done
	done
done

echo
echo "| script | threads | candor-Lua / sysbench tps | candor-Lua / sysbench CPU per txn | candor-Lua / candor-Go CPU per txn | the same, run phase only |"
echo "|---|---|---|---|---|---|"
python3 - "$OUT/all" <<'EOF'
import collections, statistics, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    name, th, tool, tps, cpu, inrun = line.split()
    runs[(name, int(th), tool)].append((float(tps), float(cpu), float(inrun) if inrun != "-" else 0.0))
def mean(key, i):
    return statistics.mean(v[i] for v in runs[key]) if runs.get(key) else None
for name in dict.fromkeys(k[0] for k in runs):
    for th in sorted({k[1] for k in runs if k[0] == name}):
        sb, lua, go = (name, th, "sysbench"), (name, th, "candor-lua"), (name, th, "candor-go")
        go_ratio = f"{mean(lua, 1) / mean(go, 1):.2f}" if runs.get(go) else "–"
        go_inrun = f"{mean(lua, 2) / mean(go, 2):.2f}" if runs.get(go) else "–"
        print(f"| {name} | {th} | {mean(lua, 0) / mean(sb, 0):.2f} | {mean(lua, 1) / mean(sb, 1):.2f} | {go_ratio} | {go_inrun} |")
EOF

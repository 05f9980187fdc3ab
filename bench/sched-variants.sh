#!/usr/bin/env bash
# sched-variants.sh — ways for candor's blocking sessions to hand their Go
# scheduler slot back (internal/target/blockconn/sched.go), each measured
# beside sysbench 1.0.20 on one throwaway PostgreSQL or MariaDB.
#
#   bench/sched-variants.sh            # defaults below; prints a Markdown table
#
# It builds the committed HEAD with bench/patches/sched-variants.patch applied
# (in a temporary git worktree; uncommitted changes are not measured), which
# reads three variables in blockconn.Reserve: CANDOR_YIELD, the milliseconds
# a session keeps its P before it yields (0: never), CANDOR_SYNC=1, yield
# once per slot of that length counted from a shared clock, so that the
# sessions' yields fall together, and CANDOR_SPARE, Ps beyond one per
# session (1). Variants are named [p<spare>]y<ms> and [p<spare>]sync<ms>: y5
# is candor as released (GOMAXPROCS threads+1), p0y5 the same with
# GOMAXPROCS threads.
#
# Environment: DB (postgres or mariadb; postgres), VARIANTS ("y5 p0y5 sync5
# y0"), CONFIGS (test:threads pairs, "oltp_point_select:4
# oltp_point_select:16 oltp_read_write:4 oltp_read_write:16"), ROUNDS (4),
# DURATION seconds per run (8), TABLE_SIZE (1000000), AUTOGROUP (""; 0 turns
# the kernel's autogroups off for the run, see bench/lib.sh). candor prepares one table once; every round runs, per config,
# sysbench and then each variant on it, the variants' order rotating by
# round. Per run: the tool's own transactions per second, its client CPU per
# transaction (user+system time of the finished process, from `times`) and
# the whole machine's busy CPU per transaction (/proc/stat), which includes
# the server's. The table gives per config the median over rounds of each
# run's ratio to the sysbench run of its round, and the medians of the CPU
# figures. Installs sysbench with apt-get when it is missing (as root).
set -euo pipefail
cd "$(dirname "$0")/.."

DB=${DB:-postgres}
VARIANTS=${VARIANTS:-"y5 p0y5 sync5 y0"}
CONFIGS=${CONFIGS:-"oltp_point_select:4 oltp_point_select:16 oltp_read_write:4 oltp_read_write:16"}
ROUNDS=${ROUNDS:-4}
DURATION=${DURATION:-8}
TABLE_SIZE=${TABLE_SIZE:-1000000}

BENCH_NAME=sched-variants
. bench/lib.sh

for v in $VARIANTS; do
	[[ $v =~ ^(p[0-9]+)?(y|sync)[0-9]+$ ]] || die "variant $v: write [p<spare>]y<ms> or [p<spare>]sync<ms>, e.g. y5, p0y5 or sync5"
done
install_sysbench

WORK=$(mktemp -d /tmp/candor-sched-variants.XXXXXX)
cleanup() {
	bench_exit # the server, and AUTOGROUP's setting
	git worktree remove --force "$WORK/src" >/dev/null 2>&1 || true
	rm -rf "$WORK"
}
trap cleanup EXIT

log "building HEAD with bench/patches/sched-variants.patch"
git worktree add --detach -q "$WORK/src" HEAD
git -C "$WORK/src" apply "$PWD/bench/patches/sched-variants.patch"
(cd "$WORK/src" && go build -o "$WORK/candor" ./cmd/candor)

start_sandbox "$DB" sched # sets URL; applies AUTOGROUP
trap cleanup EXIT         # start_sandbox's own trap stops the server only
log "$(autogroup_setting)"
sysbench_conn "$DB" "$URL"
log "preparing 1 table of $TABLE_SIZE rows"
"$WORK/candor" prepare sysbench --tables 1 --table-size "$TABLE_SIZE" --target "$URL" -q -o "$WORK/prepare.json" >/dev/null

HZ=$(getconf CLK_TCK)
busy() { # prints the machine's busy and total jiffies
	awk '/^cpu / { t = 0; for (i = 2; i <= NF; i++) t += $i; print t - $5 - $6, t }' /proc/stat
}

# run NAME TEST THREADS: one run, appended to $WORK/runs as
# "test:threads round name tps client_us machine_us".
run() {
	local name=$1 test=$2 t=$3 out="$WORK/out" b0 b1 x y cpu
	read -r b0 _ < <(busy)
	if [ "$name" = sysbench ]; then
		(sysbench "$test" "${SB[@]}" --tables=1 --table-size="$TABLE_SIZE" --threads="$t" --time="$DURATION" run >"$out" 2>&1
			times >"$WORK/times")
	else
		local spare=1 v=$name sync=0
		[[ $v =~ ^p([0-9]+)(.*)$ ]] && spare=${BASH_REMATCH[1]} v=${BASH_REMATCH[2]}
		[[ $v == sync* ]] && sync=1
		(CANDOR_YIELD=${v##*[a-z]} CANDOR_SYNC=$sync CANDOR_SPARE=$spare "$WORK/candor" run "sysbench/$test" --tables 1 --table-size "$TABLE_SIZE" \
			--threads "$t" --time "$DURATION" --target "$URL" -q --format sysbench -o "$WORK/run.json" \
			--session-io blocking >"$out" 2>&1
			times >"$WORK/times")
	fi
	read -r b1 _ < <(busy)
	read -r x y < <(transactions "$out") ||
		{ tail -n 20 "$out" >&2; die "$name $test at $t threads: no transactions line"; }
	cpu=$(cpu_seconds "$WORK/times")
	echo "$test:$t $ROUND $name $y $(calc "round($cpu * 1e6 / $x, 1)") $(calc "round(($b1 - $b0) / $HZ * 1e6 / $x, 1)")" >>"$WORK/runs"
	log "round $ROUND: $name $test $t threads: $y tps"
}

read -r -a VS <<<"$VARIANTS"
for ((ROUND = 1; ROUND <= ROUNDS; ROUND++)); do
	for c in $CONFIGS; do
		run sysbench "${c%:*}" "${c#*:}"
		for ((i = 0; i < ${#VS[@]}; i++)); do
			run "${VS[(i + ROUND - 1) % ${#VS[@]}]}" "${c%:*}" "${c#*:}"
		done
	done
done

python3 - "$WORK/runs" "$CONFIGS" "sysbench $VARIANTS" <<'EOF'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    cfg, rnd, name, tps, client, machine = line.split()
    runs[(cfg, name, rnd)] = (float(tps), float(client), float(machine))
print("| test | threads | tool | tps ratio to sysbench, median (per round) | client CPU µs/txn | machine CPU µs/txn |")
print("|---|---|---|---|---|---|")
for cfg in sys.argv[2].split():
    rounds = sorted({r for c, _, r in runs if c == cfg}, key=int)
    for name in sys.argv[3].split():
        got = [runs[(cfg, name, r)] for r in rounds]
        ratios = [g[0] / runs[(cfg, "sysbench", r)][0] for g, r in zip(got, rounds)]
        test, threads = cfg.split(":")
        print(f"| {test} | {threads} | {name} | {statistics.median(ratios):.2f} ({', '.join(f'{x:.2f}' for x in ratios)}) "
              f"| {statistics.median(g[1] for g in got):.1f} | {statistics.median(g[2] for g in got):.1f} |")
EOF

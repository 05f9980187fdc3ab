#!/usr/bin/env bash
# ycsb-vs-goycsb-cql.sh — candor beside go-ycsb (its `cassandra` binding) on
# the same throwaway one-node Cassandra 5.0 (scripts/cassandra-sandbox.sh),
# same workload property files, alternating runs.
#
#   bench/ycsb-vs-goycsb-cql.sh        # defaults below; prints Markdown tables
#
# Environment: RECORDS (100000), DURATION seconds per run (30), THREADS
# ("4 16"), WORKLOADS ("a c"; go-ycsb's binding has no scan, so no E),
# ROUNDS (1; each round alternates who goes first), LOAD_THREADS (4),
# COMPACTION_WAIT and SETTLE_MAX (seconds, 300 and 60: bounds of the waits
# after each load, below),
# CASSANDRA_URL (use a running Cassandra, e.g. from cassandra-sandbox.sh,
# instead of starting one), GOYCSB (path to a go-ycsb binary; built here
# from the Go module proxy into ~/.cache/candor-bench when absent).
#
# Both clients use consistency QUORUM (go-ycsb v1.0.1's binding always
# does; on one node it is ONE) and 2 connections per node (both drivers'
# default). The keyspace ycsb is candor's (its load creates it); go-ycsb's
# table usertable lives beside candor's candor_usertable in it. go-ycsb's
# load sends one INSERT per record and waits for it; candor's keeps
# load_window (default 32) INSERTs in flight per load thread. candor's
# driver writes each request to its connection at once (write_coalesce=0,
# candor's default); go-ycsb's holds it up to 200µs to send it with others
# (its gocql's default).
#
# After each load (candor's, then go-ycsb's) the script waits for the load's
# background work to end before anything else runs, so that neither the other
# client's load nor the first run shares the server with it: first until the
# node has no compaction or memtable flush running or queued for 3 s in a
# row (bench/cqlidle, from system_views.thread_pools and
# system_views.sstable_tasks; at most COMPACTION_WAIT seconds, default 300),
# then until the Cassandra process uses under 10% of a core in 3 seconds in
# a row (when the script started it; with CASSANDRA_URL, until the machine
# is at least 90% idle for a second), at most SETTLE_MAX seconds (default
# 60). The machine's idle share is printed, not waited for, when the
# script knows Cassandra's pid: other work on a shared machine would hold
# every run back to SETTLE_MAX. Each wait prints what it waited for
# and how long; a wait that hits its bound says so and the script goes on.
#
# go-ycsb v1.0.1 ignores maxexecutiontime, so its runs get a huge
# operationcount and one SIGINT after DURATION seconds (see
# ycsb-vs-goycsb.sh). Client CPU per operation is the kernel's accounting
# of each finished child process (user + system time); the client's share
# of the machine is that CPU time over DURATION × the cores (nproc).
set -euo pipefail
cd "$(dirname "$0")/.."

RECORDS=${RECORDS:-100000}
DURATION=${DURATION:-30}
THREADS=${THREADS:-"4 16"}
WORKLOADS=${WORKLOADS:-"a c"}
ROUNDS=${ROUNDS:-1}
LOAD_THREADS=${LOAD_THREADS:-4}
COMPACTION_WAIT=${COMPACTION_WAIT:-300}
SETTLE_MAX=${SETTLE_MAX:-60}
CORES=$(nproc)
BENCH_NAME=ycsb-vs-goycsb-cql

. bench/lib.sh

# cpu_ticks PID prints the user+system clock ticks of process PID.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

# settle_after_load WHAT waits for the load's compactions and flushes to
# end (bench/cqlidle), then until Cassandra has used under 10% of a core in
# each of 3 seconds in a row (when the script started it and knows its
# pid), or else until the machine has been at least 90% idle for a second;
# at most SETTLE_MAX seconds. It prints the waits and the machine's idle
# share.
settle_after_load() {
	local t0 a b pa pb quiet=0 idle
	log "after $1: waiting for Cassandra's compactions and flushes (at most ${COMPACTION_WAIT}s)"
	bin/cqlidle -max "${COMPACTION_WAIT}s" "$URL" || die "cannot read Cassandra's compaction state (bench/cqlidle)"
	t0=$(date +%s)
	while :; do
		a=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
		[ -n "$CASS_PID" ] && pa=$(cpu_ticks "$CASS_PID")
		sleep 1
		b=$(awk '/^cpu / {print $2+$3+$4+$5+$6+$7+$8, $5+$6}' /proc/stat)
		[ -n "$CASS_PID" ] && pb=$(cpu_ticks "$CASS_PID")
		idle=$(python3 -c "a=[float(x) for x in '$a'.split()]; b=[float(x) for x in '$b'.split()]; print(round(100*(b[1]-a[1])/(b[0]-a[0])))")
		if [ -n "$CASS_PID" ]; then
			# /proc/stat counts the ticks of all cores, a process those of
			# one: under 10% of a core is under a tenth of a core's ticks.
			if python3 -c "a=[float(x) for x in '$a'.split()]; b=[float(x) for x in '$b'.split()]; exit(0 if $pb - $pa < 0.1*(b[0]-a[0])/$CORES else 1)"; then
				quiet=$((quiet + 1))
			else
				quiet=0
			fi
			if [ "$quiet" -ge 3 ]; then
				log "after $1: Cassandra idle for 3 s after $(($(date +%s) - t0))s (machine ${idle}% idle)"
				return
			fi
		elif [ "$idle" -ge 90 ]; then
			log "after $1: machine ${idle}% idle after $(($(date +%s) - t0))s"
			return
		fi
		if [ $(($(date +%s) - t0)) -ge "$SETTLE_MAX" ]; then
			log "after $1: not settled within ${SETTLE_MAX}s (last second: machine ${idle}% idle${CASS_PID:+, Cassandra $((pb - pa)) ticks}); going on"
			return
		fi
	done
}

build_goycsb
make -s build
go build -o bin/cqlidle ./bench/cqlidle
CASSDIR=""
if [ -z "${CASSANDRA_URL:-}" ]; then
	CASSDIR=$(mktemp -d /tmp/candor-bench-cass.XXXXXX)
	rmdir "$CASSDIR"
	trap 'scripts/cassandra-sandbox.sh stop "$CASSDIR" >/dev/null 2>&1 || true' EXIT
	CASSANDRA_URL=$(scripts/cassandra-sandbox.sh start "$CASSDIR")
fi
CASS_PID=""
[ -n "$CASSDIR" ] && CASS_PID=$(cat "$CASSDIR/node1/pid" 2>/dev/null || true)
HOSTPORT=$(echo "$CASSANDRA_URL" | sed 's#^[a-z]*://\([^/?]*\).*#\1#')
case $HOSTPORT in *,*) die "CASSANDRA_URL: give one node (go-ycsb's cluster property takes host:port)" ;; esac
URL="cql://$HOSTPORT/ycsb?consistency=QUORUM"
GPROPS=(-p cassandra.cluster="$HOSTPORT" -p cassandra.keyspace=ycsb)
OUT=$(mktemp -d /tmp/candor-bench-cql.XXXXXX)

rate() { python3 -c "print(round($1/($3-$2)))"; }

log "loading $RECORDS records with candor and with go-ycsb ($LOAD_THREADS threads each)"
# A Cassandra of an earlier run (CASSANDRA_URL) still has the tables: candor
# drops its own; go-ycsb drops usertable itself (dropdata=true).
bin/candor cleanup ycsb -p table=candor_usertable --target "$URL" -q
t0=$(date +%s.%N)
bin/candor load ycsb -P workloads/workloada -p recordcount="$RECORDS" -p table=candor_usertable \
	--target "$URL" --threads "$LOAD_THREADS" -q -o "$OUT/load.json" >/dev/null 2>"$OUT/load.err" ||
	die "candor's load failed: $(cat "$OUT/load.err")"
t1=$(date +%s.%N)
settle_after_load "candor's load"
t1b=$(date +%s.%N)
"$GOYCSB" load cassandra -P workloads/workloada -p recordcount="$RECORDS" -p threadcount="$LOAD_THREADS" \
	-p dropdata=true "${GPROPS[@]}" >"$OUT/goycsb-load.txt" 2>&1
t2=$(date +%s.%N)
grep -q '^Run finished' "$OUT/goycsb-load.txt" || die "go-ycsb's load did not finish: see $OUT/goycsb-load.txt"
grep -q 'INSERT_ERROR' "$OUT/goycsb-load.txt" && die "go-ycsb's load had errors: see $OUT/goycsb-load.txt"
settle_after_load "go-ycsb's load"
cl=$(rate "$RECORDS" "$t0" "$t1")
gl=$(rate "$RECORDS" "$t1b" "$t2")
echo "Load, $RECORDS records, $LOAD_THREADS threads (records/s):"
echo
echo "| candor | go-ycsb | ratio |"
echo "|---|---|---|"
echo "| $cl | $gl | $(python3 -c "print(f'{$cl/$gl:.2f}')") |"
echo
echo "| workload | threads | round | candor ops/s | go-ycsb ops/s | ratio | candor CPU µs/op | go-ycsb CPU µs/op | candor share of $CORES cores | go-ycsb share |"
echo "|---|---|---|---|---|---|---|---|---|---|"

# Each prints "ops/s cpu_us_per_op share_of_cores_percent".
run_candor() {
	local c0 c1 ops
	times >"$OUT/t0"
	bin/candor run ycsb -P "workloads/workload$1" -p recordcount="$RECORDS" -p table=candor_usertable \
		--target "$URL" --threads "$2" --time "$DURATION" --load never -q --format ycsb \
		-o "$OUT/candor-$1-$2-$3.json" >"$OUT/candor-$1-$2-$3.txt" 2>"$OUT/candor-$1-$2-$3.err" ||
		die "candor's run failed: $(cat "$OUT/candor-$1-$2-$3.err")"
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(awk -F', ' '/\[OVERALL\], Throughput/ {print $3}' "$OUT/candor-$1-$2-$3.txt")
	python3 -c "print(f'{$ops:.0f}', f'{($c1-$c0)*1e6/($ops*$DURATION):.1f}', f'{($c1-$c0)*100/($DURATION*$CORES):.0f}%')"
}

run_goycsb() {
	local c0 c1 ops
	times >"$OUT/t0"
	timeout --foreground -k 60 -s INT "$DURATION" "$GOYCSB" run cassandra -P "workloads/workload$1" \
		-p recordcount="$RECORDS" -p operationcount=1000000000 -p threadcount="$2" "${GPROPS[@]}" \
		>"$OUT/goycsb-$1-$2-$3.txt" 2>&1 || true
	times >"$OUT/t1"
	c0=$(cpu_seconds "$OUT/t0")
	c1=$(cpu_seconds "$OUT/t1")
	ops=$(final_total "$OUT/goycsb-$1-$2-$3.txt") || exit 1
	python3 -c "print(f'{$ops:.0f}', f'{($c1-$c0)*1e6/($ops*$DURATION):.1f}', f'{($c1-$c0)*100/($DURATION*$CORES):.0f}%')"
}

for round in $(seq 1 "$ROUNDS"); do
	for w in $WORKLOADS; do
		for t in $THREADS; do
			if [ $((round % 2)) -eq 1 ]; then
				read -r cops ccpu cshare < <(run_candor "$w" "$t" "$round")
				read -r gops gcpu gshare < <(run_goycsb "$w" "$t" "$round")
			else
				read -r gops gcpu gshare < <(run_goycsb "$w" "$t" "$round")
				read -r cops ccpu cshare < <(run_candor "$w" "$t" "$round")
			fi
			ratio=$(python3 -c "print(f'{$cops/$gops:.2f}')")
			echo "| $w | $t | $round | $cops | $gops | $ratio | $ccpu | $gcpu | $cshare | $gshare |"
		done
	done
done
log "raw outputs in $OUT"

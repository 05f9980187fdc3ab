#!/usr/bin/env bash
# multi-client.sh N DIR WORKLOAD [candor run options...]
#
# Runs N candor processes on this machine exactly as the Kubernetes Job in
# deploy/kubernetes does (candor run ... --shard i/N --start-at T --run-id ID
# --out DIR/shard-i.json), waits for them, then merges their results into
# DIR/run.json with candor merge --shards-dir DIR. The test of the whole
# sharded path on one machine.
#
#   scripts/multi-client.sh 4 results/run-1 ycsb/c --target postgres://... --threads 16 --time 60s
#
# Environment: CANDOR (the candor binary; default: candor on the PATH),
# START_IN (seconds from now to the shared start; default 5 + N),
# RUN_ID (default: the directory's name).
# Exit status: candor's exit status of the first shard that failed, else
# merge's.
set -euo pipefail

if [ $# -lt 3 ]; then
	sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
fi
n=$1 dir=$2
shift 2
case $n in
'' | *[!0-9]* | 0)
	echo "multi-client.sh: N must be a positive number of shards (got '$n')" >&2
	exit 2
	;;
esac
candor=${CANDOR:-candor}
if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
	echo "multi-client.sh: $dir exists and is not empty: choose a new directory (results are never overwritten)" >&2
	exit 2
fi
mkdir -p "$dir"
run_id=${RUN_ID:-$(basename "$dir")}
start_in=${START_IN:-$((5 + n))}
start_at=$(date -u -d "@$(($(date +%s) + start_in))" +%Y-%m-%dT%H:%M:%SZ)

pids=()
for ((i = 0; i < n; i++)); do
	"$candor" run "$@" --shard "$i/$n" --start-at "$start_at" --run-id "$run_id" --quiet \
		--out "$dir/shard-$i.json" >"$dir/shard-$i.log" 2>&1 &
	pids+=($!)
done
status=0
for ((i = 0; i < n; i++)); do
	rc=0
	wait "${pids[$i]}" || rc=$?
	if [ $rc -ne 0 ]; then
		echo "multi-client.sh: shard $i/$n failed (exit $rc); its output is in $dir/shard-$i.log:" >&2
		tail -5 "$dir/shard-$i.log" >&2
		[ $status -ne 0 ] || status=$rc
	fi
done
[ $status -eq 0 ] || exit $status
exec "$candor" merge --shards-dir "$dir" --out "$dir/run.json"

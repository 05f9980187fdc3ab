#!/usr/bin/env bash
# experiments.sh — `make experiments`: run every plan under experiments/ whose
# targets this machine can start, resumably, then build the published-claims
# site (docs/REPORTS.md, "The published claims site").
#
#   scripts/experiments.sh [PLAN.yaml ...]     (default: experiments/*.yaml)
#
# PG_URL is used when set; otherwise a throwaway PostgreSQL is started
# (scripts/pg-sandbox.sh). CASS1_URL and CASS3_URL (E5) likewise: when a
# plan names them and they are not set, a one-node and a three-node
# Cassandra (scripts/cassandra-sandbox.sh, 127.0.0.1..3 on loopback) are
# started; VOLT1_URL, VOLT3K0_URL and VOLT3K1_URL (E5) a one-node VoltDB
# and two three-node ones, k-safety 0 and 1 (scripts/voltdb-sandbox.sh;
# VoltDB's k-factor is a cluster's). Every sandbox this script started is stopped when it ends:
# done, failed or interrupted (Ctrl-C). Plans whose targets start their own
# cluster (E4, E6) need no URL. A plan whose environment variables are not
# set (a sandbox that could not start) or whose run fails gets a NOT-RUN
# file in its results directory, whose first line says why; the site lists
# its claims as "not run here" with that reason. Finished cells are kept: run
# it again to resume. CANDOR (default bin/candor) is the binary, SITE
# (default experiments/site) the site's directory (replaced).
set -uo pipefail
cd "$(dirname "$0")/.."
CANDOR=${CANDOR:-bin/candor}
SITE=${SITE:-experiments/site}
SANDBOXES=${TMPDIR:-/tmp}/candor-experiments
PGDIR=$SANDBOXES-pg
CASS1DIR=$SANDBOXES-cass1
CASS3DIR=$SANDBOXES-cass3
VOLT1DIR=$SANDBOXES-volt1
VOLT3K0DIR=$SANDBOXES-volt3k0
VOLT3K1DIR=$SANDBOXES-volt3k1
started=()
stop() {
	local s
	for s in "${started[@]}"; do
		"${s%% *}" stop "${s#* }" >/dev/null 2>&1 || true
	done
	started=()
}
trap stop EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
# leftover DIR SCRIPT: a sandbox left by a run killed before its trap ran
# (kill -9) is stopped, so that this run can start its own.
leftover() { [ ! -e "$1" ] || "$2" stop "$1" >/dev/null 2>&1 || true; }
if [ -z "${PG_URL:-}" ]; then
	leftover "$PGDIR" scripts/pg-sandbox.sh
	started+=("scripts/pg-sandbox.sh $PGDIR")
	if PG_URL=$(scripts/pg-sandbox.sh start "$PGDIR"); then
		export PG_URL
	else
		echo "experiments: could not start a PostgreSQL sandbox; plans that need PG_URL will be listed as not run" >&2
		unset PG_URL
	fi
fi
plans=("$@")
[ ${#plans[@]} -gt 0 ] || plans=(experiments/*.yaml)
# sandbox PRODUCT SCRIPT URL DIR [START OPTIONS]: starts a sandbox with
# SCRIPT for URL (CASS1_URL, VOLT1_URL, ...) when a plan names it and it is
# not set.
sandbox() {
	local product=$1 script=$2 var=$3 dir=$4 url
	shift 4
	[ -z "${!var:-}" ] || return 0
	grep -q "\${$var}" "${plans[@]}" 2>/dev/null || return 0
	leftover "$dir" "$script"
	started+=("$script $dir")
	if url=$("$script" start "$dir" "$@"); then
		export "$var=$url"
	else
		echo "experiments: could not start the $product sandbox for $var; plans that need it will be listed as not run" >&2
	fi
}
sandbox Cassandra scripts/cassandra-sandbox.sh CASS1_URL "$CASS1DIR"
sandbox Cassandra scripts/cassandra-sandbox.sh CASS3_URL "$CASS3DIR" --nodes 3
sandbox VoltDB scripts/voltdb-sandbox.sh VOLT1_URL "$VOLT1DIR"
sandbox VoltDB scripts/voltdb-sandbox.sh VOLT3K0_URL "$VOLT3K0DIR" --nodes 3
sandbox VoltDB scripts/voltdb-sandbox.sh VOLT3K1_URL "$VOLT3K1DIR" --nodes 3 --kfactor 1
for plan in "${plans[@]}"; do
	name=$(sed -n 's/^name: *//p' "$plan" | head -1)
	output=$(sed -n 's/^output: *//p' "$plan" | head -1)
	dir="$(dirname "$plan")/${output:-results/$name}"
	mkdir -p "$dir"
	cells=$("$CANDOR" plan cells "$plan" 2>&1)
	if missing=$(printf '%s\n' "$cells" | sed -n "s/.*'candor plan run' needs them: //p") && [ -n "$missing" ]; then
		echo "== $name: not run: needs $missing (not set)"
		echo "needs $missing, not set on this machine (export them and run make experiments again)" >"$dir/NOT-RUN"
		continue
	fi
	echo "== $name: candor plan run $plan"
	"$CANDOR" plan run -q "$plan"
	rc=$?
	if [ $rc -eq 0 ]; then
		rm -f "$dir/NOT-RUN"
	else
		echo "== $name: candor plan run exited $rc; finished cells are kept (run make experiments again to resume)"
		echo "candor plan run $plan exited $rc on this machine (finished cells are kept; run again to resume)" >"$dir/NOT-RUN"
	fi
done
rm -rf "$SITE"
results=()
for d in experiments/results/*/; do
	[ -d "$d" ] && results+=("${d%/}")
done
"$CANDOR" report --site "$SITE" --plan 'experiments/*.yaml' "${results[@]}"
rc=$?
stop
exit $rc

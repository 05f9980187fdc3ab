#!/usr/bin/env bash
# experiments.sh — `make experiments`: run every plan under experiments/ whose
# targets this machine can start, resumably, then build the published-claims
# site (docs/REPORTS.md, "The published claims site").
#
#   scripts/experiments.sh [PLAN.yaml ...]     (default: experiments/*.yaml)
#
# PG_URL is used when set; otherwise a throwaway PostgreSQL is started
# (scripts/pg-sandbox.sh) and stopped at the end. Plans whose targets start
# their own cluster (E4, E6) need no URL. A plan whose environment variables
# are not set (E5: CASS1_URL, CASS3_URL) or whose run fails gets a NOT-RUN
# file in its results directory, whose first line says why; the site lists
# its claims as "not run here" with that reason. Finished cells are
# kept: run it again to resume. CANDOR (default bin/candor) is the binary,
# SITE (default experiments/site) the site's directory (replaced).
set -uo pipefail
cd "$(dirname "$0")/.."
CANDOR=${CANDOR:-bin/candor}
SITE=${SITE:-experiments/site}
PGDIR=${TMPDIR:-/tmp}/candor-experiments-pg
started=""
stop() { [ -z "$started" ] || scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true; }
trap stop EXIT
if [ -z "${PG_URL:-}" ]; then
	if PG_URL=$(scripts/pg-sandbox.sh start "$PGDIR"); then
		started=1
		export PG_URL
	else
		echo "experiments: could not start a PostgreSQL sandbox; plans that need PG_URL will be listed as not run" >&2
		unset PG_URL
	fi
fi
plans=("$@")
[ ${#plans[@]} -gt 0 ] || plans=(experiments/*.yaml)
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
exec "$CANDOR" report --site "$SITE" --plan 'experiments/*.yaml' "${results[@]}"

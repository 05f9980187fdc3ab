#!/usr/bin/env bash
# tpcc-vs-gotpc.sh — candor's TPC-C beside go-tpc v1.0.12 on the same
# throwaway PostgreSQL and MariaDB: load time (candor load vs go-tpc
# prepare --no-check, each followed by the statistics the run needs), then
# runs alternating candor and go-tpc, each tool on its own database of one
# server, for every thread count, ROUNDS times: tpmC and the client's CPU
# per transaction (user + system of the client process, from /usr/bin/time).
#
#   bench/tpcc-vs-gotpc.sh      # W (1), THREADS ("4 16"), TIME (30), ROUNDS (2), DBS ("postgres mariadb")
#   LOAD_ROUNDS=3 THREADS=none DBS=mariadb bench/tpcc-vs-gotpc.sh   # the loads only, 3 alternating rounds
#   GOTPC=/path/to/go-tpc bench/tpcc-vs-gotpc.sh
#
# go-tpc is built with `go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.12`
# into a temporary GOBIN unless GOTPC names a binary. Both tools' tpmC count
# the spec's 1% rolled-back New-Orders (go-tpc's New-Order returns success
# on them); candor's committed-only tpmC is printed beside. go-tpc's prepare
# gathers no statistics: the script runs VACUUM ANALYZE (PostgreSQL) or
# ANALYZE TABLE (MariaDB) after it, timed apart, as candor's load does itself.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=tpcc-vs-gotpc
. bench/lib.sh
W=${W:-1}
THREADS=${THREADS:-"4 16"}
[ "$THREADS" = none ] && THREADS=""
LOAD_ROUNDS=${LOAD_ROUNDS:-1}
TIME=${TIME:-30}
ROUNDS=${ROUNDS:-2}
DBS=${DBS:-"postgres mariadb"}

candor_bins
CANDOR=${BINS[0]}
if [ -z "${GOTPC:-}" ]; then
	GOBIN_DIR=$(mktemp -d /tmp/candor-gotpc.XXXXXX)
	log "building go-tpc v1.0.12 into $GOBIN_DIR"
	(cd "$GOBIN_DIR" && GOBIN=$GOBIN_DIR GOFLAGS=-mod=mod go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.12)
	GOTPC=$GOBIN_DIR/go-tpc
fi
OUT=$(mktemp -d /tmp/candor-tpcc.XXXXXX)
log "results in $OUT"
STOP=()
trap 'for s in "${STOP[@]}"; do eval "$s" >/dev/null 2>&1 || true; done' EXIT

# timed FILE CMD... runs CMD, its output in FILE, and prints "wall cpu"
# seconds of the client process.
timed() {
	local f=$1
	shift
	/usr/bin/time -f '%e %U %S' -o "$f.time" "$@" >"$f" 2>&1 || { log "failed: $*"; tail -5 "$f" >&2; }
	awk '{ print $1, $2 + $3 }' "$f.time"
}

for db in $DBS; do
	dir=$(mktemp -d /tmp/candor-tpcc-$db.XXXXXX)
	rmdir "$dir"
	case $db in
	postgres)
		URL=$(scripts/pg-sandbox.sh start "$dir" 2>/dev/null)
		STOP+=("scripts/pg-sandbox.sh stop $dir")
		PORT=$(cat "$dir/port")
		PSQL=(psql -X -q -h 127.0.0.1 -p "$PORT" -U postgres)
		"${PSQL[@]}" -d candor -c "CREATE DATABASE gotpc"
		G=(-d postgres -H 127.0.0.1 -P "$PORT" -U postgres -D gotpc --conn-params sslmode=disable)
		analyze() { for t in warehouse district customer history new_order orders order_line item stock; do "${PSQL[@]}" -d gotpc -c "VACUUM ANALYZE $t"; done; }
		fresh() { "${PSQL[@]}" -d postgres -c "DROP DATABASE candor" -c "CREATE DATABASE candor" -c "DROP DATABASE gotpc" -c "CREATE DATABASE gotpc"; }
		;;
	mariadb)
		URL=$(scripts/mariadb-sandbox.sh start "$dir" 2>/dev/null)
		STOP+=("scripts/mariadb-sandbox.sh stop $dir")
		PORT=$(cat "$dir/port")
		MY=(mysql -h 127.0.0.1 -P "$PORT" -u candor -pcandor)
		"${MY[@]}" -e "CREATE DATABASE candor_gotpc"
		G=(-d mysql -H 127.0.0.1 -P "$PORT" -U candor -p candor -D candor_gotpc)
		analyze() { "${MY[@]}" candor_gotpc -e "ANALYZE TABLE warehouse, district, customer, history, new_order, orders, order_line, item, stock" >/dev/null; }
		fresh() { "${MY[@]}" -e "DROP DATABASE candor; CREATE DATABASE candor; DROP DATABASE candor_gotpc; CREATE DATABASE candor_gotpc"; }
		;;
	esac
	# The loads, alternating, each round into fresh databases; the runs
	# below use the last round's tables.
	for lround in $(seq 1 "$LOAD_ROUNDS"); do
		[ "$lround" -gt 1 ] && fresh
		la=$(cut -d' ' -f1 /proc/loadavg)
		read -r cw cc < <(timed "$OUT/$db-load-candor" "$CANDOR" load tpcc --target "$URL" --warehouses "$W" --threads 4 -q -o "$OUT/$db-load-candor.json")
		read -r gw gc < <(timed "$OUT/$db-load-gotpc" "$GOTPC" tpcc prepare "${G[@]}" --warehouses "$W" -T 4 --no-check)
		t0=$(date +%s.%N)
		analyze
		ga=$(calc "round($(date +%s.%N) - $t0, 1)")
		echo "load $db W=$W 4 threads round $lround (load average $la): candor ${cw}s (client CPU ${cc}s, statistics included) | go-tpc prepare ${gw}s (client CPU ${gc}s) + statistics ${ga}s | go-tpc/candor $(calc "round(($gw + $ga) / $cw, 2)")"
	done
	[ -n "$THREADS" ] || continue

	echo "| db | threads | round | candor tpmC (incl. rollbacks) | candor tpmC (committed) | go-tpc tpmC | ratio | candor CPU µs/txn | go-tpc CPU µs/txn |"
	echo "|---|---|---|---|---|---|---|---|---|"
	for t in $THREADS; do
		for round in $(seq 1 "$ROUNDS"); do
			f=$OUT/$db-t$t-r$round
			read -r _ ccpu < <(timed "$f-candor" "$CANDOR" run tpcc --target "$URL" --warehouses "$W" --threads "$t" --time "${TIME}s" --load never -q -o "$f-candor.json")
			read -r ctpm ctpmc ctot < <(python3 -c "
import json; p=json.load(open('$f-candor.json'))['phases'][-1]; d=p['derived']
print(round(d['tpmC_incl_rollbacks']), round(d['tpmC']), d['tpm_total']*p['duration_s']/60)")
			read -r _ gcpu < <(timed "$f-gotpc" "$GOTPC" tpcc run "${G[@]}" --warehouses "$W" -T "$t" --time "${TIME}s")
			read -r gtpm gtot < <(awk -F'[:,]' '/^tpmC:/ { gsub(/ /, ""); print $2, $4 }' "$f-gotpc")
			gtot=$(calc "$gtot * $TIME / 60")
			echo "| $db | $t | $round | $ctpm | $ctpmc | $gtpm | $(calc "round($ctpm / $gtpm, 2)") | $(calc "round($ccpu / $ctot * 1e6)") | $(calc "round($gcpu / $gtot * 1e6)") |"
		done
	done
done

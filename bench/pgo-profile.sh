#!/usr/bin/env bash
# pgo-profile.sh — makes cmd/candor/default.pgo anew: the CPU profile Go's
# compiler builds candor with (profile-guided optimization: `go build`
# finds it beside the main package, and inlines and devirtualizes the calls
# that are hot in it; docs/BENCHMARKS.md §15 has what it saved). Builds
# candor without a profile, runs its hot paths on throwaway servers, each
# with CANDOR_CPUPROFILE, and merges the profiles:
#   PostgreSQL: candor pgbench (select-only and tpcb-like at 16 clients on
#     one loop, a custom script at 4), sysbench oltp_read_write, YCSB A;
#   MariaDB: sysbench oltp_point_select, and a sysbench Lua script.
# Run it again when the hot paths change much, and commit the profile.
#
#   bench/pgo-profile.sh     # DURATION (10 s a run)
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_NAME=pgo-profile
. bench/lib.sh
DURATION=${DURATION:-10}
OUT=$(mktemp -d /tmp/candor-pgo.XXXXXX)
C=$OUT/candor
log "building candor without a profile"
go build -pgo=off -o "$C" ./cmd/candor

# prof NAME ARGS...: one candor command, its CPU profile in $OUT/NAME.prof.
prof() {
	local name=$1
	shift
	log "$name"
	CANDOR_CPUPROFILE="$OUT/$name.prof" "$C" "$@" >"$OUT/$name.out" 2>&1 ||
		die "$name failed: $(tail -3 "$OUT/$name.out")"
}

start_sandbox postgres pgo
PORT=$(cat "$DIR/port")
"$C" pgbench -i -s 10 --target "$URL" -o "$OUT/init.json" >/dev/null 2>&1
PGB=(-n -j 1 -T "$DURATION" -M prepared -h 127.0.0.1 -p "$PORT" -U postgres)
prof select-only pgbench "${PGB[@]}" -c 16 -b select-only -o "$OUT/so.json" candor
prof tpcb-like pgbench "${PGB[@]}" -c 16 -b tpcb-like -o "$OUT/tb.json" candor
prof custom pgbench "${PGB[@]}" -c 4 -f bench/pgbench-custom.sql -o "$OUT/cu.json" candor
"$C" load sysbench/oltp_read_write --tables 2 --table-size 20000 --target "$URL" >/dev/null 2>&1
prof pg-oltp-read-write run sysbench/oltp_read_write --tables 2 --table-size 20000 --threads 4 \
	--time "$DURATION" --target "$URL" -o "$OUT/orw.json"
"$C" load ycsb/a --target "$URL" >/dev/null 2>&1
prof pg-ycsb-a run ycsb/a --threads 4 --time "${DURATION}s" --target "$URL" -o "$OUT/ya.json"

start_sandbox mariadb pgo
sysbench_conn mariadb "$URL"
"$C" load sysbench/oltp_point_select --tables 1 --table-size 20000 --target "$URL" >/dev/null 2>&1
prof my-point-select run sysbench/oltp_point_select --tables 1 --table-size 20000 --threads 4 \
	--time "$DURATION" --target "$URL" -o "$OUT/ps.json"
prof my-lua sysbench "${SB[@]}" --table-size=20000 --threads=4 --time="$DURATION" \
	--out="$OUT/lua.json" bench/sysbench-lua/point_update.lua run

go tool pprof -proto "$OUT"/*.prof >cmd/candor/default.pgo 2>/dev/null
log "cmd/candor/default.pgo: $(wc -c <cmd/candor/default.pgo) bytes, from $(ls "$OUT"/*.prof | wc -l) runs in $OUT"

#!/usr/bin/env bash
# test.sh — the whole test suite, as CI runs it:
#   1. gofmt and go vet must be clean;
#   1b. a one-node Apache Cassandra is started in the background first
#      (scripts/cassandra-sandbox.sh: its jars are cached under
#      ${XDG_CACHE_HOME:-~/.cache}/candor-cassandra, a fresh machine fetches
#      them with mvn; Java 17 and maven are installed when missing and we are
#      root), so that its ~30 s start overlaps vet and the other servers; its
#      URL is exported as CANDOR_TEST_CASSANDRA_URL before go test, and a
#      failed start fails the run (its log is shown);
#   1c. a one-node VoltDB 10.1.1 Community Edition is started beside it
#      (scripts/voltdb-sandbox.sh: jars cached under
#      ${XDG_CACHE_HOME:-~/.cache}/candor-voltdb, fetched with mvn on a fresh
#      machine; -Xmx1g, a 2 GB memory limit), exported as
#      CANDOR_TEST_VOLTDB_URL (its directory as CANDOR_TEST_VOLTDB_DIR);
#      a failed start fails the run too;
#   2. a throwaway PostgreSQL and a throwaway MariaDB are started
#      (scripts/pg-sandbox.sh and scripts/mariadb-sandbox.sh install them
#      with apt-get when missing and we are root: only what is missing, no
#      upgrades, apt's output in /tmp/candor-apt.log or $CANDOR_APT_LOG, one
#      line per package on screen) and their URLs exported as
#      CANDOR_TEST_POSTGRES_URL and CANDOR_TEST_MYSQL_URL;
#   3. chromium and sysbench are installed when missing (root), for the
#      HTML report test and the tests that compare candor with sysbench
#      1.0.20 itself (its distributions and its statements);
#      go test -race ./... runs every unit, runner and integration test;
#   4. the servers are stopped, whatever happened.
# Exits non-zero when anything fails. Extra arguments go to `go test`.
set -euo pipefail
cd "$(dirname "$0")/.."
SANDBOX=test.sh
# shellcheck source=sandbox-lib.sh
. scripts/sandbox-lib.sh

# Cassandra takes the longest to start: in the background from the start.
CASSDIR=$(mktemp -d /tmp/candor-cassandra.XXXXXX)
rmdir "$CASSDIR"
CASSOUT=$(mktemp /tmp/candor-cassandra-start.XXXXXX)
CASSURL=$(mktemp /tmp/candor-cassandra-url.XXXXXX)
echo "== starting a throwaway Cassandra in the background"
scripts/cassandra-sandbox.sh start "$CASSDIR" >"$CASSURL" 2>"$CASSOUT" &
CASSPID=$!
# VoltDB (10-20 s) starts beside it, from the same moment.
VOLTDIR=$(mktemp -d /tmp/candor-voltdb.XXXXXX)
rmdir "$VOLTDIR"
VOLTOUT=$(mktemp /tmp/candor-voltdb-start.XXXXXX)
VOLTURL=$(mktemp /tmp/candor-voltdb-url.XXXXXX)
echo "== starting a throwaway VoltDB in the background"
scripts/voltdb-sandbox.sh start "$VOLTDIR" --memory-limit 2 >"$VOLTURL" 2>"$VOLTOUT" &
VOLTPID=$!
PGDIR=$(mktemp -d /tmp/candor-pg.XXXXXX)
rmdir "$PGDIR"
MYDIR=$(mktemp -d /tmp/candor-mariadb.XXXXXX)
rmdir "$MYDIR"
cleanup() {
	scripts/pg-sandbox.sh stop "$PGDIR" >/dev/null 2>&1 || true
	scripts/mariadb-sandbox.sh stop "$MYDIR" >/dev/null 2>&1 || true
	if kill -0 "$CASSPID" 2>/dev/null; then
		kill "$CASSPID" 2>/dev/null || true
		wait "$CASSPID" 2>/dev/null || true
	fi
	scripts/cassandra-sandbox.sh stop "$CASSDIR" >/dev/null 2>&1 || true
	if kill -0 "$VOLTPID" 2>/dev/null; then
		kill "$VOLTPID" 2>/dev/null || true
		wait "$VOLTPID" 2>/dev/null || true
	fi
	scripts/voltdb-sandbox.sh stop "$VOLTDIR" >/dev/null 2>&1 || true
	rm -f -- "$CASSOUT" "$CASSURL" "$VOLTOUT" "$VOLTURL"
}
trap cleanup EXIT

echo "== gofmt"
bad=$(gofmt -l cmd internal)
if [ -n "$bad" ]; then
	echo "gofmt needed:"; echo "$bad"; exit 1
fi
echo "== go vet"
go vet ./...

echo "== starting a throwaway PostgreSQL"
CANDOR_TEST_POSTGRES_URL=$(scripts/pg-sandbox.sh start "$PGDIR")
export CANDOR_TEST_POSTGRES_URL
echo "   $CANDOR_TEST_POSTGRES_URL"
echo "== starting a throwaway MariaDB"
CANDOR_TEST_MYSQL_URL=$(scripts/mariadb-sandbox.sh start "$MYDIR")
export CANDOR_TEST_MYSQL_URL
echo "   $CANDOR_TEST_MYSQL_URL"

# The HTML report test renders in headless Chromium from Debian's package.
if [ ! -x /usr/bin/chromium ] && [ "$(id -u)" -eq 0 ]; then
	echo "== installing chromium for the report rendering test"
	apt_install chromium ||
		echo "   chromium could not be installed: the browser test will be skipped"
fi

# The distributions (internal/keydist) and the statements (internal/cli) are
# checked against sysbench 1.0.20 itself, from Debian's package.
if ! command -v sysbench >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ]; then
	echo "== installing sysbench for the reference tests"
	apt_install sysbench ||
		echo "   sysbench could not be installed: the reference tests will be skipped"
fi
if command -v sysbench >/dev/null 2>&1; then
	CANDOR_TEST_SYSBENCH=$(command -v sysbench)
	export CANDOR_TEST_SYSBENCH
fi

echo "== waiting for Cassandra"
t0=$SECONDS
if ! wait "$CASSPID"; then
	echo "Cassandra did not start (scripts/cassandra-sandbox.sh start $CASSDIR); its output:" >&2
	tail -n 30 "$CASSOUT" >&2
	echo "a start needs Java 17 and mvn (Debian: openjdk-17-jre-headless, maven; installed when we are root) and the jars from the Maven repository; on a slow machine raise CANDOR_CASSANDRA_START_TIMEOUT (seconds, default 240). go test ./... runs the other tests without it." >&2
	exit 1
fi
CANDOR_TEST_CASSANDRA_URL=$(tail -n 1 "$CASSURL")
case $CANDOR_TEST_CASSANDRA_URL in
cql://*) ;;
*)
	echo "Cassandra's start printed no URL; its output:" >&2
	cat "$CASSOUT" >&2
	exit 1
	;;
esac
export CANDOR_TEST_CASSANDRA_URL
echo "   $CANDOR_TEST_CASSANDRA_URL (waited $((SECONDS - t0)) s)"

echo "== waiting for VoltDB"
t0=$SECONDS
if ! wait "$VOLTPID"; then
	echo "VoltDB did not start (scripts/voltdb-sandbox.sh start $VOLTDIR); its output:" >&2
	tail -n 40 "$VOLTOUT" >&2
	echo "a start needs Java 11 or 17 with javac, and mvn (Debian: openjdk-17-jdk-headless, maven; installed when we are root) and the jars from the Maven repository; on a slow machine raise CANDOR_VOLTDB_START_TIMEOUT (seconds, default 240). go test ./... runs the other tests without it." >&2
	exit 1
fi
CANDOR_TEST_VOLTDB_URL=$(tail -n 1 "$VOLTURL")
case $CANDOR_TEST_VOLTDB_URL in
voltdb://*) ;;
*)
	echo "VoltDB's start printed no URL; its output:" >&2
	cat "$VOLTOUT" >&2
	exit 1
	;;
esac
export CANDOR_TEST_VOLTDB_URL
# Its directory: the VoltDB tests count rows with its own sqlcmd
# (scripts/voltdb-sandbox.sh sqlcmd DIR), an oracle that shares no code
# with candor's driver.
CANDOR_TEST_VOLTDB_DIR=$VOLTDIR
export CANDOR_TEST_VOLTDB_DIR
echo "   $CANDOR_TEST_VOLTDB_URL (waited $((SECONDS - t0)) s)"

echo "== go test -race"
# TPC-C on the embedded SQLite runs without -race, beside the rest: the
# race detector instruments SQLite's own code (Go translated from C) and
# its load of 600,000 rows takes ten times longer under it.
SQLITELOG=$(mktemp /tmp/candor-tpcc-sqlite.XXXXXX)
go test -count=1 -timeout 20m "$@" -run '^TestRealTargets$/^sqlite$' ./internal/workload/tpcc/ >"$SQLITELOG" 2>&1 &
SQLITEPID=$!
# The slowest packages first: go test runs as many test binaries at once as
# there are cores, in the order given, and the long ones then overlap the
# rest instead of ending the run alone.
slow="./scripts ./internal/workload/tpcc ./internal/cli ./internal/engine"
rest=$(go list ./... | grep -v -x -e "$(go list ./scripts)" -e "$(go list ./internal/workload/tpcc)" -e "$(go list ./internal/cli)" -e "$(go list ./internal/engine)")
status=0
# shellcheck disable=SC2086
go test -race -count=1 -timeout 20m "$@" $slow $rest || status=$?
if ! wait "$SQLITEPID"; then
	echo "TPC-C on SQLite (go test -run TestRealTargets/sqlite ./internal/workload/tpcc/, without -race) failed:" >&2
	status=1
fi
cat "$SQLITELOG"
rm -f -- "$SQLITELOG"
exit $status

#!/usr/bin/env bash
# voltdb-sandbox.sh — a throwaway VoltDB 10.1.1 Community Edition for tests
# and experiments, run unmodified from its jars in the Maven repository (no
# tarball, no service, no Python wrapper).
#
#   scripts/voltdb-sandbox.sh fetch
#       Resolves org.voltdb:voltdb:10.1.1 and the libraries it needs with
#       mvn into the cache directory (below), and compiles the three
#       schema-registry stand-in classes of scripts/voltdb/stubs with javac
#       into it. Does nothing when they are there. start does it when needed.
#       Prints the cache's lib directory.
#   scripts/voltdb-sandbox.sh start DIR [--nodes N] [--kfactor K] [--sites S]
#                                      [--commandlog off] [--snapshot SECONDS]
#                                      [--memory-limit GB]
#       Creates DIR (it must not hold anything yet), writes DIR/deployment.xml,
#       initializes one VoltDB root per node (DIR/nodeN/voltdbroot) and starts
#       N nodes (default 1, at most 9) on free ports of 127.0.0.1, all at once
#       in the background, and waits until every node has logged "Server
#       completed initialization." and accepts clients. Prints the URL on
#       stdout (also written to DIR/url):
#           voltdb://127.0.0.1:PORT              one node
#           voltdb://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3   three nodes
#       --kfactor K: K extra copies of every partition (default 0; needs
#       N > K). --sites S: sites (partitions) per host (default 2).
#       --commandlog: only off. The Community Edition has no command log
#       (its initialize stops with "Command logging is not supported in the
#       community edition of VoltDB"), so async and sync are refused with
#       that reason: committed data lives in memory, and in the other copies
#       when K >= 1. --snapshot SECONDS: an automatic snapshot that often
#       (default off), which a restart of the whole cluster loads.
#       --memory-limit GB: a node stops accepting writes when its resident
#       memory passes GB gigabytes (VoltDB's resource monitor; default 80%
#       of the machine's memory per node). Each node's log is
#       DIR/nodeN/volt.log, its pid DIR/nodeN/pid, its ports (client admin
#       internal zk http replication status) DIR/nodeN/ports. Everything
#       else goes to stderr.
#   scripts/voltdb-sandbox.sh kill DIR [NODE]
#       SIGKILL (a crash: no shutdown, no final snapshot) of NODE, or of
#       every node; DIR stays, so the node can be started again with restart.
#       A node of a k-safe cluster dies alone ("Cluster remains
#       operational"); without k-safety the whole cluster stops.
#   scripts/voltdb-sandbox.sh restart DIR [NODE]
#       Starts a stopped or killed node again with the command it started
#       with; without NODE, every node that is down, all at once (a cluster
#       whose nodes all died forms again only with all of them). A node
#       rejoins a running k-safe cluster ("Node rejoin completed", its
#       copies sent over live); nodes started when none runs form the
#       cluster again, which loads its last snapshot when --snapshot is on
#       and is otherwise empty, without the tables made since its start
#       (the roots are initialized without a schema). Waits until ready.
#   scripts/voltdb-sandbox.sh stop DIR [NODE]
#       Without NODE: stops every node (SIGTERM, SIGKILL after 60 s) and
#       removes DIR. With NODE: stops that node only and keeps DIR. It
#       refuses to remove a directory this script did not create.
#   scripts/voltdb-sandbox.sh status DIR
#       One line per node: its number, running (with its pid) or down, its
#       client port; then the URL. Exits 0 when every node runs, 3 when some
#       do not.
#   scripts/voltdb-sandbox.sh url DIR
#       Prints the URL of a sandbox.
#   scripts/voltdb-sandbox.sh sqlcmd DIR [NODE]
#       Runs VoltDB's own sqlcmd (org.voltdb.utils.SQLCommand) against NODE
#       (default 1) with SQL read from stdin: an independent reader for
#       tests. Exits 255 when a statement failed.
#
# Cache: CANDOR_VOLTDB_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/candor-voltdb
# (56 jars, about 58 MB, in lib/; the first fetch took 23 s here).
# Needs mvn, and Java 11 or 17 with javac (when missing and we are root,
# installs Debian's maven and openjdk-17-jdk-headless). VoltDB 10 supports
# Java 8 and 11; Java 17 runs it with the --add-opens flags written into
# DIR/jvm.args. CANDOR_VOLTDB_HEAP sets -Xmx per node (default 1g; an idle
# node uses about 0.35 GB); CANDOR_VOLTDB_START_TIMEOUT bounds the wait for
# a start or a rejoin (default 240 s; one node started in 12-19 s here,
# three in 47 s, a rejoin in 16 s, on a busy 2-core machine).
#
# Each JVM unpacks VoltDB's native engine (libvoltdb, 13 MB) and other
# libraries into its java.io.tmpdir, which is DIR/nodeN/tmp here (by
# default it would be /tmp/voltdb-UUID-libvoltdb-10.1.1.so), and a killed
# JVM leaves them behind: kill, restart and stop empty the tmp directory of
# a node that is down. Nothing is written to /tmp.
#
# Usage in a test run:
#   U=$(scripts/voltdb-sandbox.sh start /tmp/volttest)
#   CANDOR_TEST_VOLTDB_URL=$U go test ./internal/target/voltdb
#   scripts/voltdb-sandbox.sh stop /tmp/volttest
set -euo pipefail

MARKER=.candor-voltdb-sandbox
CACHE_DIR=${CANDOR_VOLTDB_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/candor-voltdb}
VERSION=10.1.1
HEAP=${CANDOR_VOLTDB_HEAP:-1g}
START_TIMEOUT=${CANDOR_VOLTDB_START_TIMEOUT:-240}
READY_LINE='Server completed initialization.'
MAX_NODES=9
# PORT_NAMES are the ports every node listens on, in the order of DIR/nodeN/ports.
PORT_NAMES="client admin internal zk http replication status"
STUBS_SRC=$(cd "$(dirname "$0")" && pwd -P)/voltdb/stubs

SANDBOX=voltdb-sandbox
# JAVA_FOR is what need_java says needs Java 11 or 17.
JAVA_FOR="VoltDB $VERSION"
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"

# ---------------------------------------------------------------- fetch

# write_pom writes the scratch pom that resolves VoltDB's runtime to $1.
# VoltDB's own pom lists only netty; the rest is what its startup loads
# (each found by a NoClassDefFoundError), plus jline for sqlcmd.
write_pom() {
	local deps="" g a v
	while read -r g a v; do
		[ -n "$g" ] || continue
		deps+="    <dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version></dependency>
"
	done <<-EOF
	org.voltdb voltdb $VERSION
	log4j log4j 1.2.17
	org.apache.commons commons-lang3 3.8.1
	org.apache.calcite calcite-core 1.17.0
	org.eclipse.jetty jetty-server 9.4.33.v20201020
	org.eclipse.jetty jetty-servlet 9.4.33.v20201020
	org.eclipse.jetty jetty-continuation 9.4.33.v20201020
	javax.servlet javax.servlet-api 3.1.0
	javax.xml.bind jaxb-api 2.3.0
	com.sun.xml.bind jaxb-core 2.3.0.1
	com.sun.xml.bind jaxb-impl 2.3.0.1
	javax.activation activation 1.1.1
	org.xerial.snappy snappy-java 1.1.7.3
	net.sf.supercsv super-csv 2.1.0
	org.apache.felix org.apache.felix.framework 5.6.12
	net.java.dev.jna jna 5.5.0
	org.aeonbits.owner owner-java8 1.0.12
	org.apache.httpcomponents httpclient 4.5.13
	org.apache.httpcomponents httpasyncclient 4.1.4
	org.apache.avro avro 1.9.0
	org.apache.kafka kafka-clients 2.3.1
	jline jline 2.10
	EOF
	cat >"$1" <<-EOF
	<?xml version="1.0" encoding="UTF-8"?>
	<project xmlns="http://maven.apache.org/POM/4.0.0">
	  <modelVersion>4.0.0</modelVersion>
	  <groupId>candor.sandbox</groupId>
	  <artifactId>voltdb-runtime</artifactId>
	  <version>1</version>
	  <packaging>pom</packaging>
	  <dependencies>
	$deps  </dependencies>
	</project>
	EOF
}

# stubs_digest prints a digest of the stand-in classes' sources, so that a
# cache built from other sources is rebuilt.
stubs_digest() {
	(cd "$STUBS_SRC" && find . -name '*.java' | LC_ALL=C sort | xargs cat) | sha256sum | cut -d' ' -f1
}

# build_stubs compiles the schema-registry stand-ins into
# $CACHE_DIR/lib/candor-schema-registry-stubs.jar. VoltDB's startup loads
# Confluent's schema-registry client classes (used only by its Avro export
# to Kafka), which the Maven repository does not hold.
build_stubs() {
	local digest out=$CACHE_DIR/lib/candor-schema-registry-stubs.jar
	digest=$(stubs_digest)
	if [ -f "$out" ] && [ "$(cat "$CACHE_DIR/stubs.sha256" 2>/dev/null)" = "$digest" ]; then
		return 0
	fi
	need_tool javac openjdk-17-jdk-headless
	need_tool jar openjdk-17-jdk-headless
	local avro classes
	avro=$(ls "$CACHE_DIR"/lib/avro-*.jar 2>/dev/null | head -n 1)
	[ -n "$avro" ] || die "no avro jar in $CACHE_DIR/lib: remove $CACHE_DIR and fetch again"
	classes=$(mktemp -d "$CACHE_DIR/stubs.XXXXXX")
	# shellcheck disable=SC2046
	javac --release 11 -nowarn -cp "$avro" -d "$classes" $(find "$STUBS_SRC" -name '*.java') >&2 ||
		die "javac could not compile the stand-in classes in $STUBS_SRC"
	jar cf "$out.tmp" -C "$classes" . || die "jar could not pack the stand-in classes"
	mv "$out.tmp" "$out"
	rm -rf -- "$classes"
	echo "$digest" >"$CACHE_DIR/stubs.sha256"
	log "compiled the schema-registry stand-ins into $out"
}

fetch() {
	if [ -f "$CACHE_DIR/lib/.complete" ]; then
		build_stubs
		return 0
	fi
	need_tool mvn maven
	mkdir -p "$CACHE_DIR"
	exec 9>"$CACHE_DIR/fetch.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -n 9 || { log "another fetch is running; waiting for it"; flock 9; }
		if [ -f "$CACHE_DIR/lib/.complete" ]; then
			build_stubs
			return 0
		fi
	fi
	local t0=$SECONDS build=$CACHE_DIR/build
	rm -rf -- "$build" "${CACHE_DIR:?}/lib"
	mkdir -p "$build"
	write_pom "$build/pom.xml"
	log "resolving voltdb $VERSION and its runtime libraries from the Maven repository into $CACHE_DIR/lib (a minute or two)"
	# A local repository of its own: scripts/test.sh runs this beside
	# cassandra-sandbox.sh's fetch, and Debian's maven 3.8 does not lock
	# a shared ~/.m2 against two writers.
	(cd "$build" && mvn -B -q -Dstyle.color=never -Dmaven.repo.local="$build/m2" dependency:copy-dependencies \
		-DoutputDirectory="$build/lib" -DincludeScope=runtime >&2) ||
		die "mvn could not resolve voltdb $VERSION and its libraries (see above; is the Maven repository reachable?)"
	[ -f "$build/lib/voltdb-$VERSION.jar" ] || die "mvn finished but voltdb-$VERSION.jar is not in $build/lib"
	: >"$build/lib/.complete"
	mv "$build/lib" "$CACHE_DIR/lib"
	rm -rf -- "$build"
	build_stubs
	log "VoltDB $VERSION: $(ls "$CACHE_DIR/lib" | wc -l) jars, $(du -sh "$CACHE_DIR/lib" | cut -f1), fetched in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- files

# write_jvm_args writes the JVM flags of every node to $1. VoltDB 10
# predates Java 17's strong encapsulation: without these opens its startup
# dies in jaxb-impl (sun.misc.Unsafe.defineClass) and in its own
# reflection on NIO internals.
write_jvm_args() {
	local m
	{
		echo "-Xmx$HEAP"
		echo "-XX:+UseG1GC"
		echo "-XX:+ExitOnOutOfMemoryError"
		echo "-XX:+PerfDisableSharedMem"
		echo "-Djava.net.preferIPv4Stack=true"
		echo "-Dlog4j.configuration=file://$2"
		for m in java.lang java.nio sun.nio.ch jdk.internal.misc java.util java.lang.reflect java.io java.net; do
			echo "--add-opens=java.base/$m=ALL-UNNAMED"
		done
		for m in jdk.internal.misc sun.nio.ch; do
			echo "--add-exports=java.base/$m=ALL-UNNAMED"
		done
	} >"$1"
}

# write_log4j writes a log4j 1.2 configuration to $1: INFO and above to
# standard output, which launch sends to the node's volt.log (log4j 1.2
# without a configuration logs nothing and warns).
write_log4j() {
	cat >"$1" <<-'EOF'
	<?xml version="1.0" encoding="UTF-8" ?>
	<!DOCTYPE log4j:configuration SYSTEM "log4j.dtd">
	<log4j:configuration xmlns:log4j="http://jakarta.apache.org/log4j/">
	  <appender name="console" class="org.apache.log4j.ConsoleAppender">
	    <layout class="org.apache.log4j.PatternLayout">
	      <param name="ConversionPattern" value="%d{ISO8601} %-5p [%t] %c: %m%n"/>
	    </layout>
	  </appender>
	  <root>
	    <priority value="info"/>
	    <appender-ref ref="console"/>
	  </root>
	</log4j:configuration>
	EOF
}

# write_deployment writes sandbox $1's deployment.xml from its settings
# (files kfactor, sites, snapshot, memory_limit). The Community Edition
# refuses any command log ("Command logging is not supported in the
# community edition of VoltDB" at initialize), so it is always off.
write_deployment() {
	local dir=$1 snap ml="" every
	every=$(cat "$dir/snapshot")
	if [ "$every" = off ]; then
		snap='<snapshot enabled="false"/>'
	else
		snap="<snapshot enabled=\"true\" frequency=\"${every}s\" retain=\"2\" prefix=\"AUTOSNAP\"/>"
	fi
	if [ -s "$dir/memory_limit" ]; then
		ml="<systemsettings><resourcemonitor><memorylimit size=\"$(cat "$dir/memory_limit")\"/></resourcemonitor></systemsettings>"
	fi
	cat >"$dir/deployment.xml" <<-EOF
	<?xml version="1.0"?>
	<!-- written by voltdb-sandbox.sh -->
	<deployment>
	  <cluster sitesperhost="$(cat "$dir/sites")" kfactor="$(cat "$dir/kfactor")"/>
	  <httpd enabled="false"/>
	  $snap
	  <commandlog enabled="false"/>
	  $ml
	</deployment>
	EOF
}

# ---------------------------------------------------------------- nodes

nodes_of() { cat "$1/nodes"; }

# port_or_dash prints node $2's client port, or "-" before it has one.
port_or_dash() {
	if [ -s "$1/node$2/ports" ]; then node_port "$1" "$2" client; else echo -; fi
}

# jvm_alive succeeds while any thread of process $1 is not a zombie. A JVM
# whose main thread has returned during shutdown shows "Z" in
# /proc/PID/stat while its other threads still run (sandbox-lib.sh's alive
# would call it gone); a true zombie has no live thread.
jvm_alive() {
	local t s
	for t in /proc/"$1"/task/*/stat; do
		read -r s 2>/dev/null <"$t" || continue
		s=${s##*) }
		[ "${s%% *}" = Z ] || return 0
	done
	return 1
}

# node_port prints node $2's port named $3 (one of PORT_NAMES).
node_port() {
	local dir=$1 i=$2 want=$3 name n=0 ports
	read -r -a ports <"$dir/node$i/ports"
	for name in $PORT_NAMES; do
		[ "$name" = "$want" ] && { echo "${ports[$n]}"; return; }
		n=$((n + 1))
	done
	die "no port named $want"
}

# pick_ports prints $1 distinct free loopback ports below the kernel's
# ephemeral range (a port in it may be the local end of someone's outgoing
# connection, which a connect test does not see and which makes the bind
# fail: seen for VoltDB's HTTP port).
pick_ports() {
	local want=$1 got=() p i n ok low
	read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || low=32768
	[ "$low" -gt 12000 ] || low=32768
	for i in $(seq 1 500); do
		[ ${#got[@]} -lt "$want" ] || break
		p=$((10000 + RANDOM % (low - 10000)))
		ok=1
		for n in "${got[@]}"; do [ "$n" != "$p" ] || ok=""; done
		[ -n "$ok" ] && port_in_use "$p" && ok=""
		[ -n "$ok" ] && got+=("$p")
	done
	[ ${#got[@]} -eq "$want" ] || die "no $want free TCP ports found on 127.0.0.1"
	echo "${got[@]}"
}

# node_pid prints node $2's pid when it runs VoltDB with sandbox $1's
# root (not a recycled pid); fails otherwise.
node_pid() {
	local nd=$1/node$2 pid
	[ -f "$nd/pid" ] || return 1
	pid=$(cat "$nd/pid")
	[ -n "$pid" ] && jvm_alive "$pid" || return 1
	if [ -r "/proc/$pid/cmdline" ]; then
		tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "voltdbroot $nd/voltdbroot " || return 1
	fi
	echo "$pid"
}

# start_cmd prints nothing; it runs node $2 of sandbox $1 in the
# foreground with its output appended to its log (the caller backgrounds
# it). The same command starts, restarts and rejoins a node: "probe" lets
# VoltDB decide from its root and the mesh.
run_node() {
	local dir=$1 i=$2 nd=$1/node$2 leader
	leader=127.0.0.1:$(node_port "$dir" 1 internal)
	cd "$nd"
	exec setsid java @"$dir/jvm.args" -Djava.io.tmpdir="$nd/tmp" \
		-cp "$CACHE_DIR/lib/*" org.voltdb.VoltDB probe \
		voltdbroot "$nd/voltdbroot" \
		mesh "$leader" hostcount "$(nodes_of "$dir")" \
		port "127.0.0.1:$(node_port "$dir" "$i" client)" \
		adminport "127.0.0.1:$(node_port "$dir" "$i" admin)" \
		internalport "$(node_port "$dir" "$i" internal)" \
		zkport "127.0.0.1:$(node_port "$dir" "$i" zk)" \
		httpport "127.0.0.1:$(node_port "$dir" "$i" http)" \
		replicationport "$(node_port "$dir" "$i" replication)" \
		statusport "127.0.0.1:$(node_port "$dir" "$i" status)" \
		internalinterface 127.0.0.1 externalinterface 127.0.0.1 \
		</dev/null >>"$nd/volt.log" 2>&1
}

# spawn starts node $2 of sandbox $1 in the background and records its pid.
spawn() {
	local dir=$1 i=$2 nd=$1/node$2
	mkdir -p "$nd/tmp"
	echo "== $(date -u '+%Y-%m-%dT%H:%M:%SZ') voltdb-sandbox.sh: starting node $i" >>"$nd/volt.log"
	# The log's line count now: wait_ready looks for the ready line after it.
	wc -l <"$nd/volt.log" >"$nd/log_mark"
	(run_node "$dir" "$i") &
	echo $! >"$nd/pid"
	# Not a job of this shell: its kill must not print "Killed".
	disown $! 2>/dev/null || true
}

# new_log_lines prints node $2's log lines written since its last spawn.
new_log_lines() {
	local nd=$1/node$2
	tail -n +"$(($(cat "$nd/log_mark") + 1))" "$nd/volt.log" 2>/dev/null
}

# wait_ready waits until node $2 of sandbox $1 has logged READY_LINE since
# its spawn and accepts connections on its client port. It returns 1 when
# the node exited because a port was taken (the caller may retry), and dies
# on other failures and on the timeout (deadline $3, in SECONDS).
wait_ready() {
	local dir=$1 i=$2 deadline=$3 nd=$1/node$2 pid port
	pid=$(cat "$nd/pid")
	port=$(node_port "$dir" "$i" client)
	while :; do
		if ! jvm_alive "$pid"; then
			rm -f "$nd/pid"
			if new_log_lines "$dir" "$i" | grep -qiE "address already in use|failed to bind|BindException"; then
				return 1
			fi
			show_log "$dir" "$i"
			die "node $i exited during startup (log: $nd/volt.log)"
		fi
		if new_log_lines "$dir" "$i" | grep -qF "$READY_LINE" && port_in_use "$port"; then
			return 0
		fi
		if [ $SECONDS -ge "$deadline" ]; then
			show_log "$dir" "$i"
			return 2
		fi
		sleep 0.5
	done
}

# halt stops node $2 of sandbox $1 with signal $3 (TERM or KILL) and waits
# for it to exit (SIGKILL after 60 s of SIGTERM), then deletes the native
# libraries its JVMs left.
halt() {
	local dir=$1 i=$2 sig=$3 pid n
	if pid=$(node_pid "$dir" "$i"); then
		kill -"$sig" "$pid" 2>/dev/null || true
		for n in $(seq 1 600); do
			jvm_alive "$pid" || break
			sleep 0.1
		done
		if jvm_alive "$pid"; then
			log "node $i (pid $pid) still running after 60 s: killing it"
			kill -KILL "$pid" 2>/dev/null || true
			for n in $(seq 1 100); do
				jvm_alive "$pid" || break
				sleep 0.1
			done
		fi
		log "node $i (pid $pid) stopped (SIG$sig)"
	fi
	rm -f "$dir/node$i/pid"
	clean_native "$dir" "$i"
}

# clean_native empties node $2's java.io.tmpdir once the node is down: the
# native engine (libvoltdb, 13 MB), its catalog library, snappy's library
# and the catalog jars each JVM unpacks there, which a killed JVM cannot
# delete. The directory belongs to that node's JVMs alone.
clean_native() {
	local tmp=$1/node$2/tmp
	[ -d "$tmp" ] || return 0
	node_pid "$1" "$2" >/dev/null && return 0
	find "$tmp" -mindepth 1 -delete 2>/dev/null || true
}

# show_log prints the end of node $2's log since its last spawn (or the
# whole log) to stderr, without the JVM's 8 KB classpath line.
show_log() {
	local nd=$1/node$2
	{ [ -f "$nd/log_mark" ] && new_log_lines "$1" "$2" || cat "$nd/volt.log"; } 2>/dev/null |
		grep -v -e 'Command line JVM classpath' -e '^SLF4J: ' | tail -n 25 | sed "s/^/node $2: /" >&2 || true
}

check_sandbox() {
	[ -e "$1/$MARKER" ] && [ -f "$1/nodes" ] || die "no sandbox in $1 (no $MARKER): start one with $0 start $1"
}

check_node() {
	local dir=$1 i=$2
	case $i in
	'' | *[!0-9]*) die "NODE must be a node number (1..$(nodes_of "$dir")), not \"$i\"" ;;
	esac
	[ "$i" -ge 1 ] && [ "$i" -le "$(nodes_of "$dir")" ] || die "node $i does not exist: the sandbox in $dir has $(nodes_of "$dir") node(s)"
}

# need_int checks that option $1's value $2 is a whole number in [$3, $4].
need_int() {
	case $2 in
	'' | *[!0-9]*) die "$1 $2: want a whole number from $3 to $4" ;;
	esac
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ] || die "$1 $2: want a whole number from $3 to $4"
}

url_of() {
	local dir=$1 i hosts=""
	for i in $(seq 1 "$(nodes_of "$dir")"); do
		hosts+=${hosts:+,}127.0.0.1:$(node_port "$dir" "$i" client)
	done
	echo "voltdb://$hosts"
}

# ---------------------------------------------------------------- commands

start() {
	local dir=$1 nodes=1 kfactor=0 sites=2 commandlog=off snapshot=off memlimit=""
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes | --kfactor | --sites | --commandlog | --snapshot | --memory-limit)
			[ $# -ge 2 ] || die "$1 needs a value"
			set -- "$1=$2" "${@:3}"
			continue
			;;
		--nodes=*) nodes=${1#*=} ;;
		--kfactor=*) kfactor=${1#*=} ;;
		--sites=*) sites=${1#*=} ;;
		--commandlog=*) commandlog=${1#*=} ;;
		--snapshot=*) snapshot=${1#*=} ;;
		--memory-limit=*) memlimit=${1#*=} ;;
		*) die "unknown option $1; valid: --nodes N, --kfactor K, --sites S, --commandlog off, --snapshot SECONDS|off, --memory-limit GB" ;;
		esac
		shift
	done
	need_int --nodes "$nodes" 1 $MAX_NODES
	need_int --kfactor "$kfactor" 0 $((nodes - 1))
	need_int --sites "$sites" 1 64
	case $commandlog in
	off) ;;
	async | sync) die "--commandlog $commandlog: VoltDB $VERSION Community Edition has no command log (its initialize stops with \"Command logging is not supported in the community edition of VoltDB\"); committed data lives in memory, and in the other copies when --kfactor is 1 or more. --snapshot SECONDS writes a snapshot that often, which a restart of the whole cluster loads" ;;
	*) die "--commandlog $commandlog: want off (async and sync need VoltDB's Enterprise Edition)" ;;
	esac
	[ "$snapshot" = off ] || need_int --snapshot "$snapshot" 1 86400
	[ -z "$memlimit" ] || need_int --memory-limit "$memlimit" 1 4096
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
		die "$dir exists and is not empty: stop that sandbox first ($0 stop $dir) or use another directory"
	fi
	need_java
	fetch
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	: >"$dir/$MARKER"
	echo "$nodes" >"$dir/nodes"
	echo "$kfactor" >"$dir/kfactor"
	echo "$sites" >"$dir/sites"
	echo "$snapshot" >"$dir/snapshot"
	echo "$memlimit" >"$dir/memory_limit"
	write_log4j "$dir/log4j.xml"
	write_jvm_args "$dir/jvm.args" "$dir/log4j.xml"
	write_deployment "$dir"

	local t0=$SECONDS i
	for i in $(seq 1 "$nodes"); do
		mkdir -p "$dir/node$i/tmp"
		: >"$dir/node$i/volt.log"
		(cd "$dir/node$i" && java @"$dir/jvm.args" -Djava.io.tmpdir="$dir/node$i/tmp" \
			-cp "$CACHE_DIR/lib/*" org.voltdb.VoltDB initialize \
			voltdbroot "$dir/node$i/voltdbroot" deployment "$dir/deployment.xml" force \
			</dev/null >>"$dir/node$i/volt.log" 2>&1) &
	done
	for i in $(seq 1 "$nodes"); do
		wait -n || {
			wait
			for n in $(seq 1 "$nodes"); do show_log "$dir" "$n"; done
			die "VoltDB's initialize failed (logs: $dir/nodeN/volt.log; $0 stop $dir removes the directory)"
		}
	done
	for i in $(seq 1 "$nodes"); do clean_native "$dir" "$i"; done
	log "initialized $nodes root(s) in $((SECONDS - t0)) s"

	local attempt ok="" deadline rc
	for attempt in 1 2 3; do
		for i in $(seq 1 "$nodes"); do
			# shellcheck disable=SC2086
			pick_ports 7 >"$dir/node$i/ports"
		done
		# Ports picked apart could collide: pick again when they do.
		if [ "$(cat "$dir"/node*/ports | tr ' ' '\n' | sort | uniq -d)" != "" ]; then
			continue
		fi
		for i in $(seq 1 "$nodes"); do spawn "$dir" "$i"; done
		deadline=$((SECONDS + START_TIMEOUT))
		ok=1
		for i in $(seq 1 "$nodes"); do
			rc=0
			wait_ready "$dir" "$i" "$deadline" || rc=$?
			case $rc in
			0) ;;
			1)
				log "node $i: a port was taken (attempt $attempt); starting over on other ports"
				ok=""
				break
				;;
			*)
				for n in $(seq 1 "$nodes"); do halt "$dir" "$n" KILL; done
				die "node $i was not ready within $START_TIMEOUT s (log: $dir/node$i/volt.log; CANDOR_VOLTDB_START_TIMEOUT raises the bound)"
				;;
			esac
		done
		[ -n "$ok" ] && break
		for n in $(seq 1 "$nodes"); do halt "$dir" "$n" KILL; done
	done
	[ -n "$ok" ] || die "VoltDB did not start after 3 attempts: ports kept being taken"

	local url snapdesc=off
	[ "$snapshot" = off ] || snapdesc="every $snapshot s"
	url=$(url_of "$dir")
	echo "$url" >"$dir/url"
	log "VoltDB $VERSION running: $nodes node(s), k=$kfactor, $sites sites per host, snapshots $snapdesc${memlimit:+, memory limit $memlimit GB}, ready after $((SECONDS - t0)) s, data in $dir; stop with: $0 stop $dir"
	echo "$url"
}

stop() {
	local dir=$1 node=${2:-} i
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by voltdb-sandbox.sh (no $MARKER): refusing to remove it"
	dir=$(cd "$dir" && pwd -P)
	if [ -n "$node" ]; then
		check_node "$dir" "$node"
		halt "$dir" "$node" TERM
		return 0
	fi
	for i in $(seq 1 "$(nodes_of "$dir" 2>/dev/null || echo $MAX_NODES)"); do
		halt "$dir" "$i" TERM &
	done
	wait
	rm -rf -- "$dir"
	log "removed $dir"
}

killnode() {
	local dir=$1 node=${2:-} i
	check_sandbox "$dir"
	dir=$(cd "$dir" && pwd -P)
	if [ -n "$node" ]; then
		check_node "$dir" "$node"
		halt "$dir" "$node" KILL
		return 0
	fi
	for i in $(seq 1 "$(nodes_of "$dir")"); do halt "$dir" "$i" KILL & done
	wait
}

restart() {
	local dir=$1 node=${2:-} t0=$SECONDS attempt rc i deadline retry nodes=()
	check_sandbox "$dir"
	dir=$(cd "$dir" && pwd -P)
	if [ -n "$node" ]; then
		check_node "$dir" "$node"
		node_pid "$dir" "$node" >/dev/null && die "node $node is running: stop or kill it first"
		nodes=("$node")
	else
		for i in $(seq 1 "$(nodes_of "$dir")"); do
			node_pid "$dir" "$i" >/dev/null || nodes+=("$i")
		done
		[ ${#nodes[@]} -gt 0 ] || die "every node of $dir runs: nothing to restart"
	fi
	need_java
	for attempt in 1 2 3 4 5; do
		# All at once: a cluster whose nodes are all down forms again only
		# when every node is up (each waits for hostcount nodes).
		for i in "${nodes[@]}"; do
			clean_native "$dir" "$i"
			spawn "$dir" "$i"
		done
		deadline=$((SECONDS + START_TIMEOUT))
		retry=""
		for i in "${nodes[@]}"; do
			rc=0
			wait_ready "$dir" "$i" "$deadline" || rc=$?
			case $rc in
			0) ;;
			1)
				retry=1
				break
				;;
			*)
				for n in "${nodes[@]}"; do halt "$dir" "$n" KILL; done
				die "node $i was not ready within $START_TIMEOUT s (log: $dir/node$i/volt.log)"
				;;
			esac
		done
		if [ -z "$retry" ]; then
			for i in "${nodes[@]}"; do
				log "node $i (pid $(cat "$dir/node$i/pid")) ready again after $((SECONDS - t0)) s"
			done
			return 0
		fi
		# Its ports are known to clients and to the other nodes: wait for the
		# one taken (TIME-WAIT after a kill) instead of moving it.
		log "node $i: a port was taken (attempt $attempt of 5); trying again"
		for n in "${nodes[@]}"; do halt "$dir" "$n" KILL; done
		sleep 2
	done
	die "node $i could not bind its ports again after 5 attempts: is something else listening on $(cat "$dir/node$i/ports")? (log: $dir/node$i/volt.log)"
}

status() {
	local dir=$1 i pid down=0
	check_sandbox "$dir"
	dir=$(cd "$dir" && pwd -P)
	for i in $(seq 1 "$(nodes_of "$dir")"); do
		if pid=$(node_pid "$dir" "$i"); then
			echo "node $i running pid $pid port $(port_or_dash "$dir" "$i")"
		else
			echo "node $i down port $(port_or_dash "$dir" "$i")"
			down=1
		fi
	done
	echo "url $(cat "$dir/url" 2>/dev/null || echo -)"
	[ $down -eq 0 ] || exit 3
}

sqlcmd() {
	local dir=$1 node=${2:-1}
	check_sandbox "$dir"
	dir=$(cd "$dir" && pwd -P)
	check_node "$dir" "$node"
	need_java
	# The client needs the same opens as the server (its network thread
	# reflects on NIO internals; without them it spins and fails), and a
	# temporary directory of its own for the libraries it unpacks.
	local tmp rc=0
	tmp=$(mktemp -d "$dir/sqlcmd.XXXXXX")
	# shellcheck disable=SC2046
	java -Xmx256m -Djava.io.tmpdir="$tmp" $(grep -E '^--add-|^-Dlog4j' "$dir/jvm.args") -cp "$CACHE_DIR/lib/*" \
		org.voltdb.utils.SQLCommand --servers=127.0.0.1 --port="$(node_port "$dir" "$node" client)" || rc=$?
	rm -rf -- "$tmp"
	return $rc
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
fetch) [ $# -eq 0 ] || usage; need_java; fetch; echo "$CACHE_DIR/lib" ;;
start) [ $# -ge 1 ] || usage; start "$@" ;;
stop) [ $# -ge 1 ] && [ $# -le 2 ] || usage; stop "$@" ;;
kill) [ $# -ge 1 ] && [ $# -le 2 ] || usage; killnode "$@" ;;
restart) [ $# -ge 1 ] && [ $# -le 2 ] || usage; restart "$@" ;;
status) [ $# -eq 1 ] || usage; status "$@" ;;
url) [ $# -eq 1 ] || usage; check_sandbox "$1"; cat "$1/url" ;;
sqlcmd) [ $# -ge 1 ] && [ $# -le 2 ] || usage; sqlcmd "$@" ;;
*) usage ;;
esac

#!/usr/bin/env bash
# cassandra-sandbox.sh — a throwaway Apache Cassandra 5.0 for tests and
# experiments, run from the jars in the Maven repository (no tarball, no service).
#
#   scripts/cassandra-sandbox.sh fetch
#       Resolves org.apache.cassandra:cassandra-all [5.0.0,5.1) and its
#       runtime dependencies with mvn into the cache directory (below). Does
#       nothing when they are already there. start does it when needed.
#   scripts/cassandra-sandbox.sh start DIR [--nodes 1|3] [--auth] [--tls]
#       Creates DIR (it must not hold a sandbox already) and starts one node
#       on 127.0.0.1, or three on 127.0.0.1, 127.0.0.2 and 127.0.0.3 (same
#       ports on each address), waits until each answers on its CQL port and
#       prints the URL on stdout (also written to DIR/url):
#           cql://127.0.0.1:PORT/            one node
#           cql://127.0.0.1,127.0.0.2,127.0.0.3:PORT/   three nodes
#       --auth turns on password authentication (PasswordAuthenticator, the
#       default superuser cassandra/cassandra; the URL carries it). --tls
#       makes CQL clients use TLS, with a self-signed certificate for
#       127.0.0.1..3 made with openssl in DIR/tls (the URL names it:
#       ?tls_ca=DIR/tls/cert.pem). Each node
#       lives in DIR/nodeN (cassandra.yaml, data, commit log, log file
#       DIR/nodeN/system.log, pid). Everything else goes to stderr.
#   scripts/cassandra-sandbox.sh stop DIR [NODE]
#       Without NODE: stops every node (SIGTERM, SIGKILL after 60 s) and
#       removes DIR. With NODE (1, 2, 3): stops that node only and keeps DIR.
#       It refuses to remove a directory this script did not create.
#   scripts/cassandra-sandbox.sh kill DIR [NODE]
#       SIGKILL (a crash: no commit-log flush) of NODE, or of every node;
#       DIR stays, so the node can be started again with restart.
#   scripts/cassandra-sandbox.sh restart DIR NODE
#       Starts a stopped or killed node again with its data and ports, and
#       waits until it answers. A port taken meanwhile (the JMX port of a
#       node just killed, in TIME-WAIT or now the local port of a client's
#       connection) is retried, as start does, up to 5 times: the node gets
#       another JMX port (nothing outside the node uses it); its CQL and
#       storage ports stay (clients and the other nodes know them), and
#       another try waits a moment for them.
#   scripts/cassandra-sandbox.sh url DIR
#       Prints the URL of a running sandbox.
#
# Cache: CANDOR_CASSANDRA_CACHE, default ${XDG_CACHE_HOME:-$HOME/.cache}/candor-cassandra
# (about 70 MB of jars in lib/; the first fetch takes a minute or two). The
# resolved version is in its file "version". Needs mvn and Java 17 (when
# missing and we are root, installs Debian's maven and openjdk-17-jre-headless).
# CANDOR_CASSANDRA_HEAP sets -Xms/-Xmx per node (default 1G: a node then
# uses about 1.6 GB of memory); CANDOR_CASSANDRA_START_TIMEOUT bounds the
# wait for each node (default 240 s; a node starts in about 40 s on 2 cores).
#
# The nodes use the Murmur3 partitioner, one token each (evenly spaced, so
# three nodes own a third of the ring each), SimpleSnitch (datacenter1,
# rack1) and the periodic commit log (sync every 10 s), as a default
# installation does apart from the token count.
#
# Usage in a test run:
#   U=$(scripts/cassandra-sandbox.sh start /tmp/casstest)
#   CANDOR_TEST_CASSANDRA_URL=$U go test ./internal/target/cassandra
#   scripts/cassandra-sandbox.sh stop /tmp/casstest
set -euo pipefail

MARKER=.candor-cassandra-sandbox
CACHE_DIR=${CANDOR_CASSANDRA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/candor-cassandra}
VERSION_RANGE='[5.0.0,5.1)'
HEAP=${CANDOR_CASSANDRA_HEAP:-1G}
START_TIMEOUT=${CANDOR_CASSANDRA_START_TIMEOUT:-240}
MAIN_CLASS=org.apache.cassandra.service.CassandraDaemon
# RESTART_ATTEMPTS bounds restart's tries when a port is taken.
RESTART_ATTEMPTS=5

SANDBOX=cassandra-sandbox
# JAVA_FOR is what need_java says needs Java 11 or 17.
JAVA_FOR="Cassandra 5.0"
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"

# ---------------------------------------------------------------- fetch

fetch() {
	if [ -f "$CACHE_DIR/lib/.complete" ]; then
		return 0
	fi
	need_tool mvn maven
	mkdir -p "$CACHE_DIR"
	exec 9>"$CACHE_DIR/fetch.lock"
	if command -v flock >/dev/null 2>&1; then
		flock -n 9 || { log "another fetch is running; waiting for it"; flock 9; }
		[ -f "$CACHE_DIR/lib/.complete" ] && return 0
	fi
	local t0=$SECONDS build=$CACHE_DIR/build
	rm -rf -- "$build" "$CACHE_DIR/lib"
	mkdir -p "$build"
	cat >"$build/pom.xml" <<-EOF
	<?xml version="1.0" encoding="UTF-8"?>
	<project xmlns="http://maven.apache.org/POM/4.0.0">
	  <modelVersion>4.0.0</modelVersion>
	  <groupId>candor.sandbox</groupId>
	  <artifactId>cassandra-runtime</artifactId>
	  <version>1</version>
	  <packaging>pom</packaging>
	  <dependencies>
	    <dependency>
	      <groupId>org.apache.cassandra</groupId>
	      <artifactId>cassandra-all</artifactId>
	      <version>$VERSION_RANGE</version>
	    </dependency>
	  </dependencies>
	</project>
	EOF
	log "resolving cassandra-all $VERSION_RANGE and its runtime dependencies from the Maven repository into $CACHE_DIR/lib (a minute or two)"
	(cd "$build" && mvn -B -q dependency:copy-dependencies -DoutputDirectory="$build/lib" -DincludeScope=runtime >&2) ||
		die "mvn could not resolve cassandra-all $VERSION_RANGE (see above; is the Maven repository reachable?)"
	local jar
	jar=$(ls "$build"/lib/cassandra-all-*.jar 2>/dev/null | head -n 1)
	[ -n "$jar" ] || die "mvn finished but no cassandra-all jar is in $build/lib"
	jar=${jar##*/cassandra-all-}
	echo "${jar%.jar}" >"$CACHE_DIR/version"
	: >"$build/lib/.complete"
	mv "$build/lib" "$CACHE_DIR/lib"
	rm -rf -- "$build"
	log "Cassandra $(cat "$CACHE_DIR/version"): $(ls "$CACHE_DIR/lib" | wc -l) jars, $(du -sh "$CACHE_DIR/lib" | cut -f1), fetched in $((SECONDS - t0)) s"
}

# ---------------------------------------------------------------- files

# node_addr prints node $1's address: 127.0.0.N.
node_addr() { echo "127.0.0.$1"; }

# initial_token prints the token of node $1 of $2: evenly spaced over the
# Murmur3 ring [-2^63, 2^63).
initial_token() {
	local i=$1 n=$2
	# 2^64/n computed as (2^63/n)*2 to stay inside 64-bit arithmetic.
	local step=$(((9223372036854775807 / n) * 2))
	echo $((-9223372036854775807 - 1 + (i - 1) * step))
}

# addr_free succeeds when nothing accepts TCP connections on $1:$2.
addr_free() { ! (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# pick_ports prints $1 distinct ports free on every address 127.0.0.1..N
# ($2 nodes).
pick_ports() {
	local want=$1 nodes=$2 got=() p i n ok
	for i in $(seq 1 200); do
		[ ${#got[@]} -lt "$want" ] || break
		p=$((20000 + RANDOM % 30000))
		ok=1
		for n in "${got[@]}"; do [ "$n" != "$p" ] || ok=""; done
		for n in $(seq 1 "$nodes"); do addr_free "$(node_addr "$n")" "$p" || ok=""; done
		[ -n "$ok" ] && got+=("$p")
	done
	[ ${#got[@]} -eq "$want" ] || die "no $want free TCP ports found on 127.0.0.1..$nodes"
	echo "${got[@]}"
}

# write_jvm_args writes the JVM flags of every node to $1: heap, G1, and
# the module exports/opens and Netty properties that Cassandra's own
# conf/jvm17-server.options lists (the jar does not ship that file).
write_jvm_args() {
	cat >"$1" <<-EOF
	-Xms$HEAP
	-Xmx$HEAP
	-Xss256k
	-XX:+UseG1GC
	-XX:+ParallelRefProcEnabled
	-XX:MaxTenuringThreshold=1
	-XX:G1HeapRegionSize=16m
	-XX:G1RSetUpdatingPauseTimePercent=5
	-XX:MaxGCPauseMillis=300
	-XX:InitiatingHeapOccupancyPercent=70
	-XX:+PerfDisableSharedMem
	-XX:+ExitOnOutOfMemoryError
	-Djava.net.preferIPv4Stack=true
	-Djdk.attach.allowAttachSelf=true
	--add-exports java.base/jdk.internal.misc=ALL-UNNAMED
	--add-exports java.management.rmi/com.sun.jmx.remote.internal.rmi=ALL-UNNAMED
	--add-exports java.rmi/sun.rmi.registry=ALL-UNNAMED
	--add-exports java.rmi/sun.rmi.server=ALL-UNNAMED
	--add-exports java.sql/java.sql=ALL-UNNAMED
	--add-exports java.base/java.lang.ref=ALL-UNNAMED
	--add-exports jdk.unsupported/sun.misc=ALL-UNNAMED
	--add-exports jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED
	--add-exports jdk.attach/sun.tools.attach=ALL-UNNAMED
	--add-opens java.base/java.lang.module=ALL-UNNAMED
	--add-opens java.base/jdk.internal.loader=ALL-UNNAMED
	--add-opens java.base/jdk.internal.ref=ALL-UNNAMED
	--add-opens java.base/jdk.internal.reflect=ALL-UNNAMED
	--add-opens java.base/jdk.internal.math=ALL-UNNAMED
	--add-opens java.base/jdk.internal.module=ALL-UNNAMED
	--add-opens java.base/jdk.internal.util.jar=ALL-UNNAMED
	--add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
	--add-opens java.base/sun.nio.ch=ALL-UNNAMED
	--add-opens java.base/java.io=ALL-UNNAMED
	--add-opens java.base/java.lang.reflect=ALL-UNNAMED
	--add-opens jdk.compiler/com.sun.tools.javac=ALL-UNNAMED
	--add-opens java.base/java.lang=ALL-UNNAMED
	--add-opens java.base/java.util=ALL-UNNAMED
	-Dio.netty.tryReflectionSetAccessible=true
	-Dio.netty.allocator.useCacheForAllThreads=true
	-Dio.netty.allocator.maxOrder=11
	EOF
}

# write_logback writes a logging configuration to $1: INFO and above to
# standard output, which launch sends to the node's system.log (without a
# configuration logback logs everything at DEBUG).
write_logback() {
	cat >"$1" <<-'EOF'
	<configuration>
	  <appender name="STDOUT" class="ch.qos.logback.core.ConsoleAppender">
	    <encoder><pattern>%-5level [%thread] %date{ISO8601} %F:%L - %msg%n</pattern></encoder>
	  </appender>
	  <root level="INFO"><appender-ref ref="STDOUT"/></root>
	</configuration>
	EOF
}

# write_yaml writes node $2's cassandra.yaml under sandbox $1 ($3 nodes).
write_yaml() {
	local dir=$1 i=$2 nodes=$3 nd=$1/node$2 addr authn authz tls=""
	addr=$(node_addr "$i")
	if [ -f "$dir/tls/keystore.pem" ]; then
		tls=$(printf '%s\n' "client_encryption_options:" "  enabled: true" "  optional: false" \
			"  ssl_context_factory:" "    class_name: org.apache.cassandra.security.PEMBasedSslContextFactory" \
			"  keystore: $dir/tls/keystore.pem" "  truststore: $dir/tls/cert.pem" "  require_client_auth: false")
	fi
	authn=AllowAllAuthenticator authz=AllowAllAuthorizer
	if [ "$(cat "$dir/auth")" = on ]; then
		authn=PasswordAuthenticator authz=CassandraAuthorizer
	fi
	mkdir -p "$nd/data" "$nd/commitlog" "$nd/saved_caches" "$nd/hints" "$nd/cdc_raw"
	cat >"$nd/cassandra.yaml" <<-EOF
	# written by cassandra-sandbox.sh
	cluster_name: candor-sandbox
	num_tokens: 1
	initial_token: $(initial_token "$i" "$nodes")
	allocate_tokens_for_local_replication_factor: 1
	auto_bootstrap: false
	partitioner: org.apache.cassandra.dht.Murmur3Partitioner
	authenticator: $authn
	authorizer: $authz
	role_manager: CassandraRoleManager
	endpoint_snitch: SimpleSnitch
	seed_provider:
	  - class_name: org.apache.cassandra.locator.SimpleSeedProvider
	    parameters:
	      - seeds: "$(node_addr 1):$(cat "$dir/storage_port")"
	listen_address: $addr
	rpc_address: $addr
	storage_port: $(cat "$dir/storage_port")
	ssl_storage_port: $(cat "$dir/ssl_storage_port")
	native_transport_port: $(cat "$dir/port")
	start_native_transport: true
	commitlog_sync: periodic
	commitlog_sync_period: 10000ms
	data_file_directories:
	  - $nd/data
	commitlog_directory: $nd/commitlog
	saved_caches_directory: $nd/saved_caches
	hints_directory: $nd/hints
	cdc_raw_directory: $nd/cdc_raw
	disk_access_mode: mmap_index_only
	$tls
	EOF
}

# make_cert writes a self-signed certificate for 127.0.0.1..3 and its key
# into $1/tls: cert.pem (what clients trust) and keystore.pem (key and
# certificate, what the nodes present).
make_cert() {
	local t=$1/tls
	need_tool openssl openssl
	mkdir -p "$t"
	openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=candor-cassandra-sandbox \
		-addext "subjectAltName=IP:127.0.0.1,IP:127.0.0.2,IP:127.0.0.3" \
		-keyout "$t/key.pem" -out "$t/cert.pem" >/dev/null 2>&1 || die "openssl could not make a certificate in $t"
	cat "$t/key.pem" "$t/cert.pem" >"$t/keystore.pem"
}

# ---------------------------------------------------------------- nodes

# node_pid prints node $2's pid when it runs Cassandra with sandbox $1's
# configuration (not a recycled pid); fails otherwise.
node_pid() {
	local nd=$1/node$2 pid
	[ -f "$nd/pid" ] || return 1
	pid=$(cat "$nd/pid")
	[ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
	if [ -r "/proc/$pid/cmdline" ]; then
		tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF "$nd/cassandra.yaml" || return 1
	fi
	echo "$pid"
}

# launch starts node $2 of sandbox $1 in the background and waits until it
# listens for CQL clients. It returns 1 when the node exited because a port
# was taken (the caller may retry), and dies on other failures.
launch() {
	local dir=$1 i=$2 nd=$1/node$2 t0=$SECONDS addr port
	addr=$(node_addr "$i")
	port=$(cat "$dir/port")
	: >"$nd/system.log"
	# setsid: the node must not die with the caller's process group; all of
	# its output goes to a file so that U=$(cassandra-sandbox.sh start DIR)
	# returns.
	(cd "$nd" && exec setsid java @"$dir/jvm17.args" \
		-Dcassandra-foreground=yes \
		-Dcassandra.config="file://$nd/cassandra.yaml" \
		-Dcassandra.jmx.local.port="$(cat "$nd/jmx_port")" \
		-Dcassandra.logdir="$nd" \
		-Dcassandra.storagedir="$nd" \
		-Dcassandra.triggers_dir="$nd/triggers" \
		-Dcassandra.skip_wait_for_gossip_to_settle=0 \
		-Dcassandra.superuser_setup_delay_ms=0 \
		-Dlogback.configurationFile="$dir/logback.xml" \
		-Djava.io.tmpdir="$nd/tmp" \
		-cp "$CACHE_DIR/lib/*" "$MAIN_CLASS" \
		</dev/null >>"$nd/system.log" 2>&1) &
	local pid=$!
	echo "$pid" >"$nd/pid"
	local deadline=$((SECONDS + START_TIMEOUT))
	while :; do
		if ! kill -0 "$pid" 2>/dev/null; then
			rm -f "$nd/pid"
			if grep -qi "address already in use" "$nd/system.log" 2>/dev/null; then
				return 1
			fi
			tail -n 30 "$nd/system.log" >&2 || true
			die "node $i exited during startup (log: $nd/system.log)"
		fi
		if grep -q "Starting listening for CQL clients" "$nd/system.log" 2>/dev/null &&
			! addr_free "$addr" "$port"; then
			break
		fi
		[ $SECONDS -lt $deadline ] || {
			kill -KILL "$pid" 2>/dev/null || true
			rm -f "$nd/pid"
			tail -n 30 "$nd/system.log" >&2 || true
			die "node $i did not answer on $addr:$port within $START_TIMEOUT s (log: $nd/system.log)"
		}
		sleep 0.5
	done
	log "node $i (pid $pid) answers CQL on $addr:$port after $((SECONDS - t0)) s"
}

# halt stops node $2 of sandbox $1 with signal $3 (TERM or KILL) and waits
# for it to exit (SIGKILL after 60 s of SIGTERM).
halt() {
	local dir=$1 i=$2 sig=$3 pid
	if ! pid=$(node_pid "$dir" "$i"); then
		rm -f "$dir/node$i/pid"
		return 0
	fi
	kill -"$sig" "$pid" 2>/dev/null || true
	local n
	for n in $(seq 1 600); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		log "node $i (pid $pid) still running after 60 s: killing it"
		kill -KILL "$pid" 2>/dev/null || true
		for n in $(seq 1 50); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.1
		done
	fi
	rm -f "$dir/node$i/pid"
	log "node $i (pid $pid) stopped (SIG$sig)"
}

nodes_of() { cat "$1/nodes"; }

check_sandbox() {
	[ -e "$1/$MARKER" ] && [ -f "$1/nodes" ] || die "no sandbox in $1 (no $MARKER)"
}

check_node() {
	local dir=$1 i=$2
	case $i in
	'' | *[!0-9]*) die "NODE must be a node number (1..$(nodes_of "$dir")), not \"$i\"" ;;
	esac
	[ "$i" -ge 1 ] && [ "$i" -le "$(nodes_of "$dir")" ] || die "node $i does not exist: the sandbox in $dir has $(nodes_of "$dir") node(s)"
}

start() {
	local dir=$1 nodes=1 auth=off tls=off
	shift
	while [ $# -gt 0 ]; do
		case $1 in
		--nodes) [ $# -ge 2 ] || die "--nodes needs a value (1 or 3)"; nodes=$2; shift 2 ;;
		--nodes=*) nodes=${1#--nodes=}; shift ;;
		--auth) auth=on; shift ;;
		--tls) tls=on; shift ;;
		*) die "unknown option $1; valid: --nodes 1|3, --auth, --tls" ;;
		esac
	done
	case $nodes in
	1 | 3) ;;
	*) die "--nodes $nodes: a sandbox has 1 node, or 3 (127.0.0.1, .2, .3)" ;;
	esac
	if [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
		die "$dir exists and is not empty: stop that sandbox first (cassandra-sandbox.sh stop $dir) or use another directory"
	fi
	need_java
	fetch
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	: >"$dir/$MARKER"
	echo "$nodes" >"$dir/nodes"
	echo "$auth" >"$dir/auth"
	write_jvm_args "$dir/jvm17.args"
	write_logback "$dir/logback.xml"
	[ "$tls" = on ] && make_cert "$dir"

	local attempt ok="" ports i
	for attempt in 1 2 3; do
		# native, storage, ssl storage, then one JMX port per node
		read -r -a ports <<<"$(pick_ports $((3 + nodes)) "$nodes")"
		echo "${ports[0]}" >"$dir/port"
		echo "${ports[1]}" >"$dir/storage_port"
		echo "${ports[2]}" >"$dir/ssl_storage_port"
		ok=1
		for i in $(seq 1 "$nodes"); do
			rm -rf -- "$dir/node$i"
			mkdir -p "$dir/node$i/tmp" "$dir/node$i/triggers"
			echo "${ports[$((2 + i))]}" >"$dir/node$i/jmx_port"
			write_yaml "$dir" "$i" "$nodes"
			if ! launch "$dir" "$i"; then
				log "node $i: a port was taken (attempt $attempt); starting over on other ports"
				for n in $(seq 1 "$nodes"); do halt "$dir" "$n" KILL; done
				ok=""
				break
			fi
		done
		[ -z "$ok" ] || break
	done
	[ -n "$ok" ] || die "Cassandra did not start after 3 attempts: ports kept being taken"

	local hosts="" url userinfo=""
	for i in $(seq 1 "$nodes"); do hosts+=${hosts:+,}$(node_addr "$i"); done
	[ "$auth" = on ] && userinfo="cassandra:cassandra@"
	url="cql://$userinfo$hosts:$(cat "$dir/port")/"
	[ "$tls" = on ] && url+="?tls_ca=$dir/tls/cert.pem"
	echo "$url" >"$dir/url"
	log "Cassandra $(cat "$CACHE_DIR/version") running: $nodes node(s) on $hosts port $(cat "$dir/port"), data in $dir; stop with: $0 stop $dir"
	echo "$url"
}

stop() {
	local dir=$1 node=${2:-}
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by cassandra-sandbox.sh (no $MARKER): refusing to remove it"
	dir=$(cd "$dir" && pwd -P)
	if [ -n "$node" ]; then
		check_node "$dir" "$node"
		halt "$dir" "$node" TERM
		return 0
	fi
	local i
	for i in $(seq 1 "$(nodes_of "$dir" 2>/dev/null || echo 3)"); do
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
	for i in $(seq 1 "$(nodes_of "$dir")"); do halt "$dir" "$i" KILL; done
}

restart() {
	local dir=$1 node=$2
	check_sandbox "$dir"
	dir=$(cd "$dir" && pwd -P)
	check_node "$dir" "$node"
	node_pid "$dir" "$node" >/dev/null && die "node $node is running: stop or kill it first"
	need_java
	local attempt
	for attempt in $(seq 1 $RESTART_ATTEMPTS); do
		launch "$dir" "$node" && return 0
		log "node $node: a port was taken (attempt $attempt of $RESTART_ATTEMPTS); trying again with another JMX port"
		pick_ports 1 "$(nodes_of "$dir")" >"$dir/node$node/jmx_port"
		sleep 1
	done
	die "node $node could not bind its ports again after $RESTART_ATTEMPTS attempts: is something else listening on port $(cat "$dir/port") or $(cat "$dir/storage_port")? (log: $dir/node$node/system.log)"
}

[ $# -ge 1 ] || usage
cmd=$1
shift
case $cmd in
fetch) [ $# -eq 0 ] || usage; fetch; echo "$CACHE_DIR/lib" ;;
start) [ $# -ge 1 ] || usage; start "$@" ;;
stop) [ $# -ge 1 ] && [ $# -le 2 ] || usage; stop "$@" ;;
kill) [ $# -ge 1 ] && [ $# -le 2 ] || usage; killnode "$@" ;;
restart) [ $# -eq 2 ] || usage; restart "$@" ;;
url) [ $# -eq 1 ] || usage; [ -f "$1/url" ] || die "no sandbox in $1"; cat "$1/url" ;;
*) usage ;;
esac

#!/usr/bin/env bash
# pg-cluster.sh — a throwaway replicated PostgreSQL (one primary, N streaming
# standbys) on this machine, for tests, demos and fault experiments.
#
#   scripts/pg-cluster.sh start DIR [--standbys N] [--sync none|one|any] [NAME=VALUE ...]
#       Creates DIR (it must not hold a cluster already) with one data
#       directory per node: DIR/node0 is the primary, DIR/node1..DIR/nodeN the
#       standbys (default N=1). Each node listens on 127.0.0.1 on its own free
#       port and on a Unix socket in DIR/nodeK. The primary gets database
#       "candor" (trust authentication, UTF8, C.UTF-8, wal_level=replica,
#       hot_standby=on); each standby is copied from it with
#       pg_basebackup -R -C -S slotK (a replication slot per standby, so a
#       stopped standby can catch up) and streams from it under the
#       application_name sK. --sync sets the primary's
#       synchronous_standby_names once every standby streams:
#           none  ''                      (asynchronous, the default)
#           one   'FIRST 1 (s1, ..., sN)'  (commit waits for the first listed
#                                          standby that is connected)
#           any   'ANY 1 (s1, ..., sN)'    (commit waits for any one standby)
#       Extra NAME=VALUE arguments go into every node's postgresql.conf.
#       Prints one postgres:// URL per line on stdout, in node order: line 1
#       is node 0 (the primary), line K+1 is node K (standby K):
#           postgres://postgres@127.0.0.1:PORT/candor?sslmode=disable
#       The same lines are written to DIR/urls; everything else goes to stderr.
#   scripts/pg-cluster.sh urls DIR
#       Prints the URLs again, same order.
#   scripts/pg-cluster.sh status DIR
#       One line per node: NODE PORT STATE ROLE, STATE running|paused|down,
#       ROLE primary|standby|- (asked from the server: pg_is_in_recovery()).
#   scripts/pg-cluster.sh kill DIR NODE
#       SIGKILLs the node's postmaster and then every process it started: the
#       node dies at once as if its machine had (sessions cut, nothing
#       flushed). The data directory stays; `restart` starts it again.
#   scripts/pg-cluster.sh pause DIR NODE / resume DIR NODE
#       SIGSTOP / SIGCONT the postmaster and all its processes: the node
#       freezes (connections stay open, nothing answers, a standby receives no
#       WAL) and carries on where it stopped. A pause does not cut a
#       standby off: the WAL already in the kernel's socket buffers between
#       it and its primary (megabytes on loopback) still reaches it after
#       the resume, even from a primary killed meanwhile. Use detach for a
#       standby that must miss what its primary commits from now on.
#   scripts/pg-cluster.sh detach DIR NODE / attach DIR NODE
#       detach cuts a running standby off its primary: its WAL receiver
#       stops (primary_conninfo emptied by ALTER SYSTEM, reloaded) and the
#       command returns once it is gone, printing on stdout the last WAL
#       position the standby received. WAL the receiver had not yet written
#       is dropped with its connection: nothing the primary commits after
#       detach returns reaches the standby, which stays up, read-only, and
#       can be promoted. attach restores the connection (and waits until the
#       standby streams again, up to 60 s). A detached standby stays
#       detached across a restart.
#   scripts/pg-cluster.sh promote DIR NODE
#       pg_ctl promote: the standby leaves recovery and accepts writes. Other
#       standbys keep following the old primary (they are not re-pointed).
#   scripts/pg-cluster.sh restart DIR NODE
#       Starts a killed or stopped node again on its port (stopping it first
#       when it runs). An old primary restarted after a promote comes back as
#       a second, independent primary: useful to read what it had committed.
#   scripts/pg-cluster.sh stop DIR
#       Resumes paused nodes, resets synchronous_standby_names on every
#       running primary (else a primary whose synchronous standby stops first
#       hangs on commit), stops every node and removes DIR. It refuses to
#       remove a directory this script did not create.
#
# NODE is a node number: 0 is the first primary, 1..N the standbys.
# Works as root (initdb refuses root, so the nodes belong to the postgres user
# and DIR is handed to it) or as an ordinary user. When no PostgreSQL is
# installed and we are root, installs the Debian package (which never starts a
# service here). PG_SANDBOX_VERSION picks a major version (default: 15 when
# present, else the newest installed).
#
# Usage in a test run:
#   mapfile -t U < <(scripts/pg-cluster.sh start /tmp/pgc --standbys 1 --sync one)
#   psql "${U[0]}" -c 'create table t(i int)'; scripts/pg-cluster.sh kill /tmp/pgc 0
#   scripts/pg-cluster.sh promote /tmp/pgc 1; psql "${U[1]}" -c 'insert into t values (1)'
#   scripts/pg-cluster.sh stop /tmp/pgc
set -euo pipefail

MARKER=.candor-pg-cluster

SANDBOX=pg-cluster
# shellcheck source=sandbox-lib.sh
. "$(dirname "$0")/sandbox-lib.sh"
# shellcheck source=pg-lib.sh
. "$(dirname "$0")/pg-lib.sh"

node_dir() { echo "$1/node$2"; }

# node_count prints how many nodes the cluster in $1 has.
node_count() { cat "$1/nodes"; }

# check_node validates NODE against the cluster in DIR.
check_node() {
	local dir=$1 node=$2 n
	[ -e "$dir/$MARKER" ] && [ -f "$dir/nodes" ] || die "no cluster in $dir (start one with: $0 start $dir)"
	n=$(node_count "$dir")
	case $node in
	'' | *[!0-9]*) die "node '$node' is not a node number: use 0 (first primary) to $((n - 1))" ;;
	esac
	[ "$node" -lt "$n" ] || die "node $node does not exist: the cluster in $dir has nodes 0 to $((n - 1))"
}

# postmaster_pid prints the node's postmaster PID when it is alive.
postmaster_pid() {
	local pidfile pid
	pidfile=$(node_dir "$1" "$2")/data/postmaster.pid
	[ -f "$pidfile" ] || return 1
	pid=$(head -n 1 "$pidfile")
	[ -n "$pid" ] && alive "$pid" || return 1
	echo "$pid"
}

# children prints the PIDs whose parent is $1 (read from /proc, no procps;
# with the read builtin, not a cat per process: on a busy machine forking
# hundreds of cats delayed a kill or a pause by seconds).
children() {
	local parent=$1 f s p
	for f in /proc/[0-9]*/stat; do
		read -r s 2>/dev/null <"$f" || continue
		s=${s##*) }
		# shellcheck disable=SC2086
		set -- $s
		if [ "${2:-}" = "$parent" ]; then
			p=${f#/proc/}
			echo "${p%/stat}"
		fi
	done
}

# psql_node runs one SQL command on node $2 through its socket, printing
# unaligned tuples.
psql_node() {
	local dir=$1 node=$2 sql=$3 bin
	bin=$(find_bin) || die "cannot find psql under /usr/lib/postgresql"
	as_pg "$bin/psql" -X -q -At -h "$(node_dir "$dir" "$node")" -p "$(cat "$(node_dir "$dir" "$node")/port")" \
		-U postgres -d postgres -v ON_ERROR_STOP=1 -c "$sql"
}

# start_node starts node $2, on its recorded port or, the first time, on a
# free port (retried: the port may be taken between the pick and the bind).
start_node() {
	local dir=$1 node=$2 bin nd port attempt
	bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
	nd=$(node_dir "$dir" "$node")
	# After a kill the postmaster may linger as a zombie until its parent
	# (often init) reaps it; PostgreSQL's own check counts a zombie as
	# running and refuses to start, so drop the lock file of a dead one.
	if [ -f "$nd/data/postmaster.pid" ] && ! postmaster_pid "$dir" "$node" >/dev/null; then
		rm -f "$nd/data/postmaster.pid" "$nd"/.s.PGSQL.*.lock
	fi
	if [ -f "$nd/port" ]; then
		port=$(cat "$nd/port")
		as_pg "$bin/pg_ctl" -D "$nd/data" -l "$nd/postgres.log" -o "-p $port" -w -t 60 start >&2 ||
			{ tail -n 20 "$nd/postgres.log" >&2 || true; die "node $node did not start on port $port (log: $nd/postgres.log)"; }
		return
	fi
	for attempt in 1 2 3 4 5; do
		port=$(pick_port)
		if as_pg "$bin/pg_ctl" -D "$nd/data" -l "$nd/postgres.log" -o "-p $port" -w -t 60 start >&2; then
			echo "$port" >"$nd/port"
			return
		fi
		log "node $node: start on port $port failed (attempt $attempt)"
		grep -q "could not bind\|Address already in use\|could not create lock file" "$nd/postgres.log" 2>/dev/null ||
			{ tail -n 20 "$nd/postgres.log" >&2 || true; die "node $node did not start (log: $nd/postgres.log)"; }
	done
	tail -n 20 "$nd/postgres.log" >&2 || true
	die "node $node did not start after 5 ports (log: $nd/postgres.log)"
}

# make_node_dir creates DIR/nodeK owned by the cluster owner.
make_node_dir() {
	local nd
	nd=$(node_dir "$1" "$2")
	mkdir -p "$nd"
	if is_root; then chown postgres: "$nd"; fi
	chmod 0755 "$nd"
}

start() {
	local dir=$1; shift
	local standbys=1 sync=none
	local -a extra=()
	while [ $# -gt 0 ]; do
		case $1 in
		--standbys) [ $# -ge 2 ] || die "--standbys needs a number"; standbys=$2; shift 2 ;;
		--standbys=*) standbys=${1#*=}; shift ;;
		--sync) [ $# -ge 2 ] || die "--sync needs none, one or any"; sync=$2; shift 2 ;;
		--sync=*) sync=${1#*=}; shift ;;
		*=*) extra+=("$1"); shift ;;
		*) die "unknown argument '$1': expected --standbys N, --sync none|one|any or NAME=VALUE" ;;
		esac
	done
	case $standbys in
	'' | *[!0-9]*) die "--standbys '$standbys' is not a number: give 0 to 9" ;;
	esac
	[ "$standbys" -le 9 ] || die "--standbys $standbys is too many for one machine: give 0 to 9"
	case $sync in
	none | one | any) ;;
	*) die "--sync '$sync' is not none, one or any" ;;
	esac
	[ "$sync" = none ] || [ "$standbys" -ge 1 ] || die "--sync $sync needs at least one standby (--standbys 1)"

	local bin
	bin=$(need_bin)
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd -P)
	[ -e "$dir/nodes" ] || [ -e "$dir/node0" ] && die "$dir already holds a cluster: stop it first ($0 stop $dir) or use another directory"
	: >"$dir/$MARKER"
	if is_root; then
		id postgres >/dev/null 2>&1 || die "user postgres does not exist (is the postgresql package installed?)"
		chown postgres: "$dir" "$dir/$MARKER"
		chmod 0755 "$dir"
		as_pg test -x "$dir" -a -w "$dir" ||
			die "user postgres cannot reach $dir (a parent directory is private, e.g. /root): use a directory under /tmp"
	fi
	echo $((standbys + 1)) >"$dir/nodes"

	# node 0: the primary
	local nd
	nd=$(node_dir "$dir" 0)
	make_node_dir "$dir" 0
	log "initdb in $nd/data ($bin)"
	as_pg "$bin/initdb" -D "$nd/data" -U postgres --auth=trust -E UTF8 --locale=C.UTF-8 >"$nd/initdb.log" 2>&1 ||
		{ cat "$nd/initdb.log" >&2; die "initdb failed (log: $nd/initdb.log)"; }
	local senders=$((standbys + 5))
	[ "$senders" -ge 10 ] || senders=10
	{
		echo "# added by pg-cluster.sh"
		echo "listen_addresses = '127.0.0.1'"
		echo "unix_socket_directories = '$nd'"
		echo "wal_level = 'replica'"
		echo "hot_standby = 'on'"
		echo "max_wal_senders = $senders"
		echo "max_replication_slots = $senders"
		echo "cluster_name = 'n0'"
		local kv
		for kv in "${extra[@]}"; do echo "${kv%%=*} = '${kv#*=}'"; done
	} >>"$nd/data/postgresql.conf"
	start_node "$dir" 0
	local port0
	port0=$(cat "$nd/port")
	psql_node "$dir" 0 "CREATE DATABASE candor" >&2 || die "could not create database candor (log: $nd/postgres.log)"

	# nodes 1..N: streaming standbys, each with its own slot and name
	local k names=""
	for k in $(seq 1 "$standbys"); do
		nd=$(node_dir "$dir" "$k")
		make_node_dir "$dir" "$k"
		log "node $k: pg_basebackup from node 0 (slot slot$k, application_name s$k)"
		as_pg "$bin/pg_basebackup" -D "$nd/data" -R -C -S "slot$k" -X stream -c fast \
			-d "host=127.0.0.1 port=$port0 user=postgres application_name=s$k" >&2 ||
			die "pg_basebackup for node $k failed"
		{
			echo "# added by pg-cluster.sh for node $k"
			echo "unix_socket_directories = '$nd'"
			echo "cluster_name = 's$k'"
			echo "primary_conninfo = 'host=127.0.0.1 port=$port0 user=postgres application_name=s$k'"
			echo "primary_slot_name = 'slot$k'"
		} >>"$nd/data/postgresql.conf"
		# pg_basebackup -R writes primary_conninfo into postgresql.auto.conf,
		# which is read after postgresql.conf: keep the one with our name.
		as_pg sed -i "/^primary_conninfo/d;/^primary_slot_name/d" "$nd/data/postgresql.auto.conf"
		start_node "$dir" "$k"
		names="${names:+$names, }s$k"
	done

	if [ "$sync" != none ]; then
		local ssn
		case $sync in
		one) ssn="FIRST 1 ($names)" ;;
		any) ssn="ANY 1 ($names)" ;;
		esac
		psql_node "$dir" 0 "ALTER SYSTEM SET synchronous_standby_names = '$ssn'" >&2
		psql_node "$dir" 0 "SELECT pg_reload_conf()" >/dev/null
		log "synchronous_standby_names = '$ssn'"
	fi
	echo "$sync" >"$dir/sync"

	# Wait until every standby streams (and, when synchronous, one is
	# counted as such), so the first commit after start is replicated.
	local want_sync="" i streaming
	[ "$sync" = none ] || want_sync=" AND EXISTS (SELECT 1 FROM pg_stat_replication WHERE sync_state IN ('sync', 'quorum'))"
	for i in $(seq 1 300); do
		streaming=$(psql_node "$dir" 0 "SELECT count(*) FROM pg_stat_replication WHERE state = 'streaming' HAVING count(*) = $standbys$want_sync" || true)
		[ -n "$streaming" ] && break
		sleep 0.1
	done
	[ -n "$streaming" ] || die "the standbys did not all stream from node 0 within 30 s (logs: $dir/node*/postgres.log)"

	: >"$dir/urls"
	for k in $(seq 0 "$standbys"); do
		echo "postgres://postgres@127.0.0.1:$(cat "$(node_dir "$dir" "$k")/port")/candor?sslmode=disable" >>"$dir/urls"
	done
	log "PostgreSQL $("$bin/postgres" --version | awk '{print $3}'): primary node 0 and $standbys standby(s), sync=$sync, in $dir; stop with: $0 stop $dir"
	cat "$dir/urls"
}

kill_node() {
	local dir=$1 node=$2 pm
	check_node "$dir" "$node"
	pm=$(postmaster_pid "$dir" "$node") || die "node $node is not running"
	# Freeze the postmaster so it forks nothing while its children are
	# listed, then kill it first, so it cannot restart crashed children.
	kill -STOP "$pm"
	local kids
	kids=$(children "$pm")
	kill -KILL "$pm"
	# shellcheck disable=SC2086
	[ -z "$kids" ] || kill -KILL $kids 2>/dev/null || true
	rm -f "$(node_dir "$dir" "$node")/paused"
	log "node $node killed (postmaster $pm and $(echo "$kids" | wc -w) processes)"
}

pause_node() {
	local dir=$1 node=$2 pm nd
	check_node "$dir" "$node"
	nd=$(node_dir "$dir" "$node")
	[ ! -f "$nd/paused" ] || die "node $node is already paused (resume it with: $0 resume $dir $node)"
	pm=$(postmaster_pid "$dir" "$node") || die "node $node is not running"
	# The postmaster first, so it forks nothing while its children stop.
	kill -STOP "$pm"
	local kids
	kids=$(children "$pm")
	# shellcheck disable=SC2086
	[ -z "$kids" ] || kill -STOP $kids 2>/dev/null || true
	echo "$pm" $kids >"$nd/paused"
	log "node $node paused (postmaster $pm and $(echo "$kids" | wc -w) processes)"
}

resume_node() {
	local dir=$1 node=$2 nd pids p
	check_node "$dir" "$node"
	nd=$(node_dir "$dir" "$node")
	[ -f "$nd/paused" ] || die "node $node is not paused"
	pids=$(cat "$nd/paused")
	# Children first, the postmaster last (the reverse of pause).
	for p in $(echo "$pids" | tr ' ' '\n' | tac); do
		kill -CONT "$p" 2>/dev/null || true
	done
	rm -f "$nd/paused"
	log "node $node resumed"
}

# standby_of fails unless node $2 runs and is in recovery.
standby_of() {
	local dir=$1 node=$2
	check_node "$dir" "$node"
	[ ! -f "$(node_dir "$dir" "$node")/paused" ] || die "node $node is paused: resume it first ($0 resume $dir $node)"
	postmaster_pid "$dir" "$node" >/dev/null || die "node $node is not running"
	[ "$(psql_node "$dir" "$node" "SELECT pg_is_in_recovery()")" = t ] || die "node $node is not a standby"
}

detach_node() {
	local dir=$1 node=$2 i left
	standby_of "$dir" "$node"
	psql_node "$dir" "$node" "ALTER SYSTEM SET primary_conninfo = ''" >&2
	psql_node "$dir" "$node" "SELECT pg_reload_conf()" >/dev/null
	# The startup process stops the WAL receiver at its next look for WAL
	# and, with no conninfo, starts none again.
	for i in $(seq 1 300); do
		left=$(psql_node "$dir" "$node" "SELECT count(*) FROM pg_stat_wal_receiver")
		[ "$left" != 0 ] || break
		sleep 0.1
	done
	[ "$left" = 0 ] || die "node $node's WAL receiver did not stop within 30 s (log: $(node_dir "$dir" "$node")/postgres.log)"
	psql_node "$dir" "$node" "SELECT pg_last_wal_receive_lsn()"
	log "node $node detached from its primary"
}

attach_node() {
	local dir=$1 node=$2 i state=""
	standby_of "$dir" "$node"
	psql_node "$dir" "$node" "ALTER SYSTEM RESET primary_conninfo" >&2
	psql_node "$dir" "$node" "SELECT pg_reload_conf()" >/dev/null
	# A standby without a receiver retries streaming every
	# wal_retrieve_retry_interval (5 s by default).
	for i in $(seq 1 600); do
		state=$(psql_node "$dir" "$node" "SELECT status FROM pg_stat_wal_receiver")
		[ "$state" != streaming ] || break
		sleep 0.1
	done
	[ "$state" = streaming ] || die "node $node does not stream again within 60 s (is its primary up? log: $(node_dir "$dir" "$node")/postgres.log)"
	log "node $node attached to its primary again"
}

promote_node() {
	local dir=$1 node=$2 bin
	check_node "$dir" "$node"
	postmaster_pid "$dir" "$node" >/dev/null || die "node $node is not running"
	bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
	as_pg "$bin/pg_ctl" -D "$(node_dir "$dir" "$node")/data" -w -t 60 promote >&2 ||
		die "promote of node $node failed (is it a standby? log: $(node_dir "$dir" "$node")/postgres.log)"
}

restart_node() {
	local dir=$1 node=$2 bin nd
	check_node "$dir" "$node"
	nd=$(node_dir "$dir" "$node")
	bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
	[ ! -f "$nd/paused" ] || resume_node "$dir" "$node"
	if postmaster_pid "$dir" "$node" >/dev/null; then
		as_pg "$bin/pg_ctl" -D "$nd/data" -m fast -w -t 60 stop >&2 ||
			as_pg "$bin/pg_ctl" -D "$nd/data" -m immediate -w -t 30 stop >&2 ||
			die "node $node does not stop (log: $nd/postgres.log)"
	fi
	start_node "$dir" "$node"
	log "node $node running again on 127.0.0.1:$(cat "$nd/port")"
}

status() {
	local dir=$1 n k nd state role
	[ -e "$dir/$MARKER" ] && [ -f "$dir/nodes" ] || die "no cluster in $dir"
	n=$(node_count "$dir")
	for k in $(seq 0 $((n - 1))); do
		nd=$(node_dir "$dir" "$k")
		role=-
		if [ -f "$nd/paused" ]; then
			state=paused
		elif postmaster_pid "$dir" "$k" >/dev/null; then
			state=running
			case $(psql_node "$dir" "$k" "SELECT pg_is_in_recovery()" 2>/dev/null || true) in
			t) role=standby ;;
			f) role=primary ;;
			esac
		else
			state=down
		fi
		echo "$k $(cat "$nd/port" 2>/dev/null || echo -) $state $role"
	done
}

stop() {
	local dir=$1
	[ -d "$dir" ] || { log "$dir does not exist: nothing to stop"; return 0; }
	[ -e "$dir/$MARKER" ] || die "$dir was not created by pg-cluster.sh (no $MARKER): refusing to remove it"
	local n=0 k nd bin
	[ -f "$dir/nodes" ] && n=$(node_count "$dir")
	for k in $(seq 0 $((n - 1))); do
		[ ! -f "$(node_dir "$dir" "$k")/paused" ] || resume_node "$dir" "$k"
	done
	# A primary waiting for a synchronous standby that stops first would hang
	# on commit and on its own shutdown: release it before stopping anything.
	for k in $(seq 0 $((n - 1))); do
		postmaster_pid "$dir" "$k" >/dev/null || continue
		if [ "$(psql_node "$dir" "$k" "SELECT pg_is_in_recovery()" 2>/dev/null || true)" = f ]; then
			psql_node "$dir" "$k" "ALTER SYSTEM RESET synchronous_standby_names" >&2 2>/dev/null &&
				psql_node "$dir" "$k" "SELECT pg_reload_conf()" >/dev/null 2>&1 || true
		fi
	done
	if [ "$n" -gt 0 ]; then
		bin=$(find_bin) || die "cannot find pg_ctl under /usr/lib/postgresql"
		for k in $(seq $((n - 1)) -1 0); do
			nd=$(node_dir "$dir" "$k")
			postmaster_pid "$dir" "$k" >/dev/null || continue
			as_pg "$bin/pg_ctl" -D "$nd/data" -m fast -w -t 60 stop >&2 ||
				as_pg "$bin/pg_ctl" -D "$nd/data" -m immediate -w -t 30 stop >&2 ||
				log "pg_ctl stop of node $k failed (already gone?)"
		done
	fi
	rm -rf -- "$dir"
	log "removed $dir"
}

[ $# -ge 2 ] || usage
cmd=$1 dir=$2
shift 2
case $cmd in
start) start "$dir" "$@" ;;
stop) stop "$dir" ;;
urls) [ -f "$dir/urls" ] || die "no cluster in $dir"; cat "$dir/urls" ;;
status) status "$dir" ;;
kill | pause | resume | detach | attach | promote | restart)
	[ $# -eq 1 ] || die "$cmd needs a node number: $0 $cmd DIR NODE"
	case $cmd in
	kill) kill_node "$dir" "$1" ;;
	pause) pause_node "$dir" "$1" ;;
	resume) resume_node "$dir" "$1" ;;
	detach) detach_node "$dir" "$1" ;;
	attach) attach_node "$dir" "$1" ;;
	promote) promote_node "$dir" "$1" ;;
	restart) restart_node "$dir" "$1" ;;
	esac
	;;
*) usage ;;
esac

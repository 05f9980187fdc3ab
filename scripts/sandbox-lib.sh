# sandbox-lib.sh — helpers shared by the *-sandbox.sh scripts. Source it
# after setting SANDBOX (the script's name, used to prefix messages).

die() { echo "$SANDBOX: $*" >&2; exit 1; }
log() { echo "$SANDBOX: $*" >&2; }

# usage prints the calling script's header comment and exits 2.
usage() {
	sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2
	exit 2
}

is_root() { [ "$(id -u)" -eq 0 ]; }

# port_in_use succeeds when something accepts TCP connections on 127.0.0.1:$1.
port_in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# pick_port prints a free loopback port, other than $1 when given.
pick_port() {
	local p i
	for i in $(seq 1 50); do
		p=$((20000 + RANDOM % 30000))
		[ "$p" != "${1:-}" ] || continue
		port_in_use "$p" || { echo "$p"; return; }
	done
	die "no free TCP port found on 127.0.0.1"
}

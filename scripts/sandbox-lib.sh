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

# alive succeeds when process $1 exists and is not a zombie (a killed
# process stays a zombie until its parent, often init, reaps it).
alive() {
	local s
	read -r s 2>/dev/null <"/proc/$1/stat" || return 1
	s=${s##*) }
	[ "${s%% *}" != Z ]
}

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

# APT_LOG is where apt_install keeps apt-get's own output.
APT_LOG=${CANDOR_APT_LOG:-/tmp/candor-apt.log}

# pkg_installed succeeds when the Debian package $1 is installed.
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# apt_install installs those of the Debian packages "$@" that are missing, and
# nothing else: no upgrade of a package already installed (--no-upgrade), no
# recommended extras (--no-install-recommends); apt may still upgrade a
# dependency that a new package needs at a newer version, and the line says so.
# apt-get's output goes to $APT_LOG (CANDOR_APT_LOG); the screen gets one line
# per package. The package lists are updated only when an install fails
# without it (a fresh machine may have none). apt-get waits up to 10 minutes
# for another apt-get's lock (DPkg::Lock::Timeout) instead of failing at
# once: scripts/test.sh starts Cassandra and VoltDB side by side, and on a
# fresh machine both install Java. Fails when a package could not be
# installed.
apt_install() {
	local pkg out summary
	command -v apt-get >/dev/null 2>&1 || die "apt-get is missing: install $* by hand"
	export DEBIAN_FRONTEND=noninteractive
	for pkg in "$@"; do
		pkg_installed "$pkg" && continue
		out=$(mktemp)
		printf '%s: installing %s with apt-get (its output: %s) ... ' "$SANDBOX" "$pkg" "$APT_LOG" >&2
		if {
			apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-upgrade --no-install-recommends "$pkg" ||
				{ apt-get update -q -o DPkg::Lock::Timeout=600 &&
					apt-get install -y -q -o DPkg::Lock::Timeout=600 --no-upgrade --no-install-recommends "$pkg"; }
		} >"$out" 2>&1; then
			summary=$(grep -E '^[0-9]+ upgraded, [0-9]+ newly installed' "$out" | tail -1 | cut -d, -f1-2 || true)
			echo "done${summary:+ ($summary)}" >&2
			cat "$out" >>"$APT_LOG"
			rm -f "$out"
		else
			echo "failed, see $APT_LOG" >&2
			cat "$out" >>"$APT_LOG"
			rm -f "$out"
			return 1
		fi
	done
}

# need_tool installs Debian package $2 when command $1 is missing (root
# only), through apt_install: no upgrades, apt's output in its log.
need_tool() {
	command -v "$1" >/dev/null 2>&1 && return
	is_root || die "$1 is missing and we are not root: install $2"
	apt_install "$2" || die "could not install $2: see $APT_LOG"
}

# java_major prints the major version of the java on PATH.
java_major() {
	java -version 2>&1 | sed -n 's/.*version "\([0-9]*\)[."].*/\1/p' | head -n 1
}

# need_java makes a Java 11 or 17 the java on PATH, installing Debian's 17
# when none is there (root only); $JAVA_FOR names what needs it.
need_java() {
	need_tool java openjdk-17-jre-headless
	local v
	v=$(java_major)
	case $v in
	11 | 17) ;;
	*)
		if [ -x /usr/lib/jvm/java-17-openjdk-amd64/bin/java ]; then
			PATH=/usr/lib/jvm/java-17-openjdk-amd64/bin:$PATH
		else
			die "java is version ${v:-unknown}; ${JAVA_FOR:-this sandbox} runs on Java 11 or 17: install openjdk-17-jre-headless"
		fi
		;;
	esac
}

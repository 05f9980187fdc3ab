# pg-lib.sh — PostgreSQL helpers for the pg-*.sh scripts: find the binaries,
# install them when missing, run a command as the cluster owner. Source it
# after sandbox-lib.sh.

# as_pg runs a command as the cluster owner: postgres when we are root, else
# ourselves.
as_pg() {
	if is_root; then
		if command -v runuser >/dev/null 2>&1; then
			runuser -u postgres -- "$@"
		else
			su postgres -s /bin/sh -c "$(printf '%q ' "$@")"
		fi
	else
		"$@"
	fi
}

# find_bin prints the directory of the PostgreSQL binaries: major version
# PG_SANDBOX_VERSION when set, else 15 when present, else the newest.
find_bin() {
	local want=${PG_SANDBOX_VERSION:-}
	if [ -n "$want" ]; then
		[ -x "/usr/lib/postgresql/$want/bin/initdb" ] && { echo "/usr/lib/postgresql/$want/bin"; return; }
		return 1
	fi
	[ -x /usr/lib/postgresql/15/bin/initdb ] && { echo /usr/lib/postgresql/15/bin; return; }
	local d
	d=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k4 -n | tail -n 1 || true)
	[ -n "$d" ] && [ -x "$d/initdb" ] && { echo "$d"; return; }
	return 1
}

# install_pg installs Debian's postgresql package (root only; the package
# never starts a service here).
install_pg() {
	is_root || die "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb) and we are not root: install the postgresql package"
	local pkg=postgresql
	[ -n "${PG_SANDBOX_VERSION:-}" ] && pkg=postgresql-$PG_SANDBOX_VERSION
	apt_install "$pkg" || die "could not install $pkg: see $APT_LOG"
}

# need_bin prints the binary directory, installing PostgreSQL first when it
# is missing.
need_bin() {
	local bin
	bin=$(find_bin) || { install_pg; bin=$(find_bin) || die "PostgreSQL installed but initdb not found under /usr/lib/postgresql"; }
	echo "$bin"
}

# Shared by the bench scripts that drive the local MariaDB: source it.

# require_loopback refuses a MYSQL_HOST that is not a loopback address.
require_loopback() {
	case "$MYSQL_HOST" in
	127.* | ::1 | localhost) ;;
	*) echo "MYSQL_HOST must be a loopback address" >&2; exit 2 ;;
	esac
}

# setup_work sets root (the repository), makes the scratch directory work
# (removed on exit) and builds loadgen from the tree into it.
setup_work() {
	root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	work=$(mktemp -d)
	trap 'rm -rf "$work"' EXIT
	echo "building loadgen..."
	(cd "$root" && go build -o "$work/loadgen" ./loadgen)
}

# shm_work NAME [DIR]: makes the scratch directory work under DIR (default
# /dev/shm where writable, else the temporary directory) as
# walab-NAME.XXXXXX, with this shell's pid in work/pid. A run killed with
# -9 cannot remove its own: each start first removes the directories of
# NAME whose pid file names a process that is gone.
shm_work() {
	local base=${2:-}
	if [ -z "$base" ]; then
		if [ -w /dev/shm ]; then base=/dev/shm; else base=${TMPDIR:-/tmp}; fi
	fi
	local d p
	for d in "$base"/walab-"$1".*; do
		[ -d "$d" ] && [ ! -L "$d" ] && [ -f "$d/pid" ] && [ -O "$d" ] || continue
		p=$(cat "$d/pid" 2>/dev/null)
		case "$p" in '' | *[!0-9]*) continue ;; esac
		kill -0 "$p" 2>/dev/null || rm -rf "$d"
	done
	work=$(mktemp -d -p "$base" "walab-$1.XXXXXX")
	echo $$ >"$work/pid"
}

# spawn_orphan_safe CMD...: runs CMD in the background with the kernel's
# parent-death signal set to KILL (setpriv --pdeathsig, util-linux), so it
# dies with this shell even when the shell is killed with -9 and no trap
# runs; its pid is appended to pids. The signal is set after the fork, so
# the child checks, once it is set, that its parent is still this shell
# (else the shell died in between and the child exits) before it execs CMD.
spawn_orphan_safe() {
	setpriv --pdeathsig KILL sh -c 'read -r _ _ _ pp _ </proc/$$/stat; [ "$pp" = "$0" ] || exit 1; exec "$@"' "$$" "$@" &
	pids+=($!)
}

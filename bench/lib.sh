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

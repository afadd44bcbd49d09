#!/usr/bin/env bash
# The CPU profile collector's cost: the exporter's own CPU and the samples
# it takes, with --collector.profile on and off, at the default frequency
# (99 Hz per CPU), while the local mariadbd is kept busy by one query
# (SELECT BENCHMARK of CONCAT: one server thread on a CPU all the time).
#
# Arms alternate off, on, off, on... (ROUNDS pairs). In each, a fresh
# exporter (default collectors, plus profile in the "on" arm) on a free
# loopback port is scraped every 2 s, as Prometheus would, for SECS
# seconds after a 5 s warm-up. Reported per arm: the exporter's CPU
# (user+sys from /proc/PID/stat over SECS) as a percentage of one CPU,
# walab_profile_samples_total per second, and the CPUs busy in every
# mariadbd and mysqld process present at both ends of the interval (the
# profiler samples them all: samples/s should be about 99 x that).
#
# Then the BPF program itself (TestProgramCost in internal/cpuprof, with
# the kernel's BPF statistics on for its SECS): its runs per second (one
# per sample on every CPU, sampled process or not) and nanoseconds per
# run. It runs in the interrupted thread's context: that cost lands on the
# sampled threads, not on the exporter.
#
# The machine is shared: compare the arms of one run, not runs.
#
# Usage: bench/profile-cost.sh   (ROUNDS=3 SECS=30 MYSQL_HOST=127.0.0.1 MYSQL_PORT=3306)
set -euo pipefail

ROUNDS=${ROUNDS:-3}
SECS=${SECS:-30}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
require_loopback
command -v curl >/dev/null || { echo "curl is not installed" >&2; exit 2; }
sql() { mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u root -N -B -e "$1"; }
sql 'SELECT 1' >/dev/null || { echo "no MariaDB at $MYSQL_HOST:$MYSQL_PORT" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
exporter_pid= load_pid= load_id=
cleanup() {
	[ -n "$load_id" ] && sql "KILL QUERY $load_id" 2>/dev/null || true
	[ -n "$load_pid" ] && kill "$load_pid" 2>/dev/null || true
	[ -n "$exporter_pid" ] && kill "$exporter_pid" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
echo "building the exporter..." >&2
(cd "$root" && go build -o "$work/walab-exporter" ./exporter)
# No NVMe here: the simulated drive, not ticking, in both arms.
printf 'wa:\n  persist: false\nsim:\n  capacity: 256MiB\n  tick: 0s\n' >"$work/exporter.yml"

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# cpu_ticks PID: utime + stime of /proc/PID/stat, in clock ticks.
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
# db_ticks: "pid ticks" of every mariadbd and mysqld.
db_ticks() { for p in $(pgrep -x 'mariadbd|mysqld'); do echo "$p $(cpu_ticks "$p" 2>/dev/null)"; done; }
# db_delta FILE0 FILE1: ticks used by the processes present in both.
db_delta() { awk 'NR == FNR { a[$1] = $2; next } ($1 in a) && $2 != "" { d += $2 - a[$1] } END { print d + 0 }' "$1" "$2"; }
metric() { curl -fsS "$1/metrics" | awk -v m="$2" '$1 == m { print $2 }'; }

# The load: one query that keeps one mariadbd thread busy for the whole run.
mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u root -N -B -e \
	"SELECT BENCHMARK(1000000000000, CONCAT('wa', 'lab'))" >/dev/null 2>&1 &
load_pid=$!
sleep 1
load_id=$(sql "SELECT id FROM information_schema.processlist WHERE info LIKE 'SELECT BENCHMARK(1000000000000%' LIMIT 1")
[ -n "$load_id" ] || { echo "the load query did not start" >&2; exit 1; }
hz=$(getconf CLK_TCK)

# arm NAME FLAGS...: one exporter run; prints a result line.
arm() {
	local name=$1; shift
	local port url e0 e1 s0 s1 t0 t1
	port=$(freeport)
	url="http://127.0.0.1:$port"
	"$work/walab-exporter" --web.listen-address="127.0.0.1:$port" --config.file="$work/exporter.yml" "$@" 2>"$work/$name.log" &
	exporter_pid=$!
	for _ in $(seq 50); do curl -fsS -o /dev/null "$url/metrics" 2>/dev/null && break; sleep 0.2; done
	sleep 5
	db_ticks >"$work/db0"
	e0=$(cpu_ticks "$exporter_pid") s0=$(metric "$url" walab_profile_samples_total) t0=$(date +%s.%N)
	for _ in $(seq $((SECS / 2))); do curl -fsS -o /dev/null "$url/metrics"; sleep 2; done
	db_ticks >"$work/db1"
	e1=$(cpu_ticks "$exporter_pid") s1=$(metric "$url" walab_profile_samples_total) t1=$(date +%s.%N)
	kill "$exporter_pid"; wait "$exporter_pid" 2>/dev/null || true; exporter_pid=
	awk -v n="$name" -v e="$((e1 - e0))" -v m="$(db_delta "$work/db0" "$work/db1")" -v hz="$hz" -v s0="${s0:-}" -v s1="${s1:-}" -v t0="$t0" -v t1="$t1" 'BEGIN {
		d = t1 - t0; rate = (s0 == "" || s1 == "") ? "absent" : sprintf("%.1f", (s1 - s0) / d)
		printf "| %s | %.1f | %.2f | %s | %.2f |\n", n, d, 100 * e / hz / d, rate, m / hz / d }'
}

echo "| arm | seconds | exporter CPU % of one CPU | samples/s | mariadbd/mysqld CPUs busy |"
echo "|---|---:|---:|---:|---:|"
for r in $(seq "$ROUNDS"); do
	arm "off-$r"
	arm "on-$r" --collector.profile
done
grep -h 'cpu profiler' "$work"/on-1.log >&2 || true
echo
echo "| BPF statistics over | program runs | runs/s | ns per run | samples of mariadbd/mysqld | samples/s |"
echo "|---|---:|---:|---:|---:|---:|"
(cd "$root" && WALAB_BENCH_PROFILE=1 WALAB_BENCH_PROFILE_SECS="$SECS" go test -count=1 -run '^TestProgramCost$' -v ./internal/cpuprof/) | grep '^| '

#!/usr/bin/env bash
# What the simulated drive's FUSE filesystem costs MariaDB (issue 45): two
# private mariadbd with the same options, one with its datadir on the
# exporter's filesystem (sim.fs), one on the plain filesystem under it,
# run sysbench oltp_read_write in turn (alternated, the order swapped each
# round, so drift on the shared machine hits both), and the exporter's CPU
# time per MiB the filesystem served during the FUSE rounds (the FUSE
# server, the allocator and the FTL all run in the exporter's process).
#
# Usage: sudo bench/simfs-overhead.sh   (ROUNDS=3 TIME=30 THREADS=4 TABLES=4 TABLE_SIZE=20000)
set -euo pipefail
ROUNDS=${ROUNDS:-3}
TIME=${TIME:-30}
THREADS=${THREADS:-4}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-20000}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
# shellcheck source=bench/simfs-lib.sh
. "$root/bench/simfs-lib.sh"
build_bins

common=(--innodb-log-file-size=96M --innodb-flush-log-at-trx-commit=1)
start_exporter "$work/fuse" 4GiB true
start_mariadb "$work/fuse/mnt/data" "$work/fuse" "${common[@]}"
port_fuse=$db_port
mkdir -p "$work/plain"
start_mariadb "$work/plain/data" "$work/plain" "${common[@]}"
port_plain=$db_port
sb() { # PORT COMMAND
	sysbench oltp_read_write --db-driver=mysql --mysql-host=127.0.0.1 --mysql-port="$1" --mysql-user=root \
		--mysql-db=walab_simfs_sb --tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$THREADS" --time="$TIME" \
		--report-interval=0 "$2"
}
for p in $port_fuse $port_plain; do
	mariadb -h 127.0.0.1 -P "$p" -u root -e 'CREATE DATABASE walab_simfs_sb'
	sb "$p" prepare >"$work/prepare.$p.log" 2>&1 || { tail "$work/prepare.$p.log" >&2; exit 1; }
done
written() { simfs_counters "$exp_addr" | awk '{s += $2} END {printf "%.0f", s}'; }
tick=$(getconf CLK_TCK)

printf '\n%-6s %-6s %10s %12s %14s\n' round fs tps written_MiB exporter_ms/MiB
for r in $(seq "$ROUNDS"); do
	order="fuse plain"
	[ $((r % 2)) -eq 0 ] && order="plain fuse"
	for fs in $order; do
		port=$port_plain
		[ "$fs" = fuse ] && port=$port_fuse
		c0=$(cpu_ticks "$exp_pid")
		w0=$(written)
		sb "$port" run >"$work/run.$r.$fs.log" 2>&1 || { tail "$work/run.$r.$fs.log" >&2; exit 1; }
		c1=$(cpu_ticks "$exp_pid")
		w1=$(written)
		tps=$(awk '/transactions:/ {gsub(/\(/, "", $3); print $3}' "$work/run.$r.$fs.log")
		python3 -c "
import sys
fs, r, tps, c, w, tick = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6])
mib = w / 2**20
cpu = '%.1f' % (c / tick * 1000 / mib) if fs == 'fuse' and mib > 0 else '-'
print('%-6s %-6s %10.1f %12s %14s' % (r, fs, tps, '%.0f' % mib if fs == 'fuse' else '-', cpu))
" "$fs" "$r" "$tps" $((c1 - c0)) $((w1 - w0)) "$tick"
	done
done
stop_mariadb "$port_fuse" "$(cat "$work/fuse/mysqld.pid")"
stop_mariadb "$port_plain" "$(cat "$work/plain/mysqld.pid")"
stop_exporter "$exp_pid" "$work/fuse/mnt"
echo
echo "tps: sysbench oltp_read_write transactions per second; exporter_ms/MiB: exporter CPU (utime+stime) per MiB"
echo "written through the filesystem in the round (walab_simfs_written_bytes_total)."

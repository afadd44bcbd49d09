#!/usr/bin/env bash
# WA of the simulated drive under MariaDB's own writes (issue 45): a
# private mariadbd whose datadir is on the exporter's FUSE filesystem
# (sim.fs) runs loadgen's TPC-C; the drive's WA, host bytes per
# transaction and host bytes by file class are measured over the run after
# a warm-up, for streams off and on and for one MariaDB setting changed at
# a time: innodb_doublewrite, innodb_flush_method, the redo log size, the
# binary log. Each scenario starts from the same prepared datadir copied
# into a fresh backing directory (so a fresh, empty drive of the same
# capacity: the copy is its first host writes), sized so that the data
# fills FILL of it. Short runs: the drive turns over a few times; WA is
# still rising at the end of each, so compare scenarios, not absolutes.
#
# Usage: sudo bench/simfs-wa.sh   (WAREHOUSES=1 TERMINALS=4 TIME=150 WARMUP=60 FILL=0.85 SCENARIOS="...")
set -euo pipefail
WAREHOUSES=${WAREHOUSES:-1}
TERMINALS=${TERMINALS:-4}
TIME=${TIME:-150}
WARMUP=${WARMUP:-60}
FILL=${FILL:-0.85}
SCENARIOS=${SCENARIOS:-"base streams_off doublewrite_off flush_fsync redo_24M binlog_off"}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
# shellcheck source=bench/simfs-lib.sh
. "$root/bench/simfs-lib.sh"
build_bins

binlog=(--log-bin=binlog --max-binlog-size=16M --binlog-expire-logs-seconds=60)
opts() { # SCENARIO -> streams, then mariadbd options
	local base=(--innodb-doublewrite=1 --innodb-flush-method=O_DIRECT --innodb-log-file-size=96M --innodb-flush-log-at-trx-commit=1)
	case $1 in
	base) echo true "${base[*]}" "${binlog[*]}" ;;
	streams_off) echo false "${base[*]}" "${binlog[*]}" ;;
	doublewrite_off) echo true "${base[*]/--innodb-doublewrite=1/--innodb-doublewrite=0}" "${binlog[*]}" ;;
	flush_fsync) echo true "${base[*]/--innodb-flush-method=O_DIRECT/--innodb-flush-method=fsync}" "${binlog[*]}" ;;
	redo_24M) echo true "${base[*]/--innodb-log-file-size=96M/--innodb-log-file-size=24M}" "${binlog[*]}" ;;
	binlog_off) echo true "${base[*]}" ;;
	*) echo "unknown scenario $1" >&2; exit 2 ;;
	esac
}

echo "preparing TPC-C ($WAREHOUSES warehouse(s)) on a plain datadir..."
mkdir -p "$work/seed"
start_mariadb "$work/seed/data" "$work/seed" --innodb-log-file-size=96M
mariadb -h 127.0.0.1 -P "$db_port" -u root -e 'CREATE DATABASE walab_simfs_tpcc'
"$work/loadgen" tpcc prepare --mysql-host=127.0.0.1 --mysql-port="$db_port" --mysql-user=root \
	--mysql-db=walab_simfs_tpcc --warehouses="$WAREHOUSES" --threads=2 --web.disable >"$work/seed/prepare.log" 2>&1 ||
	{ tail "$work/seed/prepare.log" >&2; exit 1; }
stop_mariadb "$db_port" "$db_pid"
seed_mib=$(du -sm "$work/seed/data" | cut -f1)
# The data, plus about a minute of binlogs (purged at 60 s), fill FILL of the drive.
cap_mib=$(python3 -c "import math; print(math.ceil(($seed_mib + 48) / $FILL))")
echo "datadir ${seed_mib} MiB; drive capacity ${cap_mib} MiB"

printf '\n%-16s %6s %7s %10s %12s %12s  %s\n' scenario WA tpmC host_MiB host_B/txn txn_window "host MiB by class (written MiB)"
for s in $SCENARIOS; do
	read -r streams rest <<<"$(opts "$s")"
	d="$work/$s"
	mkdir -p "$d/backing"
	cp -a "$work/seed/data" "$d/backing/data"
	start_exporter "$d" "${cap_mib}MiB" "$streams"
	# shellcheck disable=SC2086 # rest is a list of options
	start_mariadb "$d/mnt/data" "$d" $rest
	"$work/loadgen" tpcc run --target="db=mysql://root@127.0.0.1:$db_port/walab_simfs_tpcc" --warehouses="$WAREHOUSES" \
		--threads="$TERMINALS" --time="$TIME" --web.disable >"$d/run.log" 2>&1 &
	lg=$!
	sleep "$WARMUP"
	drive_state "$exp_addr" >"$d/state0.json"
	simfs_counters "$exp_addr" >"$d/class0"
	q0=$(mariadb -h 127.0.0.1 -P "$db_port" -u root -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{print $2}')
	wait "$lg" || { tail "$d/run.log" >&2; exit 1; }
	drive_state "$exp_addr" >"$d/state1.json"
	simfs_counters "$exp_addr" >"$d/class1"
	q1=$(mariadb -h 127.0.0.1 -P "$db_port" -u root -N -e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{print $2}')
	tpmc=$(awk '/Measured tpmC/ {printf "%.0f", $NF}' "$d/run.log")
	python3 - "$d" "$s" "$tpmc" "$q0" "$q1" <<'PY'
import json, sys
d, s, tpmc, q0, q1 = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
a, b = json.load(open(d + "/state0.json")), json.load(open(d + "/state1.json"))
host = b["host_written_bytes"] - a["host_written_bytes"]
media = b["media_written_bytes"] - a["media_written_bytes"]
def classes(f):
    return {l.split()[0]: (int(l.split()[1]), int(l.split()[2])) for l in open(f) if l.strip()}
c0, c1 = classes(d + "/class0"), classes(d + "/class1")
by = " ".join(f"{c}={(c1[c][1]-c0[c][1])/2**20:.0f}({(c1[c][0]-c0[c][0])/2**20:.0f})" for c in sorted(c1) if c1[c][1] - c0[c][1] > 0)
txns = q1 - q0
wa = f"{media/host:.3f}" if host else "-"
per = f"{host/txns:.0f}" if txns else "-"
print(f"{s:<16} {wa:>6} {tpmc:>7} {host/2**20:>10.0f} {per:>12} {txns:>12}  {by}")
PY
	stop_mariadb "$db_port" "$db_pid"
	stop_exporter "$exp_pid" "$d/mnt"
	rm -rf "$d/backing"
done
echo
echo "WA = drive media bytes / host bytes over the run after ${WARMUP}s of warm-up (drive state, /api/v1/sim/placement);"
echo "txn_window = COMMITs in that window (Com_commit); classes: walab_simfs_host_written_bytes_total (written)."

#!/usr/bin/env bash
# What the simulated drive's FUSE filesystem costs per MiB written (issue
# 58, item 5): the same fio jobs through the exporter's mount (sim.fs, set
# up as the lab's), through go-fuse's example loopback (a Go FUSE server
# without walab's accounting and drive, which keeps the caller's O_DIRECT
# on its backing files and answers xattr requests) and on a plain
# directory of the filesystem the backing directory is on, side by side.
# For each FUSE run, the server process's CPU (utime+stime from
# /proc/PID/stat) over the run, less its CPU over an idle period of the
# same length just before, per MiB fio wrote; and fio's throughput beside
# the plain directory's.
#
# Usage: sudo bench/simfs-cpu.sh   (ROUNDS=2 RUNTIME=10 SIZE=256M; BASE=COMMIT adds the
#        exporter at that commit beside the tree's, e.g. BASE=525a221 for before and after)
set -euo pipefail
ROUNDS=${ROUNDS:-2}
RUNTIME=${RUNTIME:-10}
SIZE=${SIZE:-256M}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
# shellcheck source=bench/simfs-lib.sh
. "$root/bench/simfs-lib.sh"
command -v fio >/dev/null || { echo "fio is missing" >&2; exit 1; }

echo "building exporter and go-fuse's example loopback..."
(cd "$root" && go build -o "$work/exporter" ./exporter &&
	go build -o "$work/loopback" github.com/hanwen/go-fuse/v2/example/loopback)

# start_walab NAME BINARY: an exporter with the lab's sim section
# (internal/lab/simfs.go's simfsDrive) on $work/NAME, on a drive large
# enough that the jobs never fill it; sets server[NAME] and dir[NAME].
declare -A dir server
start_walab() {
	local d=$work/$1 addr
	mkdir -p "$d/mnt" "$d/backing" && chmod 0700 "$d"
	cat >"$d/walab.yml" <<YML
wa:
  persist: false
sim:
  capacity: 4GiB
  tick: 0s
  placement:
    streams: true
  fs:
    mountpoint: $d/mnt
    backing: $d/backing
    discard: true
YML
	addr=127.0.0.1:$(freeport)
	"$2" --config.file="$d/walab.yml" --web.listen-address="$addr" >"$d/exporter.log" 2>&1 &
	server[$1]=$!
	dir[$1]=$d/mnt
	pids+=("${server[$1]}")
	mounts+=("$d/mnt")
	for _ in $(seq 300); do
		grep -q " $d/mnt fuse" /proc/mounts && curl -sf "http://$addr/metrics" >/dev/null && return
		sleep 0.2
	done
	cat "$d/exporter.log" >&2
	exit 1
}
targets="walab"
start_walab walab "$work/exporter"
if [ -n "${BASE:-}" ]; then # the same exporter at an earlier commit, built from git archive
	mkdir "$work/src"
	git -C "$root" archive "$BASE" | tar -x -C "$work/src"
	(cd "$work/src" && go build -o "$work/exporter-base" ./exporter)
	start_walab base "$work/exporter-base"
	targets="walab base"
fi

l=$work/loop
mkdir -p "$l/mnt" "$l/backing"
"$work/loopback" -q -directmount "$l/mnt" "$l/backing" &
server[loopback]=$!
dir[loopback]=$l/mnt
pids+=("${server[loopback]}")
mounts+=("$l/mnt")
for _ in $(seq 100); do grep -q " $l/mnt fuse" /proc/mounts && break; sleep 0.1; done
grep -q " $l/mnt fuse" /proc/mounts || { echo "go-fuse's loopback did not mount" >&2; exit 1; }
mkdir -p "$work/plain"
dir[plain]=$work/plain
targets="$targets loopback plain"

# InnoDB's page writes with an fdatasync each (a redo log or binlog
# commit's pattern), the same without (a page flush batch), and a
# sequential copy.
jobs="rand16k-sync rand16k seq1m"
declare -A job=(
	[rand16k-sync]="--rw=randwrite --bs=16k --fdatasync=1"
	[rand16k]="--rw=randwrite --bs=16k"
	[seq1m]="--rw=write --bs=1m"
)
tick=$(getconf CLK_TCK)

# run TARGET JOB ROUND: one fio run, with the server's idle CPU before it.
run() {
	local t=$1 j=$2 pid=${server[$1]:-} idle=0 c0=0 c1=0 out=$work/fio.$1.$2.$3.json
	if [ -n "$pid" ]; then
		c0=$(cpu_ticks "$pid")
		sleep "$RUNTIME"
		idle=$(($(cpu_ticks "$pid") - c0))
		c0=$(cpu_ticks "$pid")
	fi
	# shellcheck disable=SC2086 # the job's options are words
	fio --name="$j" --directory="${dir[$t]}" --filename="$j.fio" --size="$SIZE" --ioengine=psync --direct=1 \
		--time_based --runtime="$RUNTIME" --output-format=json --output="$out" ${job[$j]} >/dev/null
	[ -n "$pid" ] && c1=$(cpu_ticks "$pid")
	python3 - "$t" "$j" "$3" "$out" $((c1 - c0)) "$idle" "$tick" "${pid:+fuse}" <<'PY'
import json, sys
t, j, r, out = sys.argv[1:5]
run, idle, tick, fuse = int(sys.argv[5]), int(sys.argv[6]), int(sys.argv[7]), sys.argv[8] if len(sys.argv) > 8 else ""
jb = json.load(open(out))["jobs"][0]
w = jb["write"]
mib, secs = w["io_bytes"] / 2**20, w["runtime"] / 1000
fio_cpu = (jb["usr_cpu"] + jb["sys_cpu"]) / 100 * jb["job_runtime"] / mib
cpu = "%.2f" % ((run - idle) / tick * 1000 / mib) if fuse else "-"
idle_ms = "%.0f" % (idle / tick * 1000) if fuse else "-"
print("%-6s %-12s %-9s %9.0f %9.1f %16s %12s %12.2f" % (r, j, t, mib, mib / secs, cpu, idle_ms, fio_cpu))
PY
}

printf '\n%-6s %-12s %-9s %9s %9s %16s %12s %12s\n' round job target MiB MiB/s server_ms/MiB idle_ms fio_ms/MiB
for r in $(seq "$ROUNDS"); do
	order=$targets
	[ $((r % 2)) -eq 0 ] && order=$(echo "$targets" | tr ' ' '\n' | tac | tr '\n' ' ')
	for j in $jobs; do
		for t in $order; do run "$t" "$j" "$r"; done
	done
done | tee "$work/table"
stop_exporter "${server[walab]}" "${dir[walab]}"
echo
echo "server_ms/MiB: the FUSE server's CPU (utime+stime) during the fio run, less its CPU over the"
echo "$RUNTIME s idle period before it (idle_ms), per MiB fio wrote. walab: the exporter (filesystem,"
echo "allocator and simulated drive), base: the same at \$BASE; loopback: go-fuse's example loopback; plain: the directory"
echo "beside the backing one (no FUSE). fio_ms/MiB: fio's own CPU (usr+sys) per MiB: on plain, what the"
echo "writes and fdatasyncs cost in the kernel with no FUSE at all."
python3 - "$work/table" <<'PY'
import collections, sys
rate, cpu = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = line.split()
    rate[f[1], f[2]].append(float(f[4]))
    if f[5] != "-":
        cpu[f[1], f[2]].append(float(f[5]))
for j in sorted({k[0] for k in rate}):
    plain = sum(rate[j, "plain"]) / len(rate[j, "plain"])
    for t in ("walab", "base", "loopback"):
        if not rate[j, t]:
            continue
        r = sum(rate[j, t]) / len(rate[j, t])
        c = sum(cpu[j, t]) / len(cpu[j, t])
        print("%-12s %-9s mean %.2f ms/MiB, %.1f MiB/s = %.2f of plain's %.1f" % (j, t, c, r, r / plain, plain))
PY

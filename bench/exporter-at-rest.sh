#!/usr/bin/env bash
# The exporter at rest, side by side with the stack a user would otherwise
# run on the same host: node_exporter (Debian prometheus-node-exporter,
# default collectors) plus mysqld_exporter (Debian
# prometheus-mysqld-exporter, default collectors) on the same MariaDB.
# "walab" is `make run`'s exporter: the command line and configuration
# `walab lab` runs (`walab lab --print-exporter` writes them into a scratch
# directory; --no-simfs, the lab's exporter on the synthetic mix, as the
# figures in bench/results were taken: the lab's 256 MiB simulated drive, InnoDB on the same MariaDB,
# the placement tracer, no host, filesystem or irq collectors). A second
# walab, "walab_nvme", is the deployed configuration (deploy/local/
# exporter.yml, its state files moved into the scratch directory) on the
# five replayed controllers of exporter/testdata/replay (--nvme.replay), as
# on a host with NVMe drives.
#
# For each round and each exporter in turn: CPU per scrape (user+sys of the
# exporter process over SCRAPES back-to-back gzip scrapes, as Prometheus
# asks, divided by SCRAPES; this includes whatever the process does in the
# background meanwhile) and, once before the rounds, its CPU per second
# while nobody scrapes (IDLE seconds). At the end: resident memory (VmRSS
# and peak VmHWM) and series per scrape. Ratios are walab / (node +
# mysqld). The machine is shared: read the ratios of one run.
#
# The two sides do not publish the same series (walab: NVMe, WA, IRQ,
# placement, InnoDB; the stack: ~1,000 host series and MariaDB's status and
# variables): series counts are printed so that a per-series cost can be
# read off too.
#
# Usage: bench/exporter-at-rest.sh   (ROUNDS, SCRAPES, IDLE, MYSQL_HOST, MYSQL_PORT)
set -euo pipefail

ROUNDS=${ROUNDS:-3}
SCRAPES=${SCRAPES:-40}
IDLE=${IDLE:-10}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
require_loopback
for b in prometheus-node-exporter prometheus-mysqld-exporter curl; do
	command -v "$b" >/dev/null || { echo "$b is not installed (apt-get install $b)" >&2; exit 2; }
done
mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u root -e 'SELECT 1' >/dev/null ||
	{ echo "no MariaDB at $MYSQL_HOST:$MYSQL_PORT" >&2; exit 2; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
work=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT
echo "building the exporter and walab..."
(cd "$root" && go build -o "$work/walab-exporter" ./exporter && go build -o "$work/walab" ./walab)
sed -e "s#/tmp/walab-sim-state.json#$work/walab_nvme-sim-state.json#" -e "s#/tmp/walab-wa-state.bin#$work/walab_nvme-wa-state.bin#" \
	"$root/deploy/local/exporter.yml" >"$work/walab_nvme.yml"

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
names=(walab walab_nvme node mysqld)
declare -A port pid
for n in "${names[@]}"; do port[$n]=$(freeport); done
mapfile -t lab_cmd < <("$work/walab" lab --print-exporter --out "$work/lab" --exporter.bin "$work/walab-exporter" \
	--exporter.listen "127.0.0.1:${port[walab]}" --no-simfs --mysql.port-1 "$MYSQL_PORT" --mysql.port-2 "$MYSQL_PORT")
[ "${#lab_cmd[@]}" -gt 1 ] || { echo "walab lab --print-exporter printed no command" >&2; exit 1; }
echo "walab (make run's exporter): ${lab_cmd[*]}"
(cd "$work/lab" && exec "${lab_cmd[@]}") >"$work/walab.log" 2>&1 &
pid[walab]=$!
"$work/walab-exporter" --config.file="$work/walab_nvme.yml" --web.listen-address="127.0.0.1:${port[walab_nvme]}" \
	--collector.placement_trace --nvme.replay="$root/exporter/testdata/replay" >"$work/walab_nvme.log" 2>&1 &
pid[walab_nvme]=$!
prometheus-node-exporter --web.listen-address="127.0.0.1:${port[node]}" >"$work/node.log" 2>&1 &
pid[node]=$!
DATA_SOURCE_NAME="root@tcp($MYSQL_HOST:$MYSQL_PORT)/" prometheus-mysqld-exporter \
	--web.listen-address="127.0.0.1:${port[mysqld]}" >"$work/mysqld.log" 2>&1 &
pid[mysqld]=$!
pids=("${pid[@]}")

url() { echo "http://127.0.0.1:${port[$1]}/metrics"; }
for n in "${names[@]}"; do
	for _ in $(seq 100); do curl -sf -o /dev/null "$(url "$n")" && break; sleep 0.1; done
	curl -sf -o /dev/null "$(url "$n")" || { echo "$n did not start:" >&2; cat "$work/$n.log" >&2; exit 1; }
done

tck=$(getconf CLK_TCK)
cpu_ms() { awk -v t="$tck" '{print ($14 + $15) * 1000 / t}' "/proc/$1/stat"; }
scrape() { curl -sf -H 'Accept-Encoding: gzip' -o /dev/null "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "NOT VALID (0)" }'; }

# Warm up: first scrapes open connections and fill caches.
for n in "${names[@]}"; do for _ in 1 2 3; do scrape "$(url "$n")"; done; done

declare -A idle
for n in "${names[@]}"; do idle[$n]=$(cpu_ms "${pid[$n]}"); done
sleep "$IDLE"
for n in "${names[@]}"; do idle[$n]=$(awk -v a="$(cpu_ms "${pid[$n]}")" -v b="${idle[$n]}" -v s="$IDLE" 'BEGIN { printf "%.2f", (a - b) / s }'); done
echo "CPU at rest, no scrapes (ms per second over ${IDLE}s): walab ${idle[walab]}  walab_nvme ${idle[walab_nvme]}  node ${idle[node]}  mysqld ${idle[mysqld]}"

echo "CPU per scrape (ms):"
printf '%-6s %10s %11s %9s %10s %9s %12s %17s\n' round walab walab_nvme node mysqld stack walab/stack walab_nvme/stack
for r in $(seq "$ROUNDS"); do
	declare -A per
	for n in "${names[@]}"; do
		c0=$(cpu_ms "${pid[$n]}")
		for _ in $(seq "$SCRAPES"); do scrape "$(url "$n")"; done
		per[$n]=$(awk -v a="$(cpu_ms "${pid[$n]}")" -v b="$c0" -v k="$SCRAPES" 'BEGIN { printf "%.2f", (a - b) / k }')
	done
	stack=$(awk -v a="${per[node]}" -v b="${per[mysqld]}" 'BEGIN { printf "%.2f", a + b }')
	printf '%-6s %10s %11s %9s %10s %9s %12s %17s\n' "$r" "${per[walab]}" "${per[walab_nvme]}" "${per[node]}" "${per[mysqld]}" "$stack" \
		"$(ratio "${per[walab]}" "$stack")" "$(ratio "${per[walab_nvme]}" "$stack")"
done

kib() { awk -v k="$2" '$1 == k":" {print $2}' "/proc/$1/status"; }
series() { curl -sf "$1" | grep -vc '^#'; }
printf '\n%-10s %12s %12s %10s\n' exporter rss_MiB peak_MiB series
declare -A rss hwm ser
for n in "${names[@]}"; do
	rss[$n]=$(kib "${pid[$n]}" VmRSS)
	hwm[$n]=$(kib "${pid[$n]}" VmHWM)
	ser[$n]=$(series "$(url "$n")")
	printf '%-10s %12.1f %12.1f %10d\n' "$n" "$(echo "${rss[$n]} / 1024" | bc -l)" "$(echo "${hwm[$n]} / 1024" | bc -l)" "${ser[$n]}"
done
for w in walab walab_nvme; do
	echo "$w / (node + mysqld): RSS $(ratio "${rss[$w]}" $((rss[node] + rss[mysqld])))," \
		"peak RSS $(ratio "${hwm[$w]}" $((hwm[node] + hwm[mysqld]))), series $(ratio "${ser[$w]}" $((ser[node] + ser[mysqld])))"
done

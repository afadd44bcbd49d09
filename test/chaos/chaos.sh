#!/usr/bin/env bash
# Attack the exporter as a careless user or a broken drive would, on
# loopback only, and print what happened. Anyone can run it:
#   bash test/chaos/chaos.sh [KILLS]      (default 20 kill -9 restarts)
# It needs Go and curl; it touches nothing outside its temporary folder.
# Figures from a run are in docs/reliability.md.
set -euo pipefail
cd "$(dirname "$0")/../.."
KILLS=${1:-20}
WORK=$(mktemp -d /tmp/walab-chaos.XXXXXX)
PORT=${CHAOS_PORT:-19131}
URL=http://127.0.0.1:$PORT
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT

go build -o "$WORK/exporter" ./exporter
cat > "$WORK/exporter.yml" <<YML
sim:
  name: nvmesim0
  capacity: 256MiB
  scale: 1
  block_pages: 64
  rate: 64MiB
  speed_up: 8
  tick: 100ms
  state_file: $WORK/sim-state.json
wa:
  interval: 1s
  windows: [20s]
  state_file: $WORK/wa-state.bin
YML
empty="$WORK/empty"; mkdir -p "$empty"
args=(--config.file="$WORK/exporter.yml" --web.listen-address=127.0.0.1:$PORT --path.sysfs="$empty" --path.devfs="$empty"
	--web.enable-mutations --no-collector.innodb --no-collector.irq --no-collector.filesystem --nvme.cache-max-age=200ms)

start() { "$WORK/exporter" "${args[@]}" "$@" >>"$WORK/exporter.log" 2>&1 & PID=$!; disown "$PID"; }
up() { for _ in $(seq 100); do curl -sf "$URL/metrics" >/dev/null 2>&1 && return 0; sleep 0.1; done; return 1; }
metric() { curl -sf "$URL/metrics" >"$WORK/scrape" 2>/dev/null || true; awk -v m="$1" 'index($0, m) == 1 { v = $NF } END { print v }' "$WORK/scrape"; }
count() { curl -sf "$URL/metrics" >"$WORK/scrape" 2>/dev/null || true; grep -c "^$1" "$WORK/scrape" || true; }

echo "== 1. kill -9 during sampling and saving, $KILLS times"
start; up || { echo "exporter did not start"; tail "$WORK/exporter.log"; exit 1; }
sleep 3
curl -sf -X POST -H 'X-Walab-Request: 1' "$URL/api/v1/run-start" >/dev/null
mark=$(metric 'walab_nvme_run_start_timestamp_seconds{device="nvmesim0"}')
failed_starts=0; lost_marks=0; resets=0; back=0
host_before=$(metric 'walab_nvme_host_written_bytes_total{device="nvmesim0"')
for i in $(seq "$KILLS"); do
	sleep "0.$((RANDOM % 9 + 1))"
	kill -9 "$PID"; while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done
	start
	if ! up; then failed_starts=$((failed_starts + 1)); continue; fi
	sleep 1.2
	now=$(metric 'walab_nvme_run_start_timestamp_seconds{device="nvmesim0"}')
	[ "$now" = "$mark" ] || lost_marks=$((lost_marks + 1))
	r=$(metric 'walab_nvme_wa_resets_total{device="nvmesim0"}'); resets=${r:-x}
	h=$(metric 'walab_nvme_host_written_bytes_total{device="nvmesim0"')
	awk -v a="$h" -v b="$host_before" 'BEGIN { exit !(a < b) }' && back=$((back + 1))
	host_before=$h
done
echo "restarts: $KILLS, failed starts: $failed_starts, run marks lost: $lost_marks, host counter went back: $back, walab_nvme_wa_resets_total: $resets"
kill -9 "$PID"; while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done; PID=

echo "== 2. what sits at the state path"
check_refused() { # $1 label: the exporter must refuse to start, and not hang
	if timeout 10 "$WORK/exporter" "${args[@]}" >"$WORK/refused.log" 2>&1; then
		echo "$1: STARTED (should refuse)"
	else
		echo "$1: refused: $(grep -o 'err=.*' "$WORK/refused.log" | head -1 | cut -c1-140)"
	fi
}
mv "$WORK/wa-state.bin" "$WORK/wa-state.saved"
echo "not walab's" > "$WORK/wa-state.bin"; check_refused "foreign file"
[ "$(cat "$WORK/wa-state.bin")" = "not walab's" ] && echo "foreign file: unchanged"
rm "$WORK/wa-state.bin"; mkfifo "$WORK/wa-state.bin"; check_refused "FIFO"
rm "$WORK/wa-state.bin"; ln -s "$WORK/wa-state.saved" "$WORK/wa-state.bin"; check_refused "symlink"
rm "$WORK/wa-state.bin"; mv "$WORK/wa-state.saved" "$WORK/wa-state.bin"

echo "== 3. the NAND page goes away mid-run (replay of a capture)"
"$WORK/exporter" capture "${args[@]}" --out="$WORK/replay" >>"$WORK/exporter.log" 2>&1
printf 'wa:\n  persist: false\n  interval: 1s\n' > "$WORK/replay.yml"
rargs=(--config.file="$WORK/replay.yml" --web.listen-address=127.0.0.1:$PORT --nvme.replay="$WORK/replay" --no-collector.innodb
	--no-collector.irq --no-collector.filesystem --no-collector.streams --nvme.cache-max-age=100ms)
"$WORK/exporter" "${rargs[@]}" >>"$WORK/exporter.log" 2>&1 & PID=$!; disown "$PID"
up
echo "source_up before: $(metric 'walab_nvme_source_up{device="nvmesim0"')"
mv "$WORK/replay/nvmesim0/log-c0.bin" "$WORK/c0.saved"; sleep 1.5
echo "source_up while the page fails: $(metric 'walab_nvme_source_up{device="nvmesim0"'), up: $(metric 'walab_nvme_up{device="nvmesim0"}'), NAND counter series: $(count walab_nvme_media_written_bytes_total), WA series: $(count walab_nvme_write_amplification)"
mv "$WORK/c0.saved" "$WORK/replay/nvmesim0/log-c0.bin"; sleep 1.5
echo "source_up after: $(metric 'walab_nvme_source_up{device="nvmesim0"')"
kill "$PID"; while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done; PID=

echo "== 4. state-changing endpoints"
start; up
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
echo "cross-origin form post: $(code -X POST -H 'Origin: http://evil.example' -d streams=off "$URL/api/v1/sim/placement?streams=off")"
ok=0; limited=0
for _ in $(seq 50); do
	case $(code -X POST -H 'X-Walab-Request: 1' "$URL/api/v1/run-start") in 200) ok=$((ok + 1)) ;; 429) limited=$((limited + 1)) ;; esac
done
echo "flood of 50 run-starts: $ok accepted, $limited refused with 429"
echo "done"

#!/usr/bin/env bash
# Attack the exporter's SIGHUP reload, its run marks and its mutation guard
# as a careless operator or a hostile page would, on loopback only:
#   bash test/chaos/reload.sh
# It needs Go and curl; it touches nothing outside its temporary folder.
# What each line promises is in docs/reliability.md ("Exporter and loadgen").
set -euo pipefail
cd "$(dirname "$0")/../.."
WORK=$(mktemp -d /tmp/walab-reload.XXXXXX)
PORT=${CHAOS_PORT:-19132}
URL=http://127.0.0.1:$PORT
PID=
cleanup() { [ -n "$PID" ] && kill -9 "$PID" 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
trap 'echo "failed at line $LINENO"; tail -5 "$WORK/exporter.log"' ERR

go build -o "$WORK/exporter" ./exporter
CFG=$WORK/exporter.yml
config() { # $1: placement streams true|false
	cat <<YML
wa:
  persist: false
  interval: 1s
sim:
  name: nvmesim0
  capacity: 256MiB
  scale: 1
  block_pages: 64
  rate: 64MiB
  tick: 100ms
  placement:
    streams: $1
YML
}
config true > "$CFG"
empty="$WORK/empty"; mkdir -p "$empty"
"$WORK/exporter" --config.file="$CFG" --web.listen-address=127.0.0.1:$PORT --path.sysfs="$empty" --path.devfs="$empty" \
	--web.enable-mutations --no-collector.innodb --no-collector.irq --no-collector.filesystem >"$WORK/exporter.log" 2>&1 &
PID=$!; disown "$PID"
for _ in $(seq 100); do curl -sf "$URL/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
placement() { curl -sf "$URL/api/v1/sim/placement" | grep -o '"placement": [a-z]*' | awk '{print $2}'; }
refusals() { grep -c 'reload refused' "$WORK/exporter.log" || true; }
outcomes() { grep -cE 'reload refused|reload: NVMe controllers will be probed' "$WORK/exporter.log" || true; }
hup() { # send SIGHUP and wait until the exporter logged the outcome (its last line)
	local before; before=$(outcomes)
	kill -HUP "$PID"
	for _ in $(seq 100); do [ "$(outcomes)" -gt "$before" ] && return 0; sleep 0.05; done
	echo "reload did not answer"; return 1
}

echo "== reload attacks (placement starts: $(placement))"
: > "$CFG"; hup
echo "empty file: placement $(placement), refusals $(refusals)"
config true | head -4 > "$CFG"; hup
echo "truncated mid-write: placement $(placement), refusals $(refusals)"
rm "$CFG"; mkfifo "$CFG"; hup
echo "FIFO: placement $(placement), refusals $(refusals)"
rm "$CFG"; config false > "$CFG"; hup
echo "good file after the attacks: placement $(placement)"
printf 'innodb:\n  targets:\n    - name: db1\n      dsn: root@tcp(127.0.0.1:1)/\n' >> "$CFG"; hup
echo "changed innodb section: $(grep -c 'section=innodb' "$WORK/exporter.log" || true) restart-only line"
config true > "$CFG"; hup
echo "back to the file without innodb: placement $(placement), refusals $(refusals)"

echo "== DNS rebinding"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
echo "run-start with Host evil.example: $(code -X POST -H 'Host: evil.example' -H 'X-Walab-Request: 1' "$URL/api/v1/run-start")"
echo "run-start with Host 127.0.0.1: $(code -X POST -H 'X-Walab-Request: 1' "$URL/api/v1/run-start")"
kill "$PID"; while kill -0 "$PID" 2>/dev/null; do sleep 0.05; done; PID=

echo "== the NAND page is emptied, then half-written, mid-run (replay of a capture)"
"$WORK/exporter" capture --config.file="$CFG" --path.sysfs="$empty" --path.devfs="$empty" --out="$WORK/replay" >>"$WORK/exporter.log" 2>&1
printf 'wa:\n  persist: false\n  interval: 1s\n' > "$WORK/replay.yml"
"$WORK/exporter" --config.file="$WORK/replay.yml" --web.listen-address=127.0.0.1:$PORT --nvme.replay="$WORK/replay" --web.enable-mutations \
	--no-collector.innodb --no-collector.irq --no-collector.filesystem --no-collector.streams --nvme.cache-max-age=100ms >>"$WORK/exporter.log" 2>&1 &
PID=$!; disown "$PID"
for _ in $(seq 100); do curl -sf "$URL/metrics" >/dev/null 2>&1 && break; sleep 0.1; done
metric() { curl -sf "$URL/metrics" | awk -v m="$1" 'index($0, m) == 1 { v = $NF } END { print v }'; }
sleep 0.5; curl -sf -X POST -H 'X-Walab-Request: 1' "$URL/api/v1/run-start" >/dev/null
mark=$(metric 'walab_nvme_run_start_timestamp_seconds{device="nvmesim0"}')
page="$WORK/replay/nvmesim0/log-c0.bin"; cp "$page" "$WORK/c0.saved"
: > "$page"; sleep 2.5
echo "emptied page: source_up $(metric 'walab_nvme_source_up{device="nvmesim0"'), WA series $(curl -sf "$URL/metrics" | grep -c '^walab_nvme_write_amplification' || true)"
head -c 200 "$WORK/c0.saved" > "$page"; sleep 2.5
echo "half-written page: source_up $(metric 'walab_nvme_source_up{device="nvmesim0"')"
cp "$WORK/c0.saved" "$page"; sleep 2.5
echo "page back: source_up $(metric 'walab_nvme_source_up{device="nvmesim0"'), resets $(metric 'walab_nvme_wa_resets_total{device="nvmesim0"}'), run mark moved: $([ "$(metric 'walab_nvme_run_start_timestamp_seconds{device="nvmesim0"}')" = "$mark" ] && echo no || echo yes)"
echo "done"

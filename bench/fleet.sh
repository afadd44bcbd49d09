#!/usr/bin/env bash
# The fleet stack on loopback: test/fleetsim (HOSTS x DRIVES_PER_HOST
# simulated drives, REGRESSED of them with a WA regression at simulated
# minute REGRESS_AT_MIN), two sharded vmagents, VictoriaMetrics, vmalert with
# walab's rules (alerts/config.yml + test/fleetstack/rules-config.yml:
# windows shortened for a clock running 60x) and Alertmanager. After
# DURATION seconds it prints the cost table (ingestion rate, rule evaluation
# time per cycle, memory of each component) and which drives
# WalabWARegressionVsBaseline fired for against the regressed ones, then
# stops everything it started (also on failure or ^C).
#
# Usage: HOSTS=250 DRIVES_PER_HOST=4 bench/fleet.sh
# Needs victoria-metrics, vmagent, vmalert (scripts/setup.sh builds them)
# and prometheus-alertmanager on PATH.
set -euo pipefail

HOSTS=${HOSTS:-50}
DRIVES_PER_HOST=${DRIVES_PER_HOST:-4}
REGRESSED=${REGRESSED:-3}
REGRESS_AT_MIN=${REGRESS_AT_MIN:-150}
DURATION=${DURATION:-240}
SEED=${SEED:-49}

cd "$(dirname "$0")/.."
for b in victoria-metrics vmagent vmalert prometheus-alertmanager curl python3; do
	command -v "$b" >/dev/null || { echo "fleet.sh: $b is not on PATH" >&2; exit 2; }
done
work=$(mktemp -d)
pids=()
# cleanup stops the processes newest first (vmagents and vmalert before the
# store they write to: vmalert retries its remote write while the store is
# gone), each with TERM, then KILL after 10 s.
cleanup() {
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		p=${pids[i]}
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.2; done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
spawn() { nice -n 10 "$@" >"$work/$(basename "$1").$$.$RANDOM.log" 2>&1 & pids+=($!); }
ready() { for _ in $(seq 300); do curl -fs "$1" >/dev/null && return; sleep 0.2; done; echo "fleet.sh: $1 not ready" >&2; exit 1; }
rss() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
q() { curl -fs "$vm/api/v1/query" --data-urlencode "query=$1" | python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "absent")'; }
scalar() { curl -fs "$1" | awk -v m="$2" 'index($1, m "{") == 1 || $1 == m {s += $NF} END {print s + 0}'; }

go build -o "$work/fleetsim" ./test/fleetsim
go run ./alerts/gen -override test/fleetstack/rules-config.yml -out "$work/rules.yml" -k8s ""

fp=$(port); spawn "$work/fleetsim" -dir "$work" -listen "127.0.0.1:$fp" -seed "$SEED" -hosts "$HOSTS" \
	-drives-per-host "$DRIVES_PER_HOST" -regressed "$REGRESSED" -regress-at "${REGRESS_AT_MIN}m" -step 1m -tick 1s
fleet_pid=${pids[-1]}
ready "http://127.0.0.1:$fp/hosts/0/metrics"

vp=$(port); vm="http://127.0.0.1:$vp"
spawn victoria-metrics -storageDataPath="$work/vm" -httpListenAddr="127.0.0.1:$vp" -retentionPeriod=1d -search.latencyOffset=1s
vm_pid=${pids[-1]}; ready "$vm/health"
ap=$(port); am="http://127.0.0.1:$ap"
printf 'route:\n  receiver: none\n  group_wait: 1s\n  group_interval: 1s\nreceivers:\n  - name: none\n' >"$work/am.yml"
spawn prometheus-alertmanager --config.file="$work/am.yml" --storage.path="$work/am" --web.listen-address="127.0.0.1:$ap" --cluster.listen-address=
am_pid=${pids[-1]}; ready "$am/-/ready"
rp=$(port); vmalert="http://127.0.0.1:$rp"
spawn vmalert -rule="$work/rules.yml" -datasource.url="$vm" -remoteWrite.url="$vm" -remoteRead.url="$vm" \
	-notifier.url="$am" -evaluationInterval=5s -httpListenAddr="127.0.0.1:$rp"
vmalert_pid=${pids[-1]}; ready "$vmalert/health"
python3 - "$work" <<'PY' >"$work/scrape.yml"
import json, sys
groups = json.load(open(sys.argv[1] + "/targets.json"))
print("global: {scrape_interval: 2s, scrape_timeout: 2s}\nscrape_configs:\n  - job_name: walab-exporter\n    static_configs:")
for g in groups:
    print("      - targets: %s\n        labels: %s" % (json.dumps(g["targets"]), json.dumps(g["labels"])))
PY
agent_pids=()
for i in 0 1; do
	gp=$(port)
	spawn vmagent -promscrape.config="$work/scrape.yml" -remoteWrite.url="$vm/api/v1/write" \
		-promscrape.cluster.membersCount=2 -promscrape.cluster.memberNum=$i \
		-remoteWrite.tmpDataPath="$work/agent$i" -httpListenAddr="127.0.0.1:$gp"
	agent_pids+=("${pids[-1]}"); ready "http://127.0.0.1:$gp/health"
done

echo "fleet.sh: $HOSTS hosts x $DRIVES_PER_HOST drives; running ${DURATION}s"
sleep 60
rows0=$(scalar "$vm/metrics" vm_rows_inserted_total); t0=$(date +%s)
sleep $((DURATION - 60))
rows1=$(scalar "$vm/metrics" vm_rows_inserted_total); t1=$(date +%s)
evsum=$(scalar "$vmalert/metrics" vmalert_iteration_duration_seconds_sum)
evcnt=$(scalar "$vmalert/metrics" vmalert_iteration_duration_seconds_count)
groups=$(grep -c '^  - name:' "$work/rules.yml")

echo
echo "date: $(date -u +%FT%TZ)  machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '| drives | series in VM | ingestion (samples/s) | rule eval per cycle (s, %s groups) | RSS MiB fleetsim | vmagent 0 | vmagent 1 | victoria-metrics | vmalert | alertmanager |\n' "$groups"
printf '|---|---|---|---|---|---|---|---|---|---|\n'
printf '| %d | %s | %.0f | %.3f | %s | %s | %s | %s | %s | %s |\n' $((HOSTS * DRIVES_PER_HOST)) \
	"$(q 'count({__name__=~"walab_.+"})')" "$(echo "($rows1 - $rows0) / ($t1 - $t0)" | bc -l)" \
	"$(echo "$evsum / $evcnt * $groups" | bc -l)" "$(rss "$fleet_pid")" "$(rss "${agent_pids[0]}")" \
	"$(rss "${agent_pids[1]}")" "$(rss "$vm_pid")" "$(rss "$vmalert_pid")" "$(rss "$am_pid")"
echo
echo "regressed (drives.json):"
python3 -c 'import json,sys; [print("  db%05d nvme%d" % (d["Host"], d["Index"])) for d in json.load(open(sys.argv[1])) if d["Regressed"]]' "$work/drives.json"
echo "WalabWARegressionVsBaseline active in Alertmanager:"
curl -fs "$am/api/v2/alerts?filter=alertname%3D%22WalabWARegressionVsBaseline%22" |
	python3 -c 'import json,sys; [print("  %s %s" % (a["labels"]["instance"], a["labels"]["device"])) for a in json.load(sys.stdin)]'

#!/usr/bin/env bash
# The fleet stack on loopback: test/fleetsim (HOSTS x DRIVES_PER_HOST
# simulated drives, REGRESSED of them with a WA regression at simulated
# minute REGRESS_AT_MIN) and the stack of internal/fleetstack, started by
# tools/fleetstack as TestFleetStack starts it: two sharded vmagents, the
# store (ENGINE: victoria-metrics, single node, or thanos, three receivers
# in a hashring with replication factor 3 and a querier), vmalert with
# walab's rules (alerts/config.yml + test/fleetstack/rules-config.yml:
# windows shortened for a clock running 60x) and Alertmanager. After
# DURATION seconds it prints the cost table (ingestion rate, rule evaluation
# time per cycle, memory of each component, the load average), whether each
# part kept up (scrapes done against due, samples stored against scraped,
# rule groups slower than their interval, the simulated clock's steps), and
# which drives WalabWARegressionVsBaseline fired for against the regressed
# ones and how long after the regression; then it stops everything it
# started (also on failure or ^C).
#
# Usage: HOSTS=250 DRIVES_PER_HOST=4 bench/fleet.sh
#   SCRAPE_INTERVAL (2s, the lab's) and EVAL_INTERVAL (5s) set the scrape and
#   rule evaluation intervals; a large fleet on a small machine needs longer
#   ones (the rules' 1m window then holds fewer samples). NICE (10) is the
#   stack's niceness.
# Needs vmagent, vmalert, the store's binaries (victoria-metrics or thanos;
# scripts/setup.sh builds them) and prometheus-alertmanager on PATH.
set -euo pipefail

HOSTS=${HOSTS:-50}
DRIVES_PER_HOST=${DRIVES_PER_HOST:-4}
REGRESSED=${REGRESSED:-3}
REGRESS_AT_MIN=${REGRESS_AT_MIN:-150}
DURATION=${DURATION:-240}
SEED=${SEED:-49}
ENGINE=${ENGINE:-victoria-metrics}
SCRAPE_INTERVAL=${SCRAPE_INTERVAL:-2s}
EVAL_INTERVAL=${EVAL_INTERVAL:-5s}
# Niceness of every process of the stack: 10 leaves the machine to other
# work; at a load average far above the CPUs a niced stack gets little CPU,
# and NICE=0 measures it at an equal share.
NICE=${NICE:-10}
WARMUP=60

cd "$(dirname "$0")/.."
source bench/lib.sh
for b in "$ENGINE" vmagent vmalert prometheus-alertmanager curl python3 setpriv; do
	command -v "$b" >/dev/null || { echo "fleet.sh: $b is not on PATH" >&2; exit 2; }
done
# The replay pages the simulated clock rewrites every second (two per
# drive) and VictoriaMetrics' data go to tmpfs where there is one: on disk
# the clock's steps took 1 ms a drive at load 30.
# kill -9 of this script: its daemons die with it (spawn_orphan_safe) and
# the next run removes the directory it left (shm_work).
shm_work fleet
pids=()
# cleanup stops the processes newest first (vmagents and vmalert before the
# store they write to: vmalert retries its remote write while the store is
# gone), each with TERM, then KILL after 10 s.
cleanup() {
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		stop "${pids[i]}"
	done
	rm -rf "$work"
}
# stop PID [SECONDS]: TERM, then KILL after SECONDS (10).
stop() {
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq $((${2:-10} * 5))); do kill -0 "$1" 2>/dev/null || break; sleep 0.2; done
	kill -KILL "$1" 2>/dev/null || true
	wait "$1" 2>/dev/null || true
}
trap cleanup EXIT INT TERM

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
# spawn NAME CMD...: runs CMD at niceness NICE in the background, its output in $work/NAME.log.
spawn() { local n=$1; shift; spawn_orphan_safe nice -n "$NICE" "$@" >"$work/$n.log" 2>&1; }
ready() { for _ in $(seq 600); do curl -fs "$1" >/dev/null && return; sleep 0.2; done; echo "fleet.sh: $1 not ready" >&2; exit 1; }
rss() { awk '/VmRSS/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
hwm() { awk '/VmHWM/ {printf "%.0f", $2/1024}' "/proc/$1/status"; }
# series: every series VictoriaMetrics holds (the fleet's, vmagent's up and
# scrape_*, vmalert's recording rules); "absent" when it does not answer.
series() { curl -fs "$store/api/v1/series/count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data"][0])' 2>/dev/null || echo absent; }
# scalar URL NAME: the sum of every series of metric NAME at URL.
scalar() { curl -fs "$1" | awk -v m="$2" 'index($1, m "{") == 1 || $1 == m {s += $NF} END {print s + 0}'; }
secs() { python3 -c 'import sys; v=sys.argv[1]; print(float(v[:-1]) * {"s": 1, "m": 60}[v[-1]])' "$1"; }

go build -o "$work/fleetsim" ./test/fleetsim
go run ./alerts/gen -override test/fleetstack/rules-config.yml -out "$work/rules.yml" -k8s ""

fp=$(port); spawn fleetsim "$work/fleetsim" -dir "$work" -listen "127.0.0.1:$fp" -seed "$SEED" -hosts "$HOSTS" \
	-drives-per-host "$DRIVES_PER_HOST" -regressed "$REGRESSED" -regress-at "${REGRESS_AT_MIN}m" -step 1m -tick 1s
fleet_pid=${pids[-1]}
ready "http://127.0.0.1:$fp/hosts/0/metrics"

python3 - "$work" "$SCRAPE_INTERVAL" <<'PY' >"$work/scrape.yml"
import json, sys
groups = json.load(open(sys.argv[1] + "/targets.json"))
iv = sys.argv[2]
print("global: {scrape_interval: %s, scrape_timeout: %s}\nscrape_configs:\n  - job_name: walab-exporter\n    static_configs:" % (iv, iv))
for g in groups:
    print("      - targets: %s\n        labels: %s" % (json.dumps(g["targets"]), json.dumps(g["labels"])))
PY
go build -o "$work/fleetstack" ./tools/fleetstack
# The stack's processes are the command's children, each in its process
# group with a parent-death signal; its TERM stops them newest first.
spawn stack "$work/fleetstack" -dir "$work" -scrape "$work/scrape.yml" -rules "$work/rules.yml" -engines "$ENGINE" \
	-eval "$EVAL_INTERVAL" -nice "$NICE" -out "$work/stack.env"
stack_pid=${pids[-1]}
for _ in $(seq 1200); do [[ -s "$work/stack.env" ]] && break; kill -0 "$stack_pid" 2>/dev/null || break; sleep 0.2; done
[[ -s "$work/stack.env" ]] || { echo "fleet.sh: the stack did not start:" >&2; tail -20 "$work/stack.log" >&2; exit 1; }
source "$work/stack.env"
e=${ENGINE//-/_}
q="query_$e" a="alertmanager_$e" r="ruler_$e" p="pid_${e}_vmalert" pa="pid_${e}_alertmanager"
store=${!q} am=${!a} vmalert=${!r} vmalert_pid=${!p} am_pid=${!pa}
for i in "${!agents[@]}"; do agents[i]+=/metrics; done
agent_pids=("$pid_vmagent0" "$pid_vmagent1")
# The store's processes, and where its ingestion is counted: VictoriaMetrics'
# rows inserted, or the receivers' samples appended over the replication
# factor (each sample is stored on 3 receivers).
if [[ $ENGINE == thanos ]]; then
	store_pids=("$pid_thanos_receive0" "$pid_thanos_receive1" "$pid_thanos_receive2" "$pid_thanos_query" "$pid_thanos_rules_relay")
	store_names="thanos-receive 0 | 1 | 2 | thanos-query | rules relay (vmagent)"
	rows() { echo "($(for u in "$url_thanos_receive0" "$url_thanos_receive1" "$url_thanos_receive2"; do scalar "$u/metrics" prometheus_tsdb_head_samples_appended_total; done | paste -sd+)) / 3" | bc -l; }
	series() { scalar "$url_thanos_receive0/metrics" prometheus_tsdb_head_series; }
else
	store_pids=("$pid_victoria_metrics")
	store_names="victoria-metrics"
	rows() { scalar "$store/metrics" vm_rows_inserted_total; }
fi
# The load average, every 5 s, while the stack runs.
spawn_orphan_safe sh -c 'while :; do cut -d" " -f1 /proc/loadavg; sleep 5; done' >"$work/load"

echo "fleet.sh: $HOSTS hosts x $DRIVES_PER_HOST drives, scrape every $SCRAPE_INTERVAL, rules every $EVAL_INTERVAL, nice $NICE; running ${DURATION}s"
sleep "$WARMUP"
snapshot() { # snapshot FILE: the counters the rates are computed from
	{
		echo "t $(date +%s.%N)"
		echo "rows $(rows)"
		for a in "${agents[@]}"; do
			for m in vm_promscrape_scrapes_total vm_promscrape_scraped_samples_sum vm_promscrape_scrape_duration_seconds_sum \
				vm_promscrape_scrape_duration_seconds_count vm_promscrape_scrapes_failed_total vm_promscrape_scrapes_timed_out_total; do
				echo "$m $(scalar "$a" "$m")"
			done
		done
		echo "rule_rows $(scalar "$vmalert/metrics" vmalert_remotewrite_sent_rows_total)"
		echo "rule_rows_dropped $(scalar "$vmalert/metrics" vmalert_remotewrite_dropped_rows_total)"
		curl -fs "$vmalert/metrics" | grep -E '^vmalert_iteration_(duration_seconds_(sum|count)|missed_total)\{' | sed -E 's/\{group="([^"]*)".*\} / \1 /'
	} >"$1"
}
snapshot "$work/s0"
sleep $((DURATION - WARMUP))
snapshot "$work/s1"
mem_row() { # mem_row rss|hwm: each process's figure in the table's order
	local out=() p
	for p in "$fleet_pid" "${agent_pids[@]}" "${store_pids[@]}" "$vmalert_pid" "$am_pid"; do out+=("$($1 "$p")"); done
	local IFS='|'; echo "${out[*]}" | sed 's/|/ | /g'
}
rss_row=$(mem_row rss)
hwm_row=$(mem_row hwm)
set +e # a figure that cannot be read is reported absent; the run still reports
series=$(series)
pending=$(for a in "${agents[@]}"; do scalar "$a" vm_persistentqueue_bytes_pending; done | paste -sd+ | bc)
alerts_json=$(curl -fs "$am/api/v2/alerts?filter=alertname%3D%22WalabWARegressionVsBaseline%22" || echo null)
stop "$fleet_pid" 120 # it prints how long its clock's steps took, once its step in progress ends

echo
echo "date: $(date -u +%FT%TZ)  machine: $(nproc) CPUs, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)"
python3 - "$work" "$HOSTS" "$DRIVES_PER_HOST" "$(secs "$SCRAPE_INTERVAL")" "$(secs "$EVAL_INTERVAL")" "$series" "$pending" "$rss_row" "$hwm_row" "$SCRAPE_INTERVAL" "$EVAL_INTERVAL" "$DURATION" "$WARMUP" "$ENGINE" "$store_names" <<'PY'
import sys
work, hosts, dph, scrape, ev, series, pending, rss, hwm, scrape_s, ev_s, dur, warm, engine, store_names = sys.argv[1:]
hosts, dph, scrape, ev = int(hosts), int(dph), float(scrape), float(ev)

def read(p):
    d, groups = {}, {}
    for line in open(p):
        f = line.split()
        if f[0].startswith("vmalert_iteration"):
            groups.setdefault(f[1], {})[f[0]] = float(f[2])
        else:
            d[f[0]] = d.get(f[0], 0) + float(f[1])
    return d, groups

(a, ga), (b, gb) = read(work + "/s0"), read(work + "/s1")
dt = b["t"] - a["t"]
delta = lambda k: b[k] - a[k]
ingest = delta("rows") / dt
scraped = delta("vm_promscrape_scraped_samples_sum") / dt
scrapes = delta("vm_promscrape_scrapes_total") / dt
due = hosts / scrape
sd = delta("vm_promscrape_scrape_duration_seconds_sum") / max(delta("vm_promscrape_scrape_duration_seconds_count"), 1)
means, missed = {}, 0
for g in gb:
    n = gb[g]["vmalert_iteration_duration_seconds_count"] - ga.get(g, {}).get("vmalert_iteration_duration_seconds_count", 0)
    s = gb[g]["vmalert_iteration_duration_seconds_sum"] - ga.get(g, {}).get("vmalert_iteration_duration_seconds_sum", 0)
    missed += gb[g].get("vmalert_iteration_missed_total", 0) - ga.get(g, {}).get("vmalert_iteration_missed_total", 0)
    if n > 0:
        means[g] = s / n
loads = [float(x) for x in open(work + "/load").read().split()[int(warm) // 5:]]
slow = max(means, key=means.get) if means else None
print("scrape every %s, rules every %s, measured over the last %.0f s of %s s" % (scrape_s, ev_s, dt, dur))
print()
print("store: %s" % engine)
header = "| drives | series in the store (all) | ingestion (samples/s stored) | rule eval per cycle, sum of %d groups (s) | slowest group (s) | RSS MiB fleetsim | vmagent 0 | vmagent 1 | %s | vmalert | alertmanager | load avg 1 min (min-mean-max) |" % (len(means), store_names)
print(header)
print("|---" * (header.count("|") - 1) + "|")
print("| %d | %s | %.0f | %.3f | %.3f (%s) | %s | %.1f-%.1f-%.1f |" % (hosts * dph, series, ingest, sum(means.values()),
      means.get(slow, float("nan")), slow, rss, min(loads), sum(loads) / len(loads), max(loads)))
print("peak RSS MiB (VmHWM), same order: %s" % hwm)
print()
print("kept up?")
print("  scrapes: %.1f/s done, %.1f/s due (%d hosts every %s): %.0f %%; mean scrape %.3f s; failed %d, timed out %d" % (
    scrapes, due, hosts, scrape_s, 100 * scrapes / due, sd, delta("vm_promscrape_scrapes_failed_total"), delta("vm_promscrape_scrapes_timed_out_total")))
rules_rows = delta("rule_rows") / dt
print("  samples: %.0f/s scraped, %.0f/s stored less %.0f/s of vmalert's recording rules: %.0f %%; %s bytes queued in the agents at the end; %d rule rows dropped" % (
    scraped, ingest, rules_rows, 100 * (ingest - rules_rows) / scraped if scraped else float("nan"), pending, delta("rule_rows_dropped")))
print("  rules: slowest group %.3f s against its %.0f s interval; %d iterations missed" % (means.get(slow, float("nan")), ev, missed))
PY
grep '^fleetsim: .* steps' "$work/fleetsim.log" | sed 's/^/  /' || echo "  fleetsim printed no step summary"

echo
python3 - "$work" "$alerts_json" "$REGRESS_AT_MIN" <<'PY'
import json, sys, datetime as dt
work, alerts, at = sys.argv[1], json.loads(sys.argv[2]) or [], float(sys.argv[3])
clock = json.load(open(work + "/clock.json"))
start = dt.datetime.fromisoformat(clock["start"].replace("Z", "+00:00"))
reg = start + dt.timedelta(seconds=at * 60 / clock["speed"])
want = sorted("db%05d nvme%d" % (d["Host"], d["Index"]) for d in json.load(open(work + "/drives.json")) if d["Regressed"])
got = {}
for a in alerts:
    k = "%s %s" % (a["labels"]["instance"], a["labels"]["device"])
    got[k] = (dt.datetime.fromisoformat(a["startsAt"].replace("Z", "+00:00")) - reg).total_seconds()
print("regressed (drives.json): " + ", ".join(want))
print("WalabWARegressionVsBaseline active in Alertmanager: " + (", ".join("%s (+%.0f s)" % (k, got[k]) for k in sorted(got)) or "none"))
print("seconds from the regression (wall time %s) to the alert's start; exactly the regressed drives: %s" % (
    reg.strftime("%H:%M:%S"), "yes" if sorted(got) == want else "NO"))
PY

#!/usr/bin/env bash
# Does `make run`'s verdict read the plateau? (issue 55 items 4-5) Runs
# `walab lab` LABS times as make run does (its default run length and
# round), then LONG_LABS times with LONG-long runs, and appends to
# bench/RESULTS-sim.md, per lab: the verdict, the time to it, the mean WA of
# each run's last three rounds, and the drive's fill per round (min-max over
# each run's rounds, from the lab's fill.txt) against FILL_BAND: a run whose
# fill moves by more than FILL_BAND (a ratio) or that fails to finish (the
# drive filled, or the lab refused or stopped the run as outgrowing it) is
# marked. One lab at a time: the machine is the measurement.
#
# Usage: sudo bench/lab-plateau.sh   (LABS=3 LONG_LABS=3 LONG=20m LONG_ROUND=60s FILL_BAND=0.02 EXTRA="")
# Short test of the script: LABS=1 LONG_LABS=1 LONG=150s LONG_ROUND=10s RESULTS=/tmp/r.md
set -euo pipefail
LABS=${LABS:-3}
LONG_LABS=${LONG_LABS:-3}
LONG=${LONG:-20m}
LONG_ROUND=${LONG_ROUND:-60s}
FILL_BAND=${FILL_BAND:-0.02}
EXTRA=${EXTRA:-}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RESULTS=${RESULTS:-$root/bench/RESULTS-sim.md}
work=$(mktemp -d /tmp/lab-plateau.XXXXXX)
echo "work directory: $work (kept: the labs' logs and reports)"
(cd "$root" && go build -o "$work/bin/" ./exporter ./loadgen ./walab)
commit=$(git -C "$root" rev-parse --short HEAD)

rows=()
# lab NAME ARGS...: one lab; appends a table row to rows.
lab() {
	local name=$1
	shift
	local out=$work/$name start end rc=0
	start=$(date +%s)
	# shellcheck disable=SC2086 # EXTRA is a list of flags
	PATH=$work/bin:$PATH "$work/bin/walab" lab --no-hold --out="$out" --exporter.listen=127.0.0.1:20231 \
		--prometheus.listen=127.0.0.1:20290 --loadgen.listen=127.0.0.1:20232 \
		--mysql.db-1=walab_plateau_1 --mysql.db-2=walab_plateau_2 "$@" $EXTRA >"$work/$name.log" 2>&1 || rc=$?
	end=$(date +%s)
	local verdict
	verdict=$(grep -E '^(VALID|NOT VALID)' "$work/$name.log" | head -1 || true)
	[ -n "$verdict" ] || verdict="no verdict (exit $rc): $(grep -E 'refused|stopped after|ENOSPC|error' "$work/$name.log" | tail -1 | cut -c1-300)"
	rows+=("$(python3 - "$name" "$*" "$((end - start))" "$verdict" "$out/fill.txt" "$FILL_BAND" <<'PY'
import sys
name, args, secs, verdict, path, band = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], float(sys.argv[6])
cols = {0: [], 1: []}  # arm -> [(wa or None, fill or None)]
try:
    lines = open(path).read().splitlines()[2:]
except OSError:
    lines = []
for l in lines:
    f = l.split()
    for arm, (wa, fill) in enumerate([(f[1], f[2]), (f[3], f[4])]):
        cols[arm].append((None if wa == "-" else float(wa), None if fill == "-" else float(fill.rstrip("%")) / 100))
def arm(a):
    was = [w for w, _ in cols[a] if w is not None]
    fills = [x for _, x in cols[a] if x is not None]
    last = f"{sum(was[-3:]) / len(was[-3:]):.2f}" if len(was) >= 3 else "-"
    if not fills:
        return last, "-"
    lo, hi = min(fills), max(fills)
    mark = "" if hi - lo <= band else f" (moved {100 * (hi - lo):.1f} points, band {100 * band:.0f})"
    return last, f"{100 * lo:.1f}-{100 * hi:.1f} %{mark}"
(b, bf), (s, sf) = arm(0), arm(1)
print(f"| {name} | `{args or 'defaults'}` | {secs // 60} min {secs % 60} s | {b} / {s} | {bf} / {sf} | `{verdict}` |")
PY
)")
	echo "${rows[-1]}"
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for i in $(seq 1 "$LABS"); do lab "lab-$i"; done
for i in $(seq 1 "$LONG_LABS"); do lab "long-$i" --run="$LONG" --round="$LONG_ROUND"; done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

{
	echo
	echo "## make run's lab against ${LONG} runs: bench/lab-plateau.sh ($(date -u +%Y-%m-%d), commit $commit)"
	echo
	echo '```'
	echo "sudo LABS=$LABS LONG_LABS=$LONG_LABS LONG=$LONG LONG_ROUND=$LONG_ROUND FILL_BAND=$FILL_BAND EXTRA='$EXTRA' bench/lab-plateau.sh"
	echo "# each lab: walab lab --no-hold [--run=$LONG --round=$LONG_ROUND] (the default plan, deploy/experiments/seed000-sim.yml)"
	echo '```'
	echo
	echo "Load average (1, 5, 15 min) before: $load_before; after: $load_after. $(nproc) CPUs, shared with other work."
	echo
	echo "| lab | flags | time to verdict | WA, mean of the last 3 rounds, baseline / streams | drive fill over the rounds, baseline / streams | verdict |"
	echo "|---|---|---|---|---|---|"
	printf '%s\n' "${rows[@]}"
} >>"$RESULTS"
echo "appended to $RESULTS"

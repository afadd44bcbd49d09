#!/usr/bin/env bash
# Attack `walab experiment` as an impatient operator would, and print what
# happened. Anyone can run it:
#   bash test/chaos/experiment.sh [KILLS]     (default 10 kill -9 of the runner)
# It needs Go; it touches nothing outside its temporary folder. Each kill
# hits the runner while a destructive step's shell waits for a forked
# `sleep` (the shape of `mariadb < dump.sql`); the step's processes must die
# with the runner, and `resume --redo` must run the step again alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
KILLS=${1:-10}
WORK=$(mktemp -d /tmp/walab-chaos-exp.XXXXXX)
RUNNER=
cleanup() {
	[ -n "$RUNNER" ] && kill -9 "$RUNNER" 2>/dev/null || true
	[ -f "$WORK/sleep.pid" ] && kill -9 "$(cat "$WORK/sleep.pid")" 2>/dev/null || true
	rm -rf "$WORK"
}
trap cleanup EXIT

go build -o "$WORK/walab" ./walab
export WALAB_CHAOS_DB_PW=chaos-secret-4711
cat > "$WORK/plan.yml" <<YML
name: chaos
targets:
  - {name: db, dsn: "root:\${WALAB_CHAOS_DB_PW}@tcp(127.0.0.1:1)/x?timeout=1s"}
reset:
  - name: restore
    command: 'echo "\$WALAB_STEP" >> $WORK/journal; if [ -e $WORK/hold ]; then sleep 300 & echo \$! > $WORK/sleep.pid; touch $WORK/gate; wait; fi; : --mysql-password \${WALAB_CHAOS_DB_PW}'
    destructive: true
runs:
  - {name: r, command: 'echo "\$WALAB_STEP" >> $WORK/journal'}
YML

# alive PID: the process exists and is no zombie.
alive() { local s; s=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1; [ -n "$s" ] && [ "$s" != Z ]; }
wait_file() { for _ in $(seq 600); do [ -e "$1" ] && return 0; sleep 0.05; done; echo "$1 did not appear"; exit 1; }
wait_dead() { for _ in $(seq 600); do alive "$1" || return 0; sleep 0.05; done; return 1; }

echo "== 1. kill -9 of the runner during a destructive step, $KILLS times"
orphans=0; redo_failed=0; twice=0
for i in $(seq "$KILLS"); do
	out="$WORK/out$i"; rm -f "$WORK/gate" "$WORK/sleep.pid" "$WORK/journal"; touch "$WORK/hold"
	"$WORK/walab" experiment run "$WORK/plan.yml" --out "$out" >"$WORK/run$i.log" 2>&1 & RUNNER=$!
	wait_file "$WORK/gate"
	sleep "0.$((RANDOM % 5))"
	kill -9 "$RUNNER"; wait "$RUNNER" 2>/dev/null || true; RUNNER=
	wait_dead "$(cat "$WORK/sleep.pid")" || orphans=$((orphans + 1))
	rm -f "$WORK/hold"
	"$WORK/walab" experiment resume --out "$out" --redo r/reset/1-restore >"$WORK/resume$i.log" 2>&1 || redo_failed=$((redo_failed + 1))
	[ "$(grep -c restore "$WORK/journal")" = 2 ] || twice=$((twice + 1))
done
echo "runner kills: $KILLS, step processes left running: $orphans, failed resumes: $redo_failed, wrong step counts: $twice"

echo "== 2. the step's guard dies with the runner (kill -9 of both)"
out="$WORK/out-guard"; rm -f "$WORK/gate" "$WORK/sleep.pid"; touch "$WORK/hold"
"$WORK/walab" experiment run "$WORK/plan.yml" --out "$out" >"$WORK/guard.log" 2>&1 & RUNNER=$!
wait_file "$WORK/gate"
sleeper=$(cat "$WORK/sleep.pid"); guard=$(awk '{print $5}' "/proc/$sleeper/stat")  # its process group: the guard's pid
kill -STOP "$RUNNER"; kill -9 "$guard"; kill -9 "$RUNNER"; kill -CONT "$RUNNER" 2>/dev/null || true
wait "$RUNNER" 2>/dev/null || true; RUNNER=
alive "$sleeper" && echo "before resume: the step's sleep runs on (the attack)"
rm -f "$WORK/hold"
if "$WORK/walab" experiment resume --out "$out" >"$WORK/refuse.log" 2>&1; then echo "resume: ran (should refuse)"; fi
grep -o 'killed [0-9]* process(es) left running[^)]*' "$WORK/refuse.log" | head -1 | sed 's/^/resume: /' || true
wait_dead "$sleeper" && echo "after resume: the step's sleep is gone" || echo "after resume: the step's sleep STILL RUNS"
grep -q 'interrupted destructive step' "$WORK/refuse.log" && echo "resume without --redo: refused, names the step"

echo "== 3. secrets and plan files"
leaks=$({ grep -rl "$WALAB_CHAOS_DB_PW" "$WORK"/out* 2>/dev/null || true; } | wc -l)
readable=$({ find "$WORK"/out* -type f -perm -o=r || true; } | wc -l)
echo "files holding the password: $leaks, files readable by others: $readable"
{ "$WORK/walab" experiment run /dev/zero --dry-run 2>&1 || true; } | head -1 | sed 's/^/plan \/dev\/zero: /'
echo "done"

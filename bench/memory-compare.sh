#!/usr/bin/env bash
# Side by side: sysbench 1.0.20's memory test and `loadgen memory` (seed
# 002's machine check), alternately, same options, one line per run with
# the MiB/s of each and their ratio loadgen/sysbench.
#
# Both measure this machine's memory (or cache, for blocks that fit) with
# their own loops: compare machines with one tool, not the tools' figures
# across machines.
#
# Usage: bench/memory-compare.sh   (THREADS, BLOCK, TOTAL, ROUNDS, MODES)
set -euo pipefail

THREADS=${THREADS:-2}
BLOCK=${BLOCK:-1M}
TOTAL=${TOTAL:-4G}
ROUNDS=${ROUNDS:-2}
MODES=${MODES:-"read:seq write:seq read:rnd write:rnd"}

cd "$(dirname "$0")/.."
command -v sysbench >/dev/null || { echo "sysbench is not installed" >&2; exit 2; }
bin=$(mktemp -d)/loadgen
trap 'rm -rf "$(dirname "$bin")"' EXIT
go build -o "$bin" ./loadgen

rate() { grep -o '([0-9.]* MiB/sec)' | tr -d '(' | cut -d' ' -f1; }
printf '%-10s %5s %14s %14s %7s\n' mode round sysbench loadgen ratio
for m in $MODES; do
	oper=${m%%:*} mode=${m##*:}
	args=(--threads="$THREADS" --memory-block-size="$BLOCK" --memory-total-size="$TOTAL" --memory-oper="$oper" --memory-access-mode="$mode")
	for r in $(seq "$ROUNDS"); do
		s=$(sysbench memory "${args[@]}" run | rate)
		l=$("$bin" memory "${args[@]}" --web.disable run | rate)
		printf '%-10s %5d %14s %14s %7.2f\n' "$m" "$r" "$s" "$l" "$(echo "$l / $s" | bc -l)"
	done
done

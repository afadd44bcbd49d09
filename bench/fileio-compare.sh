#!/usr/bin/env bash
# Side-by-side device workload: sysbench 1.0.20's fileio and loadgen fileio
# run the same test, alternately, on file sets of the same size in the same
# directory's filesystem. Prints, per test mode, the IOPS ratio
# loadgen/sysbench and each client's CPU time (user+sys) per 1,000 I/O
# requests.
#
# The machine is shared: read the ratios, not the absolute numbers.
#
# Usage: bench/fileio-compare.sh   (settings via environment, see below)
set -euo pipefail

DIR=${DIR:-$(mktemp -d -p "${TMPDIR:-/var/tmp}")}
SIZE=${SIZE:-256M}
FILES=${FILES:-4}
BLOCK=${BLOCK:-16384}
THREADS=${THREADS:-4}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-2}
MODES=${MODES:-"rndrd rndwr rndrw"}
EXTRA=${EXTRA:-direct}

command -v sysbench >/dev/null || { echo "sysbench not installed (apt-get install sysbench)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work" "$DIR/sysbench" "$DIR/loadgen"; rmdir "$DIR" 2>/dev/null || true' EXIT
echo "building loadgen..."
(cd "$root" && go build -o "$work/loadgen" ./loadgen)
mkdir -p "$DIR/sysbench" "$DIR/loadgen"

common=(--file-num="$FILES" --file-block-size="$BLOCK" --file-total-size="$SIZE")
(cd "$DIR/sysbench" && sysbench fileio "${common[@]}" prepare >"$work/sb-prepare.log")
(cd "$DIR/loadgen" && "$work/loadgen" fileio "${common[@]}" prepare --web.disable >"$work/lg-prepare.log" 2>&1)
echo "sysbench $(sysbench --version | awk '{print $2}') and loadgen: $FILES files, $SIZE in $DIR, block $BLOCK, $THREADS threads, $TIME s, extra flags '$EXTRA'"

# run TOOL MODE: prints "iops cpu_seconds requests". CPU is the children
# user+sys time of a subshell that ran only the client.
run() {
	local tool=$1 mode=$2 log="$work/$1.$2.log" bin
	if [ "$tool" = sysbench ]; then bin=sysbench; else bin="$work/loadgen"; fi
	(
		cd "$DIR/$tool"
		"$bin" fileio "${common[@]}" --file-test-mode="$mode" --file-extra-flags="$EXTRA" \
			--threads="$THREADS" --time="$TIME" run $([ "$tool" = loadgen ] && echo --web.disable) >"$log" 2>&1
		times
	) >"$log.times"
	local reads writes secs cpu
	reads=$(awk '/reads\/s:/ {print $2}' "$log")
	writes=$(awk '/writes\/s:/ {print $2}' "$log")
	secs=$(awk '/total time:/ {sub("s", "", $3); print $3}' "$log")
	cpu=$(tail -1 "$log.times" | awk '{ split($1, u, "m"); split($2, s, "m"); sub("s", "", u[2]); sub("s", "", s[2]); print u[1]*60 + u[2] + s[1]*60 + s[2] }')
	echo "$reads $writes $secs $cpu" | awk '{ iops = $1 + $2; printf "%.2f %.3f %.0f\n", iops, $4, iops * $3 }'
}

printf "%-7s %5s %12s %12s %8s %16s %16s\n" mode round sb_iops lg_iops ratio sb_cpu_ms/1k_io lg_cpu_ms/1k_io
for mode in $MODES; do
	for r in $(seq "$ROUNDS"); do
		read -r sb_iops sb_cpu sb_n <<<"$(run sysbench "$mode")"
		read -r lg_iops lg_cpu lg_n <<<"$(run loadgen "$mode")"
		awk -v m="$mode" -v r="$r" -v si="$sb_iops" -v li="$lg_iops" -v sc="$sb_cpu" -v lc="$lg_cpu" -v sn="$sb_n" -v ln="$lg_n" \
			'BEGIN { printf "%-7s %5d %12.0f %12.0f %8.3f %16.3f %16.3f\n", m, r, si, li, li / si, 1e6 * sc / sn, 1e6 * lc / ln }'
	done
done
(cd "$DIR/sysbench" && sysbench fileio "${common[@]}" cleanup >/dev/null)
(cd "$DIR/loadgen" && "$work/loadgen" fileio "${common[@]}" cleanup --web.disable >/dev/null 2>&1)

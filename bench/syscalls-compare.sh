#!/usr/bin/env bash
# Where a client's cost goes, per transaction, for sysbench 1.0.20 and
# loadgen on the same OLTP script and tables: system calls by name
# (strace -f -c) and, in a separate run without strace, context switches,
# CPU migrations and user/system CPU (perf stat; task-clock is the client's
# CPU time). Each tool runs a fixed number of transactions (--events,
# --time=0), so the counts divide exactly.
#
# Counts do not depend on the machine's load the way times do; the perf
# times are for the ratio only. strace slows both clients alike; its counts
# are what matter.
#
# Usage: bench/syscalls-compare.sh   (settings via environment, see below)
set -euo pipefail

TABLES=${TABLES:-2}
TABLE_SIZE=${TABLE_SIZE:-10000}
THREADS=${THREADS:-4}
EVENTS=${EVENTS:-20000}
SCRIPTS=${SCRIPTS:-"oltp_point_select oltp_read_write"}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
MYSQL_DB=${MYSQL_DB:-walab_bench}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
require_loopback
for t in sysbench strace perf; do
	command -v "$t" >/dev/null || { echo "$t not installed" >&2; exit 2; }
done

setup_work

conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$MYSQL_DB")
size=(--tables="$TABLES" --table-size="$TABLE_SIZE")
mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" \
	-e "DROP DATABASE IF EXISTS \`$MYSQL_DB\`; CREATE DATABASE \`$MYSQL_DB\`"
sysbench oltp_read_write "${conn[@]}" "${size[@]}" --threads="$THREADS" prepare >"$work/prepare.log"

# cmd TOOL SCRIPT: the client's command line for a fixed-work run.
cmd() {
	if [ "$1" = sysbench ]; then
		echo sysbench "$2" run "${conn[@]}" "${size[@]}" --threads="$THREADS" --time=0 --events="$EVENTS"
	else
		echo "$work/loadgen" "$2" run "${conn[@]}" "${size[@]}" --threads="$THREADS" --time=0 --events="$EVENTS" --web.disable
	fi
}

# txns LOG: the transactions line both tools print.
txns() { awk '/transactions:/ {print $2; exit}' "$1"; }

for script in $SCRIPTS; do
	echo
	echo "== $script: $THREADS threads, $EVENTS transactions"
	for tool in sysbench loadgen; do
		# shellcheck disable=SC2046
		strace -f -c -o "$work/$tool.strace" $(cmd "$tool" "$script") >"$work/$tool.strace.log" 2>&1
		n=$(txns "$work/$tool.strace.log")
		# shellcheck disable=SC2046
		perf stat -x, -e task-clock,context-switches,cpu-migrations -o "$work/$tool.perf" \
			$(cmd "$tool" "$script") >"$work/$tool.perf.log" 2>&1
		m=$(txns "$work/$tool.perf.log")
		awk -v n="$n" -v tool="$tool" '
			$1 ~ /^[0-9.]+$/ && NF >= 5 { name = $NF; calls = $4; if (name != "total") c[name] = calls }
			$NF == "total" { total = $4 }
			END {
				printf "%s: %.1f syscalls per transaction;", tool, total / n
				k = 0
				# the five most frequent
				for (i = 0; i < 5; i++) {
					best = ""; bv = -1
					for (s in c) if (c[s] > bv) { bv = c[s]; best = s }
					if (best == "") break
					printf " %s %.2f", best, bv / n
					delete c[best]
				}
				print ""
			}' "$work/$tool.strace"
		awk -F, -v m="$m" -v tool="$tool" '
			$3 == "task-clock" { cpu = $1 / 1000 }            # msec -> s
			$3 == "context-switches" { cs = $1 }
			$3 == "cpu-migrations" { mig = $1 }
			END { printf "%s: %.1f us CPU, %.2f context switches, %.3f migrations per transaction\n", tool, cpu / m * 1e6, cs / m, mig / m }
		' "$work/$tool.perf"
	done
done

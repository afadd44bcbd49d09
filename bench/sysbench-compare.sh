#!/usr/bin/env bash
# Side-by-side client comparison: sysbench 1.0.20 and loadgen run the same
# OLTP scripts, alternately, against the same tables on the local MariaDB.
# Prints, per script, the TPS ratio loadgen/sysbench and the client CPU
# seconds (user+sys of the client process only) per 1,000 transactions.
#
# The machine is shared: read the ratios, not the absolute numbers. Several
# alternating rounds even out drift in the background load.
#
# Usage: bench/sysbench-compare.sh   (settings via environment, see below)
set -euo pipefail

TABLES=${TABLES:-2}
TABLE_SIZE=${TABLE_SIZE:-10000}
THREADS=${THREADS:-4}
TIME=${TIME:-20}
ROUNDS=${ROUNDS:-2}
SCRIPTS=${SCRIPTS:-"oltp_read_write oltp_point_select"}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
MYSQL_PASSWORD=${MYSQL_PASSWORD:-}
MYSQL_DB=${MYSQL_DB:-walab_bench}
# Extra loadgen flags, for A/B runs (e.g. LOADGEN_ARGS=--mysql-blocking-io=off).
read -r -a loadgen_args <<<"${LOADGEN_ARGS:-}"

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
require_loopback
command -v sysbench >/dev/null || { echo "sysbench not installed (apt-get install sysbench)" >&2; exit 2; }

setup_work

conn=(--mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" --mysql-user="$MYSQL_USER" --mysql-db="$MYSQL_DB")
[ -n "$MYSQL_PASSWORD" ] && conn+=(--mysql-password="$MYSQL_PASSWORD")
size=(--tables="$TABLES" --table-size="$TABLE_SIZE")

mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" ${MYSQL_PASSWORD:+-p"$MYSQL_PASSWORD"} \
	-e "DROP DATABASE IF EXISTS \`$MYSQL_DB\`; CREATE DATABASE \`$MYSQL_DB\`"
echo "sysbench $(sysbench --version | awk '{print $2}'): prepare $TABLES x $TABLE_SIZE rows"
sysbench oltp_read_write "${conn[@]}" "${size[@]}" --threads="$THREADS" prepare >"$work/prepare.log"

# run TOOL SCRIPT: prints "tps cpu_seconds transactions" for one run. CPU is
# the children user+sys time of a subshell that ran only the client.
run() {
	local tool=$1 script=$2 bin
	if [ "$tool" = sysbench ]; then bin=sysbench; else bin="$work/loadgen"; fi
	local log="$work/$tool.$script.log"
	(
		"$bin" "$script" run "${conn[@]}" "${size[@]}" --threads="$THREADS" --time="$TIME" \
			$([ "$tool" = loadgen ] && echo --web.disable "${loadgen_args[@]}") >"$log" 2>&1
		times
	) >"$log.times"
	# The transactions line is the same in both tools' summaries.
	local txns tps
	txns=$(awk '/transactions:/ {print $2}' "$log")
	tps=$(awk '/transactions:/ {gsub(/[(]/, "", $3); print $3}' "$log")
	# `times` prints the shell's own times, then its children's: "0m1.234s 0m0.567s".
	local cpu
	cpu=$(tail -1 "$log.times" | awk '{
		n = split($1 " " $2, f, " "); s = 0
		for (i = 1; i <= n; i++) { split(f[i], p, "m"); sub("s", "", p[2]); s += p[1] * 60 + p[2] }
		print s }')
	echo "$tps $cpu $txns"
}

printf '\n%-18s %-6s %-9s %10s %12s %10s %14s\n' script round tool tps transactions cpu_s cpu_s/1k_txn
for script in $SCRIPTS; do
	for tool in sysbench loadgen; do : >"$work/sum.$script.$tool"; done
	for round in $(seq 1 "$ROUNDS"); do
		# Alternate which tool goes first so neither always gets the warmer cache.
		order="sysbench loadgen"
		[ $((round % 2)) -eq 0 ] && order="loadgen sysbench"
		for tool in $order; do
			read -r tps cpu txns < <(run "$tool" "$script")
			per1k=$(awk -v c="$cpu" -v t="$txns" 'BEGIN { printf "%.4f", (t > 0 ? c / t * 1000 : 0) }')
			printf '%-18s %-6s %-9s %10s %12s %10s %14s\n' "$script" "$round" "$tool" "$tps" "$txns" "$cpu" "$per1k"
			echo "$tps $cpu $txns" >>"$work/sum.$script.$tool"
		done
	done
done

echo
printf '%-18s %22s %26s\n' script "TPS ratio (lg/sb)" "CPU/1k txn ratio (lg/sb)"
for script in $SCRIPTS; do
	read -r sb_tps sb_cpu sb_txn < <(awk '{t += $1; c += $2; n += $3} END {print t / NR, c, n}' "$work/sum.$script.sysbench")
	read -r lg_tps lg_cpu lg_txn < <(awk '{t += $1; c += $2; n += $3} END {print t / NR, c, n}' "$work/sum.$script.loadgen")
	awk -v s="$script" -v st="$sb_tps" -v lt="$lg_tps" -v sc="$sb_cpu" -v sn="$sb_txn" -v lc="$lg_cpu" -v ln="$lg_txn" 'BEGIN {
		printf "%-18s %22.3f %26.3f\n", s, (st > 0 ? lt / st : 0), ((sn > 0 && ln > 0 && sc > 0) ? (lc / ln) / (sc / sn) : 0) }'
done

sysbench oltp_read_write "${conn[@]}" "${size[@]}" cleanup >/dev/null
mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" ${MYSQL_PASSWORD:+-p"$MYSQL_PASSWORD"} -e "DROP DATABASE IF EXISTS \`$MYSQL_DB\`"

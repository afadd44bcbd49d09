#!/usr/bin/env bash
# Side-by-side TPC-C client comparison: go-tpc v1.0.7 and loadgen tpcc, each
# in its own database on the local MariaDB, alternating which goes first.
#
# Prepare: warehouses loaded per minute (wall clock), client CPU seconds and
# peak RSS. Run: tpmC (New-Orders per minute), client CPU per transaction
# (user+sys of the client process / completed transactions of every type)
# and peak RSS. At the end, the ratios loadgen / go-tpc.
#
# The machine is shared: read the ratios, not the absolute numbers.
#
# Usage: bench/gotpc-compare.sh   (settings via environment, see below)
set -euo pipefail

WAREHOUSES=${WAREHOUSES:-2}
THREADS=${THREADS:-4}   # load workers in prepare, terminals in run
TIME=${TIME:-60}        # seconds per run
ROUNDS=${ROUNDS:-2}
MYSQL_HOST=${MYSQL_HOST:-127.0.0.1}
MYSQL_PORT=${MYSQL_PORT:-3306}
MYSQL_USER=${MYSQL_USER:-root}
GOTPC=${GOTPC:-}        # a go-tpc binary; default: go install v1.0.7 into a temporary directory
PHASES=${PHASES:-"prepare run"}  # "run" alone reuses the databases an earlier prepare left

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
require_loopback
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)" >&2; exit 2; }

setup_work
if [ -z "$GOTPC" ]; then
	echo "installing go-tpc v1.0.7..."
	GOBIN="$work" go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
	GOTPC="$work/go-tpc"
fi

db_lg=walab_tpcc_loadgen
db_gt=walab_tpcc_gotpc
sql() { mariadb -h "$MYSQL_HOST" -P "$MYSQL_PORT" -u "$MYSQL_USER" -e "$1"; }

# timed LOG CMD...: runs CMD with its output in LOG and "elapsed cpu maxrss_kib"
# of the client process in LOG.time.
timed() {
	local log=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$log.time" "$@" >"$log" 2>&1
}
times_of() { awk '{printf "%s %.2f %s\n", $1, $2 + $3, $4}' "$1.time"; }

prepare() { # TOOL LOG
	case $1 in
	loadgen)
		sql "DROP DATABASE IF EXISTS $db_lg; CREATE DATABASE $db_lg"
		timed "$2" "$work/loadgen" tpcc prepare --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" \
			--mysql-user="$MYSQL_USER" --mysql-db="$db_lg" --warehouses="$WAREHOUSES" --threads="$THREADS" --web.disable
		;;
	go-tpc)
		sql "DROP DATABASE IF EXISTS $db_gt; CREATE DATABASE $db_gt"
		timed "$2" "$GOTPC" tpcc prepare -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$db_gt" \
			--warehouses "$WAREHOUSES" -T "$THREADS" --no-check
		;;
	esac
}

run() { # TOOL LOG; prints "tpmC transactions"
	case $1 in
	loadgen)
		timed "$2" "$work/loadgen" tpcc run --mysql-host="$MYSQL_HOST" --mysql-port="$MYSQL_PORT" \
			--mysql-user="$MYSQL_USER" --mysql-db="$db_lg" --warehouses="$WAREHOUSES" --terminals="$THREADS" \
			--time="$TIME" --web.disable
		awk '/Measured tpmC/ {t = $NF} /^all / {n = $2} END {print t, n}' "$2"
		;;
	go-tpc)
		timed "$2" "$GOTPC" tpcc run -H "$MYSQL_HOST" -P "$MYSQL_PORT" -U "$MYSQL_USER" -D "$db_gt" \
			--warehouses "$WAREHOUSES" -T "$THREADS" --time "${TIME}s"
		awk '/^\[Summary\]/ && $2 !~ /_ERR$/ {c = $0; sub(/.*Count: /, "", c); sub(/,.*/, "", c); n += c}
			/^tpmC:/ {t = $2; sub(/,/, "", t)} END {print t, n}' "$2"
		;;
	esac
}

case " $PHASES " in *" prepare "*) ;; *) ROUNDS_PREPARE=0 ;; esac
printf '\n%-8s %-6s %-8s %10s %10s %12s\n' phase round tool wh/min cpu_s rss_MiB
for round in $(seq 1 "${ROUNDS_PREPARE:-$ROUNDS}"); do
	order="go-tpc loadgen"
	[ $((round % 2)) -eq 0 ] && order="loadgen go-tpc"
	for tool in $order; do
		prepare "$tool" "$work/prep.$tool.$round.log"
		read -r el cpu rss < <(times_of "$work/prep.$tool.$round.log")
		whm=$(awk -v w="$WAREHOUSES" -v e="$el" 'BEGIN {printf "%.2f", w / e * 60}')
		printf '%-8s %-6s %-8s %10s %10s %12d\n' prepare "$round" "$tool" "$whm" "$cpu" $((rss / 1024))
		echo "$whm $cpu $rss" >>"$work/prep.$tool"
	done
done

case " $PHASES " in *" run "*) ;; *) ROUNDS_RUN=0 ;; esac
printf '\n%-8s %-6s %-8s %10s %12s %10s %14s %12s\n' phase round tool tpmC transactions cpu_s cpu_ms/txn rss_MiB
for round in $(seq 1 "${ROUNDS_RUN:-$ROUNDS}"); do
	order="go-tpc loadgen"
	[ $((round % 2)) -eq 0 ] && order="loadgen go-tpc"
	for tool in $order; do
		read -r tpmc txns < <(run "$tool" "$work/run.$tool.$round.log")
		read -r _ cpu rss < <(times_of "$work/run.$tool.$round.log")
		per=$(awk -v c="$cpu" -v n="$txns" 'BEGIN {printf "%.3f", c / n * 1000}')
		printf '%-8s %-6s %-8s %10s %12s %10s %14s %12d\n' run "$round" "$tool" "$tpmc" "$txns" "$cpu" "$per" $((rss / 1024))
		echo "$tpmc $per $rss" >>"$work/run.$tool"
	done
done

# mean of column C of file F
mean() { awk -v c="$2" '{s += $c; n++} END {printf "%.4f", s / n}' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo
echo "ratios loadgen / go-tpc (means over $ROUNDS rounds):"
if [ -s "$work/prep.loadgen" ]; then
	echo "  prepare warehouses per minute: $(ratio "$(mean "$work/prep.loadgen" 1)" "$(mean "$work/prep.go-tpc" 1)")"
	echo "  prepare client CPU seconds:    $(ratio "$(mean "$work/prep.loadgen" 2)" "$(mean "$work/prep.go-tpc" 2)")"
	echo "  prepare peak RSS:              $(ratio "$(mean "$work/prep.loadgen" 3)" "$(mean "$work/prep.go-tpc" 3)")"
fi
if [ -s "$work/run.loadgen" ]; then
	echo "  run tpmC:                      $(ratio "$(mean "$work/run.loadgen" 1)" "$(mean "$work/run.go-tpc" 1)")"
	echo "  run client CPU per txn:        $(ratio "$(mean "$work/run.loadgen" 2)" "$(mean "$work/run.go-tpc" 2)")"
	echo "  run peak RSS:                  $(ratio "$(mean "$work/run.loadgen" 3)" "$(mean "$work/run.go-tpc" 3)")"
fi

#!/usr/bin/env bash
# TPC-C clients at seed 000's scale, side by side: loadgen and go-tpc
# v1.0.7, 330 terminals on one target ("1x330") and 330 on each of two
# ("2x330"), on private mariadbd instances started here (max_connections
# and max_prepared_stmt_count raised: go-tpc prepares its statements on
# every connection and panics at MariaDB's default of 16,382).
#
# loadgen drives both targets from one process (--target twice, as seed 000
# runs it); go-tpc has one target per process, so 2x330 runs two at once
# and adds their CPU and peak RSS. Per run: tpmC, transactions, client CPU
# per transaction (user+sys / completed transactions of every type), the
# statements per transaction and client CPU per statement (the servers'
# Questions over the run: every statement sent, prepares included), peak
# RSS, and p99 latency per transaction type; then the ratios loadgen /
# go-tpc. Finally loadgen alone with SMALL terminals on one target: the
# RSS difference to 330 terminals, divided by the extra terminals, is what
# one terminal costs. The machine is shared: read the ratios of one run.
#
# LOADGEN_ARGS are added to loadgen run (--mysql-blocking-io: the default
# before the poller became tpcc's).
#
# Usage: bench/tpcc-seed-scale.sh   (WAREHOUSES, TERMINALS, SMALL, TIME, SCENARIOS, GOTPC, LOADGEN_ARGS)
set -euo pipefail

WAREHOUSES=${WAREHOUSES:-4}
TERMINALS=${TERMINALS:-330}
SMALL=${SMALL:-30}
TIME=${TIME:-60}
SCENARIOS=${SCENARIOS:-"1x330 2x330"}
GOTPC=${GOTPC:-}
LOADGEN_ARGS=${LOADGEN_ARGS:-}

# shellcheck source=bench/lib.sh
. "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { echo "/usr/bin/time not installed (apt-get install time)" >&2; exit 2; }
command -v mariadbd >/dev/null || [ -x /usr/sbin/mariadbd ] || { echo "mariadbd not installed" >&2; exit 2; }
command -v mariadb-install-db >/dev/null || { echo "mariadb-install-db not installed" >&2; exit 2; }

setup_work
servers=()
trap 'for p in "${servers[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; rm -rf "$work"' EXIT
if [ -z "$GOTPC" ]; then
	echo "installing go-tpc v1.0.7..."
	GOBIN="$work" go install github.com/pingcap/go-tpc/cmd/go-tpc@v1.0.7
	GOTPC="$work/go-tpc"
fi

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
ports=()
start_server() { # N
	local d="$work/db$1" port
	port=$(freeport)
	mkdir -p "$d/tmp"
	mariadb-install-db --no-defaults --datadir="$d/data" --user=root --auth-root-authentication-method=normal \
		--skip-test-db --tmpdir="$d/tmp" >"$d/install.log" 2>&1
	/usr/sbin/mariadbd --no-defaults --datadir="$d/data" --user=root --bind-address=127.0.0.1 --port="$port" \
		--socket="$d/mysqld.sock" --pid-file="$d/mysqld.pid" --log-error="$d/error.log" --tmpdir="$d/tmp" \
		--skip-name-resolve --innodb-buffer-pool-size=256M --innodb-log-file-size=256M \
		--max-connections=2000 --max-prepared-stmt-count=1048576 --innodb-flush-log-at-trx-commit=2 &
	servers+=($!)
	for _ in $(seq 300); do
		mariadb -h 127.0.0.1 -P "$port" -u root -e 'SELECT 1' >/dev/null 2>&1 && break
		sleep 0.2
	done
	mariadb -h 127.0.0.1 -P "$port" -u root -e 'SELECT 1' >/dev/null || { cat "$d/error.log" >&2; exit 1; }
	ports+=("$port")
}
echo "starting two private mariadbd..."
start_server 1
start_server 2
sql() { mariadb -h 127.0.0.1 -P "$1" -u root -e "$2"; }

timed() { # LOG CMD...: "elapsed user sys maxrss_kib" of CMD in LOG.time
	local log=$1
	shift
	/usr/bin/time -f "%e %U %S %M" -o "$log.time" "$@" >"$log" 2>&1
}

echo "preparing $WAREHOUSES warehouses per tool on each instance..."
preps=()
for p in "${ports[@]}"; do
	sql "$p" "CREATE DATABASE walab_seed_lg; CREATE DATABASE walab_seed_gt"
	"$work/loadgen" tpcc prepare --mysql-host=127.0.0.1 --mysql-port="$p" --mysql-user=root --mysql-db=walab_seed_lg \
		--warehouses="$WAREHOUSES" --threads=4 --web.disable >"$work/prep.lg.$p.log" 2>&1 &
	preps+=($!)
	"$GOTPC" tpcc prepare -H 127.0.0.1 -P "$p" -U root -D walab_seed_gt --warehouses "$WAREHOUSES" -T 4 --no-check \
		>"$work/prep.gt.$p.log" 2>&1 &
	preps+=($!)
done
for p in "${preps[@]}"; do wait "$p" || { echo "a prepare failed:" >&2; tail -5 "$work"/prep.*.log >&2; exit 1; }; done

run_loadgen() { # LOG TERMINALS PORT...
	local log=$1 n=$2 targets=()
	shift 2
	for p in "$@"; do targets+=(--target="db$p=mysql://root@127.0.0.1:$p/walab_seed_lg"); done
	# shellcheck disable=SC2086 # LOADGEN_ARGS is a list of words
	timed "$log" "$work/loadgen" tpcc run "${targets[@]}" --warehouses="$WAREHOUSES" --threads="$n" \
		--time="$TIME" --percentile=99 --web.disable $LOADGEN_ARGS
}
run_gotpc() { # LOG PORT...: one go-tpc per target, at the same time; times summed into LOG.time
	local log=$1 i=0 pids=()
	shift
	for p in "$@"; do
		timed "$log.$i" "$GOTPC" tpcc run -H 127.0.0.1 -P "$p" -U root -D walab_seed_gt --warehouses "$WAREHOUSES" \
			-T "$TERMINALS" --time "${TIME}s" &
		pids+=($!)
		i=$((i + 1))
	done
	for p in "${pids[@]}"; do wait "$p" || true; done
	cat "$log".[0-9] >"$log"
	cat "$log".[0-9].time | awk '{e = ($1 > e ? $1 : e); u += $2; s += $3; m += $4} END {print e, u, s, m}' >"$log.time"
}
txns() { # TOOL LOG: transactions of every type, summed over targets
	case $1 in
	loadgen) awk '/^Transaction Count/ {n += $NF} END {print n + 0}' "$2" ;;
	go-tpc) awk '/^\[Summary\]/ && $2 !~ /_ERR$/ {c = $0; sub(/.*Count: /, "", c); sub(/,.*/, "", c); n += c} END {print n + 0}' "$2" ;;
	esac
}
tpmc() {
	case $1 in
	loadgen) awk '/Measured tpmC/ {t += $NF} END {printf "%.0f", t}' "$2" ;;
	go-tpc) awk '/^tpmC:/ {t = $2; sub(/,/, "", t); s += t} END {printf "%.0f", s}' "$2" ;;
	esac
}
p99() { # TOOL LOG: "type=p99_ms ..." per transaction type (one table per target)
	case $1 in
	loadgen) awk '$1 == "type" {on = 1; next} on && NF >= 10 && $1 != "all" {printf "%s=%s ", $1, $9} /^$/ {on = 0}' "$2" ;;
	go-tpc) awk '/^\[Summary\]/ && $2 !~ /_ERR$/ {t = tolower($2); p = $0; sub(/.*99th\(ms\): /, "", p); sub(/,.*/, "", p); printf "%s=%s ", t, p}' "$2" ;;
	esac
}

questions() { # PORT...: the servers' Questions summed (every statement clients sent, prepares included)
	local p n=0
	for p in "$@"; do
		n=$((n + $(mariadb -h 127.0.0.1 -P "$p" -u root -N -e "SHOW GLOBAL STATUS LIKE 'Questions'" | awk '{print $2}')))
	done
	echo "$n"
}

printf '\n%-9s %-8s %8s %12s %10s %12s %10s %12s %9s  %s\n' scenario tool tpmC transactions cpu_s cpu_ms/txn stmts/txn cpu_us/stmt rss_MiB "p99 ms per type (per target)"
declare -A per perstmt rss
for sc in $SCENARIOS; do
	case $sc in
	1x330) targets=("${ports[0]}") ;;
	2x330) targets=("${ports[@]}") ;;
	*) echo "unknown scenario $sc" >&2; exit 2 ;;
	esac
	for tool in go-tpc loadgen; do
		log="$work/run.$sc.$tool.log"
		q0=$(questions "${targets[@]}")
		if [ "$tool" = loadgen ]; then run_loadgen "$log" "$TERMINALS" "${targets[@]}"; else run_gotpc "$log" "${targets[@]}"; fi
		q=$(($(questions "${targets[@]}") - q0))
		read -r _ u s m <"$log.time"
		n=$(txns "$tool" "$log")
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN {printf "%.2f", u + s}')
		per[$sc.$tool]=$(awk -v c="$cpu" -v n="$n" 'BEGIN {if (n > 0) printf "%.3f", c / n * 1000; else print "NaN"}')
		perstmt[$sc.$tool]=$(awk -v c="$cpu" -v q="$q" 'BEGIN {if (q > 0) printf "%.1f", c / q * 1e6; else print "NaN"}')
		rss[$sc.$tool]=$m
		printf '%-9s %-8s %8s %12s %10s %12s %10s %12s %9d  %s\n' "$sc" "$tool" "$(tpmc "$tool" "$log")" "$n" "$cpu" "${per[$sc.$tool]}" \
			"$(awk -v q="$q" -v n="$n" 'BEGIN {if (n > 0) printf "%.2f", q / n; else print "NaN"}')" "${perstmt[$sc.$tool]}" $((m / 1024)) "$(p99 "$tool" "$log")"
		grep -qi "panic" "$log" && echo "  ($tool panicked: see $log)" >&2 || true
	done
done

ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0 && a == a + 0) printf "%.2f", a / b; else print "NOT VALID"}'; }
echo
echo "ratios loadgen / go-tpc:"
for sc in $SCENARIOS; do
	echo "  $sc: client CPU per txn $(ratio "${per[$sc.loadgen]}" "${per[$sc.go-tpc]}"), per statement $(ratio "${perstmt[$sc.loadgen]}" "${perstmt[$sc.go-tpc]}"), peak RSS $(ratio "${rss[$sc.loadgen]}" "${rss[$sc.go-tpc]}")"
done

if [ "$SMALL" -gt 0 ] && [ "$SMALL" -lt "$TERMINALS" ] && [ -n "${rss[1x330.loadgen]:-}" ]; then
	run_loadgen "$work/run.small.log" "$SMALL" "${ports[0]}"
	read -r _ _ _ m <"$work/run.small.log.time"
	echo
	echo "loadgen peak RSS: $((m / 1024)) MiB at $SMALL terminals, $((rss[1x330.loadgen] / 1024)) MiB at $TERMINALS:" \
		"$(awk -v a="${rss[1x330.loadgen]}" -v b="$m" -v n=$((TERMINALS - SMALL)) 'BEGIN {printf "%.0f", (a - b) / n}') KiB per terminal"
fi

# Shared by bench/simfs-*.sh: the exporter with its simulated drive under
# a FUSE filesystem (sim.fs) and private mariadbd instances. Source it
# after setting work (a scratch directory) and root (the repository).
# Needs root, /dev/fuse, mariadbd, mariadb-install-db, curl, python3.

pids=()
mounts=()
simfs_cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	for m in "${mounts[@]}"; do umount -l "$m" 2>/dev/null || true; done
	rm -rf "$work"
}
trap simfs_cleanup EXIT

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

build_bins() {
	echo "building exporter and loadgen..."
	(cd "$root" && go build -o "$work/exporter" ./exporter && go build -o "$work/loadgen" ./loadgen)
}

# start_exporter DIR CAPACITY STREAMS: an exporter whose simulated drive
# (CAPACITY, placement on when STREAMS=true) sits under a filesystem
# mounted on DIR/mnt over DIR/backing; sets exp_addr and exp_pid.
start_exporter() {
	local d=$1
	mkdir -p "$d/mnt" "$d/backing" && chmod 0700 "$d" # the exporter refuses a backing directory other users can reach
	cat >"$d/walab.yml" <<YML
wa:
  persist: false
sim:
  capacity: $2
  placement:
    streams: $3
  fs:
    mountpoint: $d/mnt
    backing: $d/backing
YML
	exp_addr=127.0.0.1:$(freeport)
	"$work/exporter" --config.file="$d/walab.yml" --web.listen-address="$exp_addr" >"$d/exporter.log" 2>&1 &
	exp_pid=$!
	pids+=("$exp_pid")
	mounts+=("$d/mnt")
	for _ in $(seq 300); do
		curl -sf "http://$exp_addr/metrics" >/dev/null && break
		sleep 0.2
	done
	curl -sf "http://$exp_addr/metrics" >/dev/null || { cat "$d/exporter.log" >&2; exit 1; }
}

# start_mariadb DATADIR RUNDIR OPTIONS...: a private mariadbd on DATADIR
# (initialised unless it holds mysql/); sets db_port and db_pid.
start_mariadb() {
	local data=$1 run=$2
	shift 2
	mkdir -p "$run/tmp"
	if [ ! -d "$data/mysql" ]; then
		mariadb-install-db --no-defaults --datadir="$data" --user=root --auth-root-authentication-method=normal \
			--skip-test-db --tmpdir="$run/tmp" >"$run/install.log" 2>&1 || { cat "$run/install.log" >&2; exit 1; }
	fi
	db_port=$(freeport)
	/usr/sbin/mariadbd --no-defaults --datadir="$data" --user=root --bind-address=127.0.0.1 --port="$db_port" \
		--socket="$run/mysqld.sock" --pid-file="$run/mysqld.pid" --log-error="$run/error.log" --tmpdir="$run/tmp" \
		--skip-name-resolve --innodb-buffer-pool-size=128M --max-connections=200 "$@" &
	db_pid=$!
	pids+=("$db_pid")
	for _ in $(seq 600); do
		mariadb -h 127.0.0.1 -P "$db_port" -u root -e 'SELECT 1' >/dev/null 2>&1 && return
		sleep 0.2
	done
	cat "$run/error.log" >&2
	exit 1
}

stop_mariadb() { # PORT PID
	mariadb -h 127.0.0.1 -P "$1" -u root -e 'SHUTDOWN' >/dev/null 2>&1 || kill "$2"
	while kill -0 "$2" 2>/dev/null; do sleep 0.2; done
}

stop_exporter() { # PID MOUNTPOINT: SIGTERM unmounts
	kill -TERM "$1"
	while kill -0 "$1" 2>/dev/null; do sleep 0.2; done
	if grep -q " $2 fuse" /proc/mounts; then echo "exporter left $2 mounted" >&2; exit 1; fi
}

# drive_state ADDR: the simulated drive's JSON state.
drive_state() { curl -sf "http://$1/api/v1/sim/placement"; }

# simfs_counters ADDR: "class written host" lines from /metrics.
simfs_counters() {
	curl -sf "http://$1/metrics" | awk '
		/^walab_simfs_written_bytes_total\{/ { match($0, /class="[a-z]+"/); c = substr($0, RSTART + 7, RLENGTH - 8); w[c] = $NF }
		/^walab_simfs_host_written_bytes_total\{/ { match($0, /class="[a-z]+"/); c = substr($0, RSTART + 7, RLENGTH - 8); h[c] = $NF }
		END { for (c in w) printf "%s %.0f %.0f\n", c, w[c], h[c] }'
}

# cpu_ticks PID: utime + stime of a process, in clock ticks.
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat"; }

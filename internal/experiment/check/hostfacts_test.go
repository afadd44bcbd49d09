package check

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/testenv"
)

// dbFacts is a database host unlike the test machine: md0 over two NVMe
// partitions, one misaligned; mysqld pinned to 0-3 and node 0.
func dbFacts() hostapi.Facts {
	no, fill, avail := false, 0.65, uint64(600<<30)
	stopped, yes, limit, cached := false, true, "4", uint64(3<<30)
	return hostapi.Facts{Hostname: "dbhost", Governor: "powersave", Irqbalance: &stopped, DataDirs: []string{"/data"},
		Mounts: []hostapi.Mount{{DataDir: "/data", MountPoint: "/data", Source: "/dev/md0", FSType: "xfs", Options: "rw,noatime,attr2",
			Block: "md0", Stack: []string{"md0", "nvme0n1p1", "nvme0n1", "nvme1n1p1", "nvme1n1"}, Disks: []string{"nvme0n1", "nvme1n1"},
			Controllers: []string{"nvme0", "nvme1"}, PartitionStarts: map[string]uint64{"nvme0n1p1": 1 << 20, "nvme1n1p1": 63 * 512},
			Aligned4K: &no, Fill: &fill, AvailBytes: &avail}},
		IRQs:      []hostapi.IRQ{{IRQ: 40, Device: "nvme0", Action: "nvme0q1", CPUs: "0"}, {IRQ: 41, Device: "nvme0", Action: "nvme0q2", CPUs: "1"}, {IRQ: 50, Device: "eth0", CPUs: "0-7"}},
		Processes: []hostapi.Process{{Name: "mysqld", PID: 7, CPUs: "0-3", Mems: "0-1", NUMAPolicy: "bind:0"}},
		Tuning: hostapi.Tuning{SchedSteal: &yes, StealNodeLimit: &limit, Sysctls: map[string]string{"vm.swappiness": "1", "vm.dirty_ratio": "40"},
			THPEnabled: "never", THPDefrag: "madvise", NICChannels: map[string]hostapi.Channels{"eth0": {RX: 6, TX: 6}, "eth1": {RX: 6, TX: 4}},
			PageCacheBytes: &cached},
	}
}

// TestHostFactChecks: each host-fact check judges the served database
// host's fact (not this machine's) and names the host in its reason.
func TestHostFactChecks(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(dbFacts())
	}))
	defer srv.Close()
	e := &Env{Plan: &plan.Plan{Exporter: srv.URL, Device: "nvme0"}}
	runCheckCases(t, e, []checkCase{
		{plan.Check{Check: "irqbalance", Expect: "stopped"}, true, "irqbalance is stopped on dbhost"},
		{plan.Check{Check: "irqbalance", Expect: "running"}, false, "irqbalance is stopped on dbhost, the plan expects it running"},
		{plan.Check{Check: "irq_affinity", Device: "nvme0", CPUs: "0-3"}, true, "2 interrupt lines of nvme0 on dbhost"},
		{plan.Check{Check: "irq_affinity", Device: "eth0", CPUs: "4-7"}, false, "irq 50 () on dbhost may run on CPUs 0-7, outside the planned 4-7"},
		{plan.Check{Check: "irq_affinity", Device: "nvme9", CPUs: "0"}, false, "watches no interrupt line of nvme9"},
		{plan.Check{Check: "mysqld_cpus", CPUs: "0-3", Nodes: "0"}, true, "mysqld pid 7 on CPUs 0-3, memory nodes 0-1 (policy bind:0) on dbhost"},
		{plan.Check{Check: "mysqld_cpus", CPUs: "0-7"}, false, "may run on CPUs 0-3, the plan expects 0-7"},
		{plan.Check{Check: "mysqld_cpus", CPUs: "0-3", Nodes: "1"}, false, "the plan expects nodes 1"},
		{plan.Check{Check: "governor", Expect: "performance"}, false, "CPU governor on dbhost is powersave, the plan expects performance"},
		{plan.Check{Check: "mount_options", Path: "/data/mysql-1", Options: []string{"noatime"}}, true, "/data/mysql-1: /data has noatime on dbhost"},
		{plan.Check{Check: "mount_options", Path: "/data/mysql-1", Options: []string{"nodiscard"}}, false, "no nodiscard"},
		{plan.Check{Check: "alignment", Path: "/data/mysql-1"}, false, "not 4 KiB aligned (nvme0n1p1 at byte 1048576, nvme1n1p1 at byte 32256)"},
		{plan.Check{Check: "free_space", Path: "/data/mysql-1", Bytes: 500 << 30}, true, "/data/mysql-1 on dbhost: 600.0 GiB free (need 500.0 GiB)"},
		{plan.Check{Check: "free_space", Path: "/var/lib/mysql", Bytes: 1}, false, "does not watch /var/lib/mysql"},
		// Issue 47 item 2: the tuning facts seed 000 sets by hand.
		{plan.Check{Check: "sysctl", Options: []string{"vm.swappiness=1", "vm.dirty_ratio=40"}}, true, "vm.swappiness=1, vm.dirty_ratio=40 on dbhost"},
		{plan.Check{Check: "sysctl", Options: []string{"vm.dirty_ratio=20"}}, false, "vm.dirty_ratio is 40 on dbhost, the plan expects 20"},
		{plan.Check{Check: "sysctl", Options: []string{"vm.dirty_bytes=0"}}, false, "could not read vm.dirty_bytes"},
		{plan.Check{Check: "thp", Expect: "never", Options: []string{"madvise"}}, true, "transparent huge pages never, defrag madvise on dbhost"},
		{plan.Check{Check: "thp", Expect: "always"}, false, "transparent huge pages are never on dbhost, the plan expects always"},
		{plan.Check{Check: "sched_steal", Expect: "on", Nodes: "4"}, true, "STEAL on, sched_steal_node_limit=4 on dbhost"},
		{plan.Check{Check: "sched_steal", Expect: "off"}, false, "STEAL scheduler feature is on on dbhost, the plan expects off"},
		{plan.Check{Check: "sched_steal", Expect: "on", Nodes: "2"}, false, "sched_steal_node_limit on dbhost is 4, the plan expects 2"},
		{plan.Check{Check: "nic_channels", Device: "eth0", Expect: "6"}, true, "eth0 on dbhost has 6 channels"},
		{plan.Check{Check: "nic_channels", Device: "eth1", Expect: "6"}, false, "eth1 on dbhost has 6 receive and 4 transmit channels"},
		{plan.Check{Check: "nic_channels", Device: "eth9", Expect: "6"}, false, "shows no NIC eth9"},
		{plan.Check{Check: "page_cache", Bytes: 4 << 30}, true, "page cache on dbhost: 3.0 GiB (at most 4.0 GiB)"},
		{plan.Check{Check: "page_cache", Bytes: 1 << 30}, false, "the page cache on dbhost holds 3.0 GiB, the plan allows 1.0 GiB"},
	})
}

// checkCase is one check against served facts: whether it passes, and
// what its reason (or error) contains.
type checkCase struct {
	c    plan.Check
	pass bool
	want string
}

func runCheckCases(t *testing.T, e *Env, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.c.Check+" "+tc.want, func(t *testing.T) {
			require.Empty(t, Kinds()[tc.c.Check](e.Plan, tc.c))
			got, err := Run(context.Background(), e, tc.c, &plan.Run{Name: "r"})
			if tc.pass {
				require.NoError(t, err)
				require.Contains(t, got, tc.want)
			} else {
				require.ErrorContains(t, err, tc.want)
			}
		})
	}
}

// TestTuningChecksAbsentFacts: an exporter that shows none of the tuning
// facts fails each tuning check saying so; none passes on a missing fact.
func TestTuningChecksAbsentFacts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(hostapi.Facts{Hostname: "bare"})
	}))
	defer srv.Close()
	e := &Env{Plan: &plan.Plan{Exporter: srv.URL}}
	for _, c := range []plan.Check{{Check: "sysctl", Options: []string{"vm.swappiness=1"}}, {Check: "thp", Expect: "never"},
		{Check: "sched_steal", Expect: "off"}, {Check: "nic_channels", Device: "eth0", Expect: "6"}, {Check: "page_cache", Bytes: 1 << 40}} {
		require.Empty(t, Kinds()[c.Check](e.Plan, c), c.Check)
		_, err := Run(context.Background(), e, c, &plan.Run{Name: "r"})
		require.Error(t, err, c.Check)
		require.Contains(t, err.Error(), "bare", c.Check)
	}
}

// TestTuningChecksValidate: nonsense keys are refused when the plan loads.
func TestTuningChecksValidate(t *testing.T) {
	for _, c := range []plan.Check{{Check: "sysctl"}, {Check: "sysctl", Options: []string{"kernel.panic=1"}}, {Check: "sysctl", Options: []string{"vm.swappiness"}},
		{Check: "thp", Expect: "off"}, {Check: "thp", Expect: "never", Options: []string{"a", "b"}},
		{Check: "sched_steal", Expect: "yes"}, {Check: "sched_steal", Expect: "on", Nodes: "0"},
		{Check: "nic_channels", Expect: "6"}, {Check: "nic_channels", Device: "eth0", Expect: "six"}, {Check: "page_cache"}} {
		require.NotEmpty(t, Kinds()[c.Check](&plan.Plan{}, c), "%+v", c)
	}
}

// seedFacts is seed 000's database host (§4.7): two mysqld, numactl -C 0-60
// -i 0-3 for /etc/my-1.cnf and -C 67-127 -i 0-3 for /etc/my-2.cnf.
func seedFacts(dir1 string) hostapi.Facts {
	return hostapi.Facts{Hostname: "dbhost", Processes: []hostapi.Process{
		{Name: "mysqld", PID: 11, CPUs: "0-60", Mems: "0-3", NUMAPolicy: "interleave:0-3", Dir: dir1},
		{Name: "mysqld", PID: 12, CPUs: "67-127", Mems: "0-3", NUMAPolicy: "interleave:0-3", Dir: "/data/mysql-2/data"},
	}}
}

// TestMysqldCPUsTwoInstances: seed 000's two-instance pinning is two
// mysqld_cpus checks, each selecting its instance by datadir (a target's
// @@datadir, or a path) with its own CPU list and the interleave policy;
// an instance pinned like the other one, or without the policy, fails.
func TestMysqldCPUsTwoInstances(t *testing.T) {
	db, _ := testenv.MariaDB(t, "")
	var dir1 string
	require.NoError(t, db.QueryRow("SELECT @@datadir").Scan(&dir1))
	facts := seedFacts(dir1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(facts)
	}))
	defer srv.Close()
	p := &plan.Plan{Exporter: srv.URL, Targets: []plan.Target{{Name: "mysql-1", DSN: testenv.DSN(testenv.MariaDBAddr(), "")}}}
	e := &Env{Plan: p}
	runCheckCases(t, e, []checkCase{
		{plan.Check{Check: "mysqld_cpus", Targets: []string{"mysql-1"}, CPUs: "0-60", Policy: "interleave:0-3"}, true, "mysqld pid 11 on CPUs 0-60 (policy interleave:0-3) on dbhost"},
		{plan.Check{Check: "mysqld_cpus", Path: "/data/mysql-2/data/", CPUs: "67-127", Policy: "interleave:0,1,2,3"}, true, "mysqld pid 12 on CPUs 67-127"},
		{plan.Check{Check: "mysqld_cpus", Targets: []string{"mysql-1"}, CPUs: "67-127", Policy: "interleave:0-3"}, false, "mysqld pid 11 on dbhost may run on CPUs 0-60, the plan expects 67-127"},
		{plan.Check{Check: "mysqld_cpus", Path: "/data/mysql-2/data", CPUs: "67-127", Policy: "bind:0"}, false, "has memory policy interleave:0-3, the plan expects bind:0"},
		{plan.Check{Check: "mysqld_cpus", Path: "/data/mysql-2/data", CPUs: "67-127", Policy: "interleave:0-1"}, false, "the plan expects interleave:0-1"},
		{plan.Check{Check: "mysqld_cpus", Path: "/data/mysql-3/data", CPUs: "0-60"}, false, "no mysqld or mariadbd on dbhost runs in path /data/mysql-3/data (watched: pid 11 in " + dir1 + ", pid 12 in /data/mysql-2/data)"},
		// Without a selector every mysqld is held to one list: seed 000's two cannot pass.
		{plan.Check{Check: "mysqld_cpus", CPUs: "0-60"}, false, "mysqld pid 12 on dbhost may run on CPUs 67-127, the plan expects 0-60"},
	})
	require.Equal(t, []string{`policy "interleave": want a memory policy as numa_maps prints it: interleave:0-3, bind:0, prefer:1`},
		Kinds()["mysqld_cpus"](p, plan.Check{CPUs: "0", Policy: "interleave"}))

	// An exporter without ptrace read access (the packaged unit on some
	// kernels): the facts it could not read carry the reason, and the
	// check names the privilege missing instead of a bare "unknown".
	const why = "/proc/12/numa_maps: permission denied: needs ptrace read access to the process (CAP_SYS_PTRACE, or running as its user)"
	facts.Processes[1].NUMAPolicy = ""
	facts.Processes[1].Dir = ""
	facts.Processes[1].Unread = map[string]string{"numa_policy": why, "dir": "/proc/12/cwd: permission denied; its command line has no --datadir="}
	runCheckCases(t, e, []checkCase{
		{plan.Check{Check: "mysqld_cpus", Targets: []string{"mysql-1"}, CPUs: "0-60", Policy: "interleave:0-3"}, true, "mysqld pid 11 on CPUs 0-60"},
		{plan.Check{Check: "mysqld_cpus", Path: "/data/mysql-2/data", CPUs: "67-127"}, false, "pid 12 in unknown (the exporter could not read it: /proc/12/cwd: permission denied; its command line has no --datadir=)"},
		{plan.Check{Check: "mysqld_cpus", CPUs: "67-127", Process: "mysqld", Policy: "interleave:0-3"}, false, "may run on CPUs 0-60"},
	})
	facts.Processes = facts.Processes[1:]
	runCheckCases(t, e, []checkCase{
		{plan.Check{Check: "mysqld_cpus", CPUs: "67-127", Policy: "interleave:0-3"}, false, "mysqld pid 12 on dbhost has memory policy unknown (the exporter could not read it: " + why + "), the plan expects interleave:0-3"},
	})
}

package fingerprint

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/testenv"
)

func serveFile(t *testing.T, path string) *httptest.Server {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metrics" {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	t.Cleanup(s.Close)
	return s
}

func TestReadDrive(t *testing.T) {
	s := serveFile(t, "testdata/metrics.txt")
	d, err := ReadDrive(context.Background(), s.Client(), s.URL, "nvme0")
	require.NoError(t, err)
	require.Equal(t, "HWE52P43", d.Model)
	require.Equal(t, "2.1.0", d.Firmware)
	require.Equal(t, "S123", d.Serial)
	require.Equal(t, "seed000_c0", d.Source)
	require.False(t, d.Simulated)
	require.Equal(t, 3.2e12, *d.CapacityBytes)
	require.Equal(t, 1e12, *d.HostWrittenBytes)
	require.Equal(t, 1.3e12, *d.MediaWrittenBytes)
	require.Equal(t, 1.31, *d.WA1h)
	require.Equal(t, map[string]bool{"identify": true, "streams": true}, d.Directives)
	require.False(t, *d.FDP)
	require.Equal(t, map[string]bool{"astream": true}, d.Daemons)
	require.Nil(t, d.Fill, "a real drive's fill is not in the exporter's NVMe metrics")
	require.Equal(t, map[string]float64{"nvme0n1": 6e11, "nsid 2": 4e11}, d.NamespaceWritten, "a namespace without its block name goes by its NSID")
	require.Equal(t, map[string][]int{"nvme0n1": {1, 3}, "nsid 2": {2}}, d.NamespaceHandles, "ascending, only the device's own")
	require.Equal(t, "classes: redo=1 doublewrite=2 data=3 undo=0 binlog=0 system=3 other=0", d.FilePlacement, "the device backend's policy")
	require.Equal(t, map[string][]int{"redo": {1}, "data": {3}}, d.FileClassHandles, "the handles each class's bytes carried; none counted on handle 0")

	// nvme1 has no NAND counter: absent, not zero.
	d1, err := ReadDrive(context.Background(), s.Client(), s.URL, "nvme1")
	require.NoError(t, err)
	require.Nil(t, d1.MediaWrittenBytes)
	require.Nil(t, d1.HostWrittenBytes)
	require.Nil(t, d1.NamespaceWritten, "no per-namespace SMART: absent")

	_, err = ReadDrive(context.Background(), s.Client(), s.URL, "nvme7")
	require.ErrorContains(t, err, `no walab_nvme_info for device "nvme7"`)
}

func fp(fw, flushNeighbors string, host, media float64) *Fingerprint {
	return &Fingerprint{
		Schema: Schema, Taken: time.Unix(1, 0),
		Drive: &Drive{Device: "nvme0", Model: "M", Serial: "S", Firmware: fw, Source: "ocp_c0",
			HostWrittenBytes: &host, MediaWrittenBytes: &media},
		Host: Host{Kernel: "6.1.0", Schedulers: map[string]string{"nvme0n1": "none"},
			Mounts: []Mount{{Path: "/data", Device: "259:1", FSType: "xfs", Options: "rw,noatime"}}},
		MySQL: []MySQL{{Target: "mysql-1", Version: "10.11.6-MariaDB",
			Variables: map[string]string{"innodb_flush_neighbors": flushNeighbors, "sync_binlog": "1"}}},
	}
}

func TestDiff(t *testing.T) {
	a, b := fp("2.1.0", "0", 100, 130), fp("2.1.0", "0", 900, 1300)
	require.Empty(t, Diff(a, b), "counters move during every run: not drift")
	a.MySQL[0].Status = map[string]string{"innodb_buffer_pool_load_status": "Buffer pool(s) load completed at 261206 10:00:00"}
	b.MySQL[0].Status = map[string]string{"innodb_buffer_pool_load_status": "Buffer pool(s) load completed at 261206 11:00:00"}
	require.Empty(t, Diff(a, b), "a load status carries its time: not drift")
	b = fp("2.2.0", "1", 900, 1300)
	b.MySQL = append(b.MySQL, MySQL{Target: "mysql-2", Version: "10.11.6-MariaDB"})
	b.Host.Mounts[0].Options = "rw,relatime"
	var got []string
	for _, c := range Diff(a, b) {
		got = append(got, c.String())
	}
	require.Equal(t, []string{
		`drive.firmware: "2.1.0" → "2.2.0"`,
		`host.mounts./data.options: "rw,noatime" → "rw,relatime"`,
		`mysql.mysql-1.variables.innodb_flush_neighbors: "0" → "1"`,
		`mysql.mysql-2.version: (absent) → "10.11.6-MariaDB"`,
	}, got)
}

// TestSchemaStable: the JSON keys other tools read (walab compare) stay.
func TestSchemaStable(t *testing.T) {
	b, err := json.Marshal(fp("2.1.0", "0", 1, 2))
	require.NoError(t, err)
	for _, k := range []string{`"schema":1`, `"drive":{"device":"nvme0"`, `"firmware":"2.1.0"`,
		`"host_written_bytes":1`, `"media_written_bytes":2`, `"io_schedulers":{"nvme0n1":"none"}`,
		`"mysql":[{"target":"mysql-1","version":"10.11.6-MariaDB","variables":{`} {
		require.Contains(t, string(b), k)
	}
}

func TestWA(t *testing.T) {
	a, b := fp("x", "0", 100, 130), fp("x", "0", 300, 430)
	require.InDelta(t, 1.5, *WA(a, b), 1e-12)
	c := fp("x", "0", 50, 430) // counter went backwards: unknown
	require.Nil(t, WA(a, c))
	b.Drive.MediaWrittenBytes = nil
	require.Nil(t, WA(a, b))
	require.Nil(t, WA(a, a), "no host writes: no WA")
}

// TestReadHostFromExporter: the host part is the exporter's host (here a
// served "dbhost"), never the machine the test runs on; a data directory
// the exporter does not watch is named in the errors.
func TestReadHostFromExporter(t *testing.T) {
	yes, fill := true, 0.5
	facts := hostapi.Facts{Hostname: "dbhost", Kernel: "6.1.0-db", CPUs: 8, DataDirs: []string{"/data"},
		Mounts: []hostapi.Mount{{DataDir: "/data", MountPoint: "/data", Device: "9:0", Source: "/dev/md0", FSType: "xfs", Block: "md0",
			Disks: []string{"nvme0n1"}, Schedulers: map[string]string{"nvme0n1": "none"}, Aligned4K: &yes, Fill: &fill}},
		Walab: buildinfo.Info{Version: "v1", Revision: "abc", GoVersion: "go1.26"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, hostapi.Path, r.URL.Path)
		_ = json.NewEncoder(w).Encode(facts)
	}))
	defer srv.Close()
	h, f, errs := ReadHost(context.Background(), srv.Client(), srv.URL, []string{"/data/mysql-1", "/var/lib/mysql"})
	require.Equal(t, "dbhost", h.Hostname)
	require.Equal(t, "6.1.0-db", h.Kernel)
	require.Equal(t, []Mount{{Path: "/data/mysql-1", Device: "9:0", Source: "/dev/md0", FSType: "xfs", Block: "md0", Disks: []string{"nvme0n1"}, Aligned4K: &yes}}, h.Mounts)
	require.Equal(t, map[string]string{"nvme0n1": "none"}, h.Schedulers)
	require.Len(t, errs, 1)
	require.Contains(t, errs[0], "does not watch /var/lib/mysql")
	require.Equal(t, "v1 (commit abc, go1.26)", Tools(f)["exporter"])
	require.NotEmpty(t, Tools(f)["walab"])

	_, _, errs = ReadHost(context.Background(), srv.Client(), "", nil)
	require.Equal(t, []string{"host: the plan names no exporter of the database host"}, errs)
}

func TestQueryMySQL(t *testing.T) {
	_, dsn := testenv.MariaDB(t, "")
	m := QueryMySQL(context.Background(), "local", dsn)
	require.Empty(t, m.Error)
	require.Contains(t, strings.ToLower(m.Version), "mariadb")
	require.NotEmpty(t, m.Variables["innodb_flush_log_at_trx_commit"])
	require.NotEmpty(t, m.Variables["datadir"])
	// Issue 47 item 2: seed 000's my.cnf knobs walab did not record, and
	// the buffer pool's dump/load settings and load status.
	for _, v := range []string{"character_set_server", "time_zone", "have_ssl", "innodb_buffer_pool_dump_at_shutdown",
		"innodb_buffer_pool_load_at_startup", "innodb_buffer_pool_dump_pct", "sql_mode", "back_log", "max_connect_errors"} {
		require.Contains(t, m.Variables, v)
	}
	require.Contains(t, m.Status, "innodb_buffer_pool_load_status")
	bad := QueryMySQL(context.Background(), "down", testenv.DSN("127.0.0.1:1", ""))
	require.NotEmpty(t, bad.Error)
	require.Empty(t, bad.Version)
}

// TestHostTuningInFingerprint (issue 47 item 2): the exporter's tuning
// facts and mysqld's placement reach the fingerprint; a changed sysctl,
// STEAL or NIC channel count is drift, the page cache (different at every
// run start) is not; a fact the exporter did not give stays absent.
func TestHostTuningInFingerprint(t *testing.T) {
	on, cached := true, uint64(1<<30)
	facts := hostapi.Facts{Hostname: "dbhost",
		Tuning: hostapi.Tuning{SchedSteal: &on, Sysctls: map[string]string{"vm.swappiness": "1"}, THPEnabled: "never",
			NICChannels: map[string]hostapi.Channels{"eth0": {RX: 6, TX: 6}}, PageCacheBytes: &cached},
		Processes: []hostapi.Process{{Name: "mysqld", PID: 42, CPUs: "0-23", Mems: "0", NUMAPolicy: "bind:0"}}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _ = json.NewEncoder(w).Encode(facts) }))
	defer srv.Close()
	h, _, _ := ReadHost(context.Background(), srv.Client(), srv.URL, nil)
	require.Equal(t, &facts.Tuning, h.Tuning)
	require.Equal(t, []Process{{Name: "mysqld", CPUs: "0-23", Mems: "0", NUMAPolicy: "bind:0"}}, h.Processes)
	flat := (&Fingerprint{Host: h}).Flatten()
	require.Equal(t, "1", flat["host.tuning.sysctls.vm.swappiness"])
	require.Equal(t, "6", flat["host.tuning.nic_channels.eth0.rx"])
	require.NotContains(t, flat, "host.tuning.sched_steal_node_limit", "not on the command line: absent")

	other := facts
	off, less := false, uint64(1<<20)
	other.Tuning = hostapi.Tuning{SchedSteal: &off, Sysctls: map[string]string{"vm.swappiness": "60"}, THPEnabled: "never",
		NICChannels: map[string]hostapi.Channels{"eth0": {RX: 6, TX: 6}}, PageCacheBytes: &less}
	facts = other
	h2, _, _ := ReadHost(context.Background(), srv.Client(), srv.URL, nil)
	var keys []string
	for _, c := range Diff(&Fingerprint{Host: h}, &Fingerprint{Host: h2}) {
		keys = append(keys, c.Key)
	}
	require.Equal(t, []string{"host.tuning.sched_steal", "host.tuning.sysctls.vm.swappiness"}, keys)

	facts = hostapi.Facts{Hostname: "bare"}
	h3, _, _ := ReadHost(context.Background(), srv.Client(), srv.URL, nil)
	require.Nil(t, h3.Tuning, "no tuning fact read: none recorded")
}

// TestLost: what the start fingerprint read and the end one could not is
// named; a part neither read, or both, is not.
func TestLost(t *testing.T) {
	v := func(x float64) *float64 { return &x }
	start := &Fingerprint{Drive: &Drive{Device: "nvme0", HostWrittenBytes: v(1), MediaWrittenBytes: v(2)},
		MySQL: []MySQL{{Target: "db1"}, {Target: "db2", Error: "refused"}}, Host: Host{Hostname: "dbhost"}}
	require.Empty(t, Lost(start, start))
	end := &Fingerprint{MySQL: []MySQL{{Target: "db1", Error: "refused"}, {Target: "db2"}}}
	require.Equal(t, []string{"the drive's counters (nvme0)", "MySQL target db1", "the host's facts (dbhost)"}, Lost(start, end))
	end = &Fingerprint{Drive: &Drive{Device: "nvme0", HostWrittenBytes: v(3)}, MySQL: start.MySQL, Host: start.Host}
	require.Equal(t, []string{"the drive's counters (nvme0)"}, Lost(start, end), "the NAND counter alone is lost")
	require.Empty(t, Lost(&Fingerprint{}, end), "nothing read at start: nothing lost")
}

// TestDisturbed: a run whose drive was re-preconditioned or whose run mark
// moved between its fingerprints is named; an undisturbed one, or one
// whose exporter reports neither, is not (absent is unknown, not moved).
func TestDisturbed(t *testing.T) {
	fp := func(pre, mark *float64) *Fingerprint {
		return &Fingerprint{Drive: &Drive{Device: "nvmesim0", Simulated: true, PreconditionWrittenBytes: pre, RunStart: mark}}
	}
	f := func(v float64) *float64 { return &v }
	require.Empty(t, Disturbed(fp(f(100), f(1e9)), fp(f(100), f(1e9))))
	require.Empty(t, Disturbed(fp(nil, nil), fp(nil, nil)))
	require.Empty(t, Disturbed(&Fingerprint{}, &Fingerprint{}))
	got := Disturbed(fp(f(100), f(1e9)), fp(f(5e9+100), f(1e9)))
	require.Equal(t, []string{"the drive nvmesim0 was preconditioned during the run (5e+09 bytes by POST /api/v1/sim/precondition)"}, got)
	got = Disturbed(fp(f(0), f(1e9)), fp(f(0), f(1e9+24)))
	require.Equal(t, []string{"the exporter's run mark for nvmesim0 moved during the run (24 s later: POST /api/v1/run-start)"}, got)
	require.Len(t, Disturbed(fp(f(0), f(1e9)), fp(f(1), f(1e9+1))), 2)
	// A precondition counter that went back (the exporter restarted without
	// the drive's state) cannot say none happened: named too.
	require.Equal(t, []string{"the drive nvmesim0's precondition counter went back during the run (100 to 0 bytes: the exporter restarted), so a precondition cannot be ruled out"},
		Disturbed(fp(f(100), f(1e9)), fp(f(0), f(1e9))))
	// Neither value is drift between two runs.
	require.Empty(t, Diff(fp(f(0), f(1)), fp(f(7), f(9))))
}

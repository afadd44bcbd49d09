package collector

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/blockdev"
	"github.com/walab/walab/internal/blockdev/blockdevtest"
	"github.com/walab/walab/internal/golden"
	"github.com/walab/walab/internal/nvme/fleet"
)

// raidHost: seed 001's stack, RAID 5 (2+1) over three NVMe namespaces (one
// through a partition) with dm-linear on top, and the host's own disk vda.
// Its diskstats has a 20-column kernel's lines, one garbled line and the
// loop devices nothing measures.
func raidHost(t *testing.T) *blockdevtest.Tree {
	tr := blockdevtest.New(t)
	tr.NVMe("nvme0", 1)
	tr.NVMe("nvme1", 1)
	tr.NVMe("nvme2", 1)
	tr.Partition("nvme2n1", "nvme2n1p1")
	tr.MD("md0", md5Attrs("idle", "none"), "nvme0n1", "nvme1n1", "nvme2n1p1")
	tr.DM("dm-0", "vg0-mysql", "md0")
	tr.Disk("vda")
	tr.Diskstats(`   7       0 loop0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0
 254       0 vda 69186 9669 2069522 23407 35545 9300 3642312 7590 0 17344 32917 10407 19 998512 882 6288 1037
 259       0 nvme0n1 1200 0 96000 300 74284 0 297136000 148568 1 60000 148868 0 0 0 0 500 40
 259       1 nvme1n1 1180 0 94400 290 74284 0 297136000 150000 0 61000 150290 0 0 0 0 500 41
 259       2 nvme2n1 1190 0 95200 310 74290 0 297140000 149000 0 60500 149310 0 0 0 0 510 39
 259       3 nvme2n1p1 1190 0 95200 310 74284 0 297136000 149000 0 60500 149310 0 0 0 0
 259       4 nvme3n1 1 2 3
   9       0 md0 3500 0 280000 0 48915 0 391320000 0 0 0 0 0 0 0 0 0 0
 253       0 dm-0 3500 0 280000 900 48915 0 391320000 250000 2 65000 250900 0 0 0 0 0 0
`)
	return tr
}

// md5Attrs: RAID 5 (2+1), 512 KiB chunks, left-symmetric, in the given sync state.
func md5Attrs(action, completed string) map[string]string {
	return map[string]string{"level": "raid5", "raid_disks": "3", "chunk_size": "524288", "layout": "2",
		"array_state": "clean", "degraded": "0", "sync_action": action, "sync_completed": completed}
}

func raidFleet() *fleet.Fleet {
	f := &fleet.Fleet{}
	for _, n := range []string{"nvme0", "nvme1", "nvme2"} {
		f.Controllers = append(f.Controllers, &fleet.Controller{Name: n, Namespaces: []fleet.Namespace{{NSID: 1, Block: n + "n1"}}})
	}
	// A simulated controller: its namespace has no sysfs entry, which is not an error.
	f.Controllers = append(f.Controllers, &fleet.Controller{Name: "nvme7", Simulated: true, Namespaces: []fleet.Namespace{{NSID: 1, Block: "nvme7n1"}}})
	return f
}

// TestBlockdevCollectorRAIDStack: every device of the stack from the
// measured controllers up, and the configured disk; seed 001's write counts
// (48,915 array vs 74,284 per member) as counters; the one garbled
// diskstats line costs only itself (nvme3n1 is not measured anyway, but the
// error is reported).
func TestBlockdevCollectorRAIDStack(t *testing.T) {
	tr := raidHost(t)
	c, err := newBlockdevCollector(Env{Paths: Paths{ProcFS: tr.Proc, SysFS: tr.Sys}, Fleet: raidFleet(),
		Config: hostConfig(t, "blockdev:\n  devices: [vda]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.ErrorContains(t, err, "diskstats line 7")
	require.NotContains(t, err.Error(), "nvme7n1", "a simulated controller's namespace is not an error")
	require.Contains(t, out, `walab_blockdev_writes_completed_total{device="md0"} 48915`)
	require.Contains(t, out, `walab_blockdev_writes_completed_total{device="nvme2n1p1"} 74284`)
	require.Contains(t, out, `walab_blockdev_info{controller="nvme2",device="nvme2n1p1",dm_name="",kind="partition",parent="nvme2n1"} 1`)
	require.NotContains(t, out, `walab_blockdev_flushes_completed_total{device="nvme2n1p1"}`, "an 18-column line has no flush counter: absent, not 0")
	require.NotContains(t, out, `loop0`)
	golden.Assert(t, filepath.Join("testdata", "blockdev", "raid.golden"), []byte(out))
}

// TestBlockdevDeviceDisappears: a namespace that leaves sysfs and diskstats
// (hot-removed) loses its series; a configured device that is missing is an
// error naming it, and the others are still reported.
func TestBlockdevDeviceDisappears(t *testing.T) {
	tr := raidHost(t)
	c, err := newBlockdevCollector(Env{Paths: Paths{ProcFS: tr.Proc, SysFS: tr.Sys}, Fleet: raidFleet(),
		Config: hostConfig(t, "blockdev:\n  devices: [vda, sdz]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.ErrorContains(t, err, "block device sdz")
	require.Contains(t, out, `walab_blockdev_written_bytes_total{device="nvme1n1"}`)
	tr.Remove("nvme1n1")
	out, _ = hostScrape(t, c)
	require.NotContains(t, out, `walab_blockdev_written_bytes_total{device="nvme1n1"}`)
	require.NotContains(t, out, `walab_blockdev_info{controller="nvme1"`)
	// md0 still lists it as a member (the kernel has not dropped it yet): the
	// member sum then lacks a series, and the RAID rules leave that array out.
	require.Contains(t, out, `walab_blockdev_member_info{array="md0",device="nvme1n1"} 1`)
	require.Contains(t, out, `walab_blockdev_written_bytes_total{device="md0"} 2.0035584e+11`)

	// In sysfs but not in diskstats: an error, not zeros.
	tr.Diskstats(" 254 0 vda 1 0 8 0 2 0 16 0 0 0 0\n")
	out, err = hostScrape(t, c)
	require.ErrorContains(t, err, "md0 is in sysfs but not in")
	require.NotContains(t, out, `walab_blockdev_written_bytes_total{device="md0"}`)
}

func TestBlockdevConfigErrors(t *testing.T) {
	for cfg, want := range map[string]string{
		"blockdev:\n  devices: [../sda]\n":   "not a kernel block device name",
		"blockdev:\n  devices: [vda, vda]\n": "listed twice",
		"blockdev:\n  max_devices: -1\n":     "must be positive",
		"blockdev:\n  device: [vda]\n":       "device",
	} {
		_, err := newBlockdevCollector(Env{Paths: hostPaths, Config: hostConfig(t, cfg)})
		require.ErrorContains(t, err, want, cfg)
	}
	c, err := newBlockdevCollector(Env{Paths: hostPaths, Config: hostConfig(t, "")})
	require.NoError(t, err)
	_, err = hostScrape(t, c)
	require.ErrorIs(t, err, ErrNoData, "nothing to read is no data, not a failure")
}

// TestHostCardinalityBound: the worst case of the host collectors on a
// 256-CPU host with 64 block devices (internal/collector/doc_cardinality.go): 8 modes per
// CPU, and per block device 16 counters + in-flight + info, plus the
// omitted count; a 65th device is counted, not exported.
func TestHostCardinalityBound(t *testing.T) {
	const cpus, disks = 256, 65
	tr := blockdevtest.New(t)
	var stat, diskstats strings.Builder
	stat.WriteString("cpu 1 2 3 4 5 6 7 8 0 0\n")
	for i := range cpus {
		fmt.Fprintf(&stat, "cpu%d 1 2 3 4 5 6 7 8 0 0\n", i)
	}
	stat.WriteString("intr 0\nctxt 0\nbtime 0\nprocesses 0\nprocs_running 1\nprocs_blocked 0\nsoftirq 0 0 0 0 0 0 0 0 0 0 0\n")
	writeFile(t, filepath.Join(tr.Proc, "stat"), stat.String())
	var names []string
	for i := range disks {
		name := fmt.Sprintf("sd%c%c", 'a'+i/26, 'a'+i%26)
		tr.Disk(name)
		names = append(names, name)
		fmt.Fprintf(&diskstats, "8 %d %s 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17\n", i, name)
	}
	tr.Diskstats(diskstats.String())
	cpu, err := newCPUCollector(Env{Paths: Paths{ProcFS: tr.Proc}})
	require.NoError(t, err)
	require.Equal(t, cpus*len(cpuModes), hostSeries(t, cpu))
	bd, err := newBlockdevCollector(Env{Paths: Paths{ProcFS: tr.Proc, SysFS: tr.Sys},
		Config: hostConfig(t, "blockdev:\n  devices: ["+strings.Join(names, ", ")+"]\n")})
	require.NoError(t, err)
	require.Equal(t, 18, blockdevSeriesPerDevice)
	require.Equal(t, defaultMaxBlockDevices*blockdevSeriesPerDevice+1, hostSeries(t, bd))
	require.Equal(t, 2048+1153, cpus*len(cpuModes)+defaultMaxBlockDevices*blockdevSeriesPerDevice+1)
}

func writeFile(t testing.TB, p, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

// TestBlockdevPaths: a path names the disk under it, on this machine's real
// sysfs (read-only); a path on no block device, or missing, is an error
// naming it.
func TestBlockdevPaths(t *testing.T) {
	dir := t.TempDir()
	c, err := newBlockdevCollector(Env{Paths: hostPaths, Config: hostConfig(t, "blockdev:\n  paths: ["+dir+", /proc/self, "+dir+"/later]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.ErrorContains(t, err, "paths: /proc/self: device 0:")
	require.ErrorContains(t, err, "paths: "+dir+"/later: no such file")
	var st unix.Stat_t
	require.NoError(t, unix.Stat(dir, &st))
	if name, derr := blockdev.DeviceOf("/sys", unix.Major(st.Dev), unix.Minor(st.Dev)); derr == nil {
		require.Contains(t, out, `walab_blockdev_written_bytes_total{device="`+name+`"}`)
	} else {
		t.Logf("%s is on no block device here (%v): only the errors are checked", dir, derr)
	}
	require.NoError(t, os.Mkdir(filepath.Join(dir, "later"), 0o755))
	_, err = hostScrape(t, c)
	require.NotContains(t, err.Error(), "later", "resolved once it exists")

	_, err = newBlockdevCollector(Env{Paths: hostPaths, Config: hostConfig(t, "blockdev:\n  paths: [data/mysql]\n")})
	require.ErrorContains(t, err, "clean absolute path")
}

// TestBlockdevArrays: the md levels and states seed 001 and its readers
// meet: RAID 5 (2+1) under dm-linear, RAID 1 with a member missing, RAID 10
// (near 2) while a monthly check runs; the series of each, as a golden.
func TestBlockdevArrays(t *testing.T) {
	tr := raidHost(t)
	for i := 3; i <= 8; i++ {
		tr.NVMe(fmt.Sprintf("nvme%d", i), 1)
	}
	tr.MD("md1", map[string]string{"level": "raid1", "raid_disks": "2", "array_state": "clean", "degraded": "1",
		"sync_action": "idle", "sync_completed": "none"}, "nvme3n1")
	tr.MD("md2", map[string]string{"level": "raid10", "raid_disks": "4", "chunk_size": "65536", "layout": "258",
		"array_state": "active", "degraded": "0", "sync_action": "check", "sync_completed": "1000 / 4000"},
		"nvme5n1", "nvme6n1", "nvme7n1", "nvme8n1")
	var ds strings.Builder
	b, err := os.ReadFile(filepath.Join(tr.Proc, "diskstats"))
	require.NoError(t, err)
	ds.Write(b)
	for i, n := range []string{"nvme3n1", "nvme5n1", "nvme6n1", "nvme7n1", "nvme8n1"} {
		fmt.Fprintf(&ds, " 259 %d %s 10 0 80 1 20 0 160 2 0 3 3 0 0 0 0 0 0\n", 10+i, n)
	}
	ds.WriteString("   9 1 md1 10 0 80 0 20 0 160 0 0 0 0 0 0 0 0 0 0\n   9 2 md2 10 0 80 0 20 0 160 0 0 0 0 0 0 0 0 0 0\n")
	tr.Diskstats(ds.String())
	f := raidFleet()
	for i := 3; i <= 8; i++ {
		n := fmt.Sprintf("nvme%d", i)
		f.Controllers = append(f.Controllers, &fleet.Controller{Name: n, Namespaces: []fleet.Namespace{{NSID: 1, Block: n + "n1"}}})
	}
	c, err := newBlockdevCollector(Env{Paths: Paths{ProcFS: tr.Proc, SysFS: tr.Sys}, Fleet: f, Config: hostConfig(t, "")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.ErrorContains(t, err, "diskstats line 7") // the garbled nvme3n1... line of raidHost
	require.Contains(t, out, `walab_md_theoretical_write_amplification{device="md0"} 1.5`)
	require.Contains(t, out, `walab_md_theoretical_write_amplification{device="md2"} 2`)
	require.Contains(t, out, `walab_md_sync_active{action="check",device="md2"} 1`)
	require.Contains(t, out, `walab_md_degraded_disks{device="md1"} 1`)
	require.Contains(t, out, `walab_blockdev_leaf_info{array="dm-0",controller="nvme2",device="nvme2n1p1"} 1`)
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "walab_md_") || strings.Contains(l, "_member_info") || strings.Contains(l, "_leaf_info") {
			keep = append(keep, l)
		}
	}
	golden.Assert(t, filepath.Join("testdata", "blockdev", "arrays.golden"), []byte(strings.Join(keep, "\n")+"\n"))
}

package hostfacts

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/hostapi"
)

// fakeSysfs builds dm-0 → md0 → {nvme0n1p1, nvme1n1p1} → nvme0n1, nvme1n1,
// with nvme1n1p1 starting at sector 63 (not 4 KiB aligned).
func fakeSysfs(t *testing.T) string {
	sys := t.TempDir()
	mk := func(p, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(sys, p), []byte(content), 0o644))
	}
	link := func(target, p string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(sys, p)), 0o755))
		require.NoError(t, os.Symlink(target, filepath.Join(sys, p)))
	}
	for _, d := range []string{"nvme0n1", "nvme1n1"} {
		dev := "devices/pci/" + d
		mk(dev+"/queue/scheduler", "[none] mq-deadline\n")
		link("../../"+dev, "class/block/"+d)
		link("../"+dev, "block/"+d)
	}
	mk("devices/pci/nvme0n1/nvme0n1p1/partition", "1\n")
	mk("devices/pci/nvme0n1/nvme0n1p1/start", "2048\n")
	mk("devices/pci/nvme1n1/nvme1n1p1/partition", "1\n")
	mk("devices/pci/nvme1n1/nvme1n1p1/start", "63\n")
	link("../../devices/pci/nvme0n1/nvme0n1p1", "class/block/nvme0n1p1")
	link("../../devices/pci/nvme1n1/nvme1n1p1", "class/block/nvme1n1p1")
	for dev, slaves := range map[string][]string{"md0": {"nvme0n1p1", "nvme1n1p1"}, "dm-0": {"md0"}} {
		for _, s := range slaves {
			mk("devices/virtual/block/"+dev+"/slaves/"+s, "")
		}
		link("../../devices/virtual/block/"+dev, "class/block/"+dev)
	}
	return sys
}

func TestWalkStackAnyDepth(t *testing.T) {
	sys := fakeSysfs(t)
	s := walkStack(sys, "dm-0")
	require.Equal(t, []string{"dm-0", "md0", "nvme0n1p1", "nvme0n1", "nvme1n1p1", "nvme1n1"}, s.devices)
	require.Equal(t, []string{"nvme0n1", "nvme1n1"}, s.disks)
	require.Equal(t, []string{"nvme0n1p1", "nvme1n1p1"}, s.parts)

	var m hostapi.Mount
	alignment(sys, s.parts, &m)
	require.Equal(t, map[string]uint64{"nvme0n1p1": 2048 * 512, "nvme1n1p1": 63 * 512}, m.PartitionStarts)
	require.NotNil(t, m.Aligned4K)
	require.False(t, *m.Aligned4K, "sector 63 is the classic misaligned start")
	m = hostapi.Mount{}
	alignment(sys, []string{"nvme0n1p1"}, &m)
	require.True(t, *m.Aligned4K)
	m = hostapi.Mount{}
	alignment(sys, nil, &m)
	require.Nil(t, m.Aligned4K, "a whole disk has no partition start to judge")

	// A loop in a broken sysfs ends at the bound instead of hanging.
	require.NoError(t, os.MkdirAll(filepath.Join(sys, "devices/virtual/block/md0/slaves/dm-0"), 0o755))
	s = walkStack(sys, "dm-0")
	require.Equal(t, "dm-0", s.devices[0])
	require.LessOrEqual(t, len(s.devices), maxStackDepth+1)
}

func TestController(t *testing.T) {
	for in, want := range map[string]string{"nvme0n1": "nvme0", "nvme12n3": "nvme12", "nvme0c0n1": "", "sda": "", "nvme": "", "nvmexn1": ""} {
		require.Equal(t, want, Controller(in), in)
	}
}

func TestCPUList(t *testing.T) {
	require.Equal(t, "0-3,8,10-11", cpuList([]int{0, 1, 2, 3, 8, 10, 11}))
	require.Equal(t, "5", cpuList([]int{5}))
	require.Equal(t, "", cpuList(nil))
}

// TestDfUsage: fill is used / (used + avail) as df prints it: reserved
// blocks (free but not available) count as neither.
func TestDfUsage(t *testing.T) {
	var m hostapi.Mount
	// 1000 blocks of 4 KiB, 400 free of which 350 available to users.
	dfUsage(unix.Statfs_t{Frsize: 4096, Bsize: 4096, Blocks: 1000, Bfree: 400, Bavail: 350}, &m)
	require.Equal(t, uint64(600*4096), *m.UsedBytes)
	require.Equal(t, uint64(350*4096), *m.AvailBytes)
	require.InDelta(t, 600.0/950.0, *m.Fill, 1e-12)
}

func TestNUMAPolicy(t *testing.T) {
	p := filepath.Join(t.TempDir(), "numa_maps")
	require.NoError(t, os.WriteFile(p, []byte("00400000 bind:1 file=/usr/sbin/mariadbd\n7f00 bind:1 anon=3\n7f10 default stack\n"), 0o644))
	pol, err := numaPolicy(p)
	require.NoError(t, err)
	require.Equal(t, "bind:1", pol)
	pol, err = numaPolicy(filepath.Join(t.TempDir(), "gone"))
	require.Error(t, err)
	require.Equal(t, "", pol)
}

// TestCmdlineDatadir: the last --datadir of mysqld's command line, in
// either form; none, or a relative one, is no datadir.
func TestCmdlineDatadir(t *testing.T) {
	for in, want := range map[string]string{
		"mariadbd\x00--no-defaults\x00--datadir=/data/mysql-1/data/\x00--port=3306\x00": "/data/mysql-1/data",
		"mysqld\x00--datadir=/a\x00--datadir\x00/b\x00":                                 "/b",
		"mysqld\x00--defaults-file=/etc/my.cnf\x00":                                     "",
		"mysqld\x00--datadir=data\x00":                                                  "",
		"":                                                                              "",
	} {
		require.Equal(t, want, cmdlineDatadir([]byte(in)), "%q", in)
	}
}

func TestSystemParsers(t *testing.T) {
	require.Equal(t, "Intel(R) Xeon(R) Gold 6230", cpuModel([]byte("processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6230\n")))
	require.Equal(t, uint64(16<<20), memTotal([]byte("MemTotal:       16384 kB\nMemFree: 1 kB\n")))
	require.Equal(t, uint64(0), memTotal([]byte("MemTotal: lots\n")))
	require.Equal(t, uint64(0), memTotal([]byte("MemTotal:\n")))
}

func TestParseMountinfo(t *testing.T) {
	in := "36 35 98:0 /mnt1 /data\\040x rw,noatime master:1 - xfs /dev/md0 rw,attr2,inode64\n" +
		"garbage line\n" +
		"37 35 259:1 / /data/mysql-1 rw - ext4 /dev/nvme0n1p1 rw\n"
	es, bad, err := parseMountinfo(strings.NewReader(in))
	require.NoError(t, err)
	require.Equal(t, 1, bad)
	require.Equal(t, []mountEntry{
		{device: "98:0", mountPoint: "/data x", options: "rw,noatime", fsType: "xfs", source: "/dev/md0", superOptions: "rw,attr2,inode64"},
		{device: "259:1", mountPoint: "/data/mysql-1", options: "rw", fsType: "ext4", source: "/dev/nvme0n1p1", superOptions: "rw"},
	}, es)
}

func FuzzParseMountinfo(f *testing.F) {
	f.Add([]byte("36 35 98:0 /mnt1 /data rw,noatime master:1 - xfs /dev/md0 rw,attr2\n"))
	f.Add([]byte("- - - - - - - -\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, bad, _ := parseMountinfo(bytes.NewReader(b))
		require.GreaterOrEqual(t, bad, 0)
		for _, e := range es {
			require.NotEmpty(t, e.device+e.mountPoint+e.fsType)
		}
	})
}

// TestReadThisHost: the facts of the machine the test runs on, for a data
// directory that exists: its mount and df numbers are present, a missing
// directory is named in Errors and has no mount.
func TestReadThisHost(t *testing.T) {
	dir := t.TempDir()
	f := Read(context.Background(), Options{DataDirs: []string{dir, "/nonexistent-walab-dir"}, Processes: []string{"no-such-comm"}})
	host, err := os.Hostname()
	require.NoError(t, err)
	require.Equal(t, host, f.Hostname)
	require.NotEmpty(t, f.Kernel)
	require.Positive(t, f.CPUs)
	require.Positive(t, f.MemoryBytes)
	require.NotNil(t, f.Irqbalance)
	m, err := f.MountOf(filepath.Join(dir, "sub"))
	require.NoError(t, err)
	require.Equal(t, dir, m.DataDir)
	require.NotNil(t, m.Fill)
	require.True(t, *m.Fill >= 0 && *m.Fill <= 1)
	_, err = f.MountOf("/nonexistent-walab-dir")
	require.Error(t, err)
	_, err = f.MountOf("/elsewhere")
	require.ErrorContains(t, err, "does not watch /elsewhere")
	require.Contains(t, strings.Join(f.Errors, "\n"), "/nonexistent-walab-dir")
	require.Empty(t, f.Processes)
}

func TestOptionsCheck(t *testing.T) {
	require.NoError(t, Options{DataDirs: []string{"/data", "/var/lib/mysql"}}.Check())
	require.ErrorContains(t, Options{DataDirs: []string{"data"}}.Check(), "not a clean absolute path")
	require.ErrorContains(t, Options{DataDirs: []string{"/data/"}}.Check(), "not a clean absolute path")
	require.ErrorContains(t, Options{DataDirs: []string{"/d", "/d"}}.Check(), "twice")
	many := make([]string, MaxDataDirs+1)
	for i := range many {
		many[i] = "/d" + strings.Repeat("x", i)
	}
	require.ErrorContains(t, Options{DataDirs: many}.Check(), "at most")
}

// TestMountsBounded: a data directory with more mounts under it than
// MaxMounts keeps MaxMounts and says the list was cut.
func TestMountsBounded(t *testing.T) {
	dir := t.TempDir()
	var st unix.Stat_t
	require.NoError(t, unix.Stat(dir, &st))
	proc := t.TempDir()
	var b strings.Builder
	fmt.Fprintf(&b, "1 0 %d:%d / %s rw - tmpfs none rw\n", unix.Major(st.Dev), unix.Minor(st.Dev), dir)
	for i := range MaxMounts + 10 {
		fmt.Fprintf(&b, "%d 1 0:%d / %s/m%d rw - tmpfs none rw\n", i+2, i+100, dir, i)
	}
	require.NoError(t, os.MkdirAll(filepath.Join(proc, "self"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(proc, "self/mountinfo"), []byte(b.String()), 0o644))
	var f hostapi.Facts
	readMounts(context.Background(), Options{ProcFS: proc, SysFS: t.TempDir(), DataDirs: []string{dir}, StatfsTimeout: time.Second}.withDefaults(), &f, func(string, ...any) {})
	require.Len(t, f.Mounts, MaxMounts)
	require.Equal(t, dir, f.Mounts[0].MountPoint)
	require.Equal(t, []string{fmt.Sprintf("mounts (at most %d)", MaxMounts)}, f.Truncated)
}

func TestActiveScheduler(t *testing.T) {
	require.Equal(t, "mq-deadline", activeScheduler("[mq-deadline] kyber bfq none\n"))
	require.Equal(t, "none", activeScheduler("none"))
}

// TestIRQsAndProcessesFromFixture: NVMe queue lines and a configured NIC's
// lines with their CPU lists; watched processes with CPU, memory node
// lists and policy; an unwatched line and process are left out.
func TestIRQsAndProcessesFromFixture(t *testing.T) {
	proc := t.TempDir()
	w := func(p, content string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(proc, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(proc, p), []byte(content), 0o644))
	}
	w("interrupts", "           CPU0       CPU1\n"+
		" 40:         10          0  PCI-MSIX-0000:01:00.0   1-edge      nvme0q1\n"+
		" 41:          0         20  PCI-MSIX-0000:01:00.0   2-edge      nvme0q2\n"+
		" 50:          5          5  PCI-MSIX-0000:02:00.0   0-edge      eth0-TxRx-0\n"+
		" 60:          1          1  IO-APIC   8-edge      rtc0\n")
	w("irq/40/smp_affinity_list", "0\n")
	w("irq/40/effective_affinity_list", "0\n")
	w("irq/41/smp_affinity_list", "1\n")
	w("irq/50/smp_affinity_list", "0-1\n")
	w("irq/60/smp_affinity_list", "0-1\n")
	w("100/comm", "mysqld\n")
	w("100/status", "Name:\tmysqld\nCpus_allowed_list:\t2-3\nMems_allowed_list:\t0\n")
	w("100/numa_maps", "00400000 bind:0 file=/usr/sbin/mysqld\n7f00 bind:0 anon=1\n")
	require.NoError(t, os.Symlink("/data/mysql-1/data", filepath.Join(proc, "100/cwd")))
	w("200/comm", "bash\n")
	w("200/status", "Cpus_allowed_list:\t0-3\n")
	f := Read(context.Background(), Options{ProcFS: proc, SysFS: t.TempDir(), Interfaces: []string{"eth0"}, Processes: []string{"mysqld"}})
	require.Equal(t, []hostapi.IRQ{
		{IRQ: 40, Device: "nvme0", Action: "nvme0q1", CPUs: "0", Effective: "0"},
		{IRQ: 41, Device: "nvme0", Action: "nvme0q2", CPUs: "1"},
		{IRQ: 50, Device: "eth0", Action: "eth0-TxRx-0", CPUs: "0-1"},
	}, f.IRQs)
	require.Equal(t, []hostapi.Process{{Name: "mysqld", PID: 100, CPUs: "2-3", Mems: "0", NUMAPolicy: "bind:0", Dir: "/data/mysql-1/data", DirFrom: "cwd"}}, f.Processes)
	running := false
	require.Equal(t, &running, f.Irqbalance)
}

// FuzzCmdlineDatadir: any command line gives "" or a clean absolute path.
func FuzzCmdlineDatadir(f *testing.F) {
	f.Add([]byte("mysqld\x00--datadir=/a/../b\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		d := cmdlineDatadir(b)
		if d != "" && (!filepath.IsAbs(d) || filepath.Clean(d) != d) {
			t.Fatalf("%q: datadir %q", b, d)
		}
	})
}

// Package blockdevtest builds sysfs and procfs trees of a block stack, laid
// out as the kernel lays them out (devices under /sys/devices, links in
// /sys/class/block, holders/ and slaves/ links between them), for the tests
// of internal/blockdev and of the collectors built on it.
package blockdevtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// Tree is a fixture host: Sys and Proc are its /sys and /proc.
type Tree struct {
	t         testing.TB
	Sys, Proc string
	dirs      map[string]string // device name -> its directory under Sys
}

// New makes an empty tree in a temporary directory.
func New(t testing.TB) *Tree {
	root := t.TempDir()
	tr := &Tree{t: t, Sys: filepath.Join(root, "sys"), Proc: filepath.Join(root, "proc"), dirs: map[string]string{}}
	for _, d := range []string{tr.Proc, filepath.Join(tr.Sys, "class", "block"), filepath.Join(tr.Sys, "class", "nvme")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	return tr
}

func (tr *Tree) addDevice(name, dir string) {
	require.NoError(tr.t, os.MkdirAll(filepath.Join(dir, "holders"), 0o755))
	require.NoError(tr.t, os.MkdirAll(filepath.Join(dir, "slaves"), 0o755))
	tr.link(filepath.Join(tr.Sys, "class", "block", name), dir)
	tr.dirs[name] = dir
}

func (tr *Tree) link(at, target string) {
	require.NoError(tr.t, os.MkdirAll(filepath.Dir(at), 0o755))
	rel, err := filepath.Rel(filepath.Dir(at), target)
	require.NoError(tr.t, err)
	require.NoError(tr.t, os.Symlink(rel, at))
}

// Write puts a file (and its directory) under the device's directory.
func (tr *Tree) Write(dev, file, content string) {
	p := filepath.Join(tr.dirs[dev], file)
	require.NoError(tr.t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(tr.t, os.WriteFile(p, []byte(content+"\n"), 0o644))
}

// NVMe adds controller ctrl (nvme0) on a PCI function, with namespaces
// named <ctrl>n<i>.
func (tr *Tree) NVMe(ctrl string, nsids ...int) {
	cdir := filepath.Join(tr.Sys, "devices", "pci0000:00", "0000:00:0"+strings.TrimPrefix(ctrl, "nvme")+".0", "nvme", ctrl)
	require.NoError(tr.t, os.MkdirAll(cdir, 0o755))
	tr.link(filepath.Join(tr.Sys, "class", "nvme", ctrl), cdir)
	for _, n := range nsids {
		name := fmt.Sprintf("%sn%d", ctrl, n)
		dir := filepath.Join(cdir, name)
		tr.addDevice(name, dir)
		tr.link(filepath.Join(dir, "device"), cdir)
	}
}

// Disk adds a plain disk (vda).
func (tr *Tree) Disk(name string) {
	tr.addDevice(name, filepath.Join(tr.Sys, "devices", "pci0000:00", "virtio0", "block", name))
}

// Partition adds partition part inside disk.
func (tr *Tree) Partition(disk, part string) {
	dir := filepath.Join(tr.dirs[disk], part)
	tr.addDevice(part, dir)
	require.NoError(tr.t, os.WriteFile(filepath.Join(dir, "partition"), []byte("1\n"), 0o644))
}

// MD adds md array name over members, with its md/ attributes.
func (tr *Tree) MD(name string, attrs map[string]string, members ...string) {
	tr.virtual(name, members)
	require.NoError(tr.t, os.MkdirAll(filepath.Join(tr.dirs[name], "md"), 0o755))
	for k, v := range attrs {
		tr.Write(name, filepath.Join("md", k), v)
	}
	for i, m := range members {
		tr.link(filepath.Join(tr.dirs[name], "md", "dev-"+m, "block"), tr.dirs[m])
		tr.Write(name, filepath.Join("md", "dev-"+m, "slot"), fmt.Sprint(i))
		tr.Write(name, filepath.Join("md", "dev-"+m, "state"), "in_sync")
	}
}

// DM adds device-mapper device name (dm-0) called dmName over slaves.
func (tr *Tree) DM(name, dmName string, slaves ...string) {
	tr.virtual(name, slaves)
	tr.Write(name, "dm/name", dmName)
	tr.Write(name, "dm/uuid", "LVM-"+dmName)
	for _, f := range []string{"rq_based_seq_io_merge_deadline", "suspended", "use_blk_mq"} {
		tr.Write(name, "dm/"+f, "0")
	}
}

func (tr *Tree) virtual(name string, below []string) {
	tr.addDevice(name, filepath.Join(tr.Sys, "devices", "virtual", "block", name))
	for _, b := range below {
		require.Contains(tr.t, tr.dirs, b, "device %s must be added before %s", b, name)
		tr.link(filepath.Join(tr.dirs[name], "slaves", b), tr.dirs[b])
		tr.link(filepath.Join(tr.dirs[b], "holders", name), tr.dirs[name])
	}
}

// Number gives a device its major:minor in /sys/dev/block.
func (tr *Tree) Number(name string, major, minor uint32) {
	tr.link(filepath.Join(tr.Sys, "dev", "block", fmt.Sprintf("%d:%d", major, minor)), tr.dirs[name])
}

// Remove deletes a device from /sys/class/block (it went away).
func (tr *Tree) Remove(name string) {
	require.NoError(tr.t, os.Remove(filepath.Join(tr.Sys, "class", "block", name)))
}

// Diskstats writes /proc/diskstats.
func (tr *Tree) Diskstats(content string) {
	require.NoError(tr.t, os.WriteFile(filepath.Join(tr.Proc, "diskstats"), []byte(content), 0o644))
}

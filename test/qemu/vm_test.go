//go:build linux

package qemu

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestVMArgs(t *testing.T) {
	dir := t.TempDir()
	vm := VM{QEMU: "qemu-system-x86_64", Kernel: Kernel{Image: "/boot/vmlinuz-x"}, Initramfs: "/i.cpio", Dir: dir,
		Controllers: []Controller{{Serial: "walab0001"}}}
	args, err := vm.Args()
	require.NoError(t, err)
	joined := strings.Join(args, " ")
	for _, want := range []string{"-accel tcg", "-nic none", "-no-reboot", "-m 512",
		"-device nvme,serial=walab0001,drive=d0", "file=" + dir + "/disk0.raw,if=none,id=d0,format=raw"} {
		require.Contains(t, joined, want)
	}
	require.FileExists(t, dir+"/disk0.raw")

	vm.Controllers = []Controller{{Serial: "bad,serial"}}
	_, err = vm.Args()
	require.ErrorContains(t, err, "no commas")
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string][2]int{
		"QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\nCopyright (c) 2003-2025": {10, 0},
		"QEMU emulator version 7.2.22 (Debian 1:7.2+dfsg-7+deb12u18+b3)\n":                             {7, 2},
		"QEMU emulator version 8.1.0\n": {8, 1},
	} {
		maj, min, err := ParseVersion(in)
		require.NoError(t, err, in)
		require.Equal(t, want, [2]int{maj, min}, in)
	}
	for _, bad := range []string{"", "qemu-system-x86_64: error", "QEMU emulator version ", "QEMU emulator version 10", "QEMU emulator version x.1"} {
		_, _, err := ParseVersion(bad)
		require.Error(t, err, bad)
	}
}

func TestVMArgsFDP(t *testing.T) {
	dir := t.TempDir()
	vm := VM{QEMU: "qemu-system-x86_64", Kernel: Kernel{Image: "/boot/vmlinuz-x"}, Initramfs: "/i.cpio", Dir: dir,
		Controllers: []Controller{
			{Serial: "walabf001", FDP: &FDP{RUSize: 2 << 20, Groups: 2, Handles: 8},
				Namespaces: []Namespace{{DiskMiB: 32, Handles: "1;3;5"}, {DiskMiB: 16}}},
			{Serial: "walabo001", OCP: true},
		}}
	args, err := vm.Args()
	require.NoError(t, err)
	joined := strings.Join(args, " ")
	for _, want := range []string{
		"-device nvme-subsys,id=subsys0,nqn=walabf001,fdp=on,fdp.runs=2097152,fdp.nrg=2,fdp.nruh=8",
		"-device nvme,id=ctrl0,serial=walabf001,subsys=subsys0 ",
		"file=" + dir + "/disk0-1.raw,if=none,id=d0_1,format=raw -device nvme-ns,drive=d0_1,bus=ctrl0,nsid=1,fdp.ruhs=1;3;5 ",
		"-device nvme-ns,drive=d0_2,bus=ctrl0,nsid=2 ",
		"-device nvme,serial=walabo001,drive=d1,ocp=on",
	} {
		require.Contains(t, joined+" ", want)
	}
	st, err := os.Stat(dir + "/disk0-2.raw")
	require.NoError(t, err)
	require.Equal(t, int64(16<<20), st.Size())

	vm.Controllers[0].Namespaces[0].Handles = "1,fdp=off"
	_, err = vm.Args()
	require.ErrorContains(t, err, "only digits")

	t.Setenv(AccelEnv, "kvm:tcg")
	vm.Controllers = vm.Controllers[1:]
	args, err = vm.Args()
	require.NoError(t, err)
	require.Contains(t, strings.Join(args, " "), "-accel kvm -accel tcg -m 512")
}

func FuzzParseVersion(f *testing.F) {
	f.Add("QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2+deb13u1~bpo12+1)\n")
	f.Add("QEMU emulator version 7.2.22\n")
	f.Add("QEMU emulator version \n")
	f.Fuzz(func(t *testing.T, out string) {
		major, minor, err := ParseVersion(out)
		if err == nil && (major < 0 && !strings.Contains(out, "-") || minor < 0 && !strings.Contains(out, "-")) {
			t.Fatalf("%q: negative version %d.%d without a minus sign", out, major, minor)
		}
		if err == nil && !strings.Contains(out, "QEMU emulator version ") {
			t.Fatalf("%q: a version without the banner", out)
		}
	})
}

// TestGuestDiagnosis: a guest that does not come up is reported with what
// QEMU said, the console (empty, here), the forwarded ports and whether QEMU
// still runs with its CPU time, not only an empty console (issue 56: "not
// ready within 5m0s" and nothing else). A script stands in for QEMU: one
// that prints and stays up, one that prints and ends.
func TestGuestDiagnosis(t *testing.T) {
	dir := t.TempDir()
	fake := dir + "/qemu"
	require.NoError(t, os.WriteFile(fake, []byte("#!/bin/sh\necho 'qemu: warning: host forwarding rule' >&2\n[ \"$WALAB_FAKE_QEMU\" = exit ] && exit 1\nexec sleep 60\n"), 0o755))
	vm := VM{QEMU: fake, Kernel: Kernel{Image: "/k"}, Initramfs: "/i", Dir: dir, Net: &UserNet{Forwards: []Forward{{Host: 1, Guest: 22}}}}
	g, err := vm.Start(context.Background())
	require.NoError(t, err)
	defer g.Stop()
	require.Eventually(t, func() bool { return strings.Contains(g.Diagnosis(), "host forwarding rule") }, 10*time.Second, 50*time.Millisecond)
	d := g.Diagnosis()
	require.Regexp(t, `QEMU \(pid \d+\) still runs: \d+s of CPU in \d+s of wall time`, d)
	require.Contains(t, d, "forward: 127.0.0.1:1 -> guest port 22: dial tcp 127.0.0.1:1: connect: connection refused")
	require.Contains(t, d, "console (serial 1): (empty)")

	t.Setenv("WALAB_FAKE_QEMU", "exit")
	g2, err := vm.Start(context.Background())
	require.NoError(t, err)
	defer g2.Stop()
	require.Eventually(t, func() bool { done, _ := g2.Exited(); return done }, 10*time.Second, 50*time.Millisecond)
	require.Regexp(t, `QEMU: qemu ended: exit status 1: qemu: warning: host forwarding rule`, g2.Diagnosis())
}

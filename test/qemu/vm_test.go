//go:build linux

package qemu

import (
	"strings"
	"testing"

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

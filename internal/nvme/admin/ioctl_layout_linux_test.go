//go:build linux

package admin

import (
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// Offsets of struct nvme_passthru_cmd from include/uapi/linux/nvme_ioctl.h,
// as compiled by gcc on x86_64 (reference: nvme-layouts.md section 1.1).
func TestPassthruLayout(t *testing.T) {
	var c passthruCmd
	require.Equal(t, uintptr(72), unsafe.Sizeof(c))
	offsets := map[string][2]uintptr{
		"opcode": {unsafe.Offsetof(c.Opcode), 0}, "flags": {unsafe.Offsetof(c.Flags), 1},
		"nsid": {unsafe.Offsetof(c.NSID), 4}, "cdw2": {unsafe.Offsetof(c.CDW2), 8},
		"metadata": {unsafe.Offsetof(c.Metadata), 16}, "addr": {unsafe.Offsetof(c.Addr), 24},
		"metadata_len": {unsafe.Offsetof(c.MetadataLen), 32}, "data_len": {unsafe.Offsetof(c.DataLen), 36},
		"cdw10": {unsafe.Offsetof(c.CDW10), 40}, "cdw11": {unsafe.Offsetof(c.CDW11), 44},
		"cdw12": {unsafe.Offsetof(c.CDW12), 48}, "cdw13": {unsafe.Offsetof(c.CDW13), 52},
		"cdw14": {unsafe.Offsetof(c.CDW14), 56}, "cdw15": {unsafe.Offsetof(c.CDW15), 60},
		"timeout_ms": {unsafe.Offsetof(c.TimeoutMS), 64}, "result": {unsafe.Offsetof(c.Result), 68},
	}
	for name, o := range offsets {
		require.Equal(t, o[1], o[0], name)
	}
	// _IOWR('N', 0x41, 72 bytes): dir=3<<30, size<<16, type 'N'<<8, nr.
	require.Equal(t, uint32(3<<30|72<<16|'N'<<8|0x41), uint32(nvmeIoctlAdminCmd))
}

func TestIoctlOnNonNVMeFails(t *testing.T) {
	d, err := OpenIoctl("null", "/dev/null")
	require.NoError(t, err)
	defer d.Close()
	_, err = d.Submit(t.Context(), Identify(CNSController, 0))
	require.Error(t, err, "/dev/null is no NVMe controller; the ioctl must fail cleanly")
	_, err = OpenIoctl("gone", "/dev/does-not-exist-nvme9")
	require.ErrorContains(t, err, "does-not-exist")
}

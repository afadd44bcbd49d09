package qemu

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A slice of Debian 12's modules.dep for 6.1, as depmod writes it.
const debianModulesDep = `kernel/arch/x86/crypto/crct10dif-pclmul.ko: kernel/crypto/crct10dif_common.ko
kernel/crypto/crct10dif_generic.ko: kernel/crypto/crct10dif_common.ko
kernel/crypto/crct10dif_common.ko:
kernel/crypto/crc64_rocksoft_generic.ko: kernel/lib/crc64.ko
kernel/lib/crc64.ko:
kernel/lib/crc-t10dif.ko: kernel/crypto/crct10dif_common.ko
kernel/lib/crc64-rocksoft.ko: kernel/lib/crc64.ko
kernel/block/t10-pi.ko: kernel/lib/crc64-rocksoft.ko kernel/lib/crc-t10dif.ko kernel/lib/crc64.ko kernel/crypto/crct10dif_common.ko
kernel/drivers/nvme/host/nvme-core.ko: kernel/block/t10-pi.ko kernel/lib/crc64-rocksoft.ko kernel/lib/crc-t10dif.ko kernel/lib/crc64.ko kernel/crypto/crct10dif_common.ko
kernel/drivers/nvme/host/nvme.ko: kernel/drivers/nvme/host/nvme-core.ko kernel/block/t10-pi.ko kernel/lib/crc64-rocksoft.ko kernel/lib/crc-t10dif.ko kernel/lib/crc64.ko kernel/crypto/crct10dif_common.ko
kernel/drivers/block/virtio_blk.ko.xz:
`

func TestLoadOrder(t *testing.T) {
	dep, err := ParseModulesDep(strings.NewReader(debianModulesDep))
	require.NoError(t, err)
	tests := []struct {
		name  string
		mods  []string
		order []string
		err   string
	}{
		{
			name: "nvme: dependencies last-listed first",
			mods: []string{"nvme"},
			order: []string{
				"kernel/crypto/crct10dif_common.ko", "kernel/lib/crc64.ko", "kernel/lib/crc-t10dif.ko",
				"kernel/lib/crc64-rocksoft.ko", "kernel/block/t10-pi.ko", "kernel/drivers/nvme/host/nvme-core.ko",
				"kernel/drivers/nvme/host/nvme.ko",
			},
		},
		{
			name:  "soft dependencies first, no duplicates",
			mods:  []string{"crct10dif_generic", "nvme_core"},
			order: []string{"kernel/crypto/crct10dif_common.ko", "kernel/crypto/crct10dif_generic.ko", "kernel/lib/crc64.ko", "kernel/lib/crc-t10dif.ko", "kernel/lib/crc64-rocksoft.ko", "kernel/block/t10-pi.ko", "kernel/drivers/nvme/host/nvme-core.ko"},
		},
		{name: "dashes and underscores are one name", mods: []string{"nvme-core"}, order: nil},
		{name: "compressed module", mods: []string{"virtio_blk"}, order: []string{"kernel/drivers/block/virtio_blk.ko.xz"}},
		{name: "unknown module", mods: []string{"nvme_tcp"}, err: "nvme_tcp is not in modules.dep"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := dep.LoadOrder(tc.mods...)
			if tc.err != "" {
				require.ErrorContains(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			if tc.order == nil {
				require.Equal(t, "kernel/drivers/nvme/host/nvme-core.ko", got[len(got)-1])
				return
			}
			require.Equal(t, tc.order, got)
		})
	}
}

func TestParseModulesDepRejects(t *testing.T) {
	tests := []struct{ name, in, err string }{
		{"no colon", "kernel/a.ko kernel/b.ko\n", "line 1"},
		{"empty module", ": kernel/b.ko\n", "line 1"},
		{"nameless module", ".ko: x.ko\n", "not a module file name"},
		{"listed twice", "a.ko:\nb.ko:\na.ko:\n", "line 3: a.ko listed twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModulesDep(strings.NewReader(tc.in))
			require.ErrorContains(t, err, tc.err)
		})
	}
}

func TestModuleName(t *testing.T) {
	for in, want := range map[string]string{
		"kernel/drivers/nvme/host/nvme-core.ko":     "nvme_core",
		"kernel/lib/crc64-rocksoft.ko.xz":           "crc64_rocksoft",
		"kernel/drivers/block/virtio_blk.ko.zst":    "virtio_blk",
		"nvme":                                      "nvme",
		"kernel/arch/x86/crypto/crc32-pclmul.ko.gz": "crc32_pclmul",
	} {
		require.Equal(t, want, ModuleName(in), in)
	}
}

// FuzzParseModulesDep: any input parses or errors, never panics, and a
// parsed table resolves every module it lists.
func FuzzParseModulesDep(f *testing.F) {
	f.Add(debianModulesDep)
	f.Add("")
	f.Add("a.ko: b.ko\nb.ko: a.ko\n") // a cycle depmod would never write
	f.Add(":\n")
	f.Fuzz(func(t *testing.T, in string) {
		dep, err := ParseModulesDep(strings.NewReader(in))
		if err != nil {
			return
		}
		for name := range dep.byName {
			if _, err := dep.LoadOrder(name); err != nil {
				t.Fatalf("module %q listed but not loadable: %v", name, err)
			}
		}
	})
}

package qemu

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// KernelVersionEnv overrides which installed kernel the test boots.
const KernelVersionEnv = "WALAB_QEMU_KERNEL_VERSION"

// Kernel is an installed distribution kernel: its image and its modules.
type Kernel struct {
	Version    string
	Image      string // /boot/vmlinuz-<version>
	ModulesDir string // /lib/modules/<version>
}

// FindKernel picks the kernel to boot: $WALAB_QEMU_KERNEL_VERSION, else the
// newest version that has both /boot/vmlinuz-<v> and /lib/modules/<v>/modules.dep.
// The machine's running kernel is deliberately not used: it is not Debian's
// and may not ship modules at all.
func FindKernel(bootDir, modulesRoot string) (Kernel, error) {
	ok := func(v string) (Kernel, bool) {
		k := Kernel{Version: v, Image: filepath.Join(bootDir, "vmlinuz-"+v), ModulesDir: filepath.Join(modulesRoot, v)}
		if _, err := os.Stat(k.Image); err != nil {
			return k, false
		}
		if _, err := os.Stat(filepath.Join(k.ModulesDir, "modules.dep")); err != nil {
			return k, false
		}
		return k, true
	}
	if v := os.Getenv(KernelVersionEnv); v != "" {
		k, found := ok(v)
		if !found {
			return Kernel{}, fmt.Errorf("%s=%s: need %s and %s/modules.dep", KernelVersionEnv, v, k.Image, k.ModulesDir)
		}
		return k, nil
	}
	ents, err := os.ReadDir(modulesRoot)
	if err != nil {
		return Kernel{}, fmt.Errorf("no kernel modules: %w (install linux-image-amd64)", err)
	}
	var found []Kernel
	for _, e := range ents {
		if k, good := ok(e.Name()); good {
			found = append(found, k)
		}
	}
	if len(found) == 0 {
		return Kernel{}, fmt.Errorf("no kernel with both %s/vmlinuz-<v> and %s/<v>/modules.dep (install linux-image-amd64)", bootDir, modulesRoot)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Version < found[j].Version })
	return found[len(found)-1], nil
}

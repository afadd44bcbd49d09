package sysfs

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzRead writes arbitrary attribute contents and namespace names into a
// controller directory: discovery returns a controller or an error, never
// panics, and never reports nsid 0 or 0xFFFFFFFF.
func FuzzRead(f *testing.F) {
	f.Add("SAMPLE\n", "1\n", "nvme0n1", "0000:3b:00.0")
	f.Add("", "", "nvme0c0n7", "ctl")
	f.Add("\x00\xff", "4294967295", "nvme0n0", "..")
	f.Fuzz(func(t *testing.T, model, nsid, nsDir, link string) {
		root := t.TempDir()
		dir := filepath.Join(root, "class", "nvme", "nvme0")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		_ = os.WriteFile(filepath.Join(dir, "model"), []byte(model), 0o644)
		_ = os.WriteFile(filepath.Join(dir, "device"), nil, 0o644)
		if filepath.Base(nsDir) == nsDir && nsDir != "." && nsDir != ".." && nsDir != "" {
			if err := os.Mkdir(filepath.Join(dir, nsDir), 0o755); err == nil {
				_ = os.WriteFile(filepath.Join(dir, nsDir, "nsid"), []byte(nsid), 0o644)
			}
		}
		_ = os.Remove(filepath.Join(dir, "device"))
		_ = os.Symlink(link, filepath.Join(dir, "device"))
		cs, err := Discover(root)
		if err != nil {
			return
		}
		for _, c := range cs {
			for _, ns := range c.Namespaces {
				if ns.NSID == 0 || ns.NSID == 0xFFFFFFFF {
					t.Fatalf("invalid nsid %d accepted", ns.NSID)
				}
			}
		}
	})
}

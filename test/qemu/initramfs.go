package qemu

import (
	"bytes"
	"compress/gzip"
	"debug/elf"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
)

// GuestModulesOrder is the file in the initramfs listing the module files
// to insmod, one per line, in order.
const GuestModulesOrder = "etc/modules.order"

// AddModules copies the named kernel modules and their dependencies into
// the archive (decompressed: busybox insmod takes plain .ko files) and
// writes GuestModulesOrder. Optional names that depmod does not know are
// skipped; required ones are an error.
func AddModules(a *Archive, k Kernel, required, optional []string) ([]string, error) {
	f, err := os.Open(filepath.Join(k.ModulesDir, "modules.dep"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dep, err := ParseModulesDep(f)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range optional {
		if _, ok := dep.Path(n); ok {
			names = append(names, n)
		}
	}
	names = append(names, required...)
	order, err := dep.LoadOrder(names...)
	if err != nil {
		return nil, err
	}
	var guest []string
	for _, rel := range order {
		data, err := readModule(filepath.Join(k.ModulesDir, rel))
		if err != nil {
			return nil, err
		}
		g := "lib/modules/" + ModuleName(rel) + ".ko"
		a.File(g, 0o644, data)
		guest = append(guest, "/"+g)
	}
	a.File(GuestModulesOrder, 0o644, []byte(strings.Join(guest, "\n")+"\n"))
	return guest, nil
}

// readModule returns a module's ELF bytes, decompressing .ko.xz/.ko.zst/.ko.gz.
func readModule(p string) ([]byte, error) {
	switch path.Ext(p) {
	case ".ko":
		return os.ReadFile(p)
	case ".gz":
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		zr, err := gzip.NewReader(f)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return io.ReadAll(zr)
	case ".xz", ".zst":
		tool := map[string]string{".xz": "xz", ".zst": "zstd"}[path.Ext(p)]
		var out, errb bytes.Buffer
		cmd := exec.Command(tool, "-dc", p)
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("decompress %s with %s: %v: %s", p, tool, err, errb.String())
		}
		return out.Bytes(), nil
	}
	return nil, fmt.Errorf("%s: not a kernel module file", p)
}

// AddStaticBinary copies a host binary into the archive after checking it
// is statically linked (no ELF interpreter): the initramfs has no libc.
func AddStaticBinary(a *Archive, guestPath, hostPath string) error {
	data, err := os.ReadFile(hostPath)
	if err != nil {
		return err
	}
	ef, err := elf.NewFile(bytes.NewReader(data))
	if err != nil {
		return fmt.Errorf("%s: not an ELF binary: %w", hostPath, err)
	}
	defer ef.Close()
	for _, p := range ef.Progs {
		if p.Type == elf.PT_INTERP {
			return fmt.Errorf("%s is dynamically linked; the initramfs needs a static binary (busybox-static, CGO_ENABLED=0)", hostPath)
		}
	}
	a.File(guestPath, 0o755, data)
	return nil
}

// BaseArchive is the skeleton every guest needs: busybox as /bin/sh and
// friends, the mount points, /dev/console for init's stdio, and /init.
func BaseArchive(busybox, initScript string) (*Archive, error) {
	a := NewArchive()
	if err := AddStaticBinary(a, "bin/busybox", busybox); err != nil {
		return nil, err
	}
	a.Symlink("bin/sh", "busybox")
	for _, d := range []string{"proc", "sys", "dev", "tmp", "out", "etc"} {
		a.Dir(d)
	}
	a.CharDev("dev/console", 0o600, 5, 1)
	a.File("init", 0o755, []byte(initScript))
	return a, nil
}

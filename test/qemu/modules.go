package qemu

import (
	"bufio"
	"fmt"
	"io"
	"path"
	"strings"
)

// ModulesDep is a parsed modules.dep: module path -> dependency paths, as
// depmod writes them (relative to /lib/modules/<version>).
type ModulesDep struct {
	deps   map[string][]string
	byName map[string]string // normalized module name -> path
}

// ParseModulesDep reads depmod's modules.dep ("path: dep dep ..." lines).
func ParseModulesDep(r io.Reader) (*ModulesDep, error) {
	m := &ModulesDep{deps: map[string][]string{}, byName: map[string]string{}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		mod, rest, ok := strings.Cut(text, ":")
		mod = strings.TrimSpace(mod)
		if !ok || mod == "" || strings.ContainsAny(mod, " \t") {
			return nil, fmt.Errorf("modules.dep line %d: want \"module.ko: deps...\", got %q", line, text)
		}
		if ModuleName(mod) == "" || !strings.Contains(mod, ".ko") {
			return nil, fmt.Errorf("modules.dep line %d: %q is not a module file name", line, mod)
		}
		if _, dup := m.deps[mod]; dup {
			return nil, fmt.Errorf("modules.dep line %d: %s listed twice", line, mod)
		}
		m.deps[mod] = strings.Fields(rest)
		m.byName[ModuleName(mod)] = mod
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("modules.dep: %w", err)
	}
	return m, nil
}

// ModuleName is the kernel's name for a module file: base name without
// .ko[.xz|.zst|.gz], dashes as underscores (nvme-core.ko -> nvme_core).
func ModuleName(p string) string {
	b := path.Base(p)
	if i := strings.Index(b, ".ko"); i >= 0 {
		b = b[:i]
	}
	return strings.ReplaceAll(b, "-", "_")
}

// Path returns the module file of a module name, if depmod knows it.
func (m *ModulesDep) Path(name string) (string, bool) {
	p, ok := m.byName[ModuleName(name)]
	return p, ok
}

// LoadOrder lists the module files to insmod, dependencies first, for the
// named modules in the given order; each file appears once.
func (m *ModulesDep) LoadOrder(names ...string) ([]string, error) {
	var order []string
	seen := map[string]bool{}
	for _, n := range names {
		p, ok := m.Path(n)
		if !ok {
			return nil, fmt.Errorf("module %s is not in modules.dep", n)
		}
		// depmod lists a module's dependencies so that the last must be
		// loaded first (modprobe walks the list backwards).
		deps := m.deps[p]
		for i := len(deps) - 1; i >= 0; i-- {
			if !seen[deps[i]] {
				seen[deps[i]] = true
				order = append(order, deps[i])
			}
		}
		if !seen[p] {
			seen[p] = true
			order = append(order, p)
		}
	}
	return order, nil
}

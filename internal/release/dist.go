package release

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
)

// Options choose what Dist builds.
type Options struct {
	Out        string   // output directory
	Arches     []string // GOARCH values; default Arches
	AllowDirty bool     // build a work tree with uncommitted changes (marked -modified)
	Log        io.Writer
}

// Dist builds every artifact of s into o.Out: per architecture the
// archive walab-VERSION.linux-ARCH.tar.gz and the .deb and .rpm of each
// package, then sha256sums.txt over them all. It returns their names.
func Dist(ctx context.Context, s Source, o Options) ([]string, error) {
	if s.Modified && !o.AllowDirty {
		return nil, ErrModified
	}
	if len(o.Arches) == 0 {
		o.Arches = Arches
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "walab-dist-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	st := stage{dir: filepath.Join(tmp, "stage"), s: s}
	for _, arch := range o.Arches {
		fmt.Fprintf(o.Log, "dist: go build linux/%s\n", arch)
		if err := s.Build(ctx, arch, filepath.Join(tmp, arch), Programs); err != nil {
			return nil, err
		}
	}
	man, err := manPages(ctx, s, o, tmp)
	if err != nil {
		return nil, err
	}
	var made []string
	for _, arch := range o.Arches {
		names, err := st.artifacts(arch, filepath.Join(tmp, arch), man, o.Out)
		if err != nil {
			return nil, err
		}
		made = append(made, names...)
	}
	slices.Sort(made)
	if err := WriteChecksums(o.Out, made); err != nil {
		return nil, err
	}
	return append(made, "sha256sums.txt"), nil
}

// manPages runs this machine's build of each program for its man page
// (built here too when the release has no binary for this architecture).
func manPages(ctx context.Context, s Source, o Options, tmp string) (map[string][]byte, error) {
	dir := filepath.Join(tmp, runtime.GOARCH)
	if !slices.Contains(o.Arches, runtime.GOARCH) {
		if err := s.Build(ctx, runtime.GOARCH, dir, Programs); err != nil {
			return nil, err
		}
	}
	man := map[string][]byte{}
	for _, p := range Programs {
		page, err := ManPage(ctx, filepath.Join(dir, p.Name), p, s)
		if err != nil {
			return nil, err
		}
		man[p.Command] = gzipMan(page)
	}
	return man, nil
}

// artifacts writes one architecture's archive and packages into out.
func (st stage) artifacts(arch, binDir string, man map[string][]byte, out string) ([]string, error) {
	var members []File
	for _, p := range Programs {
		b, err := os.ReadFile(filepath.Join(binDir, p.Name))
		if err != nil {
			return nil, err
		}
		members = append(members, File{Name: p.Name, Mode: 0o755, Data: b})
	}
	cfg, err := embedded.ReadFile("files/exporter.yml")
	if err != nil {
		return nil, err
	}
	members = append(members, File{Name: "exporter.yml", Mode: 0o644, Data: cfg})
	var tgz bytes.Buffer
	top := fmt.Sprintf("walab-%s.linux-%s", st.s.Version, arch)
	if err := WriteTarGz(&tgz, top, members, st.s.Date); err != nil {
		return nil, err
	}
	name := ArchiveName(st.s.Version, arch)
	if err := os.WriteFile(filepath.Join(out, name), tgz.Bytes(), 0o644); err != nil {
		return nil, err
	}
	made := []string{name}
	for _, p := range Packages() {
		for _, format := range []string{"deb", "rpm"} {
			in, err := st.info(p, format, arch, binDir, man)
			if err != nil {
				return nil, err
			}
			n, err := WritePackage(in, format, out)
			if err != nil {
				return nil, err
			}
			made = append(made, n)
		}
	}
	return made, nil
}

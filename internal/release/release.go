// Package release builds walab's release artifacts from a commit: static
// binaries of exporter, loadgen and walab for each architecture, a
// .tar.gz per architecture with a sha256sums.txt, and the walab-exporter
// and walab packages (.deb and .rpm, through nfpm). `make dist` runs it
// (tools/dist).
//
// Two builds of one commit give the same bytes: the version comes from the
// VERSION file and the build date from the commit's date (or
// SOURCE_DATE_EPOCH), the toolchain builds with -trimpath and without its
// VCS stamp, and every archive and package has fixed times, owners and
// order.
package release

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/walab/walab/internal/buildinfo"
)

// Program is one binary of the release.
type Program struct {
	Pkg     string // package directory, relative to the module root ("./exporter")
	Name    string // file name in bin/ and in the archive ("exporter")
	Command string // file name under /usr/bin in the packages ("walab-exporter")
	Summary string // one line, for its man page
}

// Programs are the binaries a release carries. The packages install them
// under names that say they are walab's (/usr/bin is shared; Debian
// renames node_exporter to prometheus-node-exporter the same way); the
// archives keep the repository's names, as docs and bin/ use them.
var Programs = []Program{
	{Pkg: "./exporter", Name: "exporter", Command: "walab-exporter", Summary: "Prometheus exporter for NVMe write amplification under MySQL"},
	{Pkg: "./loadgen", Name: "loadgen", Command: "walab-loadgen", Summary: "TPC-C and sysbench-style load generator for MySQL"},
	{Pkg: "./walab", Name: "walab", Command: "walab", Summary: "write-amplification lab: compare runs, run experiment plans"},
}

// Arches are the architectures `make dist` builds (GOARCH names).
var Arches = []string{"amd64", "arm64"}

// Source is the commit a release is built from.
type Source struct {
	Root     string    // module root
	Version  string    // from the VERSION file, e.g. 0.1.0
	Revision string    // full commit hash
	Modified bool      // the work tree differs from the commit
	Date     time.Time // the commit's date (UTC), the build date
}

var versionRE = regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+$`)

// ReadSource reads the VERSION file and the commit of the work tree at
// root. The build date is the commit's committer date, or
// SOURCE_DATE_EPOCH when set (reproducible-builds.org's convention).
func ReadSource(ctx context.Context, root string) (Source, error) {
	s := Source{Root: root}
	b, err := os.ReadFile(filepath.Join(root, "VERSION"))
	if err != nil {
		return s, fmt.Errorf("release: %w", err)
	}
	s.Version = strings.TrimSpace(string(b))
	if !versionRE.MatchString(s.Version) {
		return s, fmt.Errorf("release: VERSION %q is not MAJOR.MINOR.PATCH", s.Version)
	}
	if s.Revision, err = git(ctx, root, "rev-parse", "HEAD"); err != nil {
		return s, err
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git(ctx, root, "log", "-1", "--format=%ct", "HEAD"); err != nil {
			return s, err
		}
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return s, fmt.Errorf("release: build date %q is not Unix seconds: %w", epoch, err)
	}
	s.Date = time.Unix(sec, 0).UTC()
	status, err := git(ctx, root, "status", "--porcelain")
	if err != nil {
		return s, err
	}
	s.Modified = status != ""
	return s, nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("release: git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}

// LDFlags are the linker flags that stamp version, commit and build date
// (internal/buildinfo) and strip the symbol tables.
func (s Source) LDFlags() string {
	const bi = "github.com/walab/walab/internal/buildinfo"
	flags := []string{"-s", "-w",
		"-X " + bi + ".version=" + s.Version,
		"-X " + bi + ".revision=" + s.Revision,
		"-X " + bi + ".date=" + s.Date.Format(buildinfo.DateLayout)}
	if s.Modified {
		flags = append(flags, "-X "+bi+".modified=true")
	}
	return strings.Join(flags, " ")
}

// buildEnv is the environment of a release build: the caller's, with
// every variable that changes the output fixed.
func buildEnv(arch string) []string {
	fixed := map[string]string{"CGO_ENABLED": "0", "GOOS": "linux", "GOARCH": arch,
		"GOFLAGS": "-mod=readonly", "GOAMD64": "v1", "GOARM64": "v8.0", "GOEXPERIMENT": ""}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, ok := fixed[k]; !ok {
			env = append(env, kv)
		}
	}
	for k, v := range fixed {
		env = append(env, k+"="+v)
	}
	return env
}

// Build compiles progs for linux/arch into dir (one file per Program.Name).
func (s Source) Build(ctx context.Context, arch, dir string, progs []Program) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	args := []string{"build", "-trimpath", "-buildvcs=false", "-ldflags", s.LDFlags(), "-o", dir + string(filepath.Separator)}
	for _, p := range progs {
		args = append(args, p.Pkg)
	}
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = s.Root
	cmd.Env = buildEnv(arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("release: go build for linux/%s: %w\n%s", arch, err, out)
	}
	for _, p := range progs {
		if _, err := os.Stat(filepath.Join(dir, p.Name)); err != nil {
			return fmt.Errorf("release: go build for linux/%s made no %s: %w", arch, p.Name, err)
		}
	}
	return nil
}

// ErrModified refuses a release of a work tree that is not its commit.
var ErrModified = errors.New("release: the work tree has uncommitted changes, so the build would not be the commit's; commit or stash them (or pass --allow-dirty: the binaries then say <commit>-modified)")

package release

import (
	"bytes"
	"compress/gzip"
	"debug/buildinfo"
	"embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/goreleaser/chglog"
	"github.com/goreleaser/nfpm/v2"
	"github.com/goreleaser/nfpm/v2/deb"
	"github.com/goreleaser/nfpm/v2/files"
	"github.com/goreleaser/nfpm/v2/rpm"
	"go.yaml.in/yaml/v3"
)

//go:embed files
var embedded embed.FS

// Packaging facts shared by both packages.
const (
	Maintainer = "walab maintainers <maintainers@users.noreply.a-seed-66461ea8.example>"
	Homepage   = "https://github.com/walab/walab"
	// License says what the repository says: it carries no license file.
	License = "none stated (no license file in the source; all rights reserved)"
	// UnitPath is where walab-exporter.service is installed. Debian
	// bookworm's own packages still install units under /lib (its
	// lintian warns on /usr/lib); on a merged-/usr system, which every
	// systemd distribution now is, both name the same directory.
	UnitPath = "/lib/systemd/system/walab-exporter.service"
	// ConfigPath is the exporter's configuration (0640 root:walab).
	ConfigPath = "/etc/walab/exporter.yml"
	// StateDir holds wa.state_file (StateDirectory=walab).
	StateDir = "/var/lib/walab"
)

// Package is one binary package.
type Package struct {
	Name        string
	Description string // first line the synopsis
	Programs    []Program
	Service     bool // the exporter's unit, user, configuration and udev rule
	// Data are files of the source tree the package ships, by source path
	// (relative to the module root) to installed path.
	Data map[string]string
}

// LabPlan is where the walab package ships the plan `walab lab` runs
// without --plan (walab/lab.go packagedPlan).
const LabPlan = "/usr/share/walab/experiments/seed000-sim.yml"

// Packages are the two packages a release builds.
func Packages() []Package {
	return []Package{
		{Name: "walab-exporter", Programs: Programs[:1], Service: true,
			Description: "Prometheus exporter for NVMe write amplification under MySQL\n" +
				"walab's exporter reads each NVMe controller's SMART log and the best NAND\n" +
				"write counter the drive has (OCP 0xC0, FDP statistics, a vendor log, the\n" +
				"endurance group log) with read-only admin commands, and exports host bytes,\n" +
				"NAND bytes and the write amplification over rolling windows and since a\n" +
				"run's start, with placement, IRQ, filesystem and InnoDB context.\n" +
				"It runs as the system user walab with CAP_SYS_ADMIN, CAP_SYSLOG and\n" +
				"CAP_SYS_PTRACE only."},
		{Name: "walab", Programs: Programs[1:], Data: map[string]string{"deploy/experiments/seed000-sim.yml": LabPlan},
			Description: "write-amplification lab for NVMe SSDs under MySQL\n" +
				"walab-loadgen drives TPC-C and sysbench-style OLTP, fileio, cpu and memory\n" +
				"load against MySQL or MariaDB. walab compares a baseline run with a\n" +
				"placement technique (NVMe Streams, FDP) and says whether the difference in\n" +
				"write amplification can be trusted, and runs lab procedures as resumable\n" +
				"plans. The exporter is in walab-exporter."},
	}
}

// stage is a directory of the files nfpm packs from (nfpm reads sources
// from disk).
type stage struct {
	dir string
	s   Source
}

func (st stage) write(name string, data []byte, mode os.FileMode) (string, error) {
	p := filepath.Join(st.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return "", err
	}
	return p, os.WriteFile(p, data, mode)
}

func (st stage) embedded(name string) (string, error) {
	b, err := embedded.ReadFile("files/" + name)
	if err != nil {
		return "", err
	}
	return st.write(filepath.Join("files", name), b, 0o644)
}

// content is one file of a package.
func (st stage) content(src, dst, typ string, mode os.FileMode) *files.Content {
	return &files.Content{Source: src, Destination: dst, Type: typ,
		FileInfo: &files.ContentFileInfo{Owner: "root", Group: "root", Mode: mode, MTime: st.s.Date}}
}

// info is the nfpm description of p for one format ("deb" or "rpm"),
// with the programs taken from binDir (one architecture's build).
func (st stage) info(p Package, format, arch, binDir string, man map[string][]byte) (*nfpm.Info, error) {
	in := &nfpm.Info{Name: p.Name, Arch: arch, Platform: "linux", Version: st.s.Version, Release: "1",
		Section: "admin", Priority: "optional", Maintainer: Maintainer, Description: p.Description,
		Vendor: "walab", Homepage: Homepage, License: License, MTime: st.s.Date}
	in.RPM.BuildHost = "reproducible" // rpm stamps the build host; Fedora's reproducible builds use this name
	in.RPM.Summary, _, _ = strings.Cut(p.Description, "\n")
	var c files.Contents
	var bins []string
	for _, pr := range p.Programs {
		bin := filepath.Join(binDir, pr.Name)
		bins = append(bins, bin)
		c = append(c, st.content(bin, "/usr/bin/"+pr.Command, "", 0o755))
		mp, err := st.write(filepath.Join("man", pr.Command+".1.gz"), man[pr.Command], 0o644)
		if err != nil {
			return nil, err
		}
		c = append(c, st.content(mp, "/usr/share/man/man1/"+pr.Command+".1.gz", "", 0o644))
	}
	cp, err := st.write(filepath.Join("doc", arch, p.Name, "copyright"), Copyright(st.s.Date.Year(), bins...), 0o644)
	if err != nil {
		return nil, err
	}
	c = append(c, st.content(cp, "/usr/share/doc/"+p.Name+"/copyright", "", 0o644))
	for _, src := range slices.Sorted(maps.Keys(p.Data)) {
		c = append(c, st.content(filepath.Join(st.s.Root, src), p.Data[src], "", 0o644))
	}
	if p.Service {
		if c, err = st.serviceFiles(c, format, in); err != nil {
			return nil, err
		}
	}
	if format == "deb" {
		ov, err := st.embedded("lintian-" + p.Name)
		if err != nil {
			return nil, err
		}
		c = append(c, st.content(ov, "/usr/share/lintian/overrides/"+p.Name, "", 0o644))
		if in.Changelog, err = st.changelog(p.Name); err != nil {
			return nil, err
		}
	}
	in.Contents = c
	return in, nil
}

// serviceFiles adds the exporter's unit, configuration, udev rule and
// maintainer scripts.
func (st stage) serviceFiles(c files.Contents, format string, in *nfpm.Info) (files.Contents, error) {
	for _, f := range []struct{ src, dst, typ string }{
		{"walab-exporter.service", UnitPath, ""},
		{"exporter.yml", ConfigPath, files.TypeConfigNoReplace},
		{"walab-exporter.default", "/etc/default/walab-exporter", files.TypeConfigNoReplace},
		{"60-walab-exporter.rules", "/lib/udev/rules.d/60-walab-exporter.rules", ""},
	} {
		p, err := st.embedded(f.src)
		if err != nil {
			return nil, err
		}
		fc := st.content(p, f.dst, f.typ, 0o644)
		if f.dst == ConfigPath {
			configInfo(fc.FileInfo, format)
		}
		c = append(c, fc)
	}
	scripts := map[string]*string{}
	switch format {
	case "deb":
		in.Depends = []string{"adduser"}
		scripts = map[string]*string{"deb-postinst": &in.Scripts.PostInstall, "deb-prerm": &in.Scripts.PreRemove, "deb-postrm": &in.Scripts.PostRemove}
	case "rpm":
		in.RPM.Requires.Post = []string{"shadow-utils"}
		scripts = map[string]*string{"rpm-pre": &in.Scripts.PreInstall, "rpm-post": &in.Scripts.PostInstall,
			"rpm-preun": &in.Scripts.PreRemove, "rpm-postun": &in.Scripts.PostRemove}
	}
	for name, field := range scripts {
		p, err := st.embedded(name)
		if err != nil {
			return nil, err
		}
		*field = p
	}
	return c, nil
}

// configInfo makes the configuration readable by root and the service's
// group alone (0640): it is where an InnoDB DSN with a password goes. rpm
// runs %pre, which creates the group, before it lays down files, so the
// .rpm names group walab; dpkg unpacks before the postinst creates it, so
// the .deb ships root:root and its postinst gives the group.
func configInfo(fi *files.ContentFileInfo, format string) {
	fi.Mode = 0o640
	if format == "rpm" {
		fi.Group = "walab"
	}
}

// changelog writes the Debian changelog's one entry: this version, dated
// with the commit, naming the commit (the history is git's).
func (st stage) changelog(pkg string) (string, error) {
	e := chglog.ChangeLogEntries{{Semver: st.s.Version + "-1", Date: st.s.Date, Packager: Maintainer,
		ChangeLogOverridables: chglog.ChangeLogOverridables{Deb: &chglog.ChangelogDeb{Urgency: "medium", Distributions: []string{"unstable"}}},
		Changes:               chglog.ChangeLogChanges{{Note: fmt.Sprintf("walab %s from commit %.12s (its history: git log).", st.s.Version, st.s.Revision)}}}}
	b, err := yaml.Marshal(e)
	if err != nil {
		return "", err
	}
	return st.write(filepath.Join("changelog", pkg+".yml"), b, 0o644)
}

// Copyright is the Debian machine-readable copyright file of a package
// holding bins, dated with the commit's year: walab's own statement and the Go modules linked into the
// binaries (read from their build information).
func Copyright(year int, bins ...string) []byte {
	var b bytes.Buffer
	b.WriteString("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n" +
		"Upstream-Name: walab\nUpstream-Contact: " + Maintainer + "\nSource: " + Homepage + "\n\n" +
		"Files: *\nCopyright: " + strconv.Itoa(year) + " walab maintainers\nLicense: not-stated\n" +
		" The walab source carries no license file; no license is granted beyond\n" +
		" what the law allows.\n")
	mods := map[string]bool{}
	for _, p := range bins {
		bi, err := buildinfo.ReadFile(p)
		if err != nil {
			continue
		}
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			mods[d.Path+" "+d.Version] = true
		}
	}
	if len(mods) > 0 {
		b.WriteString("Comment:\n The programs are statically linked Go binaries and include these Go\n" +
			" modules, each under its own license (see the module's source):\n")
		for _, m := range slices.Sorted(maps.Keys(mods)) {
			b.WriteString(" " + m + "\n")
		}
	}
	return b.Bytes()
}

// WritePackage packs in with the named format ("deb", "rpm") into dir and
// returns the file name, the format's conventional one.
func WritePackage(in *nfpm.Info, format, dir string) (string, error) {
	var pk nfpm.Packager
	switch format {
	case "deb":
		pk = deb.Default
	case "rpm":
		pk = rpm.DefaultRPM
	default:
		return "", fmt.Errorf("release: no packager %q", format)
	}
	name := pk.ConventionalFileName(in)
	var buf bytes.Buffer
	if err := pk.Package(nfpm.WithDefaults(in), &buf); err != nil {
		return "", fmt.Errorf("release: %s %s: %w", format, in.Name, err)
	}
	return name, os.WriteFile(filepath.Join(dir, name), buf.Bytes(), 0o644)
}

// gzipMan compresses a man page as Debian installs them: maximum
// compression, no name or time in the header.
func gzipMan(page []byte) []byte {
	var b bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	_, _ = gz.Write(page)
	_ = gz.Close()
	return b.Bytes()
}

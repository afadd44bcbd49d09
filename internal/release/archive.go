package release

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// File is one member of an archive.
type File struct {
	Name string      // path inside the archive's top directory
	Mode os.FileMode // permission bits
	Data []byte
}

// WriteTarGz writes files under the directory top/ as a gzip-compressed
// tar that depends only on its inputs: members sorted by name, every time
// mtime, owner and group 0 with no names, no gzip name or time. Two calls
// with the same arguments write the same bytes.
func WriteTarGz(w io.Writer, top string, files []File, mtime time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	mtime = mtime.UTC().Truncate(time.Second)
	hdr := func(name string, mode os.FileMode, typ byte, size int64) *tar.Header {
		return &tar.Header{Typeflag: typ, Name: name, Mode: int64(mode.Perm()), Size: size,
			ModTime: mtime, Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(top+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	sorted := slices.Clone(files)
	slices.SortFunc(sorted, func(a, b File) int { return strings.Compare(a.Name, b.Name) })
	for i, f := range sorted {
		if f.Name == "" || strings.Contains(f.Name, "/") || (i > 0 && sorted[i-1].Name == f.Name) {
			return fmt.Errorf("release: archive member %q: names must be unique and flat", f.Name)
		}
		if err := tw.WriteHeader(hdr(top+"/"+f.Name, f.Mode, tar.TypeReg, int64(len(f.Data)))); err != nil {
			return err
		}
		if _, err := tw.Write(f.Data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

// ArchiveName is a release archive's file name, as the Prometheus
// exporters name theirs: walab-0.1.0.linux-arm64.tar.gz.
func ArchiveName(version, arch string) string {
	return fmt.Sprintf("walab-%s.linux-%s.tar.gz", version, arch)
}

// WriteChecksums writes sha256sums.txt in dir for the named files, in the
// form `sha256sum -c` reads, sorted by name.
func WriteChecksums(dir string, names []string) error {
	names = slices.Sorted(slices.Values(names))
	var b strings.Builder
	for _, n := range names {
		if n != path.Base(n) {
			return fmt.Errorf("release: checksum of %q: not a file name", n)
		}
		sum, err := sha256File(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s  %s\n", sum, n)
	}
	return os.WriteFile(filepath.Join(dir, "sha256sums.txt"), []byte(b.String()), 0o644)
}

func sha256File(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWriteTarGzIsReproducible: the same members in another order, at
// another wall-clock time, give the same bytes; every header carries the
// given time, owner 0 without names, the member's mode, in name order
// under the top directory, and the gzip header names no file and no time.
func TestWriteTarGzIsReproducible(t *testing.T) {
	mtime := time.Date(2026, 12, 6, 8, 57, 19, 500, time.FixedZone("x", 3600))
	a := []File{{Name: "walab", Mode: 0o755, Data: []byte("w")}, {Name: "exporter", Mode: 0o755, Data: []byte("e")},
		{Name: "exporter.yml", Mode: 0o644, Data: []byte("wa: {}\n")}}
	b := []File{a[2], a[0], a[1]}
	var x, y bytes.Buffer
	require.NoError(t, WriteTarGz(&x, "walab-0.1.0.linux-arm64", a, mtime))
	require.NoError(t, WriteTarGz(&y, "walab-0.1.0.linux-arm64", b, mtime))
	require.Equal(t, x.Bytes(), y.Bytes())

	gz, err := gzip.NewReader(bytes.NewReader(x.Bytes()))
	require.NoError(t, err)
	require.Empty(t, gz.Name)
	require.True(t, gz.ModTime.IsZero(), "gzip header time %v", gz.ModTime)
	tr := tar.NewReader(gz)
	var names []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		names = append(names, h.Name)
		require.Equal(t, mtime.Truncate(time.Second).Unix(), h.ModTime.Unix(), h.Name)
		require.Zero(t, h.Uid, h.Name)
		require.Zero(t, h.Gid, h.Name)
		require.Empty(t, h.Uname+h.Gname, h.Name)
		switch h.Name {
		case "walab-0.1.0.linux-arm64/exporter.yml":
			require.EqualValues(t, 0o644, h.Mode)
		default:
			require.EqualValues(t, 0o755, h.Mode, h.Name)
		}
	}
	require.Equal(t, []string{"walab-0.1.0.linux-arm64/", "walab-0.1.0.linux-arm64/exporter",
		"walab-0.1.0.linux-arm64/exporter.yml", "walab-0.1.0.linux-arm64/walab"}, names)

	var z bytes.Buffer
	require.NoError(t, WriteTarGz(&z, "walab-0.1.0.linux-arm64", a, mtime.Add(time.Second)))
	require.NotEqual(t, x.Bytes(), z.Bytes(), "the time is in the archive")
}

func TestWriteTarGzRefusesDuplicatesAndPaths(t *testing.T) {
	for _, files := range [][]File{
		{{Name: "a"}, {Name: "a"}},
		{{Name: "dir/a"}},
		{{Name: ""}},
	} {
		require.Error(t, WriteTarGz(io.Discard, "top", files, time.Unix(0, 0)), "%v", files)
	}
}

// TestWriteChecksums: the form sha256sum -c reads, sorted by name.
func TestWriteChecksums(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b"), []byte("abc"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a"), nil, 0o644))
	require.NoError(t, WriteChecksums(dir, []string{"b", "a"}))
	got, err := os.ReadFile(filepath.Join(dir, "sha256sums.txt"))
	require.NoError(t, err)
	require.Equal(t, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\n"+
		"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  b\n", string(got))
	require.Error(t, WriteChecksums(dir, []string{"../b"}))
	require.Error(t, WriteChecksums(dir, []string{"missing"}))
}

func TestArchiveName(t *testing.T) {
	require.Equal(t, "walab-0.1.0.linux-arm64.tar.gz", ArchiveName("0.1.0", "arm64"))
}

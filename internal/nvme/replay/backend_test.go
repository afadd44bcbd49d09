package replay

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
)

func seq(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

func logCmd(t *testing.T, p admin.LogPage) admin.Command {
	t.Helper()
	c, err := admin.GetLogPage(p)
	require.NoError(t, err)
	return c
}

func TestFileName(t *testing.T) {
	dir, err := admin.DirectiveReceive(1, 1, 1, 0, 32)
	require.NoError(t, err)
	tests := []struct {
		cmd  admin.Command
		want string
		ok   bool
	}{
		{admin.Identify(admin.CNSController, 0), "id-ctrl.bin", true},
		{admin.Identify(admin.CNSNamespace, 3), "id-ns-3.bin", true},
		{admin.Identify(admin.CNSUUIDList, 0), "id-uuid.bin", true},
		{admin.Identify(0x19, 0), "", false},
		{logCmd(t, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512, RAE: true}), "log-02.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x02, NSID: 2, Len: 512, RAE: true}), "log-02-ns2.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x02, Len: 512}), "log-02.bin", true},
		{logCmd(t, admin.LogPage{LID: 0xC0, NSID: 1, Len: 512}), "log-c0.bin", true},
		{logCmd(t, admin.LogPage{LID: 0xC0, Len: 512, Offset: 4096}), "log-c0.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x09, LSI: 1, Len: 512}), "log-09-lsi1.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x23, LSP: 1, LSI: 1, Len: 4096}), "log-23-lsi1-lsp1.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x23, LSP: 0, LSI: 1, Len: 4096}), "log-23-lsi1.bin", true},
		{logCmd(t, admin.LogPage{LID: 0x23, LSP: 1, Len: 64}), "log-23-lsp1.bin", true},
		{dir, "dir-01-01.bin", true},
		{admin.GetFeatures(0x1D, 0, 1, 0), "feat-1d.bin", true},
		{admin.Command{Opcode: 0x09}, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.cmd.String(), func(t *testing.T) {
			got, ok := FileName(tt.cmd)
			require.Equal(t, tt.ok, ok)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestExec(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "log-c0.bin"), seq(1000), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "id-ctrl.bin"), seq(100), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "log-02.bin"), nil, 0o644))
	feat := make([]byte, 8)
	binary.LittleEndian.PutUint32(feat, 0x0301)
	copy(feat[4:], []byte{9, 8, 7, 6})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "feat-1d.bin"), feat, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "feat-02.bin"), []byte{1, 2}, 0o644))
	b := NewBackend(dir)
	ctx := context.Background()

	tests := []struct {
		name        string
		cmd         admin.Command
		wantData    []byte
		wantDW0     uint32
		unsupported bool
		errContains string
	}{
		{name: "whole page", cmd: logCmd(t, admin.LogPage{LID: 0xC0, Len: 512}), wantData: seq(512)},
		{name: "offset read", cmd: logCmd(t, admin.LogPage{LID: 0xC0, Offset: 512, Len: 256}), wantData: seq(768)[512:]},
		{name: "log read to the last byte", cmd: logCmd(t, admin.LogPage{LID: 0xC0, Offset: 992, Len: 8}), wantData: seq(1000)[992:]},
		// A truncated or emptied page is not zero counters (issue 33 item 5).
		{name: "log read past end is an error", cmd: logCmd(t, admin.LogPage{LID: 0xC0, Offset: 996, Len: 8}), errContains: "truncated or emptied"},
		{name: "log offset beyond file is an error", cmd: logCmd(t, admin.LogPage{LID: 0xC0, Offset: 4096, Len: 8}), errContains: "truncated or emptied"},
		{name: "empty log page is an error", cmd: logCmd(t, admin.LogPage{LID: 0x02, Len: 512}), errContains: "holds 0 bytes"},
		{name: "identify padded to 4096", cmd: admin.Identify(admin.CNSController, 0), wantData: append(seq(100), make([]byte, 3996)...)},
		{name: "missing log page is unsupported", cmd: logCmd(t, admin.LogPage{LID: 0x22, LSI: 1, Len: 64}), unsupported: true},
		{name: "missing namespace is unsupported", cmd: admin.Identify(admin.CNSNamespace, 9), unsupported: true},
		{name: "feature dword 0 and data", cmd: admin.GetFeatures(0x1D, 0, 1, 4), wantData: []byte{9, 8, 7, 6}, wantDW0: 0x0301},
		{name: "feature without data", cmd: admin.GetFeatures(0x1D, 0, 1, 0), wantData: []byte{}, wantDW0: 0x0301},
		{name: "short feature file", cmd: admin.GetFeatures(0x02, 0, 0, 0), errContains: "want at least 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := b.Exec(ctx, tt.cmd)
			switch {
			case tt.unsupported:
				require.True(t, admin.IsUnsupported(err), "err = %v", err)
			case tt.errContains != "":
				require.ErrorContains(t, err, tt.errContains)
			default:
				require.NoError(t, err)
				require.Equal(t, tt.wantData, res.Data)
				require.Equal(t, tt.wantDW0, res.DW0)
			}
		})
	}
}

func TestRewriteBetweenReads(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "log-02.bin")
	page := make([]byte, 512)
	page[48] = 1
	require.NoError(t, os.WriteFile(p, page, 0o644))
	dev, err := Open("nvme0", dir)
	require.NoError(t, err)
	cmd := logCmd(t, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512, RAE: true})
	res, err := dev.Submit(context.Background(), cmd)
	require.NoError(t, err)
	require.Equal(t, byte(1), res.Data[48])

	page[48] = 2
	require.NoError(t, os.WriteFile(p, page, 0o644))
	res, err = dev.Submit(context.Background(), cmd)
	require.NoError(t, err)
	require.Equal(t, byte(2), res.Data[48])
}

func TestControllerFolderRemoved(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, os.Mkdir(dir, 0o755))
	dev, err := Open("nvme0", dir)
	require.NoError(t, err)
	require.NoError(t, os.RemoveAll(dir))
	_, err = dev.Submit(context.Background(), admin.Identify(admin.CNSController, 0))
	require.ErrorContains(t, err, "controller folder is gone")
	require.False(t, admin.IsUnsupported(err), "a vanished device must not look like an absent page")
}

func TestOpenAndControllers(t *testing.T) {
	root := t.TempDir()
	_, err := Open("nvme0", filepath.Join(root, "nope"))
	require.Error(t, err)
	_, err = Controllers(root)
	require.ErrorContains(t, err, "no controller folders")
	for _, n := range []string{"nvme1", "nvme0"} {
		require.NoError(t, os.Mkdir(filepath.Join(root, n), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, n, "id-ctrl.bin"), make([]byte, 4096), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "README"), nil, 0o644))
	got, err := Controllers(root)
	require.NoError(t, err)
	require.Equal(t, []string{"nvme0", "nvme1"}, got)
}

func TestRecorderRoundTrip(t *testing.T) {
	src := t.TempDir()
	page := seq(3000)
	require.NoError(t, os.WriteFile(filepath.Join(src, "log-c0.bin"), page, 0o644))
	feat := []byte{1, 0, 0, 0, 5, 6, 7, 8}
	require.NoError(t, os.WriteFile(filepath.Join(src, "feat-1d.bin"), feat, 0o644))
	b := NewBackend(src)
	rec := NewRecorder()
	// Chunked read: the recorder stitches the chunks back at their offsets.
	for off := uint64(0); off < 3000; off += 1024 {
		n := uint32(1024)
		if off+uint64(n) > 3000 {
			n = uint32(3000 - off)
		}
		cmd := logCmd(t, admin.LogPage{LID: 0xC0, Offset: off, Len: n})
		res, err := b.Exec(context.Background(), cmd)
		require.NoError(t, err)
		rec.Record(cmd, res)
	}
	cmd := admin.GetFeatures(0x1D, 0, 1, 4)
	res, err := b.Exec(context.Background(), cmd)
	require.NoError(t, err)
	rec.Record(cmd, res)
	rec.SetText(FileModel, "M")
	rec.SetText(FileSerial, "")

	out := t.TempDir()
	require.NoError(t, rec.WriteDir(out))
	require.Equal(t, []string{"feat-1d.bin", "log-c0.bin", "model"}, rec.Files())
	got, err := os.ReadFile(filepath.Join(out, "log-c0.bin"))
	require.NoError(t, err)
	require.Equal(t, page, got)
	got, err = os.ReadFile(filepath.Join(out, "feat-1d.bin"))
	require.NoError(t, err)
	require.Equal(t, feat, got)
	model, err := ReadText(out, FileModel)
	require.NoError(t, err)
	require.Equal(t, "M", model)
}

// TestControllersRefusesWhatIsNotACapture (issue 42, low): a directory whose
// subfolders hold no capture (`--nvme.replay=/etc`) is refused, naming
// what a capture holds, instead of serving each subfolder as a controller;
// a capture with one stray folder names the folder.
func TestControllersRefusesWhatIsNotACapture(t *testing.T) {
	etc := t.TempDir()
	for _, d := range []string{"ssh", "apt", "systemd"} {
		require.NoError(t, os.MkdirAll(filepath.Join(etc, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(etc, d, "config"), []byte("x"), 0o644))
	}
	_, err := Controllers(etc)
	require.ErrorContains(t, err, "not a replay directory")
	require.ErrorContains(t, err, "id-ctrl.bin")

	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "nvme0"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "nvme0", "id-ctrl.bin"), make([]byte, 4096), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
	_, err = Controllers(root)
	require.ErrorContains(t, err, "notes")
	require.NoError(t, os.Remove(filepath.Join(root, "notes")))
	names, err := Controllers(root)
	require.NoError(t, err)
	require.Equal(t, []string{"nvme0"}, names)
}

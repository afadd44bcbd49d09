package replay

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/walab/walab/internal/nvme/admin"
)

// FuzzExec feeds arbitrary file contents and read windows to the backend: it
// must answer with exactly the requested length or an error, never panic.
func FuzzExec(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5}, uint8(0x02), uint32(0), uint16(1))
	f.Add([]byte{}, uint8(0x0A), uint32(4), uint16(0))
	f.Add(make([]byte, 600), uint8(0x02), uint32(512), uint16(128))
	f.Fuzz(func(t *testing.T, file []byte, op uint8, off uint32, dwords uint16) {
		dir := t.TempDir()
		n := (uint32(dwords) + 1) * 4
		var cmd admin.Command
		var err error
		switch op % 3 {
		case 0:
			cmd, err = admin.GetLogPage(admin.LogPage{LID: 0xC0, Offset: uint64(off) &^ 3, Len: n})
		case 1:
			cmd = admin.GetFeatures(0x1D, 0, 1, n)
		default:
			cmd = admin.Identify(admin.CNSController, 0)
			n = admin.IdentifySize
		}
		if err != nil {
			t.Fatal(err)
		}
		name, _ := FileName(cmd)
		if err := os.WriteFile(filepath.Join(dir, name), file, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err := NewBackend(dir).Exec(context.Background(), cmd)
		if err == nil && uint32(len(res.Data)) != n {
			t.Fatalf("got %d bytes, want %d", len(res.Data), n)
		}
	})
}

package probe

import (
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/replay"
)

// memBackend serves replay-format files from memory (fast enough to fuzz).
type memBackend map[string][]byte

func (m memBackend) Exec(_ context.Context, cmd admin.Command) (admin.Result, error) {
	name, ok := replay.FileName(cmd)
	raw, found := m[name]
	if !ok || !found {
		return admin.Result{}, admin.Unsupported(cmd)
	}
	out := make([]byte, cmd.DataLen)
	if off := cmd.LogOffset(); off < uint64(len(raw)) {
		copy(out, raw[off:])
	}
	return admin.Result{Data: out}, nil
}
func (memBackend) Close() error { return nil }

// FuzzProbe feeds arbitrary Identify and log page bytes through probing and
// one poll: whatever a drive returns, the exporter gets a plan or an error,
// never a panic.
func FuzzProbe(f *testing.F) {
	ctrl := make([]byte, 64)
	binary.LittleEndian.PutUint16(ctrl, 0x19E5)
	f.Add(ctrl, []byte{0, 1, 2}, make([]byte, 800), []byte{1}, uint32(0x80010))
	f.Add([]byte{}, []byte{}, []byte{}, []byte{}, uint32(0))
	f.Add(make([]byte, 4096), make([]byte, 512), make([]byte, 512), make([]byte, 64), uint32(1<<19|1<<4))
	f.Fuzz(func(t *testing.T, idctrl, smart, c0, other []byte, ctratt uint32) {
		if len(idctrl) >= 100 {
			binary.LittleEndian.PutUint32(idctrl[96:], ctratt)
		}
		m := memBackend{
			"id-ctrl.bin": idctrl, "id-ns-1.bin": other, "log-02.bin": smart, "log-c0.bin": c0,
			"log-ca.bin": c0, "log-22-lsi1.bin": other, "log-09-lsi1.bin": other,
		}
		r := &Reader{Dev: admin.New("nvme0", m), Chunk: 128}
		plan, err := Probe(context.Background(), r, []uint32{1}, Config{})
		if err != nil {
			return
		}
		if plan.Source == "" {
			t.Fatal("a plan always names its source")
		}
		_, _ = Poll(context.Background(), r, plan, time.Time{})
	})
}

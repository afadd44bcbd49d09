package probe

import (
	"context"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// recordingBackend answers every log read with a pattern derived from the
// offset and remembers the commands it saw.
type recordingBackend struct {
	mu   sync.Mutex
	cmds []admin.Command
	err  error
}

func (b *recordingBackend) Exec(_ context.Context, c admin.Command) (admin.Result, error) {
	b.mu.Lock()
	b.cmds = append(b.cmds, c)
	b.mu.Unlock()
	if b.err != nil {
		return admin.Result{}, b.err
	}
	d := make([]byte, c.DataLen)
	for i := range d {
		d[i] = byte(c.LogOffset() + uint64(i))
	}
	return admin.Result{Data: d}, nil
}
func (b *recordingBackend) Close() error { return nil }

func TestChunkedLogRead(t *testing.T) {
	tests := []struct {
		name     string
		extended bool
		start    uint64
		length   uint32
		chunk    uint32
		want     []uint64 // offsets of the commands sent
	}{
		{name: "LPA bit 2 set: 4 KiB chunks", extended: true, length: 10000, chunk: 4096, want: []uint64{0, 4096, 8192}},
		{name: "LPA bit 2 unset: one read", extended: false, length: 10000, chunk: 4096, want: []uint64{0}},
		{name: "short page: one read even with offsets", extended: true, length: 512, chunk: 4096, want: []uint64{0}},
		{name: "chunks cross 4 GiB: LPOU increases", extended: true, start: 1<<32 - 4096, length: 12288, chunk: 4096,
			want: []uint64{1<<32 - 4096, 1 << 32, 1<<32 + 4096}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &recordingBackend{}
			r := &Reader{Dev: admin.New("nvme0", b), Chunk: tt.chunk}
			data, err := r.Log(context.Background(), "test log", admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Offset: tt.start, Len: tt.length}, tt.extended)
			require.NoError(t, err)
			require.Len(t, data, int(tt.length))
			for i := range data {
				require.Equal(t, byte(tt.start+uint64(i)), data[i], "byte %d", i)
			}
			var offs []uint64
			var lastLPOU uint32
			for _, c := range b.cmds {
				offs = append(offs, c.LogOffset())
				require.GreaterOrEqual(t, c.CDW13, lastLPOU, "LPOU never decreases")
				lastLPOU = c.CDW13
				require.NotZero(t, c.CDW10&(1<<15), "RAE must be set when polling")
			}
			require.Equal(t, tt.want, offs)
			require.EqualValues(t, len(tt.want), r.Dev.Stats().Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0xC0}])
		})
	}
}

func TestReadErrorSaysWhatFailed(t *testing.T) {
	b := &recordingBackend{}
	cmd, err := admin.GetLogPage(admin.LogPage{LID: 0x02, Len: 512})
	require.NoError(t, err)
	b.err = admin.NewStatusError(cmd, 0x4006)
	r := &Reader{Dev: admin.New("nvme3", b)}
	_, err = r.Log(context.Background(), "SMART log", admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512}, false)
	var re *ReadError
	require.True(t, errors.As(err, &re))
	require.Equal(t, "nvme3", re.Device)
	require.ErrorContains(t, err, "nvme3: read SMART log")
	require.ErrorContains(t, err, "internal error")
	require.False(t, Unsupported(err))

	b.err = admin.Unsupported(cmd)
	_, err = r.Log(context.Background(), "SMART log", admin.LogPage{LID: 0x02, Len: 512}, false)
	require.True(t, Unsupported(err))
}

// offsetRecorder passes commands to a replay backend and records the
// offsets of each log id.
type offsetRecorder struct {
	inner admin.Backend
	mu    sync.Mutex
	offs  map[uint8][]uint64
}

func (o *offsetRecorder) Exec(ctx context.Context, c admin.Command) (admin.Result, error) {
	if lid, ok := c.LogID(); ok {
		o.mu.Lock()
		o.offs[lid] = append(o.offs[lid], c.LogOffset())
		o.mu.Unlock()
	}
	return o.inner.Exec(ctx, c)
}
func (o *offsetRecorder) Close() error { return nil }

// TestLPABitDrivesChunking goes through Probe and Poll: a 10000-byte vendor
// page is read in 4 KiB chunks only when Identify LPA bit 2 is set.
func TestLPABitDrivesChunking(t *testing.T) {
	layout := decode.Layout{
		Name: "big_c2", LogID: 0xC2, Length: 10000, Match: decode.Match{VID: []uint16{0x1234}},
		Fields: []decode.Field{{Meaning: decode.MeaningMediaWritten, Offset: 9000, Width: 8, UnitBytes: 1}},
	}
	for _, tt := range []struct {
		name string
		lpa  uint8
		want []uint64
	}{
		{"LPA bit 2 set", fixture.LPAExtended, []uint64{0, 4096, 8192}},
		{"LPA bit 2 clear", 0, []uint64{0}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			d := fixture.SMARTOnlyDrive()
			d.VID, d.LPA = 0x1234, tt.lpa
			dir := filepath.Join(t.TempDir(), "nvme0")
			require.NoError(t, d.Write(dir))
			page := make([]byte, 10000)
			binary.LittleEndian.PutUint64(page[9000:], 777)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "log-c2.bin"), page, 0o644))

			rec := &offsetRecorder{inner: replay.NewBackend(dir), offs: map[uint8][]uint64{}}
			r := &Reader{Dev: admin.New("nvme0", rec)}
			plan, err := Probe(context.Background(), r, []uint32{1}, Config{Layouts: []decode.Layout{layout}})
			require.NoError(t, err)
			require.Equal(t, "big_c2", plan.Source)
			s, err := Poll(context.Background(), r, plan, time.Time{})
			require.NoError(t, err)
			require.Equal(t, decode.U128From(777), *s.MediaBytes)
			require.Equal(t, append(append([]uint64(nil), tt.want...), tt.want...), rec.offs[0xC2], "probe read + poll read")
			require.Equal(t, []uint64{0}, rec.offs[0x02], "SMART fits one read")
		})
	}
}

package probe

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
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

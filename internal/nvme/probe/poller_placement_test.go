package probe

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// opcodeBackend records the opcode of every command reaching a replay
// backend.
type opcodeBackend struct {
	inner *replay.Backend
	mu    sync.Mutex
	ops   []uint8
}

func (b *opcodeBackend) Exec(ctx context.Context, c admin.Command) (admin.Result, error) {
	b.mu.Lock()
	b.ops = append(b.ops, c.Opcode)
	b.mu.Unlock()
	return b.inner.Exec(ctx, c)
}
func (b *opcodeBackend) Close() error { return nil }

func (b *opcodeBackend) take() []uint8 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := b.ops
	b.ops = nil
	return out
}

// TestPollerPlacement: the placement pages go through the poller's cache
// (one read per MaxAge), and the Identify data of its probe is not sent
// again.
func TestPollerPlacement(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.FDPDrive().Write(dir))
	b := &opcodeBackend{inner: replay.NewBackend(dir)}
	clk := &clock{t: time.Unix(1000, 0)}
	p := NewPoller(admin.New("nvme0", b), []uint32{1}, Config{}, Options{Now: clk.now})
	ctx := context.Background()

	_, err := p.Sample(ctx)
	require.NoError(t, err)
	require.Contains(t, b.take(), admin.OpIdentify, "the probe sends Identify")

	st, err := p.Placement(ctx)
	require.NoError(t, err)
	require.True(t, st.Known && st.Complete && st.FDPEnabled)
	require.True(t, st.FDPSupported && st.FDPKnown)
	ops := b.take()
	require.NotEmpty(t, ops)
	require.NotContains(t, ops, admin.OpIdentify, "Identify comes from the probe's plan")

	again, err := p.Placement(ctx)
	require.NoError(t, err)
	require.Equal(t, st, again)
	require.Empty(t, b.take(), "a second call within MaxAge is served from the cache")

	clk.add(DefaultMaxAge)
	_, err = p.Placement(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, b.take(), "after MaxAge the pages are read again")
}

// TestPollerPlacementBeforeProbe: without a probe's plan the placement
// reader asks Identify itself, once.
func TestPollerPlacementBeforeProbe(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.FDPDrive().Write(dir))
	b := &opcodeBackend{inner: replay.NewBackend(dir)}
	p := NewPoller(admin.New("nvme0", b), []uint32{1}, Config{}, Options{MaxAge: -1})
	st, err := p.Placement(context.Background())
	require.NoError(t, err)
	require.True(t, st.FDPEnabled)
	require.Contains(t, b.take(), admin.OpIdentify)
	_, err = p.Placement(context.Background())
	require.NoError(t, err)
	require.NotContains(t, b.take(), admin.OpIdentify, "Identify is remembered")
}

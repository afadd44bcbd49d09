package sim

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/nvme/admin"
)

// TestConcurrentUse runs the ticker, admin commands, the HTTP switch and
// Stats at once (meant for -race), then checks the model is intact.
// Goroutines use assert: FailNow must not be called off the test goroutine.
func TestConcurrentUse(t *testing.T) {
	cfg := smallConfig()
	tick := time.Millisecond
	cfg.Tick = &tick
	d, err := New(cfg)
	require.NoError(t, err)
	dev := admin.New("nvmesim0", d)
	h := d.Handler()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 50; i++ {
				switch (g + i) % 4 {
				case 0:
					cmd, _ := admin.GetLogPage(admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512})
					_, err := dev.Submit(context.Background(), cmd)
					assert.NoError(t, err)
				case 1:
					req := httptest.NewRequest(http.MethodPost, PlacementPath+"?streams=off", nil)
					if i%3 == 0 {
						req = httptest.NewRequest(http.MethodPost, PlacementPath+"?streams=on", nil)
					}
					rec := httptest.NewRecorder()
					h.ServeHTTP(rec, req)
					assert.Equal(t, http.StatusOK, rec.Code)
				case 2:
					_ = d.Stats()
				case 3:
					_, err := dev.Submit(context.Background(), admin.Identify(admin.CNSNamespace, 1))
					assert.NoError(t, err)
				}
			}
		}()
	}
	wg.Wait()
	require.NoError(t, dev.Close())
	require.NoError(t, d.CheckModel())
}

func TestReload(t *testing.T) {
	d, _, _ := newDrive(t, smallConfig())
	cfg := smallConfig()
	cfg.Placement.Streams = false
	require.NoError(t, d.Reload(cfg))
	require.False(t, d.Placement())
	cfg.Placement.Streams = true
	require.NoError(t, d.Reload(cfg))
	require.True(t, d.Placement())

	cfg.SpareFactor = 0.2
	require.ErrorIs(t, d.Reload(cfg), ErrRebuild)
	require.True(t, d.Placement(), "unchanged")
	// Placement and another key changed together: placement still switches.
	cfg.Placement.Streams = false
	require.ErrorIs(t, d.Reload(cfg), ErrRebuild)
	require.False(t, d.Placement(), "placement follows the file even when a rebuild is also needed")
	cfg = smallConfig()
	cfg.Workload.Name = "nope"
	require.ErrorContains(t, d.Reload(cfg), "unknown workload")
	require.False(t, d.Placement(), "an invalid file changes nothing")
}

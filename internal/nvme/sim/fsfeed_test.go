package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/simfs/fileclass"
)

func fsConfig() Config {
	return Config{Capacity: 64 << 20, SpareFactor: 0.1, BlockPages: 64, Placement: Placement{Streams: true},
		FS: FS{Mountpoint: "/mnt/walabsim", Backing: "/var/lib/walabsim"}}
}

// TestFSDriveTakesOnlyFilesystemWrites: a drive under the filesystem has
// scale 1, no prefill and no generator; its host bytes are exactly the
// pages the filesystem sends, by class, with the stream of the file's name.
func TestFSDriveTakesOnlyFilesystemWrites(t *testing.T) {
	d, clk, _ := newDrive(t, fsConfig())
	require.Equal(t, uint64(1), d.Config().Scale)
	clk.Add(time.Hour)
	st := d.Stats()
	require.Zero(t, st.HostBytes, "no prefill, no generated traffic")
	require.Equal(t, "fs", st.Workload)

	require.NoError(t, d.HostWrite("ib_logfile0", fileclass.Redo, 0, 4))
	require.NoError(t, d.HostWrite("db/t.ibd", fileclass.Data, 100, 2))
	require.NoError(t, d.HostTrim(100, 2))
	st = d.Stats()
	require.Equal(t, uint64(6*4096), st.HostBytes)
	require.Equal(t, uint64(2*4096), st.TrimmedBytes)
	require.Equal(t, uint64(4*4096), st.ClassBytes["redo"])
	require.Equal(t, uint64(2*4096), st.ClassBytes["data"])
	streams := map[uint16]uint64{}
	for _, p := range d.PlacedWrites() {
		streams[p.Stream] = p.Bytes
	}
	require.Equal(t, map[uint16]uint64{1: 4 * 4096, 3: 2 * 4096}, streams, "ib_logfile0 -> 1, *.ibd -> 3 by the default rules")
	require.NoError(t, d.CheckModel())
}

// TestFSDriveFailsAfterFeedFailed: once the filesystem stops, every admin
// command fails, so the exporter's counters for the drive go absent.
func TestFSDriveFailsAfterFeedFailed(t *testing.T) {
	d, _, dev := newDrive(t, fsConfig())
	_, err := dev.Submit(context.Background(), admin.Identify(admin.CNSController, 0))
	require.NoError(t, err)
	d.FeedFailed(context.Canceled)
	_, err = dev.Submit(context.Background(), admin.Identify(admin.CNSController, 0))
	require.ErrorContains(t, err, "the filesystem feeding the drive stopped")
	require.Error(t, d.HostWrite("ib_logfile0", fileclass.Redo, 0, 1))
	require.Contains(t, d.Stats().LastError, "stopped")
}

func TestFSConfigRefused(t *testing.T) {
	for _, c := range []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.FS.Backing = "rel" }, "absolute"},
		{func(c *Config) { c.FS.Backing = "/mnt/walabsim/b" }, "contain"},
		{func(c *Config) { c.Scale = 8 }, "scale must be 1"},
		{func(c *Config) { c.FS = FS{Backing: "/x"} }, "backing without a mountpoint"},
	} {
		cfg := fsConfig()
		c.mod(&cfg)
		require.ErrorContains(t, cfg.WithDefaults().Validate(), c.want)
	}
	// A generator drive refuses the filesystem's writes.
	d, _, _ := newDrive(t, smallConfig())
	require.ErrorIs(t, d.HostWrite("x", fileclass.Other, 0, 1), errNotFS)
}

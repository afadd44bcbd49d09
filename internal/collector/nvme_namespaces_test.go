package collector

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

// TestNVMeNamespaceWritten: a controller with per-namespace SMART and two
// namespaces exports each namespace's own written bytes under its block
// device and NSID; a namespace whose page is missing has no series.
func TestNVMeNamespaceWritten(t *testing.T) {
	ns1, ns2 := uint64(40), uint64(7)
	d := fixture.FDPNamespacesDrive(&ns1, &ns2, nil)
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, d.Write(dir))
	dev := admin.New("nvme0", replay.NewBackend(dir))
	fl := &fleet.Fleet{Controllers: []*fleet.Controller{{Name: "nvme0", Device: dev,
		Namespaces: []fleet.Namespace{{NSID: 1, Block: "nvme0n1"}, {NSID: 2, Block: "nvme0n2"}, {NSID: 3, Block: "nvme0n3"}},
		Poller:     probe.NewPoller(dev, []uint32{1, 2, 3}, probe.Config{}, probe.Options{MaxAge: -1})}}}
	mfs, err := nvmeRegistry(t, fl).Gather()
	require.NoError(t, err)
	for ns, units := range map[string]uint64{"1": ns1, "2": ns2} {
		v, ok := find(mfs, "walab_nvme_namespace_written_bytes_total", map[string]string{"device": "nvme0", "namespace": "nvme0n" + ns, "nsid": ns})
		require.True(t, ok, ns)
		require.Equal(t, float64(units*512000), v, ns)
	}
	_, ok := find(mfs, "walab_nvme_namespace_written_bytes_total", map[string]string{"nsid": "3"})
	require.False(t, ok, "no page for namespace 3: no series, not 0")
}

// TestStreamsFDPNamespaceHandles: the events that name a namespace and a
// handle (both flags set) are counted by the pair, across the host and the
// controller log; an event without its location says nothing of a handle.
func TestStreamsFDPNamespaceHandles(t *testing.T) {
	ev := func(nsid uint32, ruh uint8, flags uint8) decode.FDPEvent {
		return decode.FDPEvent{Type: decode.FDPEventRUNotFullyWritten, Flags: flags, NSID: nsid, RUHID: ruh}
	}
	const both = 0x07
	f, backs := testFleet()
	backs["nvme1"].pages["log/0x23/1/lsp1"] = decode.AppendFDPEvents(nil, decode.FDPEvents{Events: []decode.FDPEvent{
		ev(1, 1, both), ev(2, 2, both), ev(1, 1, both), ev(2, 5, 0x03)}})
	backs["nvme1"].pages["log/0x23/1"] = decode.AppendFDPEvents(nil, decode.FDPEvents{Events: []decode.FDPEvent{
		{Type: decode.FDPEventMediaReallocated, Flags: both, NSID: 2, RUHID: 2}}})
	got, err := hostScrape(t, newTestStreams(t, "testdata/streams", "", f))
	require.NoError(t, err)
	require.Equal(t, 2.0, hostValue(t, got, `walab_nvme_fdp_namespace_handle_events{device="nvme1",handle="1",namespace="nvme1n1",nsid="1"}`))
	require.Equal(t, 2.0, hostValue(t, got, `walab_nvme_fdp_namespace_handle_events{device="nvme1",handle="2",namespace="",nsid="2"}`),
		"namespace 2 is not in the fleet: its block name is unknown")
	require.NotContains(t, got, `handle="5"`, "no location flag: no handle")
	require.NotContains(t, got, `walab_nvme_fdp_namespace_handle_events{device="nvme0"`, "no FDP: no events")
}

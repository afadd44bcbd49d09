package sim

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/probe"
)

func TestFDPEmulation(t *testing.T) {
	cfg := smallConfig()
	cfg.FDP = true
	d, clk, dev := newDrive(t, cfg)
	clk.Add(10 * time.Second)

	ctrl, err := decode.ParseIDController(submit(t, dev, admin.Identify(admin.CNSController, 0)))
	require.NoError(t, err)
	require.True(t, ctrl.FDPSupported())
	require.True(t, ctrl.EnduranceGroups())

	res, err := dev.Submit(context.Background(), admin.GetFeatures(0x1D, 0, 1, 0))
	require.NoError(t, err)
	require.Equal(t, uint32(1), res.DW0, "FDPE set, configuration index 0")
	_, err = dev.Submit(context.Background(), admin.GetFeatures(0x1D, 0, 2, 0))
	require.True(t, admin.IsUnsupported(err), "endurance group 2 does not exist")

	cf, err := decode.ParseFDPConfigs(logPage(t, dev, admin.LogPage{LID: 0x20, LSI: 1, Len: 512}))
	require.NoError(t, err)
	require.Len(t, cf.Configs, 1)
	c := cf.Configs[0]
	require.True(t, c.Valid)
	require.Equal(t, uint16(6), c.NRUH, "streams 0-5 of the default rules")
	require.Equal(t, uint64(64*4096), c.ReclaimUnitNominalSize)
	require.Equal(t, []uint8{1, 1, 1, 1, 1, 1}, c.RUHTypes)

	u, err := decode.ParseRUHUsage(logPage(t, dev, admin.LogPage{LID: 0x21, LSI: 1, Len: 64}))
	require.NoError(t, err)
	require.Equal(t, []uint8{1, 1, 1, 1, 1, 1}, u.Attributes)

	st, err := decode.ParseFDPStats(logPage(t, dev, admin.LogPage{LID: 0x22, LSI: 1, Len: 64}))
	require.NoError(t, err)
	_, o, _ := counters(t, dev)
	s := d.Stats()
	require.Equal(t, s.HostBytes, st.HostBytesWithMetadataWritten.Lo)
	require.Equal(t, s.MediaBytes, st.MediaBytesWithMetadataWritten.Lo)
	require.Equal(t, o.PhysicalMediaUnitsWritten, st.MediaBytesWithMetadataWritten, "FDP and OCP agree")
	require.Equal(t, s.Erases*64*4096, st.MediaBytesErased.Lo)

	id, err := decode.ParseDirectivesIdentify(submit(t, dev, mustDR(t, 0, 1, 4096)))
	require.NoError(t, err)
	require.True(t, id.SupportedBit(decode.DirectiveDataPlacement))
	require.True(t, id.EnabledBit(decode.DirectiveDataPlacement))

	_, err = dev.Submit(context.Background(), mustLP(t, admin.LogPage{LID: 0x22, LSI: 2, Len: 64}))
	require.True(t, admin.IsUnsupported(err))
	events := logPage(t, dev, admin.LogPage{LID: 0x23, LSI: 1, Len: 64})
	require.Equal(t, make([]byte, 64), events, "no events")
}

func mustDR(t *testing.T, dtype, doper uint8, n uint32) admin.Command {
	t.Helper()
	c, err := admin.DirectiveReceive(1, dtype, doper, 0, n)
	require.NoError(t, err)
	return c
}

func mustLP(t *testing.T, p admin.LogPage) admin.Command {
	t.Helper()
	c, err := admin.GetLogPage(p)
	require.NoError(t, err)
	return c
}

// TestProbePicksSource runs the exporter's real probe against the drive:
// OCP 0xC0 by default, the FDP statistics log when FDP is emulated.
func TestProbePicksSource(t *testing.T) {
	for _, tc := range []struct {
		fdp  bool
		want string
	}{{false, probe.SourceOCP}, {true, probe.SourceFDP}} {
		cfg := smallConfig()
		cfg.FDP = tc.fdp
		d, _, dev := newDrive(t, cfg)
		plan, err := probe.Probe(context.Background(), &probe.Reader{Dev: dev}, nil, probe.Config{})
		require.NoError(t, err)
		require.Equal(t, tc.want, plan.Source, "rejected: %v", plan.Rejected)
		require.Equal(t, Model, plan.Ctrl.Model)
		require.NotNil(t, d)
	}
}

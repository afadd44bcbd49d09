package collector

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNetworkCollector: the NICs of irq: interfaces, from a /proc/net/dev
// fixture; an interface the host lacks is an error naming it, the others
// still reported; nothing configured is no data, not a failure.
func TestNetworkCollector(t *testing.T) {
	c, err := newNetworkCollector(Env{Paths: Paths{ProcFS: "testdata/network/proc"}, Config: hostConfig(t, "irq:\n  interfaces: [eth0, eth9]\n")})
	require.NoError(t, err)
	out, err := hostScrape(t, c)
	require.ErrorContains(t, err, "interface eth9 is not in /proc/net/dev")
	require.Contains(t, out, `walab_network_receive_bytes_total{device="eth0"} 9.87654321e+09`)
	require.Contains(t, out, `walab_network_receive_drop_total{device="eth0"} 312`)
	require.Contains(t, out, `walab_network_transmit_drop_total{device="eth0"} 7`)
	require.NotContains(t, out, `device="lo"`)

	c, err = newNetworkCollector(Env{Paths: Paths{ProcFS: "testdata/network/proc"}, Config: hostConfig(t, "")})
	require.NoError(t, err)
	_, err = hostScrape(t, c)
	require.ErrorIs(t, err, ErrNoData)

	_, err = newNetworkCollector(Env{Config: hostConfig(t, "irq:\n  interfaces: [../eth0]\n")})
	require.ErrorContains(t, err, "not a plain name")
}

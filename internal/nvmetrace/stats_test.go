package nvmetrace

import (
	"errors"
	"os"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// The statistics switch works on this machine's kernel and turns off
// again; the counts it enables are read in the QEMU bench
// (TestQEMUTracerCost requires runs from a traced guest).
func TestEnableRunStats(t *testing.T) {
	c, err := EnableRunStats()
	if errors.Is(err, os.ErrPermission) || errors.Is(err, ebpf.ErrNotSupported) {
		testenv.Missing(t, "BPF statistics on this machine: %v", err)
	}
	require.NoError(t, err)
	require.NoError(t, c.Close())
}

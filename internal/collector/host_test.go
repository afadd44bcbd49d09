package collector

import (
	"fmt"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/hostapi"
	"github.com/walab/walab/internal/hostfacts"
)

// TestHostSeriesWorstCase: facts with every field and the most mounts the
// reader keeps make exactly hostSeriesBound series, none duplicated.
func TestHostSeriesWorstCase(t *testing.T) {
	f := hostapi.Facts{Hostname: "db", Kernel: "6.1.0", OS: "Debian", CPUModel: "Xeon", Governor: "performance", CPUs: 64, MemoryBytes: 1 << 40, NUMANodes: 2}
	yes, fill, avail := true, 0.65, uint64(1<<30)
	for i := range hostfacts.MaxMounts {
		f.Mounts = append(f.Mounts, hostapi.Mount{DataDir: "/data", MountPoint: fmt.Sprintf("/data/m%d", i), Source: "/dev/md0", FSType: "xfs",
			Disks: []string{"nvme0n1", "nvme1n1"}, Fill: &fill, AvailBytes: &avail, Aligned4K: &yes})
	}
	f.Mounts = append(f.Mounts, f.Mounts[0]) // reached twice: one set of series
	ch := make(chan prometheus.Metric, 2*hostSeriesBound)
	hostMetrics(f, ch)
	close(ch)
	n := 0
	for range ch {
		n++
	}
	require.Equal(t, hostSeriesBound, n)
}

// TestHostFactsOptions: data_dirs default to the filesystem paths; the
// irq interfaces and process names are the other sections'.
func TestHostFactsOptions(t *testing.T) {
	cfg, err := config.Parse([]byte("filesystem: {paths: [/data]}\nirq: {interfaces: [eth0]}\nprocess: {names: [mysqld]}\n"))
	require.NoError(t, err)
	o, err := HostFactsOptions(cfg, Paths{})
	require.NoError(t, err)
	require.Equal(t, []string{"/data"}, o.DataDirs)
	require.Equal(t, []string{"eth0"}, o.Interfaces)
	require.Equal(t, []string{"mysqld"}, o.Processes)
	require.Equal(t, "/proc", o.ProcFS)

	cfg, err = config.Parse([]byte("filesystem: {paths: [/data]}\nhost: {data_dirs: [/var/lib/mysql]}\n"))
	require.NoError(t, err)
	o, err = HostFactsOptions(cfg, Paths{})
	require.NoError(t, err)
	require.Equal(t, []string{"/var/lib/mysql"}, o.DataDirs)
	require.Equal(t, defaultProcessNames, o.Processes)

	for _, bad := range []string{"host: {data_dirs: [relative]}", "host: {dirs: [/x]}"} {
		cfg, err = config.Parse([]byte(bad))
		require.NoError(t, err)
		_, err = HostFactsOptions(cfg, Paths{})
		require.Error(t, err, bad)
	}
}

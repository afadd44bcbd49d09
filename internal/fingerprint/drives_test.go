package fingerprint

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

// seed001Metrics: three drives under md0 (nvme2 without a NAND counter,
// as PBlaze4's older log format gives none walab reads) and a system drive
// under no array.
const seed001Metrics = `# TYPE walab_nvme_info gauge
walab_nvme_info{device="nvme1",firmware="F",model="PBlaze4",serial="S1",simulated="false",source="ocp_c0"} 1
walab_nvme_info{device="nvme0",firmware="F",model="PBlaze4",serial="S0",simulated="false",source="ocp_c0"} 1
walab_nvme_info{device="nvme2",firmware="F",model="PBlaze4",serial="S2",simulated="false",source="none"} 1
walab_nvme_info{device="nvme3",firmware="G",model="S3520",serial="S3",simulated="false",source="ocp_c0"} 1
# TYPE walab_nvme_host_written_bytes_total counter
walab_nvme_host_written_bytes_total{device="nvme0",source="ocp_c0"} 100
walab_nvme_host_written_bytes_total{device="nvme1",source="ocp_c0"} 200
walab_nvme_host_written_bytes_total{device="nvme2",source="none"} 300
walab_nvme_host_written_bytes_total{device="nvme3",source="ocp_c0"} 400
# TYPE walab_nvme_media_written_bytes_total counter
walab_nvme_media_written_bytes_total{device="nvme0",source="ocp_c0"} 150
walab_nvme_media_written_bytes_total{device="nvme1",source="ocp_c0"} 260
walab_nvme_media_written_bytes_total{device="nvme3",source="ocp_c0"} 500
# TYPE walab_blockdev_leaf_info gauge
walab_blockdev_leaf_info{array="md0",controller="nvme0",device="nvme0n1"} 1
walab_blockdev_leaf_info{array="md0",controller="nvme1",device="nvme1n1"} 1
walab_blockdev_leaf_info{array="md0",controller="nvme2",device="nvme2n1"} 1
walab_blockdev_leaf_info{array="dm-0",controller="nvme0",device="nvme0n1"} 1
# TYPE walab_blockdev_io_size_bytes histogram
walab_blockdev_io_size_bytes_bucket{device="nvme1n1",op="write",le="4096"} 3
walab_blockdev_io_size_bytes_bucket{device="nvme1n1",op="write",le="16384"} 10
walab_blockdev_io_size_bytes_bucket{device="nvme1n1",op="write",le="+Inf"} 11
walab_blockdev_io_size_bytes_sum{device="nvme1n1",op="write"} 1.5e+06
walab_blockdev_io_size_bytes_count{device="nvme1n1",op="write"} 11
walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="4096"} 0
walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="16384"} 5
walab_blockdev_io_size_bytes_bucket{device="nvme0n1",op="read",le="+Inf"} 5
walab_blockdev_io_size_bytes_sum{device="nvme0n1",op="read"} 81920
walab_blockdev_io_size_bytes_count{device="nvme0n1",op="read"} 5
`

// TestReadDrives: every drive the exporter reports, in device order, with
// its counters (a missing one absent, not 0) and the arrays it is under.
func TestReadDrives(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(seed001Metrics))
	}))
	defer srv.Close()
	var f Fingerprint
	require.NoError(t, ReadPerDevice(context.Background(), srv.Client(), srv.URL, &f))
	ds := f.Drives
	require.Len(t, ds, 4)
	var devs []string
	for _, d := range ds {
		devs = append(devs, d.Device)
	}
	require.Equal(t, []string{"nvme0", "nvme1", "nvme2", "nvme3"}, devs)
	require.Equal(t, []string{"dm-0", "md0"}, ds[0].Arrays)
	require.Equal(t, []string{"md0"}, ds[2].Arrays)
	require.Empty(t, ds[3].Arrays, "the system drive is under no array")
	require.Equal(t, 150.0, *ds[0].MediaWrittenBytes)
	require.Equal(t, 300.0, *ds[2].HostWrittenBytes)
	require.Nil(t, ds[2].MediaWrittenBytes, "no NAND counter: absent")
	require.Equal(t, "S3", ds[3].Serial)

	// The request-size histograms, by device and operation; +Inf is Count.
	require.Equal(t, []IOSize{
		{Device: "nvme0n1", Op: "read", Bounds: []float64{4096, 16384}, Buckets: []uint64{0, 5}, Count: 5, Bytes: 81920},
		{Device: "nvme1n1", Op: "write", Bounds: []float64{4096, 16384}, Buckets: []uint64{3, 10}, Count: 11, Bytes: 1.5e6},
	}, f.IOSizes)
	for k := range f.Flatten() {
		require.NotContains(t, k, "io_sizes", "counters: in the report's own table, not the fingerprint's")
	}
}

// TestDrivesInDiff: the drives' counters move during any run and are no
// drift; another drive's firmware is, keyed by its device.
func TestDrivesInDiff(t *testing.T) {
	a, b := fp("2.1.0", "0", 1, 1), fp("2.1.0", "0", 1, 1)
	h1, h2 := 100.0, 900.0
	a.Drives = []Drive{{Device: "nvme1", Firmware: "F", HostWrittenBytes: &h1, Arrays: []string{"md0"}}}
	b.Drives = []Drive{{Device: "nvme1", Firmware: "F", HostWrittenBytes: &h2, Arrays: []string{"md0"}}}
	require.Empty(t, Diff(a, b))
	b.Drives[0].Firmware = "G"
	d := Diff(a, b)
	require.Len(t, d, 1)
	require.Equal(t, "drives.nvme1.firmware", d[0].Key)
	require.Equal(t, b.Drives, b.AllDrives())
	b.Drives = nil
	require.Equal(t, []Drive{*b.Drive}, b.AllDrives(), "a fingerprint without the list names its one drive")
}

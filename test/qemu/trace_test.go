//go:build linux

package qemu

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvmetrace"
)

// traceSteps: tracefs mounted, the exporter serving with the placement
// tracer and the I/O-size tracer on; a scrape before any write, then 4 MiB of plain direct writes
// (no directive), 24 writes naming placement handle 5 (data placement) and
// 8 naming stream 3 through the I/O passthrough ioctl, and a scrape after.
// Around it, the tracer's cost: 4 KiB direct writes timed without the
// tracer, with it, and without it again.
const traceSteps = `ip link set lo up
mount -t tracefs nodev /sys/kernel/tracing
cp /sys/kernel/tracing/events/nvme/nvme_setup_cmd/format /out/nvme_setup_cmd.format
cp /sys/kernel/tracing/events/block/block_bio_queue/format /out/block_bio_queue.format
bench() {
	s=$(cut -d' ' -f1 /proc/uptime)
	dd if=/dev/zero of=/dev/nvme0n1 bs=4k count=3000 seek=4096 oflag=direct 2>/dev/null || return 1
	echo "$s $(cut -d' ' -f1 /proc/uptime)" > /out/$1
}
step bench_off1 bench dd-off1.txt
/exporter --web.listen-address=127.0.0.1:10131 --collector.placement_trace --collector.io_size --no-collector.innodb --no-collector.irq > /out/serve.log 2>&1 &
pid=$!
step scrape1 scrape metrics1.txt
step dd dd if=/dev/urandom of=/dev/nvme0n1 bs=1M count=4 iflag=fullblock oflag=direct
step fdp /placewrite -dev /dev/nvme0n1 -nsid 1 -dtype 2 -dspec 5 -n 24 -slba 100000
step streams /placewrite -dev /dev/nvme0n1 -nsid 1 -dtype 1 -dspec 3 -n 8 -slba 110000
step scrape2 scrape metrics2.txt
step bench_on bench dd-on.txt
kill $pid
sleep 1
step bench_off2 bench dd-off2.txt`

// TestQEMUPlacementTrace runs the exporter's BPF tracer in the guest on the
// kernel's real nvme:nvme_setup_cmd tracepoint: the Write commands it
// counts are exactly those the guest sent, split by the directive and id
// they carried, and their bytes are blocks x 512.
func TestQEMUPlacementTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	out, _ := bootGuest(t, traceSteps, []Controller{{Serial: "walabt001", DiskMiB: 64}},
		[]string{"nvme"}, []string{"crct10dif_generic", "crc64_rocksoft_generic"}, "./placewrite")
	requireSteps(t, out, "bench_off1", "scrape1", "dd", "fdp", "streams", "scrape2", "bench_on", "bench_off2")
	secs := func(name string) float64 {
		f := strings.Fields(string(mustRead(t, filepath.Join(out, name))))
		require.Len(t, f, 2, name)
		a, err := strconv.ParseFloat(f[0], 64)
		require.NoError(t, err)
		b, err := strconv.ParseFloat(f[1], 64)
		require.NoError(t, err)
		return b - a
	}
	off := (secs("dd-off1.txt") + secs("dd-off2.txt")) / 2
	t.Logf("3000 direct 4 KiB writes under TCG: %.3f s without the tracer, %.3f s with it (ratio %.3f)", off, secs("dd-on.txt"), secs("dd-on.txt")/off)
	t.Logf("serve log:\n%s", Tail(string(mustRead(t, filepath.Join(out, "serve.log"))), 1500))

	t.Run("the kernel's format file is committed and lays out the fields as the tracer's fixture", func(t *testing.T) {
		got := mustRead(t, filepath.Join(out, "nvme_setup_cmd.format"))
		// The event ID depends on the boot; the fields must not.
		strip := func(b []byte) string {
			var keep []string
			for _, l := range strings.Split(string(b), "\n") {
				if !strings.HasPrefix(l, "ID:") {
					keep = append(keep, l)
				}
			}
			return strings.Join(keep, "\n")
		}
		// The guest kernel's own format (Debian's 6.12; its print fmt and
		// the signedness of disk[] differ from 6.1's) ...
		require.Equal(t, strip(mustRead(t, "testdata/nvme_setup_cmd-6.12.format")), strip(got))
		// ... puts the fields the BPF program reads where the tracer's unit
		// tests (their fixture is 6.1's) expect them.
		layout := func(b []byte) nvmetrace.Layout {
			fields, err := nvmetrace.ParseFormat(string(b))
			require.NoError(t, err)
			l, err := nvmetrace.LayoutOf(fields)
			require.NoError(t, err)
			return l
		}
		require.Equal(t, layout(mustRead(t, "../../internal/nvmetrace/testdata/nvme_setup_cmd.format")), layout(got))
	})

	m1 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics1.txt")))
	m2 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics2.txt")))
	require.Equal(t, 1.0, series(m2["walab_placement_trace_up"])["walab_placement_trace_up{}"], "the tracer runs in the guest")
	cmds1, cmds2 := series(m1["walab_nvme_write_commands_total"]), series(m2["walab_nvme_write_commands_total"])
	bytes2 := series(m2["walab_nvme_write_bytes_total"])
	delta := func(k string) float64 { return cmds2[k] - cmds1[k] }
	t.Logf("write commands: %v", cmds2)

	fdp := "walab_nvme_write_commands_total{device=nvme0,directive=data_placement,placement_id=5}"
	streams := "walab_nvme_write_commands_total{device=nvme0,directive=streams,placement_id=3}"
	none := "walab_nvme_write_commands_total{device=nvme0,directive=none,placement_id=none}"
	require.Equal(t, 24.0, delta(fdp), "every placement-handle write, once")
	require.Equal(t, 8.0, delta(streams), "every stream write, once")
	require.Equal(t, 24.0*512, bytes2[strings.Replace(fdp, "commands", "bytes", 1)], "one 512-byte block each")
	// dd's 4 MiB of direct writes: the block layer splits them into
	// commands of at most max_hw_sectors; together they are 4 MiB.
	require.GreaterOrEqual(t, delta(none), 4.0)
	noneBytes := strings.Replace(none, "commands", "bytes", 1)
	require.Equal(t, float64(4<<20), bytes2[noneBytes]-series(m1["walab_nvme_write_bytes_total"])[noneBytes],
		fmt.Sprintf("plain writes: %v", bytes2))

	t.Run("the I/O-size tracer counts dd's 4 MiB as writes to nvme0n1", func(t *testing.T) {
		// The guest kernel's block_bio_queue lays out the fields the
		// program reads.
		fields, err := nvmetrace.ParseFormat(string(mustRead(t, filepath.Join(out, "block_bio_queue.format"))))
		require.NoError(t, err)
		_, err = nvmetrace.BlockLayoutOf(fields)
		require.NoError(t, err)
		require.Equal(t, 1.0, series(m2["walab_io_size_trace_up"])["walab_io_size_trace_up{}"], "the I/O-size tracer runs in the guest")
		// Under native multipath the driver's requests go to the hidden
		// path disk nvme0c0n1; the bios are counted at nvme0n1, the head.
		writes := func(m map[string]*dto.MetricFamily) (sum, count float64) {
			for _, x := range m["walab_blockdev_io_size_bytes"].GetMetric() {
				l := map[string]string{}
				for _, p := range x.GetLabel() {
					l[p.GetName()] = p.GetValue()
				}
				if l["device"] == "nvme0n1" && l["op"] == "write" {
					return x.GetHistogram().GetSampleSum(), float64(x.GetHistogram().GetSampleCount())
				}
			}
			return 0, 0
		}
		sum1, count1 := writes(m1)
		sum2, count2 := writes(m2)
		t.Logf("nvme0n1 write I/Os: %.0f, %.0f bytes after; %.0f, %.0f before", count2, sum2, count1, sum1)
		require.Equal(t, float64(4<<20), sum2-sum1, "dd's 4 MiB; the passthrough writes are no bios")
		require.GreaterOrEqual(t, count2-count1, 4.0, "at most 1 MiB a bio")
	})
}

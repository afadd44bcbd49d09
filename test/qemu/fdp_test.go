//go:build linux

package qemu

import (
	"encoding/binary"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/decode"
)

// The FDP drive of TestQEMUFDP, as its QEMU command line configures it:
// reclaim units of 2 MiB in 2 reclaim groups behind 8 reclaim unit handles;
// namespace 1 names handles 1, 3 and 5 (its placement handles 0, 1, 2),
// namespace 2 names none, so the controller assigns it the first unused
// handle, 0. A second controller, plain, offers the OCP 0xC0 log.
var (
	fdpDrive = Controller{Serial: "walabf001", FDP: &FDP{RUSize: 2 << 20, Groups: 2, Handles: 8},
		Namespaces: []Namespace{{DiskMiB: 32, Handles: "1;3;5"}, {DiskMiB: 16}}}
	ocpDrive = Controller{Serial: "walabo001", DiskMiB: 16, OCP: true}
)

// What the guest writes to the FDP drive (fdpSteps), and what QEMU must
// make of it. A placement identifier (PID) is the reclaim group in its top
// RGIF bits and the placement handle below; QEMU derives RGIF from the
// group count (2 groups: 2 bits), so PID 0x4002 is group 1, handle 2.
const (
	fdpDDBytes    = 1 << 20   // dd to namespace 1: no directive, placement handle 0 (handle 1)
	fdpNS2Bytes   = 512 << 10 // dd to namespace 2: its controller-assigned handle 0
	fdpPH1Writes  = 24        // placement handle 1 (handle 3), group 0, one 512-byte block each
	fdpPH2Writes  = 8         // placement handle 2 (handle 5), group 0
	fdpPIDRG1     = 0x4002    // placement handle 2, group 1
	fdpRG1Writes  = 4
	fdpLBA        = 512
	fdpHostBytes  = fdpDDBytes + fdpNS2Bytes + (fdpPH1Writes+fdpPH2Writes+fdpRG1Writes)*fdpLBA
	fdpRUHUpdated = 1 // the PID whose reclaim unit the guest ends early (I/O Management Send)
	// QEMU counts an early end as media written: the reclaim unit's
	// remaining capacity, 2 MiB less the 24 blocks written to it.
	fdpMediaBytes = fdpHostBytes + 2<<20 - fdpPH1Writes*fdpLBA
)

// fdpSteps: the exporter serves with the placement tracer on; a scrape and
// a capture before any write; FDP events enabled on placement handle 1;
// plain writes with dd, placement-handle writes through the I/O
// passthrough ioctl, one reclaim unit ended early; then a capture, the
// second path's raw reads (fdpctl) and a last scrape.
var fdpSteps = fmt.Sprintf(`ip link set lo up
mount -t tracefs nodev /sys/kernel/tracing
for c in $(ls /sys/class/nvme); do
	read -r s < /sys/class/nvme/$c/serial
	[ "$s" = walabf001 ] && fdp=$c
	[ "$s" = walabo001 ] && ocp=$c
done
echo "$fdp $ocp" > /out/ctrls
ns1=$(nsdev walabf001 1) && ns2=$(nsdev walabf001 2) && ons=$(nsdev walabo001 1)
echo "$ns1 $ns2 $ons" > /out/namespaces
/exporter --web.listen-address=127.0.0.1:10131 --nvme.cache-max-age=200ms --collector.placement_trace --no-collector.innodb --no-collector.irq > /out/serve.log 2>&1 &
pid=$!
step scrape1 scrape metrics1.txt
step capture1 /exporter capture --out /out/1
step events /fdpctl events -dev /dev/$fdp -nsid 1 -ph 1 -types 0
step dd dd if=/dev/urandom of=/dev/$ns1 bs=%d count=1 iflag=fullblock oflag=direct
step dd_ns2 dd if=/dev/urandom of=/dev/$ns2 bs=%d count=1 iflag=fullblock oflag=direct
step ph1 /placewrite -strict -dev /dev/$ns1 -nsid 1 -dtype 2 -dspec 1 -n %d -slba 8192
step ph2 /placewrite -strict -dev /dev/$ns1 -nsid 1 -dtype 2 -dspec 2 -n %d -slba 9000
step rg1 /placewrite -strict -dev /dev/$ns1 -nsid 1 -dtype 2 -dspec %d -n %d -slba 10000
step ruh_update /fdpctl ruh-update -dev /dev/$ns1 -nsid 1 -pids %d
step dd_ocp dd if=/dev/urandom of=/dev/$ons bs=1M count=1 iflag=fullblock oflag=direct
step sync sync
step capture2 /exporter capture --out /out/2
mkdir /out/raw
step raw20 /fdpctl log -dev /dev/$fdp -lid 0x20 -lsi 1 -sized 4 -out /out/raw/log-20.bin
step raw21 /fdpctl log -dev /dev/$fdp -lid 0x21 -lsi 1 -count 0 -each 8 -len 8 -out /out/raw/log-21.bin
step raw22 /fdpctl log -dev /dev/$fdp -lid 0x22 -lsi 1 -len 64 -out /out/raw/log-22.bin
step raw23 /fdpctl log -dev /dev/$fdp -lid 0x23 -lsp 1 -lsi 1 -count 0 -each 64 -len 64 -out /out/raw/log-23-host.bin
step raw23c /fdpctl log -dev /dev/$fdp -lid 0x23 -lsp 0 -lsi 1 -count 0 -each 64 -len 64 -out /out/raw/log-23-ctrl.bin
step feat1d /fdpctl feature -dev /dev/$fdp -fid 0x1d -cdw11 1 -out /out/raw/feature-1d.txt
step ruhs /fdpctl ruh-status -dev /dev/$ns1 -nsid 1 -len 4096 -out /out/raw/ruh-status.bin
step rawc0 /fdpctl log -dev /dev/$ocp -lid 0xc0 -nsid 0xffffffff -len 512 -out /out/raw/log-c0.bin
step scrape2 scrape metrics2.txt
kill $pid`, fdpDDBytes, fdpNS2Bytes, fdpPH1Writes, fdpPH2Writes, fdpPIDRG1, fdpRG1Writes, fdpRUHUpdated)

// TestQEMUFDP checks walab's FDP reading against QEMU 10's emulated FDP
// drive (hw/nvme, written by QEMU's maintainers from TP4146, not by walab)
// through a real kernel: the exporter reads the pages through the admin
// ioctl; fdpctl reads the same pages through its own ioctl code; the
// placement tracer sees the writes on the kernel's tracepoint.
func TestQEMUFDP(t *testing.T) {
	if testing.Short() {
		t.Skip("boots a VM (about a minute under TCG)")
	}
	out, _ := bootGuest(t, fdpSteps, []Controller{fdpDrive, ocpDrive},
		[]string{"nvme"}, []string{"crct10dif_generic", "crc64_rocksoft_generic"}, "./placewrite", "./fdpctl")
	requireSteps(t, out, "scrape1", "capture1", "events", "dd", "dd_ns2", "ph1", "ph2", "rg1", "ruh_update", "dd_ocp",
		"sync", "capture2", "raw20", "raw21", "raw22", "raw23", "raw23c", "feat1d", "ruhs", "rawc0", "scrape2")
	names := strings.Fields(string(mustRead(t, filepath.Join(out, "ctrls"))))
	require.Len(t, names, 2, "both controllers found by serial")
	fdp, ocp := names[0], names[1]
	raw := func(name string) []byte { return mustRead(t, filepath.Join(out, "raw", name)) }
	m1 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics1.txt")))
	m2 := parseMetrics(t, mustRead(t, filepath.Join(out, "metrics2.txt")))
	get := func(t *testing.T, family, labels string) float64 {
		t.Helper()
		s := series(m2[family])
		v, ok := s[family+"{"+labels+"}"]
		require.True(t, ok, "%s{%s} absent; have %v", family, labels, s)
		return v
	}

	requireInfo := func(t *testing.T, dev, serial, source string) {
		t.Helper()
		for k := range series(m2["walab_nvme_info"]) {
			if strings.HasPrefix(k, "walab_nvme_info{device="+dev+",") {
				require.Contains(t, k, ",serial="+serial+",", k)
				require.Contains(t, k, ",source="+source+",", k)
				return
			}
		}
		t.Fatalf("no walab_nvme_info for %s", dev)
	}

	t.Run("QEMU's pages, read by fdpctl, hold what its command line configured", func(t *testing.T) {
		requireQEMUPages(t, raw)
	})

	t.Run("walab picks the fdp source and its bytes are QEMU's 0x22", func(t *testing.T) {
		requireInfo(t, fdp, "walabf001", "fdp")
		st, err := decode.ParseFDPStats(raw("log-22.bin"))
		require.NoError(t, err)
		t.Logf("QEMU 0x22 read by fdpctl: host %v, media %v, erased %v bytes", st.HostBytesWithMetadataWritten, st.MediaBytesWithMetadataWritten, st.MediaBytesErased)
		require.Equal(t, raw("log-22.bin"), mustRead(t, filepath.Join(out, "2", fdp, "log-22-lsi1.bin")), "walab's capture holds the same page")
		require.Equal(t, st.HostBytesWithMetadataWritten.Float64(), get(t, "walab_nvme_host_written_bytes_total", "device="+fdp+",source=fdp"))
		require.Equal(t, st.MediaBytesWithMetadataWritten.Float64(), get(t, "walab_nvme_media_written_bytes_total", "device="+fdp+",source=fdp"))
		before, err := decode.ParseFDPStats(mustRead(t, filepath.Join(out, "1", fdp, "log-22-lsi1.bin")))
		require.NoError(t, err)
		require.Equal(t, decode.FDPStats{}, before, "nothing written before the first capture")
	})

	t.Run("configuration and handle usage series match the command line", func(t *testing.T) {
		for _, c := range []struct {
			family, labels string
			want           float64
		}{
			{"walab_nvme_fdp_supported", "", 1},
			{"walab_nvme_fdp_enabled", "", 1},
			{"walab_nvme_fdp_reclaim_unit_handles", "", float64(fdpDrive.FDP.Handles)},
			{"walab_nvme_fdp_reclaim_unit_size_bytes", "", float64(fdpDrive.FDP.RUSize)},
			{"walab_nvme_fdp_reclaim_unit_handles_used", "by=host,", 3},       // 1;3;5 of namespace 1
			{"walab_nvme_fdp_reclaim_unit_handles_used", "by=controller,", 1}, // namespace 2's
		} {
			require.Equal(t, c.want, get(t, c.family, c.labels+"device="+fdp), c.family+c.labels)
		}
		require.Equal(t, 0.0, get(t, "walab_nvme_fdp_supported", "device="+ocp), "the OCP drive has no FDP")
		for _, page := range []string{"log-20", "log-21"} {
			require.Equal(t, raw(page+".bin"), mustRead(t, filepath.Join(out, "2", fdp, page+"-lsi1.bin")), "walab's capture of %s", page)
		}
		require.Equal(t, string(raw("feature-1d.txt")), fmt.Sprintf("0x%08x\n", binary.LittleEndian.Uint32(mustRead(t, filepath.Join(out, "2", fdp, "feat-1d.bin")))), "walab's capture of Get Features 0x1D")
	})

	t.Run("walab's 0x23 series are the events fdpctl read", func(t *testing.T) {
		want := map[string]float64{}
		var newest float64
		for _, name := range []string{"log-23-host.bin", "log-23-ctrl.bin"} {
			ev, err := decode.ParseFDPEvents(raw(name))
			require.NoError(t, err, name)
			for _, e := range ev.Events {
				want[e.Type.Name()]++
				if e.Timestamp.WallClock() {
					newest = max(newest, float64(e.Timestamp.Millis)/1000)
				}
			}
		}
		require.Equal(t, map[string]float64{"ru_not_fully_written": 1}, want, "what QEMU logged")
		for _, typ := range decode.FDPEventTypeNames() {
			require.Equal(t, want[typ], get(t, "walab_nvme_fdp_events", "device="+fdp+",type="+typ), typ)
			v, ok := series(m1["walab_nvme_fdp_events"])["walab_nvme_fdp_events{device="+fdp+",type="+typ+"}"]
			require.True(t, ok && v == 0, "%s before events were enabled: %v %v", typ, v, ok)
		}
		require.Equal(t, newest, get(t, "walab_nvme_fdp_event_newest_timestamp_seconds", "device="+fdp))
		t.Logf("QEMU 0x23 read by fdpctl: %v, newest at %.3f; walab: ru_not_fully_written %v, newest %.3f", want, newest,
			get(t, "walab_nvme_fdp_events", "device="+fdp+",type=ru_not_fully_written"), get(t, "walab_nvme_fdp_event_newest_timestamp_seconds", "device="+fdp))
		require.NotContains(t, series(m1["walab_nvme_fdp_event_newest_timestamp_seconds"]), "walab_nvme_fdp_event_newest_timestamp_seconds{device="+fdp+"}", "no event, no timestamp")
		for raw23, captured := range map[string]string{"log-23-host.bin": "log-23-lsi1-lsp1.bin", "log-23-ctrl.bin": "log-23-lsi1.bin"} {
			a, err := decode.ParseFDPEvents(raw(raw23))
			require.NoError(t, err)
			b, err := decode.ParseFDPEvents(mustRead(t, filepath.Join(out, "2", fdp, captured)))
			require.NoError(t, err, captured)
			require.Equal(t, a, b, "walab's capture %s holds fdpctl's %s", captured, raw23)
		}
		for _, typ := range decode.FDPEventTypeNames() {
			_, ok := series(m2["walab_nvme_fdp_events"])["walab_nvme_fdp_events{device="+ocp+",type="+typ+"}"]
			require.False(t, ok, "the OCP drive has no FDP: no events series")
		}
	})

	t.Run("the placement tracer counts the same commands by placement id", func(t *testing.T) {
		w1, w2 := series(m1["walab_nvme_write_commands_total"]), series(m2["walab_nvme_write_commands_total"])
		b2 := series(m2["walab_nvme_write_bytes_total"])
		dp := func(id string) string {
			return "walab_nvme_write_commands_total{device=" + fdp + ",directive=data_placement,placement_id=" + id + "}"
		}
		for id, n := range map[string]float64{"1": fdpPH1Writes, "2": fdpPH2Writes, fmt.Sprint(fdpPIDRG1): fdpRG1Writes} {
			require.Equal(t, n, w2[dp(id)]-w1[dp(id)], "placement id %s: %v", id, w2)
			require.Equal(t, n*fdpLBA, b2[strings.Replace(dp(id), "commands", "bytes", 1)], id)
		}
		var traced float64
		for k, v := range b2 {
			if strings.Contains(k, "{device="+fdp+",") {
				traced += v - series(m1["walab_nvme_write_bytes_total"])[k]
			}
		}
		require.Equal(t, float64(fdpHostBytes), traced, "the kernel sent what QEMU counted as host bytes")
	})

	t.Run("the OCP drive: walab's ocp_c0 source reads QEMU's 0xC0", func(t *testing.T) {
		requireInfo(t, ocp, "walabo001", "ocp_c0")
		o, err := decode.ParseOCPSmartExtended(raw("log-c0.bin"))
		require.NoError(t, err)
		require.Equal(t, raw("log-c0.bin"), mustRead(t, filepath.Join(out, "2", ocp, "log-c0.bin")))
		require.Equal(t, o.PhysicalMediaUnitsWritten.Float64(), get(t, "walab_nvme_media_written_bytes_total", "device="+ocp+",source=ocp_c0"))
	})
}

// TestQEMUFDPPages checks walab's decoders on the pages QEMU 10.0.2 returned
// in a run of TestQEMUFDP, kept in testdata/qemu10-fdp: the checks the live
// test makes, without a VM.
func TestQEMUFDPPages(t *testing.T) {
	requireQEMUPages(t, func(name string) []byte { return mustRead(t, filepath.Join("testdata", "qemu10-fdp", name)) })
}

// requireQEMUPages decodes QEMU's FDP and OCP pages (as fdpctl wrote them)
// with walab's decoders and checks them against fdpDrive, ocpDrive and what
// fdpSteps wrote.
func requireQEMUPages(t *testing.T, page func(name string) []byte) {
	t.Helper()
	st, err := decode.ParseFDPStats(page("log-22.bin"))
	require.NoError(t, err)
	require.Equal(t, decode.U128{Lo: fdpHostBytes}, st.HostBytesWithMetadataWritten, "every byte the guest wrote, metadata none")
	require.Equal(t, decode.U128{Lo: fdpMediaBytes}, st.MediaBytesWithMetadataWritten, "host bytes plus the early-ended unit's rest")
	require.Equal(t, decode.U128{}, st.MediaBytesErased, "QEMU never erases")

	cfgs, err := decode.ParseFDPConfigs(page("log-20.bin"))
	require.NoError(t, err)
	require.Len(t, cfgs.Configs, 1)
	c := cfgs.Configs[0]
	require.True(t, c.Valid)
	require.Equal(t, fdpDrive.FDP.Groups, c.NRG)
	require.Equal(t, fdpDrive.FDP.Handles, c.NRUH)
	require.Equal(t, uint64(fdpDrive.FDP.RUSize), c.ReclaimUnitNominalSize)
	require.Equal(t, uint8(2), c.RGIF, "QEMU: the bit length of the group count 2")
	require.Equal(t, []uint8{1, 1, 1, 1, 1, 1, 1, 1}, c.RUHTypes, "every handle initially isolated")
	usage, err := decode.ParseRUHUsage(page("log-21.bin"))
	require.NoError(t, err)
	require.Equal(t, []uint8{2, 1, 0, 1, 0, 1, 0, 0}, usage.Attributes, "handle 0 controller-specified; 1, 3, 5 host-specified")
	require.Equal(t, "0x00000001\n", string(page("feature-1d.txt")), "Get Features 0x1D: enabled, configuration 0")

	host, err := decode.ParseFDPEvents(page("log-23-host.bin"))
	require.NoError(t, err)
	require.Len(t, host.Events, 1, "one host event: the reclaim unit ended early")
	ev := host.Events[0]
	require.Equal(t, decode.FDPEventRUNotFullyWritten, ev.Type)
	require.Equal(t, uint8(0x07), ev.Flags, "flags: PID, NSID and location valid")
	require.Equal(t, uint16(fdpRUHUpdated), ev.PID)
	require.Equal(t, uint32(1), ev.NSID)
	require.Equal(t, uint16(0), ev.RGID, "reclaim group")
	require.Equal(t, uint8(3), ev.RUHID, "reclaim unit handle 3: namespace 1's placement handle 1")
	require.True(t, ev.Timestamp.WallClock(), "origin 1: the guest kernel set the controller's clock (Set Features Timestamp)")
	ctrl, err := decode.ParseFDPEvents(page("log-23-ctrl.bin"))
	require.NoError(t, err)
	require.Empty(t, ctrl.Events, "no controller events")

	o, err := decode.ParseOCPSmartExtended(page("log-c0.bin"))
	require.NoError(t, err)
	require.Equal(t, decode.U128{Lo: 1 << 20}, o.PhysicalMediaUnitsWritten, "QEMU: the bytes written, no NAND model")
}

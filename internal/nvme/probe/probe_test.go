package probe

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
)

func u(v uint64) decode.U128 { return decode.U128From(v) }

func openDrive(t *testing.T, d fixture.Drive) *admin.Device {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, d.Write(dir))
	dev, err := replay.Open("nvme0", dir)
	require.NoError(t, err)
	return dev
}

func TestProbeOrder(t *testing.T) {
	smartHost := u(2_000_000 * 512000)
	ocpOnHuawei := fixture.Seed000Drive()
	ocpOnHuawei.Seed000 = &fixture.Seed000{Host4K: 250_000_000, GC4K: 125_000_000, WithOCPGUID: true}

	// WDC's extended SMART page at 0xC0 carries its own GUID: on a drive
	// of another vendor it is nobody's page; on a WDC drive it is
	// wdc_c0_ext; a WDC drive with the OCP GUID there is OCP.
	notOCP := fixture.OCPDrive()
	wdcGUID := decode.WDCExtSmartGUID
	notOCP.OCP.GUID = &wdcGUID
	wdc := notOCP
	wdc.VID = 0x1B96
	wdcOCP := fixture.OCPDrive()
	wdcOCP.VID = 0x1B96

	intel := fixture.SMARTOnlyDrive()
	intel.IntelCA = &fixture.IntelCA{NAND: 300, Host: 200}

	// Seed 001's drive family: Memblaze (VID 0x1C5F) with the 0xCA page in
	// the items nvme-cli's plugin calls Intel format (NAND 0xF4, host 0xF5 at
	// indexes 11 and 12), with seed 001's 74,284 vs 48,915 as counts.
	memblaze := fixture.SMARTOnlyDrive()
	memblaze.VID, memblaze.Model = 0x1C5F, "PBlaze4 3.2T"
	memblaze.IntelCA = &fixture.IntelCA{NAND: 74284, Host: 48915}

	// Memblaze's older page (a model nvme-cli sorts before P5920): NAND at
	// item 0 and host at item 8 in GiB, read by memblaze_ca_old; the new
	// layout, which would find the host item only, does not claim it.
	memblazeOld := fixture.SMARTOnlyDrive()
	memblazeOld.VID, memblazeOld.Model = 0x1C5F, "P4920DT0320M00"
	memblazeOld.Vendor = &fixture.Vendor{Layout: "memblaze_ca_old", Counts: map[string]uint64{decode.MeaningMediaWritten: 66780, decode.MeaningHostWritten: 44447}}

	// YMTC and Shannon Systems: pages built from their layouts alone (the
	// fixture a new drive family needs), read by item position.
	counts := map[string]uint64{decode.MeaningMediaWritten: 300, decode.MeaningHostWritten: 200}
	ymtc := fixture.SMARTOnlyDrive()
	ymtc.VID, ymtc.Model = 0x1E49, "ZHITAI PC005"
	ymtc.Vendor = &fixture.Vendor{Layout: "ymtc_ca", Counts: counts}
	shannon := fixture.SMARTOnlyDrive()
	shannon.VID, shannon.Model = 0x1CB0, "SHANNON DIRECT-IO"
	shannon.Vendor = &fixture.Vendor{Layout: "shannon_ca", Counts: counts}

	huaweiWithEG := fixture.Seed000Drive()
	huaweiWithEG.CTRATT = fixture.CTRATTEnduranceGroups
	huaweiWithEG.ENDGIDMAX = 1
	huaweiWithEG.Endurance = &fixture.Endurance{DUW: 1, MUW: 2}

	tests := []struct {
		name      string
		drive     fixture.Drive
		cfg       Config
		source    string
		host      decode.U128
		media     *decode.U128
		gc        *decode.U128
		errSubstr string
	}{
		{name: "fdp", drive: fixture.FDPDrive(), source: SourceFDP, host: u(1_000_000_000_000), media: ptr(u(1_500_000_000_000))},
		{name: "fdp supported but disabled falls to the endurance group", drive: func() fixture.Drive {
			d := fixture.FDPDrive()
			d.FDP.Disabled = true
			return d
		}(), source: SourceEnduranceGroup, host: u(1000 * 1e9), media: ptr(u(1500 * 1e9))},
		{name: "fdp without the FDP feature is judged by its log", drive: func() fixture.Drive {
			d := fixture.FDPDrive()
			d.FDP.NoFeature = true
			return d
		}(), source: SourceFDP, host: u(1_000_000_000_000), media: ptr(u(1_500_000_000_000))},
		{name: "ocp", drive: fixture.OCPDrive(), source: SourceOCP, host: smartHost, media: ptr(u(2_048_000_000_000))},
		{name: "seed000 vendor layout on VID 0x19E5", drive: fixture.Seed000Drive(), source: "seed000_c0",
			host: u(250_000_000 * 4096), media: ptr(u(375_000_000 * 4096)), gc: ptr(u(125_000_000 * 4096))},
		{name: "intel 0xCA key/value items", drive: intel, source: "intel_ca", host: u(200 * 32 << 20), media: ptr(u(300 * 32 << 20))},
		{name: "memblaze 0xCA (seed 001's PBlaze)", drive: memblaze, source: "memblaze_ca", host: u(48915 * 32 << 20), media: ptr(u(74284 * 32 << 20))},
		{name: "memblaze 0xCA, older format", drive: memblazeOld, source: "memblaze_ca_old", host: u(44447 << 30), media: ptr(u(66780 << 30))},
		{name: "ymtc 0xCA by position", drive: ymtc, source: "ymtc_ca", host: u(200 * 32 << 20), media: ptr(u(300 * 32 << 20))},
		{name: "shannon 0xCA by position", drive: shannon, source: "shannon_ca", host: u(200 * 512), media: ptr(u(300 * 512))},
		{name: "endurance group only", drive: fixture.EnduranceDrive(), source: SourceEnduranceGroup, host: u(1024 * 1e9), media: ptr(u(2048 * 1e9))},
		{name: "smart only", drive: fixture.SMARTOnlyDrive(), source: SourceNone, host: smartHost},
		{name: "OCP GUID at 0xC0 on a 0x19E5 drive is OCP, never seed000", drive: ocpOnHuawei, source: SourceOCP, host: smartHost, media: ptr(u(0))},
		{name: "OCP GUID on a 0x19E5 drive refused when seed000 is forced", drive: ocpOnHuawei,
			cfg: Config{Source: "seed000_c0"}, errSubstr: "refuses"},
		{name: "wrong GUID at 0xC0 is not OCP", drive: notOCP, source: SourceNone, host: smartHost},
		{name: "wdc extended SMART by its GUID", drive: wdc, source: "wdc_c0_ext", host: smartHost, media: ptr(u(2_048_000_000_000))},
		{name: "OCP GUID on a WDC drive is OCP", drive: wdcOCP, source: SourceOCP, host: smartHost, media: ptr(u(2_048_000_000_000))},
		{name: "vendor page falls through to endurance group when GUID says OCP", drive: func() fixture.Drive {
			d := huaweiWithEG
			d.Seed000 = &fixture.Seed000{WithOCPGUID: true}
			d.Seed000.Host4K = 1
			return d
		}(), cfg: Config{Devices: map[string]DeviceConfig{"nvme0": {Source: SourceEnduranceGroup}}}, source: SourceEnduranceGroup, host: u(1e9), media: ptr(u(2e9))},
		{name: "config override picks endurance group over FDP", drive: fixture.FDPDrive(),
			cfg: Config{Devices: map[string]DeviceConfig{"nvme0": {Source: SourceEnduranceGroup}}}, source: SourceEnduranceGroup, host: u(1000 * 1e9), media: ptr(u(1500 * 1e9))},
		{name: "config override none", drive: fixture.OCPDrive(), cfg: Config{Source: SourceNone}, source: SourceNone, host: smartHost},
		{name: "config override to an absent page fails clearly", drive: fixture.SMARTOnlyDrive(), cfg: Config{Source: SourceFDP}, errSubstr: `configured source "fdp" is not usable`},
		{name: "user layout matched before built-in", drive: fixture.Seed000Drive(), cfg: Config{Layouts: []decode.Layout{{
			Name: "acme_c0", LogID: 0xC0, Length: 512, Match: decode.Match{VID: []uint16{0x19E5}},
			Fields: []decode.Field{{Meaning: decode.MeaningMediaWritten, Offset: 0x1D0, Width: 8, UnitBytes: 1}},
		}}}, source: "acme_c0", host: smartHost, media: ptr(u(125_000_000))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.NoError(t, tt.cfg.Validate())
			dev := openDrive(t, tt.drive)
			r := &Reader{Dev: dev}
			plan, err := Probe(context.Background(), r, []uint32{1}, tt.cfg)
			if tt.errSubstr != "" {
				require.ErrorContains(t, err, tt.errSubstr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.source, plan.Source)
			// Every vendor layout here (built-in, or configured without
			// unit_confirmed) has an unconfirmed unit; the standard sources'
			// units are the specification's.
			vendor := !slices.Contains([]string{SourceFDP, SourceOCP, SourceEnduranceGroup, SourceNone}, plan.Source)
			require.Equal(t, vendor, plan.UnitUnconfirmed, "unit of %s", plan.Source)
			s, err := Poll(context.Background(), r, plan, time.Unix(1, 0))
			require.NoError(t, err)
			require.Equal(t, tt.source, s.Source)
			require.Equal(t, tt.host, s.HostBytes)
			require.Equal(t, tt.media, s.MediaBytes)
			require.Equal(t, tt.gc, s.GCBytes)
			require.Equal(t, smartHost, s.SMARTHostBytes)
		})
	}
}

func ptr(v decode.U128) *decode.U128 { return &v }

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		yaml string
		err  string
	}{
		{name: "empty", yaml: ``},
		{name: "default and per device", yaml: "nvme:\n  source: ocp_c0\n  devices:\n    nvme1: {source: seed000_c0}\n"},
		{name: "unknown source", yaml: "nvme:\n  source: magic\n", err: `unknown source "magic"`},
		{name: "unknown key", yaml: "nvme:\n  sourec: fdp\n", err: "sourec"},
		{name: "bad layout", yaml: "nvme:\n  layouts:\n    - name: x\n      log_id: 0xc2\n      length: 3\n", err: "nvme.layouts[0]"},
		{name: "layout named like a standard source", yaml: "nvme:\n  layouts:\n    - {name: fdp, log_id: 0xc2, length: 512, match: {vid: [1]}, fields: [{meaning: media_written, offset: 0, width: 8, unit_bytes: 1}]}\n", err: "standard source name"},
		{name: "user layout usable as source", yaml: "nvme:\n  source: acme\n  layouts:\n    - {name: acme, log_id: 0xc2, length: 512, match: {vid: [1]}, fields: [{meaning: media_written, offset: 0, width: 8, unit_bytes: 1}]}\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := config.Parse([]byte(tt.yaml))
			require.NoError(t, err)
			_, err = LoadConfig(f)
			if tt.err == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.err)
			}
		})
	}
}

func TestExact128BitCounters(t *testing.T) {
	d := fixture.SMARTOnlyDrive()
	d.SMART.DataUnitsWrittenHi = 1 // 2^64 + 2e6 units: far beyond float64's 53-bit mantissa
	dev := openDrive(t, d)
	r := &Reader{Dev: dev}
	plan, err := Probe(context.Background(), r, nil, Config{})
	require.NoError(t, err)
	s, err := Poll(context.Background(), r, plan, time.Time{})
	require.NoError(t, err)
	want, ok := decode.U128{Lo: 2_000_000, Hi: 1}.MulUint64(512000)
	require.True(t, ok)
	require.Equal(t, want, s.HostBytes)
}

// TestNamespaceWritten: a controller with per-namespace SMART (LPA bit 0)
// and two namespaces has each namespace's own Data Units Written read with
// its NSID; one whose page is missing is absent, not 0; a controller
// without LPA bit 0, or with one namespace, sends no per-namespace read.
func TestNamespaceWritten(t *testing.T) {
	ns1, ns2 := uint64(3), uint64(5)
	d := fixture.FDPNamespacesDrive(&ns1, &ns2, nil)
	poll := func(d fixture.Drive, nsids []uint32) *Sample {
		t.Helper()
		r := &Reader{Dev: openDrive(t, d)}
		plan, err := Probe(context.Background(), r, nsids, Config{})
		require.NoError(t, err)
		s, err := Poll(context.Background(), r, plan, time.Time{})
		require.NoError(t, err)
		return s
	}
	s := poll(d, []uint32{1, 2, 3})
	require.Equal(t, map[uint32]decode.U128{1: u(3 * 512000), 2: u(5 * 512000)}, s.NamespaceHostBytes, "namespace 3 has no page: absent")
	require.Nil(t, poll(d, []uint32{1}).NamespaceHostBytes, "one namespace: the controller's own SMART says it")
	d.LPA &^= fixture.LPASMARTPerNamespace
	require.Nil(t, poll(d, []uint32{1, 2, 3}).NamespaceHostBytes, "no LPA bit 0: the SMART log is the controller's only")
}

package collector

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/writehint"
)

// pageBackend answers admin commands from byte-exact pages built from the
// NVMe layouts (docs in /work/shared/reference/nvme-layouts.md), like a
// replay directory: a command without a page is "unsupported". No drive
// with the Streams directive exists on this machine, so this stands in.
type pageBackend struct {
	mu    sync.Mutex
	pages map[string][]byte
	dw0   map[string]uint32
	fail  error // returned for every command when set (device gone)
}

func pageKey(c admin.Command) string {
	switch c.Opcode {
	case admin.OpIdentify:
		return fmt.Sprintf("identify/%d/%d", uint8(c.CDW10), c.NSID)
	case admin.OpDirectiveReceive:
		return fmt.Sprintf("dir/%d/%d", uint8(c.CDW11>>8), uint8(c.CDW11))
	case admin.OpGetFeatures:
		return fmt.Sprintf("feature/0x%02x/%d", uint8(c.CDW10), c.CDW11)
	case admin.OpGetLogPage:
		if c.LSP() != 0 {
			return fmt.Sprintf("log/0x%02x/%d/lsp%d", uint8(c.CDW10), c.LSI(), c.LSP())
		}
		return fmt.Sprintf("log/0x%02x/%d", uint8(c.CDW10), c.LSI())
	}
	return "?"
}

func (b *pageBackend) Exec(_ context.Context, c admin.Command) (admin.Result, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.fail != nil {
		return admin.Result{}, b.fail
	}
	k := pageKey(c)
	p, ok := b.pages[k]
	dw0, okDW := b.dw0[k]
	if !ok && !okDW {
		return admin.Result{}, admin.Unsupported(c)
	}
	out := make([]byte, c.DataLen)
	if c.Opcode == admin.OpGetLogPage && c.LogOffset() < uint64(len(p)) {
		p = p[c.LogOffset():]
	}
	copy(out, p)
	return admin.Result{Data: out, DW0: dw0}, nil
}

func (b *pageBackend) Close() error { return nil }

func le16(b []byte, off int, v uint16) { binary.LittleEndian.PutUint16(b[off:], v) }
func le32(b []byte, off int, v uint32) { binary.LittleEndian.PutUint32(b[off:], v) }
func le64(b []byte, off int, v uint64) { binary.LittleEndian.PutUint64(b[off:], v) }

// idCtrlPage: Identify Controller with OACS (@256) and CTRATT (@96).
func idCtrlPage(oacs uint16, ctratt uint32) []byte {
	b := make([]byte, 4096)
	copy(b[4:24], "S0SERIAL            ")
	copy(b[24:64], "WALAB TEST DRIVE                        ")
	le32(b, 96, ctratt)
	le16(b, 256, oacs)
	le32(b, 516, 1)
	return b
}

// idNSPage: one LBA format of 2^lbads bytes (LBAF0 @128, LBADS @130), ENDGID @102.
func idNSPage(lbads uint8, endgid uint16) []byte {
	b := make([]byte, 4096)
	le64(b, 0, 1<<20)
	b[130] = lbads
	le16(b, 102, endgid)
	return b
}

// dirIdentifyPage: supported bitmap @0, enabled @32 (bit 0 identify, 1 streams, 2 data placement).
func dirIdentifyPage(supported, enabled byte) []byte {
	b := make([]byte, 4096)
	b[0], b[32] = supported, enabled
	return b
}

func streamsParamsPage() []byte {
	b := make([]byte, 32)
	le16(b, 0, 16)  // MSL
	le16(b, 2, 16)  // NSSA
	le16(b, 4, 4)   // NSSO
	le32(b, 16, 32) // SWS, logical blocks
	le16(b, 20, 8)  // SGS, units of SWS
	le16(b, 22, 8)  // NSA
	le16(b, 24, 4)  // NSO
	return b
}

func streamsStatusPage(ids ...uint16) []byte {
	b := make([]byte, 2+2*len(ids))
	le16(b, 0, uint16(len(ids)))
	for i, id := range ids {
		le16(b, 2+2*i, id)
	}
	return b
}

// fdpConfigsPage: one valid configuration with nruh handles of 1 GiB units.
func fdpConfigsPage(nruh int) []byte {
	dsze := 64 + 4*nruh
	b := make([]byte, 16+dsze)
	le16(b, 0, 0) // NUMFDPC, 0-based: one configuration
	le32(b, 4, uint32(len(b)))
	d := b[16:]
	le16(d, 0, uint16(dsze))
	d[2] = 0x80 // valid
	le32(d, 4, 1)
	le16(d, 8, uint16(nruh))
	le16(d, 10, uint16(nruh-1))
	le32(d, 12, 1)
	le64(d, 16, 1<<30)
	for h := range nruh {
		d[64+4*h] = 1 // initially isolated
	}
	return b
}

func ruhUsagePage(attrs ...byte) []byte {
	b := make([]byte, 8+8*len(attrs))
	le16(b, 0, uint16(len(attrs)))
	for i, a := range attrs {
		b[8+8*i] = a
	}
	return b
}

// testFleet: nvme0 a Streams drive (supported and enabled), nvme1 an FDP
// drive with write streams in sysfs, nvme2 directives but identify only,
// nvme3 OACS bit 5 set yet Directive Receive unsupported, nvme4 nothing.
func testFleet() (*fleet.Fleet, map[string]*pageBackend) {
	backs := map[string]*pageBackend{
		"nvme0": {pages: map[string][]byte{
			"identify/1/0": idCtrlPage(1<<5, 0),
			"identify/0/1": idNSPage(12, 0),
			"dir/0/1":      dirIdentifyPage(0b011, 0b011),
			"dir/1/1":      streamsParamsPage(),
			"dir/1/2":      streamsStatusPage(1, 2, 3, 4),
		}},
		"nvme1": {pages: map[string][]byte{
			"identify/1/0": idCtrlPage(1<<5, 1<<19|1<<4),
			"identify/0/1": idNSPage(12, 1),
			"dir/0/1":      dirIdentifyPage(0b101, 0b101),
			"log/0x20/1":   fdpConfigsPage(8),
			"log/0x21/1":   ruhUsagePage(1, 1, 1, 1, 2, 2, 0, 0),
		}, dw0: map[string]uint32{"feature/0x1d/1": 1}},
		"nvme2": {pages: map[string][]byte{
			"identify/1/0": idCtrlPage(1<<5, 0),
			"identify/0/1": idNSPage(9, 0),
			"dir/0/1":      dirIdentifyPage(0b001, 0b001),
		}},
		"nvme3": {pages: map[string][]byte{
			"identify/1/0": idCtrlPage(1<<5, 0),
			"identify/0/1": idNSPage(12, 0),
		}},
		"nvme4": {pages: map[string][]byte{
			"identify/1/0": idCtrlPage(0, 0),
		}},
	}
	f := &fleet.Fleet{}
	for _, name := range []string{"nvme0", "nvme1", "nvme2", "nvme3", "nvme4"} {
		f.Controllers = append(f.Controllers, &fleet.Controller{
			Name: name, Device: admin.New(name, backs[name]), NUMANode: -1,
			Namespaces: []fleet.Namespace{{NSID: 1, Block: name + "n1"}},
		})
	}
	return f, backs
}

func newTestStreams(t testing.TB, root, yml string, f *fleet.Fleet) Collector {
	t.Helper()
	// As fleet.Open does, without the cache: every scrape reads the pages.
	if f != nil {
		for _, c := range f.Controllers {
			if c.Device != nil && c.Poller == nil {
				c.Poller = probe.NewPoller(c.Device, c.NSIDs(), probe.Config{}, probe.Options{MaxAge: -1})
			}
		}
	}
	c, err := newStreamsCollector(Env{
		Paths:  Paths{ProcFS: filepath.Join(root, "proc"), SysFS: filepath.Join(root, "sys")},
		Config: hostConfig(t, yml),
		Fleet:  f,
	})
	require.NoError(t, err)
	return c
}

func TestStreamsGoldenNewKernel(t *testing.T) {
	f, _ := testFleet()
	c := newTestStreams(t, "testdata/streams", "", f)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	hostGolden(t, "streams/kernel-6.18.prom", got)
	// A Streams drive on 6.18: tagged files change nothing at the drive.
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme0",reason="kernel_lacks_streams"} 0`)
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme1",reason="fdp_write_streams_block_only"} 1`)
	require.Contains(t, got, `walab_placement_daemon_running{daemon="astream"} 1`)
}

func TestStreamsGoldenOldKernel(t *testing.T) {
	root := hostCopyTree(t, "testdata/streams")
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/sys/kernel/osrelease"), []byte("5.15.0-91-generic\n"), 0o644))
	p := filepath.Join(root, "sys/module/nvme_core/parameters/streams")
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("Y\n"), 0o644))
	f, _ := testFleet()
	got, err := hostScrape(t, newTestStreams(t, root, "streams:\n  daemon: \"\"\n", f))
	require.NoError(t, err)
	hostGolden(t, "streams/kernel-5.15.prom", got)
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme0",reason="kernel_streams"} 1`)
	require.Contains(t, got, `walab_kernel_nvme_streams_param{present="true"} 1`)
	require.NotContains(t, got, "placement_daemon_running", "daemon check turned off")

	// A stale module option on a new kernel does not make hints effective.
	require.NoError(t, os.WriteFile(filepath.Join(root, "proc/sys/kernel/osrelease"), []byte("6.1.0\n"), 0o644))
	got, err = hostScrape(t, newTestStreams(t, root, "", f))
	require.NoError(t, err)
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme0",reason="kernel_lacks_streams"} 0`)
}

// TestStreamsUnsupportedRemembered: a controller that answers "unsupported"
// is not asked again on later scrapes.
func TestStreamsUnsupportedRemembered(t *testing.T) {
	f, _ := testFleet()
	c := newTestStreams(t, "testdata/streams", "", f)
	for range 3 {
		_, err := hostScrape(t, c)
		require.NoError(t, err)
	}
	sent := func(i int, op uint8, lid uint8) uint64 {
		return f.Controllers[i].Device.Stats().Sent[admin.CommandKey{Opcode: op, LogID: lid}]
	}
	require.Equal(t, uint64(2), sent(0, admin.OpIdentify, 0), "controller and namespace Identify once each")
	require.Equal(t, uint64(9), sent(0, admin.OpDirectiveReceive, 0), "identify, params, status every scrape")
	require.Equal(t, uint64(1), sent(3, admin.OpDirectiveReceive, 0), "unsupported: asked once")
	require.Equal(t, uint64(3), sent(2, admin.OpDirectiveReceive, 0), "identify only; streams not supported so never asked")
	require.Zero(t, sent(4, admin.OpDirectiveReceive, 0), "OACS bit 5 clear: never asked")
	require.Equal(t, uint64(6), sent(1, admin.OpGetLogPage, 0x20), "header then page, every scrape")
}

// TestStreamsDeviceGone: one controller failing is an error for the
// collector (success 0) but the others and the host metrics are served.
func TestStreamsDeviceGone(t *testing.T) {
	f, backs := testFleet()
	c := newTestStreams(t, "testdata/streams", "", f)
	_, err := hostScrape(t, c)
	require.NoError(t, err)
	backs["nvme1"].mu.Lock()
	backs["nvme1"].fail = errors.New("no such device")
	backs["nvme1"].mu.Unlock()
	got, err := hostScrape(t, c)
	require.ErrorContains(t, err, "nvme1")
	require.NotContains(t, got, `walab_nvme_fdp_enabled{device="nvme1"}`)
	// Identified earlier, unreadable now: unknown, not "fdp_disabled".
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme1",reason="device_unreadable"} 0`)
	require.Contains(t, got, `walab_nvme_streams_open{device="nvme0"} 4`)
	require.Contains(t, got, `walab_placement_daemon_running{daemon="astream"} 1`)

	// A controller that was never identified reports only "unreadable".
	f2, backs2 := testFleet()
	backs2["nvme4"].fail = errors.New("EIO")
	got, err = hostScrape(t, newTestStreams(t, "testdata/streams", "", f2))
	require.ErrorContains(t, err, "EIO")
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme4",reason="device_unreadable"} 0`)

	// FDP supported but Get Features FDP refused: the state is unknown too.
	f3, backs3 := testFleet()
	delete(backs3["nvme1"].dw0, "feature/0x1d/1")
	got, _ = hostScrape(t, newTestStreams(t, "testdata/streams", "", f3))
	require.Contains(t, got, `walab_placement_hints_effective{device="nvme1",reason="device_unreadable"} 0`)
}

func TestStreamsWriteHintDirs(t *testing.T) {
	d1, d2 := t.TempDir(), t.TempDir()
	for i := range 3 {
		require.NoError(t, os.WriteFile(filepath.Join(d1, fmt.Sprint("f", i)), make([]byte, 100), 0o644))
	}
	fh, err := os.Open(filepath.Join(d1, "f0"))
	require.NoError(t, err)
	hinted := writehint.Set(fh, writehint.Short) == nil
	require.NoError(t, fh.Close())
	missing := filepath.Join(d2, "not-yet")
	yml := fmt.Sprintf("streams:\n  data_dirs: [%s, %s]\n  max_files: 2\n  rescan_interval: 1h\n", d1, missing)
	c := newTestStreams(t, "testdata/streams", yml, nil)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Equal(t, 1.0, hostValue(t, got, `walab_write_hint_scan_truncated{dir="`+d1+`"}`), "3 files, limit 2")
	require.NotContains(t, got, missing, "a missing dir has no series")
	var files float64
	for _, l := range writehint.Labels {
		files += hostValue(t, got, `walab_write_hint_files{dir="`+d1+`",hint="`+l+`"}`)
	}
	require.Equal(t, 2.0, files)
	if !hinted {
		t.Log("filesystem refused F_SET_RW_HINT; only not_set counted")
	}
	require.Equal(t, 7, strings.Count(got, `walab_write_hint_bytes{dir="`+d1+`"`), "every hint label, zero-filled")
}

func TestStreamsConfig(t *testing.T) {
	for _, tc := range []struct{ name, yml, err string }{
		{"relative dir", "streams:\n  data_dirs: [data]\n", "clean absolute"},
		{"unclean dir", "streams:\n  data_dirs: [/data/../etc]\n", "clean absolute"},
		{"duplicate", "streams:\n  data_dirs: [/a, /a]\n", "twice"},
		{"negative files", "streams:\n  max_files: -1\n", "max_files"},
		{"negative interval", "streams:\n  rescan_interval: -1s\n", "rescan_interval"},
		{"unknown key", "streams:\n  datadirs: [/a]\n", "datadirs"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := newStreamsCollector(Env{Paths: hostPaths, Config: hostConfig(t, tc.yml)})
			require.ErrorContains(t, err, tc.err)
		})
	}
}

// BenchmarkStreamsUpdate: the five-controller fleet (every admin read the
// collector does per scrape) plus one cached data-dir result.
func BenchmarkStreamsUpdate(b *testing.B) {
	dir := b.TempDir()
	for i := range 100 {
		require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprint("f", i)), nil, 0o644))
	}
	f, _ := testFleet()
	c := newTestStreams(b, "testdata/streams", "streams:\n  data_dirs: ["+dir+"]\n", f)
	hostBench(b, func() { hostSeries(b, c) })
}

// TestStreamsBadDevicePages: sizes taken from the device are bounded, and
// a page that does not decode is an error for that device, never a panic.
func TestStreamsBadDevicePages(t *testing.T) {
	for _, tc := range []struct {
		name, key string
		page      []byte
		err       string
	}{
		{"config log size too big", "log/0x20/1", func() []byte { b := fdpConfigsPage(8); le32(b, 4, 1<<30); return b }(), "the header says it is 1073741824 bytes"},
		{"config log descriptor overruns", "log/0x20/1", func() []byte { b := fdpConfigsPage(8); le16(b, 16, 4000); return b }(), "overrunning"},
		{"ruh usage huge", "log/0x21/1", func() []byte { b := ruhUsagePage(1); le16(b, 0, 60000); return b }(), "claims 60000 handles"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, backs := testFleet()
			backs["nvme1"].pages[tc.key] = tc.page
			got, err := hostScrape(t, newTestStreams(t, "testdata/streams", "", f))
			require.ErrorContains(t, err, tc.err)
			require.Contains(t, got, `walab_nvme_fdp_enabled{device="nvme1"} 1`, "what was read before the bad page is kept")
			require.Contains(t, got, `walab_nvme_streams_open{device="nvme0"} 4`)
		})
	}
}

// replayDir writes a pageBackend's pages in the replay capture format
// (internal/nvme/replay), so the same drives can be served by the backend
// the exporter uses for captured controllers.
func replayDir(t *testing.T, root string, b *pageBackend) {
	t.Helper()
	require.NoError(t, os.MkdirAll(root, 0o755))
	for k, p := range b.pages {
		var name string
		var dtype, doper, cns, id int
		var lid int
		switch {
		case k == "identify/1/0":
			name = "id-ctrl.bin"
		case strings.HasPrefix(k, "identify/"):
			_, err := fmt.Sscanf(k, "identify/%d/%d", &cns, &id)
			require.NoError(t, err)
			name = fmt.Sprintf("id-ns-%d.bin", id)
		case strings.HasPrefix(k, "dir/"):
			_, err := fmt.Sscanf(k, "dir/%d/%d", &dtype, &doper)
			require.NoError(t, err)
			name = fmt.Sprintf("dir-%02x-%02x.bin", dtype, doper)
		case strings.HasPrefix(k, "log/"):
			_, err := fmt.Sscanf(k, "log/0x%x/%d", &lid, &id)
			require.NoError(t, err)
			name = fmt.Sprintf("log-%02x-lsi%d.bin", lid, id)
		}
		require.NoError(t, os.WriteFile(filepath.Join(root, name), p, 0o644))
	}
	for k, dw0 := range b.dw0 {
		var fid, cdw11 int
		_, err := fmt.Sscanf(k, "feature/0x%x/%d", &fid, &cdw11)
		require.NoError(t, err)
		raw := make([]byte, 4)
		le32(raw, 0, dw0)
		require.NoError(t, os.WriteFile(filepath.Join(root, fmt.Sprintf("feat-%02x.bin", fid)), raw, 0o644))
	}
}

// TestStreamsReplayBackend: the same five drives served from replay
// directories give exactly the golden output of the page backend, and a
// controller folder removed mid-run fails that device only.
func TestStreamsReplayBackend(t *testing.T) {
	fake, backs := testFleet()
	root := t.TempDir()
	rf := &fleet.Fleet{}
	for _, ctrl := range fake.Controllers {
		dir := filepath.Join(root, ctrl.Name)
		replayDir(t, dir, backs[ctrl.Name])
		dev, err := replay.Open(ctrl.Name, dir)
		require.NoError(t, err)
		rf.Controllers = append(rf.Controllers, &fleet.Controller{Name: ctrl.Name, Device: dev, NUMANode: -1, Namespaces: ctrl.Namespaces})
	}
	c := newTestStreams(t, "testdata/streams", "", rf)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	want, err := os.ReadFile("testdata/streams/kernel-6.18.prom")
	require.NoError(t, err)
	require.Equal(t, string(want), got)

	require.NoError(t, os.RemoveAll(filepath.Join(root, "nvme0")))
	got, err = hostScrape(t, c)
	require.ErrorContains(t, err, "controller folder is gone")
	require.NotContains(t, got, `walab_nvme_streams_open{device="nvme0"}`)
	require.Contains(t, got, `walab_nvme_fdp_enabled{device="nvme1"} 1`)
}

// TestStreamsThisMachine: the host side on the real /proc and /sys (no
// NVMe fleet here). This kernel is >= 5.18, so the parameter is absent.
func TestStreamsThisMachine(t *testing.T) {
	if _, err := os.Stat("/proc/sys/kernel/osrelease"); err != nil {
		t.Skip("no procfs")
	}
	c, err := newStreamsCollector(Env{Paths: hostPaths, Config: hostConfig(t, "")})
	require.NoError(t, err)
	got, err := hostScrape(t, c)
	require.NoError(t, err)
	require.Contains(t, got, `walab_kernel_nvme_streams_param{present=`)

	// A real process named like the daemon: a copy of sleep called "walab-astream-t".
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep binary")
	}
	b, err := os.ReadFile(sleep)
	require.NoError(t, err)
	bin := filepath.Join(t.TempDir(), "walab-astream-t")
	require.NoError(t, os.WriteFile(bin, b, 0o755))
	yml := "streams:\n  daemon: walab-astream-t\n"
	got, err = hostScrape(t, newTestStreams(t, "/", yml, nil))
	require.NoError(t, err)
	require.Contains(t, got, `walab_placement_daemon_running{daemon="walab-astream-t"} 0`)
	cmd := exec.Command(bin, "60")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	got, err = hostScrape(t, newTestStreams(t, "/", yml, nil))
	require.NoError(t, err)
	require.Contains(t, got, `walab_placement_daemon_running{daemon="walab-astream-t"} 1`)
}

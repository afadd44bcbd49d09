package collector

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	dto "github.com/prometheus/client_model/go"

	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/nvme/replay"
	"github.com/walab/walab/internal/nvme/replay/fixture"
	"github.com/walab/walab/internal/wa"
)

// countingReplay counts the commands that reach a replay backend.
type countingReplay struct {
	*replay.Backend
	n atomic.Int64
}

func (c *countingReplay) Exec(ctx context.Context, cmd admin.Command) (admin.Result, error) {
	c.n.Add(1)
	return c.Backend.Exec(ctx, cmd)
}

// eaccesBackend is what the ioctl returns without CAP_SYS_ADMIN.
type eaccesBackend struct{}

func (eaccesBackend) Exec(_ context.Context, cmd admin.Command) (admin.Result, error) {
	return admin.Result{}, fmt.Errorf("/dev/nvme0: %s: ioctl: %w (admin passthrough needs CAP_SYS_ADMIN)", cmd, unix.EACCES)
}
func (eaccesBackend) Close() error { return nil }

func nvmeRegistry(t testing.TB, fl *fleet.Fleet) *prometheus.Registry {
	t.Helper()
	set, err := New(Env{Fleet: fl}, "nvme")
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	return reg
}

func find(mfs []*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
	next:
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			for k, v := range labels {
				if got[k] != v {
					continue next
				}
			}
			if m.Counter != nil {
				return m.GetCounter().GetValue(), true
			}
			return m.GetGauge().GetValue(), true
		}
	}
	return 0, false
}

func TestNVMeConcurrentScrapesReadEachDeviceOnce(t *testing.T) {
	root := t.TempDir()
	var backends []*countingReplay
	fl := &fleet.Fleet{}
	for i, d := range []fixture.Drive{fixture.OCPDrive(), fixture.FDPDrive(), fixture.SMARTOnlyDrive()} {
		name := fmt.Sprintf("nvme%d", i)
		dir := filepath.Join(root, name)
		require.NoError(t, d.Write(dir))
		b := &countingReplay{Backend: replay.NewBackend(dir)}
		backends = append(backends, b)
		dev := admin.New(name, b)
		fl.Controllers = append(fl.Controllers, &fleet.Controller{
			Name: name, Device: dev, Namespaces: []fleet.Namespace{{NSID: 1}},
			// A long max age: all 100 scrapes fall inside it.
			Poller: probe.NewPoller(dev, []uint32{1}, probe.Config{}, probe.Options{MaxAge: 1 << 62}),
		})
	}
	reg := nvmeRegistry(t, fl)

	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mfs, err := reg.Gather()
			if err == nil {
				if v, ok := find(mfs, "walab_nvme_up", map[string]string{"device": "nvme1"}); !ok || v != 1 {
					err = fmt.Errorf("nvme1 up = %v (present %v)", v, ok)
				}
			}
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	// Probe + one poll per device, whatever the number of scrapes:
	// OCP: id-ctrl, id-ns, 0xC0 | 0x02, 0xC0.
	// FDP: id-ctrl, id-ns, feature 0x1D (FDP enabled?), 0x22 | 0x02, 0x22.
	// SMART-only (VID 0x8086): id-ctrl, id-ns, 0xC0 (absent), 0xCA (absent) | 0x02.
	for i, want := range []int64{5, 6, 5} {
		require.Equal(t, want, backends[i].n.Load(), "device nvme%d", i)
		st := fl.Controllers[i].Device.Stats()
		require.EqualValues(t, 1, st.Sent[admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0x02}], "one SMART read on nvme%d", i)
	}
}

func TestNVMeWithoutCapSysAdmin(t *testing.T) {
	dev := admin.New("nvme0", eaccesBackend{})
	fl := &fleet.Fleet{Controllers: []*fleet.Controller{
		{Name: "nvme0", Device: dev, Model: "SAMPLE NVME", Serial: "S1", Firmware: "F1", NUMANode: -1,
			Poller: probe.NewPoller(dev, nil, probe.Config{}, probe.Options{})},
		{Name: "nvme1", Model: "OTHER", Serial: "S2", Firmware: "F2", OpenErr: fmt.Errorf("open /dev/nvme1: %w", unix.EACCES)},
	}}
	mfs, err := nvmeRegistry(t, fl).Gather()
	require.NoError(t, err)
	tests := []struct {
		metric string
		labels map[string]string
		want   float64
	}{
		{"walab_nvme_up", map[string]string{"device": "nvme0"}, 0},
		{"walab_nvme_up", map[string]string{"device": "nvme1"}, 0},
		{"walab_nvme_info", map[string]string{"device": "nvme0", "model": "SAMPLE NVME", "serial": "S1", "firmware": "F1", "source": "unknown"}, 1},
		{"walab_nvme_info", map[string]string{"device": "nvme1", "model": "OTHER", "source": "unknown"}, 1},
		{"walab_nvme_admin_command_errors_total", map[string]string{"device": "nvme0", "opcode": "identify", "status": "errno"}, 1},
		{"walab_scrape_collector_success", map[string]string{"collector": "nvme"}, 1},
	}
	for _, tt := range tests {
		got, ok := find(mfs, tt.metric, tt.labels)
		require.True(t, ok, "%s %v", tt.metric, tt.labels)
		require.Equal(t, tt.want, got, "%s %v", tt.metric, tt.labels)
	}
	_, ok := find(mfs, "walab_nvme_host_written_bytes_total", nil)
	require.False(t, ok, "no counters without a read")
}

func TestNVMeFactory(t *testing.T) {
	c, err := newNVMeCollector(Env{Config: config.Empty()})
	require.NoError(t, err)
	ch := make(chan prometheus.Metric, 1)
	require.NoError(t, c.Update(context.Background(), ch), "no fleet: the controller count alone")
	var m dto.Metric
	require.NoError(t, (<-ch).Write(&m))
	require.Equal(t, 0.0, m.GetGauge().GetValue(), "walab_nvme_controllers 0")
	// The nvme: section is the composition root's to read (exporterapp's
	// TestOpenFleetBadConfig); the collector takes the fleet's pollers.
}

func TestNVMeAdminLabels(t *testing.T) {
	tests := []struct {
		key    admin.CommandKey
		opcode string
		logID  string
	}{
		{admin.CommandKey{Opcode: admin.OpGetLogPage, LogID: 0xC0}, "get_log_page", "0xc0"},
		{admin.CommandKey{Opcode: admin.OpIdentify}, "identify", ""},
		{admin.CommandKey{Opcode: admin.OpGetFeatures}, "get_features", ""},
		{admin.CommandKey{Opcode: admin.OpDirectiveReceive}, "directive_receive", ""},
		{admin.CommandKey{Opcode: 0x09}, "0x09", ""},
	}
	for _, tt := range tests {
		require.Equal(t, tt.opcode, opcodeLabel(tt.key.Opcode))
		require.Equal(t, tt.logID, logIDLabel(tt.key))
	}
	require.Equal(t, "errno", statusLabel(0))
	require.Equal(t, "0x4002", statusLabel(0x4002))
}

// hangingBackend blocks every command until released.
type hangingBackend struct{ release chan struct{} }

func (h hangingBackend) Exec(context.Context, admin.Command) (admin.Result, error) {
	<-h.release
	return admin.Result{}, errors.New("released")
}
func (hangingBackend) Close() error { return nil }

func TestNVMeHungDeviceDoesNotBlockTheScrape(t *testing.T) {
	hang := hangingBackend{release: make(chan struct{})}
	defer close(hang.release)
	dir := filepath.Join(t.TempDir(), "nvme1")
	require.NoError(t, fixture.OCPDrive().Write(dir))
	hung := admin.New("nvme0", hang)
	ok := admin.New("nvme1", replay.NewBackend(dir))
	fl := &fleet.Fleet{Controllers: []*fleet.Controller{
		{Name: "nvme0", Device: hung, Poller: probe.NewPoller(hung, nil, probe.Config{}, probe.Options{})},
		{Name: "nvme1", Device: ok, Poller: probe.NewPoller(ok, nil, probe.Config{}, probe.Options{})},
	}}
	set, err := New(Env{Fleet: fl}, "nvme")
	require.NoError(t, err)
	set.Timeout = 50 * time.Millisecond // the scrape's bound; the hung read outlives it
	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	mfs, err := reg.Gather()
	require.NoError(t, err)
	v, found := find(mfs, "walab_nvme_up", map[string]string{"device": "nvme0"})
	require.True(t, found)
	require.Equal(t, 0.0, v, "the hung device is down for this scrape")
	v, _ = find(mfs, "walab_nvme_up", map[string]string{"device": "nvme1"})
	require.Equal(t, 1.0, v)
	v, _ = find(mfs, "walab_nvme_read_timeouts_total", map[string]string{"device": "nvme0"})
	require.Equal(t, 1.0, v, "the hung read is counted")
	v, _ = find(mfs, "walab_nvme_read_timeouts_total", map[string]string{"device": "nvme1"})
	require.Equal(t, 0.0, v)
}

// TestNVMeZeroFilledPageCountersAbsent: issue 42 item 7. A NAND page that
// reads all zeros (full length, so it decodes) is a glitch to the WA
// sampler; while it is, the host and NAND counters are absent from the
// scrape, not 0 (which Prometheus's increase() takes for a counter reset).
// SMART's counter, another page, stays. When the page is back, so are they.
func TestNVMeZeroFilledPageCountersAbsent(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "nvme0")
	require.NoError(t, fixture.Seed000Drive().Write(dir))
	page := filepath.Join(dir, "log-c0.bin")
	good, err := os.ReadFile(page)
	require.NoError(t, err)
	dev := admin.New("nvme0", replay.NewBackend(dir))
	p := probe.NewPoller(dev, []uint32{1}, probe.Config{}, probe.Options{MaxAge: -1})
	fl := &fleet.Fleet{Controllers: []*fleet.Controller{{Name: "nvme0", Device: dev, Namespaces: []fleet.Namespace{{NSID: 1}}, Poller: p}}}
	now := time.Unix(1.7e9, 0)
	s, err := wa.New(wa.Options{Reader: wa.FromPollers([]*probe.Poller{p}, 0), Now: func() time.Time { return now }})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	set, err := New(Env{Fleet: fl, WA: s}, "nvme")
	require.NoError(t, err)
	reg := prometheus.NewRegistry()
	reg.MustRegister(set)
	series := func() (host, media, smart bool) {
		mfs, err := reg.Gather()
		require.NoError(t, err)
		_, host = find(mfs, "walab_nvme_host_written_bytes_total", map[string]string{"device": "nvme0"})
		_, media = find(mfs, "walab_nvme_media_written_bytes_total", map[string]string{"device": "nvme0"})
		_, smart = find(mfs, "walab_nvme_smart_data_units_written_bytes_total", map[string]string{"device": "nvme0"})
		return
	}
	require.NoError(t, s.Sample(context.Background(), now))
	host, media, smart := series()
	require.True(t, host && media && smart, "a good page: all three")

	require.NoError(t, os.WriteFile(page, make([]byte, len(good)), 0o644))
	// Before the sampler's next round (the scrape reads it first) and after it.
	for round := range 2 {
		host, media, smart = series()
		require.False(t, host, "round %d: host counter exported from a zero-filled page", round)
		require.False(t, media, "round %d: NAND counter exported from a zero-filled page", round)
		require.True(t, smart, "SMART is another page")
		now = now.Add(time.Minute)
		require.NoError(t, s.Sample(context.Background(), now))
	}
	require.NotZero(t, s.Snapshot()[0].Glitches)

	require.NoError(t, os.WriteFile(page, good, 0o644))
	host, media, _ = series()
	require.True(t, host && media, "the page is back")
}

// TestNVMeCapacityWithoutTNVMCAP: a controller that reports no TNVMCAP
// (0, an optional field: QEMU's) exports the sum of its namespaces' sizes
// as its capacity, not 0, so compare's "drive worn in" has a denominator;
// with no namespace size either, the capacity is absent.
func TestNVMeCapacityWithoutTNVMCAP(t *testing.T) {
	capacity := func(d fixture.Drive, nsids []uint32) (float64, bool) {
		dir := filepath.Join(t.TempDir(), "nvme0")
		require.NoError(t, d.Write(dir))
		dev := admin.New("nvme0", replay.NewBackend(dir))
		p := probe.NewPoller(dev, nsids, probe.Config{}, probe.Options{MaxAge: -1})
		var nss []fleet.Namespace
		for _, n := range nsids {
			nss = append(nss, fleet.Namespace{NSID: n})
		}
		set, err := New(Env{Fleet: &fleet.Fleet{Controllers: []*fleet.Controller{{Name: "nvme0", Device: dev, Namespaces: nss, Poller: p}}}}, "nvme")
		require.NoError(t, err)
		reg := prometheus.NewRegistry()
		reg.MustRegister(set)
		mfs, err := reg.Gather()
		require.NoError(t, err)
		return find(mfs, "walab_nvme_capacity_bytes", map[string]string{"device": "nvme0"})
	}
	d := fixture.Seed000Drive()
	v, ok := capacity(d, []uint32{1})
	require.True(t, ok)
	require.Equal(t, 3_840_000_000_000.0, v, "TNVMCAP when reported")

	d.TNVMCAP = 0
	d.Namespaces = []fixture.Namespace{{NSID: 1, NSZE: 262_144}, {NSID: 2, NSZE: 262_144}}
	v, ok = capacity(d, []uint32{1, 2})
	require.True(t, ok)
	require.Equal(t, float64(2<<30), v, "two namespaces of 1 GiB (4 KiB blocks)")

	d.Namespaces = nil
	_, ok = capacity(d, nil)
	require.False(t, ok, "no TNVMCAP and no namespace: absent, not 0")
}

package sim

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/nvme/admin"
	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/simload"
)

// clock is a manual clock for deterministic simulations.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// smallConfig is a 256 MiB drive at 4 KiB pages (64 Ki pages) that turns
// over its capacity every few simulated seconds.
func smallConfig() Config {
	return Config{
		Capacity: 256 << 20, Scale: 1, SpareFactor: 0.1, BlockPages: 64,
		Rate: 64 << 20, Seed: 3, Placement: Placement{Streams: true},
		// At 64 MiB/s half an hour of binlogs would not fit in 256 MiB: keep 5%.
		Workload: simload.Spec{Mix: simload.MySQLMix{BinlogRetainSpace: 0.05}},
	}
}

func newDrive(t *testing.T, cfg Config) (*Drive, *clock, *admin.Device) {
	t.Helper()
	clk := newClock()
	d, err := New(cfg, WithClock(clk.Now))
	require.NoError(t, err)
	dev := admin.New("nvmesim0", d)
	t.Cleanup(func() { require.NoError(t, dev.Close()) })
	return d, clk, dev
}

func submit(t *testing.T, dev *admin.Device, cmd admin.Command) []byte {
	t.Helper()
	res, err := dev.Submit(context.Background(), cmd)
	require.NoError(t, err, cmd.String())
	return res.Data
}

func logPage(t *testing.T, dev *admin.Device, p admin.LogPage) []byte {
	t.Helper()
	cmd, err := admin.GetLogPage(p)
	require.NoError(t, err)
	return submit(t, dev, cmd)
}

// counters reads the three logs a probe uses and decodes them.
func counters(t *testing.T, dev *admin.Device) (decode.SMART, decode.OCPSmartExtended, decode.EnduranceGroup) {
	t.Helper()
	s, err := decode.ParseSMART(logPage(t, dev, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 512, RAE: true}))
	require.NoError(t, err)
	o, err := decode.ParseOCPSmartExtended(logPage(t, dev, admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512}))
	require.NoError(t, err)
	e, err := decode.ParseEnduranceGroup(logPage(t, dev, admin.LogPage{LID: 0x09, LSI: 1, Len: 512}))
	require.NoError(t, err)
	return s, o, e
}

func TestIdentify(t *testing.T) {
	d, _, dev := newDrive(t, smallConfig())
	ctrl, err := decode.ParseIDController(submit(t, dev, admin.Identify(admin.CNSController, 0)))
	require.NoError(t, err)
	require.Equal(t, uint16(VendorID), ctrl.VID)
	require.Equal(t, Model, ctrl.Model)
	require.Equal(t, d.Config().Serial, ctrl.Serial)
	require.Equal(t, "SIM00001", ctrl.Firmware)
	require.True(t, ctrl.DirectivesSupported(), "OACS bit 5: Streams is emulated")
	require.True(t, ctrl.ExtendedLogData(), "LPA bit 2")
	require.True(t, ctrl.EnduranceGroups(), "CTRATT bit 4")
	require.False(t, ctrl.FDPSupported(), "FDP is not emulated")
	require.Equal(t, uint16(1), ctrl.ENDGIDMAX)
	require.Equal(t, uint32(1), ctrl.NN)
	require.Equal(t, uint64(256<<20), ctrl.TNVMCAP.Lo)

	ns, err := decode.ParseIDNamespace(submit(t, dev, admin.Identify(admin.CNSNamespace, 1)))
	require.NoError(t, err)
	require.Equal(t, uint32(4096), ns.LBADataSize)
	require.Equal(t, uint64(256<<20/4096), ns.NSZE)
	require.Equal(t, uint16(1), ns.ENDGID)
	require.InDelta(t, 0.65, float64(ns.NUSE)/float64(ns.NSZE), 0.02, "prefilled to fill_start")
}

func TestCountersAreConsistent(t *testing.T) {
	d, clk, dev := newDrive(t, smallConfig())
	start := d.Stats()
	require.Equal(t, start.HostBytes, start.MediaBytes, "a sequential prefill has no GC")

	for step := 0; step < 8; step++ {
		clk.Add(5 * time.Second)
		s, o, e := counters(t, dev)
		st := d.Stats() // same clock: no further writes
		// Host bytes issued equal rate x time, to within one command.
		issued := st.HostBytes - start.HostBytes
		want := float64(5*(step+1)) * float64(64<<20)
		require.InDelta(t, want, float64(issued), 64*1024, "step %d", step)
		// SMART DUW is host bytes in 512,000-byte units, rounded up.
		require.Equal(t, (st.HostBytes+511999)/512000, s.DataUnitsWritten.Lo)
		require.Equal(t, st.HostWriteCommands, s.HostWriteCommands.Lo)
		// OCP PMUW is NAND bytes, exactly host + GC.
		require.Equal(t, st.MediaBytes, o.PhysicalMediaUnitsWritten.Lo)
		require.Equal(t, st.HostBytes+st.GCBytes, st.MediaBytes)
		require.Equal(t, uint16(4), o.LogPageVersion)
		require.GreaterOrEqual(t, o.UserDataEraseCountMax, o.UserDataEraseCountMin)
		// The endurance group log agrees in its coarse 10^9-byte units.
		require.Equal(t, (st.HostBytes+999_999_999)/1_000_000_000, e.DataUnitsWritten.Lo)
		require.Equal(t, (st.MediaBytes+999_999_999)/1_000_000_000, e.MediaUnitsWritten.Lo)
		require.InDelta(t, st.WriteAmp, float64(o.PhysicalMediaUnitsWritten.Lo)/float64(st.HostBytes), 1e-12)
	}
	st := d.Stats()
	var byClass uint64
	for _, b := range st.ClassBytes {
		byClass += b
	}
	require.Equal(t, st.HostBytes, byClass, "host bytes are exactly what the workload issued, prefill included")
	require.Greater(t, st.WriteAmp, 1.0, "the mix has reached garbage collection")
	require.Positive(t, st.TrimmedBytes, "binlog expiry deallocates")
	require.InDelta(t, 40, st.SimulatedSeconds, 1e-9)
	require.NoError(t, d.CheckModel())
}

func TestScaleMultipliesCounters(t *testing.T) {
	cfg := smallConfig()
	cfg.Capacity, cfg.Scale = 1<<30, 4 // the same 256 MiB model standing for 1 GiB
	cfg.Rate = 256 << 20
	d, clk, dev := newDrive(t, cfg)
	base := d.Stats().HostBytes
	clk.Add(10 * time.Second)
	st := d.Stats()
	require.Equal(t, uint64(4), st.Scale)
	require.Equal(t, uint64(1<<30), st.CapacityBytes)
	// The model gets rate/scale; the counters report it times scale.
	require.InDelta(t, 10*float64(256<<20), float64(st.HostBytes-base), 4*64*1024)
	require.Zero(t, st.HostBytes%(4*4096), "every model page stands for scale pages")
	ctrl, err := decode.ParseIDController(submit(t, dev, admin.Identify(admin.CNSController, 0)))
	require.NoError(t, err)
	require.Equal(t, uint64(1<<30), ctrl.TNVMCAP.Lo)
}

func TestGuardStillApplies(t *testing.T) {
	d, _, dev := newDrive(t, smallConfig())
	for _, op := range []uint8{0x01, 0x04, 0x05, 0x09, 0x19, 0x80, 0x24} { // I/O-ish, delete queue, set features, directive send, format, sanitize
		_, err := dev.Submit(context.Background(), admin.Command{Opcode: op, DataLen: 0})
		var refused *admin.RefusedError
		require.ErrorAs(t, err, &refused, "opcode 0x%02x", op)
	}
	st := dev.Stats()
	require.Equal(t, uint64(7), st.Refused)
	require.Empty(t, st.Sent, "nothing reached the simulator")
	require.NotNil(t, d)
}

func TestUnsupportedAndInvalid(t *testing.T) {
	_, _, dev := newDrive(t, smallConfig())
	ctx := context.Background()
	dr := func(nsid uint32, dtype, doper uint8, n uint32) admin.Command {
		c, err := admin.DirectiveReceive(nsid, dtype, doper, 0, n)
		require.NoError(t, err)
		return c
	}
	lp := func(p admin.LogPage) admin.Command {
		c, err := admin.GetLogPage(p)
		require.NoError(t, err)
		return c
	}
	tests := []struct {
		name        string
		cmd         admin.Command
		unsupported bool
		sc          uint8
	}{
		{"get features", admin.GetFeatures(0x1D, 0, 1, 0), true, admin.SCInvalidField},
		{"fdp stats log", lp(admin.LogPage{LID: 0x22, LSI: 1, Len: 64}), true, admin.SCInvalidField},
		{"identify uuid list", admin.Identify(0x17, 0), true, admin.SCInvalidField},
		{"identify ns 2", admin.Identify(admin.CNSNamespace, 2), false, admin.SCInvalidNS},
		{"endurance group 2", lp(admin.LogPage{LID: 0x09, LSI: 2, Len: 512}), true, admin.SCInvalidField},
		{"smart ns 5", lp(admin.LogPage{LID: 0x02, NSID: 5, Len: 512}), false, admin.SCInvalidNS},
		{"offset past the log", lp(admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Offset: 1024, Len: 4}), true, admin.SCInvalidField},
		{"directive on nsid all", dr(admin.NSIDAll, 0, 1, 4096), false, admin.SCInvalidNS},
		{"directive data placement", dr(1, 2, 1, 4096), true, admin.SCInvalidField},
		{"transfer above MDTS", lp(admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 1 << 20}), true, admin.SCInvalidField},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := dev.Submit(ctx, tc.cmd)
			var se *admin.StatusError
			require.ErrorAs(t, err, &se)
			require.Equal(t, tc.unsupported, admin.IsUnsupported(err))
			require.Equal(t, tc.sc, se.SC())
			require.True(t, se.DNR())
		})
	}
}

func TestLogOffsetsReassemble(t *testing.T) {
	_, _, dev := newDrive(t, smallConfig())
	whole := logPage(t, dev, admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Len: 512})
	var parts []byte
	for off := uint64(0); off < 512; off += 128 {
		parts = append(parts, logPage(t, dev, admin.LogPage{LID: 0xC0, NSID: admin.NSIDAll, Offset: off, Len: 128})...)
	}
	require.Equal(t, whole, parts)
	long := logPage(t, dev, admin.LogPage{LID: 0x02, NSID: admin.NSIDAll, Len: 4096})
	require.Len(t, long, 4096)
	require.Equal(t, make([]byte, 4096-512), long[512:], "zero past the log's end")
}

func TestDirectivesFollowPlacement(t *testing.T) {
	d, _, dev := newDrive(t, smallConfig())
	read := func() (decode.DirectivesIdentify, decode.StreamsParams, decode.StreamsStatus) {
		c, err := admin.DirectiveReceive(1, 0, 1, 0, 4096)
		require.NoError(t, err)
		id, err := decode.ParseDirectivesIdentify(submit(t, dev, c))
		require.NoError(t, err)
		c, err = admin.DirectiveReceive(1, 1, 1, 0, 32)
		require.NoError(t, err)
		p, err := decode.ParseStreamsParams(submit(t, dev, c))
		require.NoError(t, err)
		c, err = admin.DirectiveReceive(1, 1, 2, 0, 128)
		require.NoError(t, err)
		s, err := decode.ParseStreamsStatus(submit(t, dev, c))
		require.NoError(t, err)
		return id, p, s
	}
	id, p, s := read()
	require.True(t, id.SupportedBit(decode.DirectiveStreams))
	require.True(t, id.EnabledBit(decode.DirectiveStreams))
	require.Equal(t, uint16(5), p.MSL, "default rules name streams 1-5")
	require.Equal(t, uint16(5), p.NSSO)
	require.Equal(t, uint16(5), p.NSO)
	require.Equal(t, uint32(4), p.SWS, "16 KiB in 4 KiB blocks")
	require.Equal(t, uint16(64*4096/16384), p.SGS)
	require.Equal(t, []uint16{1, 2, 3, 4, 5}, s.IDs)

	d.SetPlacement(false)
	require.False(t, d.Placement())
	id, p, s = read()
	require.True(t, id.SupportedBit(decode.DirectiveStreams))
	require.False(t, id.EnabledBit(decode.DirectiveStreams))
	require.Equal(t, uint16(0), p.NSSO)
	require.Equal(t, uint16(0), s.OpenCount)
	require.Empty(t, s.IDs)
}

// intervalWA advances the clock in steps and returns the WA over the last
// measure steps, from the OCP and SMART pages as a probe would compute it
// (PMUW delta over host bytes delta; host bytes from Stats since SMART DUW
// is rounded to 512,000 bytes).
func intervalWA(t *testing.T, d *Drive, clk *clock, dev *admin.Device, warm, measure int) float64 {
	t.Helper()
	step := func() (uint64, uint64) {
		clk.Add(2 * time.Second) // half a drive turn at 64 MiB/s
		_, o, _ := counters(t, dev)
		return d.Stats().HostBytes, o.PhysicalMediaUnitsWritten.Lo
	}
	for i := 0; i < warm; i++ {
		step()
	}
	h0, m0 := step()
	var h1, m1 uint64
	for i := 0; i < measure; i++ {
		h1, m1 = step()
	}
	return float64(m1-m0) / float64(h1-h0)
}

func TestPlacementOffRaisesWA(t *testing.T) {
	d, clk, dev := newDrive(t, smallConfig())
	on := intervalWA(t, d, clk, dev, 16, 10)
	d.SetPlacement(false)
	off := intervalWA(t, d, clk, dev, 10, 10)
	d.SetPlacement(true)
	onAgain := intervalWA(t, d, clk, dev, 10, 10)
	t.Logf("WA with streams %.3f, without %.3f, with again %.3f", on, off, onAgain)
	require.Greater(t, off, on*1.05)
	require.Less(t, onAgain, off*0.95)
	require.NoError(t, d.CheckModel())

	// Same seed and clock, same traffic: the run is deterministic.
	d2, clk2, dev2 := newDrive(t, smallConfig())
	require.Equal(t, on, intervalWA(t, d2, clk2, dev2, 16, 10))
}

func TestDiskstatsDrivesHostWrites(t *testing.T) {
	dir := t.TempDir()
	write := func(sectors uint64) {
		line := " 259 0 nvme0n1 10 0 80 1 20 0 " + strconv.FormatUint(sectors, 10) + " 5 0 6 6\n"
		require.NoError(t, os.WriteFile(filepath.Join(dir, "diskstats"), []byte(line), 0o644))
	}
	write(1_000_000)
	cfg := smallConfig()
	cfg.Diskstats = Diskstats{Device: "nvme0n1", ProcFS: dir}
	d, clk, _ := newDrive(t, cfg)
	base := d.Stats().HostBytes
	total := uint64(0)
	for _, sectors := range []uint64{1_000_000, 1_200_000, 1_200_000, 1_500_000} {
		write(sectors)
		clk.Add(15 * time.Second)
		total = (sectors - 1_000_000) * 512
		require.InDelta(t, float64(total), float64(d.Stats().HostBytes-base), 64*1024, "sectors %d", sectors)
	}
	// A read failure is reported in the state and does not stop the drive.
	require.NoError(t, os.Remove(filepath.Join(dir, "diskstats")))
	clk.Add(15 * time.Second)
	st := d.Stats()
	require.Contains(t, st.LastError, "diskstats")
	require.InDelta(t, float64(total), float64(st.HostBytes-base), 64*1024)

	cfg.Diskstats.Device = "nvme9n9"
	_, err := New(cfg, WithClock(clk.Now))
	require.Error(t, err, "a missing device is a configuration error")
}

func TestBackgroundTickAndClose(t *testing.T) {
	cfg := smallConfig()
	tick := 5 * time.Millisecond
	cfg.Tick = &tick
	d, err := New(cfg)
	require.NoError(t, err)
	start := d.Stats().HostBytes
	require.Eventually(t, func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		return d.model.Counters().HostPages*4096 > start
	}, 10*time.Second, 5*time.Millisecond, "the ticker advances the model without reads")
	require.NoError(t, d.Close())
	require.NoError(t, d.Close(), "idempotent")
	_, err = d.Exec(context.Background(), admin.Identify(admin.CNSController, 0))
	require.ErrorContains(t, err, "closed")
}

func TestLongPauseIsSkipped(t *testing.T) {
	cfg := smallConfig()
	cfg.Rate = 1 << 20
	d, clk, _ := newDrive(t, cfg)
	clk.Add(time.Hour)
	st := d.Stats()
	require.InDelta(t, maxStep.Seconds(), st.SimulatedSeconds, 1e-9)
	require.InDelta(t, time.Hour.Seconds()-maxStep.Seconds(), st.SkippedSeconds, 1e-9)
}

func TestController(t *testing.T) {
	d, _, _ := newDrive(t, smallConfig())
	c := Controller("", d)
	require.True(t, c.Simulated)
	require.Equal(t, "nvmesim0", c.Name)
	require.Equal(t, Model, c.Model)
	require.Equal(t, d.Config().Serial, c.Serial)
	require.Equal(t, -1, c.NUMANode)
	require.Equal(t, uint32(1), c.Namespaces[0].NSID)
	ctrl, err := decode.ParseIDController(submit(t, c.Device, admin.Identify(admin.CNSController, 0)))
	require.NoError(t, err)
	require.Contains(t, ctrl.Model, "simulated")
	require.Equal(t, "sim1", Controller("sim1", d).Name)
}

// FuzzExec sends arbitrary commands: the drive must answer each with the
// requested length or an NVMe status, never panic.
func FuzzExec(f *testing.F) {
	d, err := New(smallConfig(), WithClock(newClock().Now))
	require.NoError(f, err)
	f.Cleanup(func() { _ = d.Close() })
	f.Add(uint8(0x02), uint32(0xFFFFFFFF), uint32(0x007F8002), uint32(0), uint32(0), uint32(0), uint32(512))
	f.Add(uint8(0x06), uint32(1), uint32(0), uint32(0), uint32(0), uint32(0), uint32(4096))
	f.Add(uint8(0x1A), uint32(1), uint32(7), uint32(0x0101), uint32(0), uint32(0), uint32(32))
	f.Add(uint8(0x02), uint32(0), uint32(0x00000009|127<<16), uint32(1<<16), uint32(508), uint32(0), uint32(8))
	f.Fuzz(func(t *testing.T, op uint8, nsid, cdw10, cdw11, cdw12, cdw13, n uint32) {
		cmd := admin.Command{Opcode: op, NSID: nsid, CDW10: cdw10, CDW11: cdw11, CDW12: cdw12, CDW13: cdw13, DataLen: n}
		res, err := d.Exec(context.Background(), cmd)
		if err != nil {
			var se *admin.StatusError
			require.ErrorAs(t, err, &se)
			return
		}
		require.Len(t, res.Data, int(n))
	})
}

// TestPlacedWrites: with placement on, the drive's writes carry the rule
// table's stream ids; with it off, none do; the bytes add up to the host
// bytes the drive reports.
func TestPlacedWrites(t *testing.T) {
	d, clk, _ := newDrive(t, smallConfig())
	clk.Add(10 * time.Second)
	share := func(pw []PlacedWrite) (placed, all uint64) {
		for _, p := range pw {
			all += p.Bytes
			if p.Stream != 0 {
				placed += p.Bytes
			}
		}
		return placed, all
	}
	p1, a1 := share(d.PlacedWrites())
	require.NotZero(t, a1)
	require.Greater(t, float64(p1)/float64(a1), 0.5, "streams on: most bytes carry a stream id")
	require.Equal(t, d.Stats().HostBytes-d.base.HostBytes, a1, "every host byte is in one stream's count")

	d.SetPlacement(false)
	clk.Add(10 * time.Second)
	p2, a2 := share(d.PlacedWrites())
	require.Equal(t, p1, p2, "placement off: no new placed bytes")
	require.Greater(t, a2, a1)
}

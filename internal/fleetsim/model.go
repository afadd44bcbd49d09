// Package fleetsim simulates a fleet of database hosts for walab's fleet
// tests and benchmarks: each host is an exporterapp.App (the exporter's own
// collectors and registry) over replay directories whose NVMe log pages
// fixture.Drive writes from counters that advance with a simulated clock.
// Each drive has its own host write rate, write amplification and wear;
// models and firmware vary; chosen drives get a WA regression at a known
// simulated time. Everything follows from the seed. It is a test tool, not
// an exporter: nothing here reads a device.
package fleetsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Config describes the simulated fleet.
type Config struct {
	Seed          uint64
	Hosts         int
	DrivesPerHost int
	// Regressed drives (the first ones of a seeded shuffle) have their WA
	// multiplied by RegressFactor from RegressAt (simulated time since the
	// start) on.
	Regressed     int
	RegressAt     time.Duration
	RegressFactor float64
}

// Validate refuses a fleet that cannot be built, naming the field.
func (c Config) Validate() error {
	switch {
	case c.Hosts < 1:
		return fmt.Errorf("fleetsim: Hosts must be at least 1 (got %d)", c.Hosts)
	case c.DrivesPerHost < 1:
		return fmt.Errorf("fleetsim: DrivesPerHost must be at least 1 (got %d)", c.DrivesPerHost)
	case c.Regressed < 0 || c.Regressed > c.Hosts*c.DrivesPerHost:
		return fmt.Errorf("fleetsim: Regressed must be between 0 and the %d drives (got %d)", c.Hosts*c.DrivesPerHost, c.Regressed)
	case c.Regressed > 0 && !(c.RegressFactor > 1):
		return fmt.Errorf("fleetsim: RegressFactor must be above 1 when drives regress (got %v)", c.RegressFactor)
	case c.RegressAt < 0:
		return fmt.Errorf("fleetsim: RegressAt must not be negative (got %s)", c.RegressAt)
	}
	return nil
}

// model is one drive model of the fleet: its NAND endurance (bytes of NAND
// writes at 100 % used: capacity x rated P/E cycles) and WA range, and the
// firmware versions deployed.
type model struct {
	name      string
	capacity  uint64 // bytes
	peCycles  float64
	waMin     float64
	waMax     float64
	firmwares []string
}

// models are plausible datacenter drives with an OCP SMART extended log
// (the NAND counter the fleet's replay directories carry).
var models = []model{
	{"SAMSUNG MZQL23T8HCLS-00A07", 3_840_755_982_336, 3000, 1.4, 3.0, []string{"GDC5602Q", "GDC5A02Q"}},
	{"MICRON 7450 MTFDKCC3T8TFR", 3_840_755_982_336, 3000, 1.6, 3.5, []string{"E2MU200", "E2MU300"}},
	{"KIOXIA KCD8XPUG3T84", 3_840_000_000_000, 3000, 1.3, 2.6, []string{"0103", "0106"}},
	{"SOLIDIGM SBFPF2BV038T", 3_840_000_000_000, 1000, 2.0, 4.5, []string{"ACV10200"}},
}

// Drive is one simulated drive's identity and workload.
type Drive struct {
	Host, Index        int // host number, nvme<Index> on it
	Model, Firmware    string
	Serial             string
	HostBytesPerSec    float64 // simulated-clock host write rate
	WA                 float64 // NAND bytes / host bytes before any regression
	Regressed          bool
	EnduranceBytes     float64 // NAND bytes at percentage used 100
	hostBase, nandBase float64
}

// Name is the device name on its host.
func (d Drive) Name() string { return fmt.Sprintf("nvme%d", d.Index) }

// WAAt is the drive's write amplification at simulated time t.
func (d Drive) WAAt(c Config, t time.Duration) float64 {
	if d.Regressed && t >= c.RegressAt {
		return d.WA * c.RegressFactor
	}
	return d.WA
}

// counters are the drive's host and NAND bytes at simulated time t: the
// base counts plus the integral of the rate, split at the regression.
func (d Drive) counters(c Config, t time.Duration) (host, nand float64) {
	secs := t.Seconds()
	host = d.hostBase + d.HostBytesPerSec*secs
	nand = d.nandBase + d.HostBytesPerSec*secs*d.WA
	if d.Regressed && t > c.RegressAt {
		after := (t - c.RegressAt).Seconds()
		nand += d.HostBytesPerSec * after * d.WA * (c.RegressFactor - 1)
	}
	return host, nand
}

// percentageUsed is SMART's Percentage Used: NAND wear against endurance,
// truncated as drives report it, capped at 255.
func (d Drive) percentageUsed(nand float64) uint8 {
	return uint8(math.Min(255, math.Floor(nand/d.EnduranceBytes*100)))
}

// drives lays out the fleet from the seed.
func drives(c Config) []Drive {
	r := rand.New(rand.NewPCG(c.Seed, 0x77a1ab))
	out := make([]Drive, 0, c.Hosts*c.DrivesPerHost)
	for h := range c.Hosts {
		for i := range c.DrivesPerHost {
			m := models[r.IntN(len(models))]
			d := Drive{Host: h, Index: i, Model: m.name, Firmware: m.firmwares[r.IntN(len(m.firmwares))],
				Serial:          fmt.Sprintf("SIM%05dN%02d", h, i),
				HostBytesPerSec: 5e6 + r.Float64()*45e6,
				WA:              m.waMin + r.Float64()*(m.waMax-m.waMin),
				EnduranceBytes:  float64(m.capacity) * m.peCycles,
			}
			// A history: between 2 % and 40 % of the endurance used.
			d.nandBase = d.EnduranceBytes * (0.02 + r.Float64()*0.38)
			d.hostBase = d.nandBase / d.WA
			out = append(out, d)
		}
	}
	for _, k := range r.Perm(len(out))[:c.Regressed] {
		out[k].Regressed = true
	}
	return out
}

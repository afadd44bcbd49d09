package collector

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/wa"
)

func init() { Register("nvme", true, newNVMeCollector) }

// nvmeSourceUnknown labels a controller that has not been probed yet
// (its device could not be read).
const nvmeSourceUnknown = "unknown"

type nvmeCollector struct {
	logger *slog.Logger
	wa     *wa.Sampler // nil when the wa collector is off
	ctrls  []*fleet.Controller
	// pollers parallels ctrls; nil where the device could not be opened.
	pollers []*probe.Poller

	mu         sync.Mutex
	lastErr    map[string]string // device -> last error text, to log once per change
	lastSource map[string]string // device -> source last logged
	lastSrcErr map[string]string // device -> last NAND source error text
}

func newNVMeCollector(env Env) (Collector, error) {
	c := &nvmeCollector{logger: env.log(), wa: env.WA, lastErr: map[string]string{}, lastSource: map[string]string{}, lastSrcErr: map[string]string{}}
	if env.Fleet == nil {
		return c, nil
	}
	// The fleet's pollers, configured once by the composition root from
	// the nvme: section (exporterapp.OpenFleet); a controller without one
	// reports its open error.
	for _, ctrl := range env.Fleet.Controllers {
		c.ctrls = append(c.ctrls, ctrl)
		c.pollers = append(c.pollers, ctrl.Poller)
	}
	return c, nil
}

func (c *nvmeCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	ch <- prometheus.MustNewConstMetric(nvmeControllersDesc, prometheus.GaugeValue, float64(len(c.ctrls)))
	if len(c.ctrls) == 0 {
		return nil
	}
	// Devices are read in parallel: one slow controller must not delay the rest.
	var wg sync.WaitGroup
	for i := range c.ctrls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer recoverDevice(c.logger, c.ctrls[i].Name)
			c.updateOne(ctx, c.ctrls[i], c.pollers[i], ch)
		}()
	}
	wg.Wait()
	return nil
}

func (c *nvmeCollector) updateOne(ctx context.Context, ctrl *fleet.Controller, p *probe.Poller, ch chan<- prometheus.Metric) {
	dev := ctrl.Name
	var s *probe.Sample
	err := ctrl.OpenErr
	if p != nil {
		s, err = p.Sample(ctx)
	} else if err == nil {
		err = fmt.Errorf("%s: no admin device", dev)
	}
	c.note(dev, err)

	model, serial, fw := ctrl.Model, ctrl.Serial, ctrl.Firmware
	source, unitConfirmed := nvmeSourceUnknown, "true"
	if p != nil {
		if plan := p.Plan(); plan != nil {
			source = plan.Source
			unitConfirmed = strconv.FormatBool(!plan.UnitUnconfirmed)
			c.noteSource(dev, plan)
			// sysfs wins; Identify fills what sysfs (or a replay folder) lacks.
			model = firstNonEmpty(model, plan.Ctrl.Model)
			serial = firstNonEmpty(serial, plan.Ctrl.Serial)
			fw = firstNonEmpty(fw, plan.Ctrl.Firmware)
			if capacity := capacityBytes(plan); capacity > 0 {
				ch <- prometheus.MustNewConstMetric(nvmeCapacityDesc, prometheus.GaugeValue, capacity, dev)
			}
			if plan.Source != probe.SourceNone {
				for reason, n := range p.SourceErrors() {
					ch <- prometheus.MustNewConstMetric(nvmeSourceErrsDesc, prometheus.CounterValue, float64(n), dev, plan.Source, reason)
				}
			}
		}
		c.adminStats(p, ch)
		ch <- prometheus.MustNewConstMetric(nvmeReadTimeoutsDesc, prometheus.CounterValue, float64(p.Timeouts()), dev)
	}
	ch <- prometheus.MustNewConstMetric(nvmeInfoDesc, prometheus.GaugeValue, 1, dev,
		validLabel(model), validLabel(serial), validLabel(fw), source, strconv.FormatBool(ctrl.Simulated), unitConfirmed)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(nvmeUpDesc, prometheus.GaugeValue, 0, dev)
		return
	}
	ch <- prometheus.MustNewConstMetric(nvmeUpDesc, prometheus.GaugeValue, 1, dev)

	counter := func(d *prometheus.Desc, v float64, lv ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, lv...)
	}
	gauge := func(d *prometheus.Desc, v float64) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, dev)
	}
	if s.Source != probe.SourceNone {
		c.noteSourceErr(dev, s.Source, s.SourceErr)
		ch <- prometheus.MustNewConstMetric(nvmeSourceUpDesc, prometheus.GaugeValue, boolFloat(s.SourceUp()), dev, s.Source)
	}
	// A failing source exports none of its counters: HostBytes would fall
	// back to SMART's under the source's label, a different counter. Nor
	// does one whose reading the WA sampler calls a glitch (below what it
	// last recorded: an emptied page read as zeros): a counter that went
	// back is a reset to Prometheus.
	if s.SourceErr == nil && !c.glitching(dev, s) {
		counter(nvmeHostWrittenDesc, s.HostBytes.Float64(), dev, s.Source)
		if s.MediaBytes != nil {
			counter(nvmeMediaWrittenDesc, s.MediaBytes.Float64(), dev, s.Source)
		}
		if s.GCBytes != nil {
			counter(nvmeGCWrittenDesc, s.GCBytes.Float64(), dev, s.Source)
		}
	}
	sm := s.SMART
	counter(nvmeSMARTWrittenDesc, s.SMARTHostBytes.Float64(), dev)
	emitNamespaceWritten(ch, ctrl, s)
	counter(nvmeHostWriteCmdsDesc, sm.HostWriteCommands.Float64(), dev)
	counter(nvmeMediaErrorsDesc, sm.MediaErrors.Float64(), dev)
	counter(nvmeUnsafeShutdownsDesc, sm.UnsafeShutdowns.Float64(), dev)
	counter(nvmePowerOnDesc, sm.PowerOnHours.Float64()*3600, dev)
	gauge(nvmePercentUsedDesc, float64(sm.PercentageUsed)/100)
	gauge(nvmeSpareDesc, float64(sm.AvailableSpare)/100)
	gauge(nvmeTempDesc, float64(sm.TemperatureKelvin)-273.15)
	gauge(nvmeCritWarnDesc, float64(sm.CriticalWarning))
}

// glitching: the WA sampler would call this reading a glitch.
func (c *nvmeCollector) glitching(dev string, s *probe.Sample) bool {
	if c.wa == nil || s.MediaBytes == nil {
		return false
	}
	host, ok1 := s.HostBytes.Uint64()
	media, ok2 := s.MediaBytes.Uint64()
	return ok1 && ok2 && c.wa.Glitching(dev, s.Source, host, media)
}

func (c *nvmeCollector) adminStats(p *probe.Poller, ch chan<- prometheus.Metric) {
	dev := p.Name()
	st := p.Device().Stats()
	for k, v := range st.Sent {
		ch <- prometheus.MustNewConstMetric(nvmeAdminCmdsDesc, prometheus.CounterValue, float64(v), dev, opcodeLabel(k.Opcode), logIDLabel(k))
	}
	for k, v := range st.Failures {
		ch <- prometheus.MustNewConstMetric(nvmeAdminErrsDesc, prometheus.CounterValue, float64(v), dev, opcodeLabel(k.Opcode), statusLabel(k.Status))
	}
	ch <- prometheus.MustNewConstMetric(nvmeAdminRefusedDesc, prometheus.CounterValue, float64(st.Refused), dev)
}

// note logs a device failure when it starts or changes, and its recovery,
// rather than on every scrape.
func (c *nvmeCollector) note(dev string, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	c.mu.Lock()
	prev, seen := c.lastErr[dev]
	c.lastErr[dev] = msg
	c.mu.Unlock()
	switch {
	case msg != "" && msg != prev:
		c.logger.Error("NVMe device read failed; exporting up=0 and sysfs identity only", "device", dev, "err", err)
	case msg == "" && prev != "" && seen:
		c.logger.Info("NVMe device readable again", "device", dev)
	}
}

// noteSourceErr logs a NAND source failing, once per change of its error,
// and its recovery.
func (c *nvmeCollector) noteSourceErr(dev, source string, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	c.mu.Lock()
	prev := c.lastSrcErr[dev]
	c.lastSrcErr[dev] = msg
	c.mu.Unlock()
	switch {
	case msg != "" && msg != prev:
		c.logger.Error("NVMe NAND source read failed; its counters and WA are absent until it reads again (the source is kept)", "device", dev, "nand_source", source, "err", err)
	case msg == "" && prev != "":
		c.logger.Info("NVMe NAND source readable again", "device", dev, "nand_source", source)
	}
}

// noteSource logs the NAND source a device was probed to, once per change,
// with why better sources were passed over.
func (c *nvmeCollector) noteSource(dev string, plan *probe.Plan) {
	c.mu.Lock()
	changed := c.lastSource[dev] != plan.Source
	c.lastSource[dev] = plan.Source
	c.mu.Unlock()
	if changed {
		c.logger.Info("NVMe NAND source chosen", "device", dev, "nand_source", plan.Source, "forced", plan.Forced,
			"vid", fmt.Sprintf("0x%04x", plan.Ctrl.VID), "model", plan.Ctrl.Model, "passed_over", plan.Rejected)
	}
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func boolFloat(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// capacityBytes is the controller's TNVMCAP, or where it reports none (0:
// an optional field, which QEMU's controller leaves 0) the sum of its
// namespaces' sizes (NSZE x LBA data size from Identify Namespace); 0 when
// neither is known, and the capacity is then absent, not 0.
func capacityBytes(plan *probe.Plan) float64 {
	if c := plan.Ctrl.TNVMCAP.Float64(); c > 0 {
		return c
	}
	var sum float64
	for _, ns := range plan.Namespaces {
		sum += float64(ns.NSZE) * float64(ns.LBADataSize)
	}
	return sum
}

package wa

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/walab/walab/internal/promql"
)

// Metric names live in docs/metrics.md ("NVMe" section); keep them in step.
var (
	waDesc = prometheus.NewDesc(promql.NVMeWriteAmplification,
		"NAND (media) bytes written divided by host bytes written over the window, from walab's own counter samples. Absent when the host wrote nothing in the window, and while the device's counters cannot be read (never a frozen value).",
		[]string{"device", "window"}, nil)
	windowDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_window_seconds",
		"Time actually spanned by the samples behind walab_nvme_write_amplification; shorter than the window while the history is younger than it.",
		[]string{"device", "window"}, nil)
	resetsDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_resets_total",
		"Times the device's counters stayed below their last sample for several readings or changed source (e.g. drive swapped), which restarts its WA windows and leaves the run window without WA until the next run-start.",
		[]string{"device"}, nil)
	runStartDesc = prometheus.NewDesc(promql.NVMeRunStart,
		"Start of the current run for the run window: the first sample or POST /api/v1/run-start. A counter reset never moves it; the run window then has no WA until the next run-start.",
		[]string{"device"}, nil)
	glitchesDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_glitches_total",
		"Counter readings ignored because they were below the device's last sample and did not stay there (an emptied page, a firmware hiccup); WA is absent for those rounds.",
		[]string{"device"}, nil)
	samplesDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_samples",
		"Counter samples held for the device's WA windows (bounded by the longest window / sampling interval + 1).",
		[]string{"device"}, nil)
	lastSampleDesc = prometheus.NewDesc(promql.NVMeWALastSample,
		"When the device's counters were last read successfully by the WA sampler.",
		[]string{"device"}, nil)
	saveErrorsDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_state_save_errors_total",
		"Failed writes of the WA state file (read-only or full filesystem, ...). The history stays in memory but would not survive a restart. Absent without a state file.",
		nil, nil)
	lastSavedDesc = prometheus.NewDesc(promql.Prefix+"_nvme_wa_state_last_save_timestamp_seconds",
		"When the WA state file was last written successfully. Absent before the first successful write and without a state file.",
		nil, nil)
)

// Describe implements prometheus.Collector.
func (s *Sampler) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{waDesc, windowDesc, resetsDesc, glitchesDesc, runStartDesc, samplesDesc, lastSampleDesc, saveErrorsDesc, lastSavedDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector. It reads no device: the values
// come from the samples the sampler already holds.
func (s *Sampler) Collect(ch chan<- prometheus.Metric) {
	if s.opts.StatePath != "" {
		s.saveMu.Lock()
		errs, last := s.saveErrors, s.lastSaved
		s.saveMu.Unlock()
		ch <- prometheus.MustNewConstMetric(saveErrorsDesc, prometheus.CounterValue, float64(errs))
		if !last.IsZero() {
			ch <- prometheus.MustNewConstMetric(lastSavedDesc, prometheus.GaugeValue, float64(last.UnixMilli())/1000)
		}
	}
	for _, d := range s.Snapshot() {
		for _, w := range d.Windows {
			ch <- prometheus.MustNewConstMetric(windowDesc, prometheus.GaugeValue, w.Seconds, d.Device, w.Window)
			if w.HasWA {
				ch <- prometheus.MustNewConstMetric(waDesc, prometheus.GaugeValue, w.WA, d.Device, w.Window)
			}
		}
		ch <- prometheus.MustNewConstMetric(resetsDesc, prometheus.CounterValue, float64(d.Resets), d.Device)
		ch <- prometheus.MustNewConstMetric(glitchesDesc, prometheus.CounterValue, float64(d.Glitches), d.Device)
		if !d.RunPending {
			ch <- prometheus.MustNewConstMetric(runStartDesc, prometheus.GaugeValue, float64(d.RunStart.UnixMilli())/1000, d.Device)
		}
		ch <- prometheus.MustNewConstMetric(samplesDesc, prometheus.GaugeValue, float64(d.Samples), d.Device)
		ch <- prometheus.MustNewConstMetric(lastSampleDesc, prometheus.GaugeValue, float64(d.LastSample.UnixMilli())/1000, d.Device)
	}
}

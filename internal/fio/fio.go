// Package fio reads the JSON report of fio (--output-format=json or
// json+) into walab's terms: per job, or per group under group_reporting,
// the IOPS, bandwidth, completion-latency percentiles and errors of each
// direction, and the result of --steadystate when the job had one.
//
// It reads every format fio has printed from 2.2 on (raw.go has the
// history, from fio's stat.c): figures come out in base units (bytes,
// bytes per second, nanoseconds) whatever unit that version printed. A
// figure fio did not print, or did not measure, stays nil: no figure is
// made up. What it cannot read right (fio before 2.2, client/server
// output) is refused with the reason.
package fio

// Output is one fio run's report.
type Output struct {
	Version string `json:"fio_version"`
	Jobs    []Job  `json:"jobs"`
	// Notes are lines fio printed before its JSON (warnings such as
	// "note: both iodepth >= 1 and synchronous I/O engine are selected").
	Notes []string `json:"notes,omitempty"`
	// Interrupted is the signal fio said it stopped on ("fio: terminating
	// on signal 2", printed into the report file before the JSON): the
	// figures are of the shortened run. Empty when fio ran to its end.
	Interrupted string `json:"interrupted,omitempty"`
}

// Job is one job of the report, or one group with group_reporting.
type Job struct {
	Name    string `json:"name"`
	GroupID int    `json:"group_id"`
	// Error is the job's errno (0: none); TotalErrors the I/O errors it
	// went on after (only printed with continue_on_error).
	Error       int     `json:"error"`
	TotalErrors *uint64 `json:"total_errors,omitempty"`
	Read        Dir     `json:"read"`
	Write       Dir     `json:"write"`
	Trim        Dir     `json:"trim"`
	// Mixed is reads, writes and trims counted together, as fio reports
	// them with --unified_rw_reporting=mixed (or 1; with "both" beside
	// read, write and trim). MixedOnly: fio printed only this direction,
	// so Read, Write and Trim hold nothing (not zero I/O).
	Mixed     *Dir    `json:"mixed,omitempty"`
	MixedOnly bool    `json:"mixed_only,omitempty"`
	Steady    *Steady `json:"steadystate,omitempty"`
}

// IOPS is the job's I/O per second over every direction: read + write +
// trim, or mixed when fio reported only that.
func (j Job) IOPS() float64 {
	if j.MixedOnly {
		return j.Mixed.IOPS
	}
	return j.Read.IOPS + j.Write.IOPS + j.Trim.IOPS
}

// Dir is one direction (read, write or trim) of a job.
type Dir struct {
	IOs uint64 `json:"ios"`
	// Bytes is exact from fio 2.21 on; before, fio printed KiB (rounded
	// down), and Bytes is that × 1024.
	Bytes uint64 `json:"bytes"`
	// IOPS as fio computed it; BytesPerSecond is fio's bw_bytes, or before
	// fio 3.2 its bw (KiB/s, rounded down) × 1024.
	IOPS           float64 `json:"iops"`
	BytesPerSecond float64 `json:"bytes_per_second"`
	RuntimeMs      uint64  `json:"runtime_ms"`
	// Completion latency (submission to completion) in nanoseconds.
	ClatMeanNs *float64 `json:"clat_mean_ns,omitempty"`
	ClatMaxNs  *float64 `json:"clat_max_ns,omitempty"`
	// ClatPercentiles in ascending order of percentile (50, 99, 99.9, ...):
	// empty when fio printed none (no I/O, or clat_percentiles=0).
	ClatPercentiles []Percentile `json:"clat_percentiles,omitempty"`
}

// Percentile is the completion latency below which P percent of the
// direction's I/Os completed.
type Percentile struct {
	P  float64 `json:"p"`
	Ns float64 `json:"ns"`
}

// Clat is the completion latency at percentile p (e.g. 99.9) in
// nanoseconds; ok is false when fio did not report that percentile.
func (d Dir) Clat(p float64) (ns float64, ok bool) {
	for _, x := range d.ClatPercentiles {
		if x.P == p {
			return x.Ns, true
		}
	}
	return 0, false
}

// Steady is fio's --steadystate result of a job.
type Steady struct {
	Criterion string `json:"criterion"` // as given, e.g. iops_slope:0.3%
	Attained  bool   `json:"attained"`
	// DurationS is the window (ss_dur) in seconds; Measured the criterion's
	// value fio computed over it (e.g. "0.12%").
	DurationS int    `json:"duration_s"`
	Measured  string `json:"measured"`
}

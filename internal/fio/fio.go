// Package fio reads the JSON report of fio (--output-format=json or
// json+, fio 3.x) into walab's terms: per job, or per group under
// group_reporting, the IOPS, bandwidth, completion-latency percentiles and
// errors of each direction, and the result of --steadystate when the job
// had one. A field fio did not print stays nil: no figure is made up.
package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
)

// Output is one fio run's report.
type Output struct {
	Version string `json:"fio_version"`
	Jobs    []Job  `json:"jobs"`
	// Notes are lines fio printed before its JSON (warnings such as
	// "note: both iodepth >= 1 and synchronous I/O engine are selected").
	Notes []string `json:"notes,omitempty"`
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
	Steady      *Steady `json:"steadystate,omitempty"`
}

// Dir is one direction (read, write or trim) of a job.
type Dir struct {
	IOs            uint64  `json:"ios"`
	Bytes          uint64  `json:"bytes"`
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

// The raw report, as fio 3.33 prints it (stat.c, show_thread_status_json).
type rawOutput struct {
	Version string   `json:"fio version"`
	Jobs    []rawJob `json:"jobs"`
}

type rawJob struct {
	Name     string     `json:"jobname"`
	GroupID  int        `json:"groupid"`
	Error    int        `json:"error"`
	TotalErr *uint64    `json:"total_err"`
	Read     *rawDir    `json:"read"`
	Write    *rawDir    `json:"write"`
	Trim     *rawDir    `json:"trim"`
	Steady   *rawSteady `json:"steadystate"`
}

type rawDir struct {
	IOBytes  uint64  `json:"io_bytes"`
	BWBytes  float64 `json:"bw_bytes"`
	IOPS     float64 `json:"iops"`
	Runtime  uint64  `json:"runtime"`
	TotalIOs uint64  `json:"total_ios"`
	ClatNs   *rawLat `json:"clat_ns"`
	ClatUs   *rawLat `json:"clat_us"` // fio before 3.0 printed microseconds
}

type rawLat struct {
	Max        *float64           `json:"max"`
	Mean       *float64           `json:"mean"`
	N          uint64             `json:"N"`
	Percentile map[string]float64 `json:"percentile"`
}

type rawSteady struct {
	SS        string `json:"ss"`
	Duration  int    `json:"duration"`
	Attained  int    `json:"attained"`
	Criterion string `json:"criterion"`
}

// MaxBytes bounds a report walab reads: json+ of many jobs is a few MiB.
const MaxBytes = 64 << 20

// Parse reads a report. fio may print notes before the JSON; they are
// kept as Notes. Anything else that is not a well-formed report with at
// least one job is an error.
func Parse(data []byte) (*Output, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("fio report is %d bytes, more than the %d walab reads", len(data), MaxBytes)
	}
	var notes []string
	for len(data) > 0 && data[0] != '{' {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if t := bytes.TrimSpace(line); len(t) > 0 {
			notes = append(notes, string(t))
		}
		data = rest
	}
	if len(data) == 0 {
		return nil, errors.New("fio report holds no JSON object")
	}
	var raw rawOutput
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&raw); err != nil {
		return nil, fmt.Errorf("fio report: %w", err)
	}
	if dec.More() {
		return nil, errors.New("fio report: more than one JSON value")
	}
	if len(raw.Jobs) == 0 {
		return nil, errors.New("fio report has no jobs")
	}
	out := &Output{Version: raw.Version, Notes: notes}
	for i, rj := range raw.Jobs {
		j, err := convertJob(rj)
		if err != nil {
			return nil, fmt.Errorf("fio report: job %d (%s): %w", i, rj.Name, err)
		}
		out.Jobs = append(out.Jobs, j)
	}
	return out, nil
}

func convertJob(rj rawJob) (Job, error) {
	j := Job{Name: rj.Name, GroupID: rj.GroupID, Error: rj.Error, TotalErrors: rj.TotalErr}
	for _, d := range []struct {
		name string
		raw  *rawDir
		dst  *Dir
	}{{"read", rj.Read, &j.Read}, {"write", rj.Write, &j.Write}, {"trim", rj.Trim, &j.Trim}} {
		if d.raw == nil {
			continue
		}
		v, err := convertDir(*d.raw)
		if err != nil {
			return j, fmt.Errorf("%s: %w", d.name, err)
		}
		*d.dst = v
	}
	if s := rj.Steady; s != nil {
		j.Steady = &Steady{Criterion: s.SS, Attained: s.Attained != 0, DurationS: s.Duration, Measured: s.Criterion}
	}
	return j, nil
}

func convertDir(r rawDir) (Dir, error) {
	for _, v := range []struct {
		name string
		x    float64
	}{{"iops", r.IOPS}, {"bw_bytes", r.BWBytes}} {
		if v.x < 0 || math.IsInf(v.x, 0) || math.IsNaN(v.x) {
			return Dir{}, fmt.Errorf("%s %v is not a rate", v.name, v.x)
		}
	}
	d := Dir{IOs: r.TotalIOs, Bytes: r.IOBytes, IOPS: r.IOPS, BytesPerSecond: r.BWBytes, RuntimeMs: r.Runtime}
	lat, mul := r.ClatNs, 1.0
	if lat == nil && r.ClatUs != nil {
		lat, mul = r.ClatUs, 1000
	}
	if lat == nil || lat.N == 0 {
		return d, nil // no completions: no latency, not a latency of 0
	}
	scale := func(x *float64) *float64 {
		if x == nil {
			return nil
		}
		v := *x * mul
		return &v
	}
	d.ClatMeanNs, d.ClatMaxNs = scale(lat.Mean), scale(lat.Max)
	for _, x := range []*float64{d.ClatMeanNs, d.ClatMaxNs} {
		if x != nil && (*x < 0 || math.IsInf(*x, 0)) {
			return Dir{}, fmt.Errorf("clat %v ns is not a latency", *x)
		}
	}
	for k, v := range lat.Percentile {
		p, err := strconv.ParseFloat(k, 64)
		if err != nil || p <= 0 || p > 100 || v < 0 || math.IsInf(v*mul, 0) {
			return Dir{}, fmt.Errorf("clat percentile %q: %v", k, v)
		}
		d.ClatPercentiles = append(d.ClatPercentiles, Percentile{P: p, Ns: v * mul})
	}
	sort.Slice(d.ClatPercentiles, func(i, k int) bool { return d.ClatPercentiles[i].P < d.ClatPercentiles[k].P })
	for i := 1; i < len(d.ClatPercentiles); i++ {
		if d.ClatPercentiles[i].P == d.ClatPercentiles[i-1].P {
			return Dir{}, fmt.Errorf("clat percentile %g given twice", d.ClatPercentiles[i].P)
		}
	}
	return d, nil
}

package fio

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// The report as fio prints it (stat.c, show_thread_status_json and
// add_ddir_status_json; json.c prints floats with "%f"). What changed,
// by the first release that printed it:
//
//	2.0   io_bytes in KiB, bw in KiB/s, iops an integer; clat/slat/lat in µs;
//	      a percentile object of 20 keys, unused ones "0.00": 0 (repeated)
//	2.1   "mixed" in place of read/write/trim with unified_rw_reporting
//	2.2   total_ios; iops a float
//	2.21  io_bytes in bytes, io_kbytes beside it
//	2.99  clat_ns/slat_ns/lat_ns in nanoseconds (3.0 is the first 3.x)
//	3.2   bw_bytes (bw stays KiB/s)
//	3.4   no "0.00" placeholders
//	3.5   a "sync" direction (fsync latency; not read here)
//	3.18  "N" (samples) in each latency object; percentiles only when N > 0
//	3.27  unified_rw_reporting=both: read, write, trim and mixed
//
// fio 3.30 moved per-priority latencies into "prios" (not read here).
// fio --client prints "client_stats" in place of "jobs" (client.c).
type rawOutput struct {
	Version     string            `json:"fio version"`
	Jobs        []rawJob          `json:"jobs"`
	ClientStats []json.RawMessage `json:"client_stats"`
}

type rawJob struct {
	Name     string     `json:"jobname"`
	GroupID  int        `json:"groupid"`
	Error    int        `json:"error"`
	TotalErr *uint64    `json:"total_err"`
	Read     *rawDir    `json:"read"`
	Write    *rawDir    `json:"write"`
	Trim     *rawDir    `json:"trim"`
	Mixed    *rawDir    `json:"mixed"`
	Steady   *rawSteady `json:"steadystate"`
}

type rawDir struct {
	IOBytes  *uint64  `json:"io_bytes"`
	IOKBytes *uint64  `json:"io_kbytes"`
	BWBytes  *float64 `json:"bw_bytes"`
	BW       *float64 `json:"bw"` // KiB/s
	IOPS     *float64 `json:"iops"`
	Runtime  uint64   `json:"runtime"`
	TotalIOs *uint64  `json:"total_ios"`
	ClatNs   *rawLat  `json:"clat_ns"`
	Clat     *rawLat  `json:"clat"` // fio 2.x: microseconds
}

type rawLat struct {
	Max        *float64           `json:"max"`
	Mean       *float64           `json:"mean"`
	N          *uint64            `json:"N"`
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

// interrupted is the line fio prints (into the report file with
// --output) when a signal stops it: backend.c, sig_int.
var interrupted = regexp.MustCompile(`^fio: terminating on signal (\d+)$`)

// Parse reads a report. fio may print notes before the JSON; they are
// kept as Notes. Anything else that is not a well-formed report with at
// least one job is an error.
func Parse(data []byte) (*Output, error) {
	if len(data) > MaxBytes {
		return nil, fmt.Errorf("fio report is %d bytes, more than the %d walab reads", len(data), MaxBytes)
	}
	out := &Output{}
	for len(data) > 0 && data[0] != '{' {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		if t := bytes.TrimSpace(line); len(t) > 0 {
			out.Notes = append(out.Notes, string(t))
			if m := interrupted.FindSubmatch(t); m != nil {
				out.Interrupted = "signal " + string(m[1])
			}
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
	if note, err := after(data[dec.InputOffset():]); err != nil {
		return nil, err
	} else if note != "" {
		out.Notes = append(out.Notes, note)
	}
	if len(raw.Jobs) == 0 && raw.ClientStats != nil {
		return nil, fmt.Errorf("fio report is client/server output (fio --client, %d client_stats entries): walab reads the jobs of fio run on the host itself", len(raw.ClientStats))
	}
	if len(raw.Jobs) == 0 {
		return nil, errors.New("fio report has no jobs")
	}
	out.Version = raw.Version
	for i, rj := range raw.Jobs {
		j, err := convertJob(rj)
		if err != nil {
			return nil, fmt.Errorf("fio report (%s): job %d (%s): %w", versionText(raw.Version), i, rj.Name, err)
		}
		out.Jobs = append(out.Jobs, j)
	}
	if _, err := out.sum(); err != nil {
		return nil, fmt.Errorf("fio report (%s): %w", versionText(raw.Version), err)
	}
	return out, nil
}

// after is what follows the JSON: nothing, or fio's human-readable
// report (--output-format=json,normal prints it after the JSON), which is
// not read. A second JSON value is two reports in one file: refused.
func after(rest []byte) (string, error) {
	rest = bytes.TrimSpace(rest)
	switch {
	case len(rest) == 0:
		return "", nil
	case rest[0] == '{' || rest[0] == '[':
		return "", errors.New("fio report: more than one JSON value: two reports in one output file (a second fio run appended to it, or fio's output after a job process was killed); give each fio run its own --output")
	}
	return fmt.Sprintf("%d lines after the JSON (fio's normal or terse output), not read", bytes.Count(rest, []byte("\n"))+1), nil
}

func versionText(v string) string {
	if v == "" {
		return "no fio version"
	}
	return v
}

func convertJob(rj rawJob) (Job, error) {
	j := Job{Name: rj.Name, GroupID: rj.GroupID, Error: rj.Error, TotalErrors: rj.TotalErr}
	if rj.Read == nil && rj.Write == nil && rj.Trim == nil && rj.Mixed == nil {
		return j, errors.New("no read, write, trim or mixed figures")
	}
	var mixed Dir
	for _, d := range []struct {
		name string
		raw  *rawDir
		dst  *Dir
	}{{"read", rj.Read, &j.Read}, {"write", rj.Write, &j.Write}, {"trim", rj.Trim, &j.Trim}, {"mixed", rj.Mixed, &mixed}} {
		if d.raw == nil {
			continue
		}
		v, err := convertDir(*d.raw)
		if err != nil {
			return j, fmt.Errorf("%s: %w", d.name, err)
		}
		*d.dst = v
	}
	if rj.Mixed != nil {
		j.Mixed = &mixed
		j.MixedOnly = rj.Read == nil && rj.Write == nil && rj.Trim == nil
	}
	if s := rj.Steady; s != nil {
		j.Steady = &Steady{Criterion: s.SS, Attained: s.Attained != 0, DurationS: s.Duration, Measured: s.Criterion}
	}
	return j, nil
}

// convertDir reads one direction in base units. io_kbytes appeared in
// fio 2.21, when io_bytes changed from KiB to bytes: without it, io_bytes
// is KiB. Without bw_bytes (before fio 3.2) the bandwidth is fio's bw,
// KiB/s.
func convertDir(r rawDir) (Dir, error) {
	for _, f := range []struct {
		name    string
		missing bool
	}{{"total_ios (fio before 2.2 does not print it; walab reads fio 2.2 and later)", r.TotalIOs == nil},
		{"iops", r.IOPS == nil}, {"io_bytes", r.IOBytes == nil}, {"bw_bytes or bw", r.BWBytes == nil && r.BW == nil}} {
		if f.missing {
			return Dir{}, fmt.Errorf("no %s", f.name)
		}
	}
	d := Dir{IOs: *r.TotalIOs, Bytes: *r.IOBytes, IOPS: *r.IOPS, RuntimeMs: r.Runtime}
	if r.IOKBytes == nil {
		if d.Bytes > math.MaxUint64/1024 {
			return Dir{}, fmt.Errorf("io_bytes %d KiB overflows", d.Bytes)
		}
		d.Bytes *= 1024
	}
	if r.BWBytes != nil {
		d.BytesPerSecond = *r.BWBytes
	} else {
		d.BytesPerSecond = *r.BW * 1024
	}
	for _, v := range []struct {
		name string
		x    float64
	}{{"iops", d.IOPS}, {"bandwidth", d.BytesPerSecond}} {
		if v.x < 0 || math.IsInf(v.x, 0) || math.IsNaN(v.x) {
			return Dir{}, fmt.Errorf("%s %v is not a rate", v.name, v.x)
		}
	}
	lat, mul := r.ClatNs, 1.0
	if lat == nil && r.Clat != nil {
		lat, mul = r.Clat, 1000
	}
	if lat == nil || !measured(lat, d.IOs) {
		return d, nil // no completions timed: no latency, not a latency of 0
	}
	return d, readClat(&d, lat, mul)
}

// measured: fio timed completions. From 3.18 its N says how many; before,
// a direction without I/O, or whose latency was not measured
// (gtod_reduce, disable_clat), prints zeros.
func measured(lat *rawLat, ios uint64) bool {
	if lat.N != nil {
		return *lat.N > 0
	}
	return ios > 0 && lat.Max != nil && *lat.Max > 0
}

func readClat(d *Dir, lat *rawLat, mul float64) error {
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
			return fmt.Errorf("clat %v ns is not a latency", *x)
		}
	}
	for k, v := range lat.Percentile {
		if k == "0.00" {
			continue // fio before 3.4: a placeholder for an unused slot
		}
		p, err := strconv.ParseFloat(strings.TrimSpace(k), 64)
		if err != nil || !(p > 0 && p <= 100) || v < 0 || math.IsInf(v*mul, 0) {
			return fmt.Errorf("clat percentile %q: %v", k, v)
		}
		d.ClatPercentiles = append(d.ClatPercentiles, Percentile{P: p, Ns: v * mul})
	}
	sort.Slice(d.ClatPercentiles, func(i, k int) bool { return d.ClatPercentiles[i].P < d.ClatPercentiles[k].P })
	for i := 1; i < len(d.ClatPercentiles); i++ {
		if d.ClatPercentiles[i].P == d.ClatPercentiles[i-1].P {
			return fmt.Errorf("clat percentile %g given twice", d.ClatPercentiles[i].P)
		}
	}
	return nil
}

package fio

import (
	"fmt"
	"math"
	"math/bits"
)

// Total is a run's figures summed over its jobs: what the drive was asked
// to do. Latency is not summed: see Job and Dir.
type Total struct {
	ReadIOPS, WriteIOPS, TrimIOPS           float64
	ReadBytesPerSecond, WriteBytesPerSecond float64
	ReadIOs, WriteIOs, TrimIOs              uint64
	// IOPS and BytesPerSecond are over every direction: read + write +
	// trim, or mixed for a job that reported only that
	// (--unified_rw_reporting=mixed; MixedOnlyJobs counts them, and their
	// figures are in neither the read nor the write ones).
	IOPS, BytesPerSecond float64
	MixedOnlyJobs        int
	// JobsWithError are the jobs that ended with an errno or went on
	// after I/O errors (continue_on_error: total_err > 0 with error 0).
	JobsWithError              int
	IOErrors                   uint64 // continue_on_error's total_err, summed
	SteadyJobs, SteadyAttained int    // jobs with --steadystate, and those that reached it
}

// Total sums the report's jobs. Parse refuses a report whose sums do not
// fit (sum), so a parsed report's totals are exact sums.
func (o *Output) Total() Total {
	t, _ := o.sum()
	return t
}

// summer adds figures and remembers the first that overflowed: a float
// sum that reaches ±Inf, a uint64 sum that wraps.
type summer struct{ err error }

func (s *summer) f(what string, dst *float64, x float64) {
	if v := *dst + x; math.IsInf(v, 0) || math.IsNaN(v) {
		s.fail(what)
	} else {
		*dst = v
	}
}

func (s *summer) u(what string, dst *uint64, x uint64) {
	if v, carry := bits.Add64(*dst, x, 0); carry != 0 {
		s.fail(what)
	} else {
		*dst = v
	}
}

func (s *summer) fail(what string) {
	if s.err == nil {
		s.err = fmt.Errorf("the jobs' %s overflow when summed (past what a 64-bit number holds): not a report of real I/O", what)
	}
}

// sum is Total, and the first sum that overflowed.
func (o *Output) sum() (Total, error) {
	var t Total
	var s summer
	for _, j := range o.Jobs {
		s.f("read IOPS", &t.ReadIOPS, j.Read.IOPS)
		s.f("write IOPS", &t.WriteIOPS, j.Write.IOPS)
		s.f("trim IOPS", &t.TrimIOPS, j.Trim.IOPS)
		s.f("read bandwidth", &t.ReadBytesPerSecond, j.Read.BytesPerSecond)
		s.f("write bandwidth", &t.WriteBytesPerSecond, j.Write.BytesPerSecond)
		s.u("read I/Os", &t.ReadIOs, j.Read.IOs)
		s.u("write I/Os", &t.WriteIOs, j.Write.IOs)
		s.u("trim I/Os", &t.TrimIOs, j.Trim.IOs)
		if j.MixedOnly {
			t.MixedOnlyJobs++
			s.f("IOPS", &t.IOPS, j.Mixed.IOPS)
			s.f("bandwidth", &t.BytesPerSecond, j.Mixed.BytesPerSecond)
		} else {
			for _, d := range []Dir{j.Read, j.Write, j.Trim} {
				s.f("IOPS", &t.IOPS, d.IOPS)
				s.f("bandwidth", &t.BytesPerSecond, d.BytesPerSecond)
			}
		}
		if j.Error != 0 || j.TotalErrors != nil && *j.TotalErrors > 0 {
			t.JobsWithError++
		}
		if j.TotalErrors != nil {
			s.u("I/O errors (total_err)", &t.IOErrors, *j.TotalErrors)
		}
		if j.Steady != nil {
			t.SteadyJobs++
			if j.Steady.Attained {
				t.SteadyAttained++
			}
		}
	}
	return t, s.err
}

package fio

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
	IOPS, BytesPerSecond       float64
	MixedOnlyJobs              int
	JobsWithError              int    // jobs that ended with an errno
	IOErrors                   uint64 // continue_on_error's total_err, summed
	SteadyJobs, SteadyAttained int    // jobs with --steadystate, and those that reached it
}

// Total sums the report's jobs.
func (o *Output) Total() Total {
	var t Total
	for _, j := range o.Jobs {
		t.ReadIOPS += j.Read.IOPS
		t.WriteIOPS += j.Write.IOPS
		t.TrimIOPS += j.Trim.IOPS
		t.ReadBytesPerSecond += j.Read.BytesPerSecond
		t.WriteBytesPerSecond += j.Write.BytesPerSecond
		t.ReadIOs += j.Read.IOs
		t.WriteIOs += j.Write.IOs
		t.TrimIOs += j.Trim.IOs
		t.IOPS += j.IOPS()
		if j.MixedOnly {
			t.MixedOnlyJobs++
			t.BytesPerSecond += j.Mixed.BytesPerSecond
		} else {
			t.BytesPerSecond += j.Read.BytesPerSecond + j.Write.BytesPerSecond + j.Trim.BytesPerSecond
		}
		if j.Error != 0 {
			t.JobsWithError++
		}
		if j.TotalErrors != nil {
			t.IOErrors += *j.TotalErrors
		}
		if j.Steady != nil {
			t.SteadyJobs++
			if j.Steady.Attained {
				t.SteadyAttained++
			}
		}
	}
	return t
}

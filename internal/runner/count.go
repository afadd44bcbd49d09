package runner

import (
	"time"

	"github.com/walab/walab/internal/workload"
)

// countStatements adds a transaction's statements and bytes to the
// terminal's stats and, with metrics, to its target's series.
func (r *run) countStatements(st *termStats, res workload.Result) {
	st.reads.Add(uint64(res.Reads))
	st.writes.Add(uint64(res.Writes))
	st.others.Add(uint64(res.Other))
	if res.ReadBytes > 0 {
		st.readBytes.Add(uint64(res.ReadBytes))
	}
	if res.WrittenBytes > 0 {
		st.wroteBytes.Add(uint64(res.WrittenBytes))
	}
	if r.obs != nil {
		if res.ReadBytes > 0 && r.obs.readBytes != nil {
			r.obs.readBytes.Add(float64(res.ReadBytes))
		}
		if res.WrittenBytes > 0 && r.obs.wroteBytes != nil {
			r.obs.wroteBytes.Add(float64(res.WrittenBytes))
		}
		if res.Reads > 0 {
			r.obs.reads.Add(float64(res.Reads))
		}
		if res.Writes > 0 {
			r.obs.writes.Add(float64(res.Writes))
		}
		if res.Other > 0 {
			r.obs.others.Add(float64(res.Other))
		}
	}
}

// record counts one attempt's outcome exactly once, in the summary and in
// Prometheus at the same place, so the two always agree.
func (r *run) record(st *termStats, ti, o int, lat time.Duration) {
	ts := &st.types[ti]
	ts.out[o].Add(1)
	completed := o == oCommitted || o == oRollback
	if completed {
		ts.observe(lat)
	}
	if r.obs != nil {
		to := &r.obs.types[ti]
		to.out[o].Inc()
		if completed {
			to.dur.Observe(lat.Seconds())
		}
	}
}

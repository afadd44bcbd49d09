package state

import (
	"fmt"
	"time"

	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/fio"
)

// The records a run, a check, a step's process group and the compare
// step leave in the state, beside State's own (state.go).

// ProcGroup is the process group a step's command runs in. It is recorded
// in the state before the command starts, so that a resume after the
// runner died can find what the step left running and end it.
type ProcGroup struct {
	PGID       int    `json:"pgid"`
	StartTicks uint64 `json:"start_ticks"` // the leader's start time, /proc/PID/stat field 22
	BootID     string `json:"boot_id"`     // /proc/sys/kernel/random/boot_id: a pgid means nothing after a reboot
	Token      string `json:"token"`       // WALAB_STEP_TOKEN in the environment of the group's processes
}

// FioRecord is a fio run's result in its run record: fio's own figures
// and the block layer's view of the devices under fio's files.
type FioRecord struct {
	Output  string    `json:"output"` // fio's JSON report, under the output directory
	Version string    `json:"version"`
	Total   fio.Total `json:"total"`
	Jobs    []fio.Job `json:"jobs"` // per job, or per group with group_reporting
	Notes   []string  `json:"notes,omitempty"`
	Block   []IOStat  `json:"block,omitempty"`
}

// IOStat is iostat -x's view of one block device over exactly the run,
// from /proc/diskstats read by walab just before fio started and just
// after it ended. An await is nil when the device completed no I/O of
// that kind.
type IOStat struct {
	Device           string   `json:"device"`
	Seconds          float64  `json:"seconds"`
	ReadsPerSec      float64  `json:"r_per_s"`
	WritesPerSec     float64  `json:"w_per_s"`
	ReadBytesPerSec  float64  `json:"read_bytes_per_s"`
	WriteBytesPerSec float64  `json:"write_bytes_per_s"`
	ReadAwaitMs      *float64 `json:"r_await_ms,omitempty"`
	WriteAwaitMs     *float64 `json:"w_await_ms,omitempty"`
	Util             float64  `json:"util"` // share of the run with I/O in flight (0..1)
}

// RoundsThroughput is the verdict's throughput of a comparison: the mean
// transactions per second of each run over its compared rounds, and the
// change with its 95% interval, as walab compare judged it.
type RoundsThroughput struct {
	Baseline      float64          `json:"baseline_tps"`
	Candidate     float64          `json:"candidate_tps"`
	Change        compare.Interval `json:"change"`
	RoundSeconds  float64          `json:"round_seconds"`
	FirstCompared [2]int           `json:"first_compared"` // round numbers, baseline and candidate
	LastCompared  [2]int           `json:"last_compared"`
	// Compared and WithFigure count each run's compared rounds and those
	// with a throughput figure, which the TPS figures are over.
	Compared   [2]int `json:"compared_rounds"`
	WithFigure [2]int `json:"rounds_with_figure"`
}

// DiscardSnapshot is the database host's discard counters
// (walab_blockdev_discarded_bytes_total, /sys/block/X/stat's discard
// sectors × 512) at the start of a run's reset.
type DiscardSnapshot struct {
	At    time.Time          `json:"at"`
	Bytes map[string]float64 `json:"bytes,omitempty"` // block device → bytes discarded since boot
	Error string             `json:"error,omitempty"` // why there is none
	// Moved is by how much each disk's counter moved when the check ran.
	Moved map[string]float64 `json:"moved,omitempty"`
}

// Dataset is the identity of one target's data after a reset: the
// checksum of every table (CHECKSUM TABLE, the server's own row
// checksum), folded into one hash.
type Dataset struct {
	Tables int    `json:"tables"`
	SHA256 string `json:"sha256"` // of the sorted "table checksum" lines
}

func (d Dataset) String() string {
	return fmt.Sprintf("%d tables, checksum %s", d.Tables, d.SHA256[:12])
}

// IOPS is a fio run's IOPS over every direction of every job: read +
// write + trim, or mixed where a job reported only that. From the jobs,
// so that a record written before Total had IOPS reads the same.
func (f *FioRecord) IOPS() float64 {
	var sum float64
	for _, j := range f.Jobs {
		sum += j.IOPS()
	}
	return sum
}

// RemoteSession is the session a remote step's command runs in on the
// database host (remoteGuard's setsid). The guard reports it on its
// standard error as the command starts, and the runner records it in the
// step's state, so that a resume can end it through the same transport
// when the guard could not (the connection cut in a way the guard did
// not see, the guard itself stopped or killed).
type RemoteSession struct {
	Host       string `json:"host"`        // the step's on:
	SID        int    `json:"sid"`         // session and process group id on the host
	StartTicks uint64 `json:"start_ticks"` // the leader's start time there, /proc/PID/stat field 22
	BootID     string `json:"boot_id"`     // the host's boot id: a session id means nothing after a reboot
}

// WriteIOPS is a fio run's write IOPS over its jobs; false when a job
// reported its directions only mixed (--unified_rw_reporting=mixed), so
// that its writes cannot be told from its reads.
func (f *FioRecord) WriteIOPS() (float64, bool) {
	var sum float64
	for _, j := range f.Jobs {
		if j.MixedOnly {
			return 0, false
		}
		sum += j.Write.IOPS
	}
	return sum, true
}

// Package plan owns an experiment's plan: its types as the user writes
// them (YAML; plan.go), the one way a plan is loaded (Load: decoding in
// decode.go, ${NAME} values in expand.go, validation in validate.go with
// the check kinds handed in as a value, and the compiled values it hands
// over in compile.go), the bounded reader of plan files (ReadPlan), and
// what follows from a plan alone: its flattened steps and their ids
// (Steps), each step's command line (Argv) and the host prefix that
// reaches the database host (transport.go), the destructive-command guard
// (destructive.go) and fio's (fio_guard.go). It runs nothing and knows
// nothing of the executor.
package plan

import (
	"fmt"
	"strings"
	"time"
)

// Plan is an experiment as the user writes it. Order of execution:
// prepare (once), then for each run: reset, precondition, between, checks,
// the run itself (every sweep value × repetition, with restart before each
// repetition after the first), and at the end compare and the report.
type Plan struct {
	Name       string   `yaml:"name"`       // experiment name, part of every run id
	Exporter   string   `yaml:"exporter"`   // walab exporter base URL (fingerprints, checks, progress)
	Prometheus string   `yaml:"prometheus"` // Prometheus base URL (checks, compare)
	Device     string   `yaml:"device"`     // the exporter's device label of the drive under test
	Round      Duration `yaml:"round"`      // comparison round: 1h, shorter on the simulated drive
	Loadgen    string   `yaml:"loadgen"`    // loadgen binary (default: loadgen on PATH)
	Targets    []Target `yaml:"targets"`
	// Hosts name the machines of a two-machine set-up (hosts.go); without
	// them every step runs where walab runs.
	Hosts *Hosts `yaml:"hosts"`

	Prepare      []Step  `yaml:"prepare"`
	Reset        []Step  `yaml:"reset"`
	Precondition []Step  `yaml:"precondition"`
	Checks       []Check `yaml:"checks"`
	Runs         []Run   `yaml:"runs"`
	// Cycles > 1 runs the whole list of runs that many times, interleaved
	// (baseline, candidate, baseline, candidate, ...), each run once per
	// cycle with its reset, precondition, between and checks: the
	// repetitions of the compared runs alternate in time, so a drift of
	// the machine falls on both (report_reps.go).
	Cycles  int      `yaml:"cycles"`
	Compare *Compare `yaml:"compare"`
	// Profile is how long each run's CPU profile samples mysqld (the
	// database host's exporter, --collector.profile; profile.go); 0: none.
	Profile Duration `yaml:"profile"`

	// transports are the hosts' command prefixes, parsed once by Load
	// (compile.go).
	transports map[string]*transport
}

// Target is one MySQL instance under load.
type Target struct {
	Name string `yaml:"name"`
	DSN  string `yaml:"dsn"` // go-sql-driver DSN, e.g. root@tcp(127.0.0.1:3306)/tpcc
	Line int    `yaml:"-"`
}

// Step is a user command or a loadgen invocation.
type Step struct {
	Name        string   `yaml:"name"`
	Command     string   `yaml:"command"`     // run by sh -c
	Loadgen     string   `yaml:"loadgen"`     // loadgen arguments, e.g. "tpcc prepare --warehouses 2"
	Targets     []string `yaml:"targets"`     // loadgen --target for each
	Destructive bool     `yaml:"destructive"` // formats, deletes or overwrites data
	Timeout     Duration `yaml:"timeout"`
	// Written stops the step once the drive took this many capacities of
	// host writes (preconditioning by volume, seed 001); 0: run to the end.
	Written float64 `yaml:"written"`
	On      string  `yaml:"on"` // db: through hosts.db.exec; client (default): where walab runs
	Line    int     `yaml:"-"`

	loadgenWords []string // Loadgen split once by Load (compile.go)
}

// Check is a pre-run check; see checks.go for the kinds.
type Check struct {
	Check   string   `yaml:"check"`
	OnFail  string   `yaml:"on_fail"` // stop (default) or warn
	Targets []string `yaml:"targets"`
	Tables  []string `yaml:"tables"` // target_loaded: tables that must have rows
	Min     *float64 `yaml:"min"`    // fill: range of the used ratio
	Max     *float64 `yaml:"max"`
	Expect  string   `yaml:"expect"` // placement: on|off; irqbalance: running|stopped
	Daemon  string   `yaml:"daemon"` // placement: the daemon that must run when on (astream)
	// Handles (placement, with targets): the reclaim unit handles the
	// targets' namespaces are seen to use must be shared, separate, or as
	// the run's scenario says (run: baseline shared, others separate).
	Handles string   `yaml:"handles"`
	Bytes   ByteSize `yaml:"bytes"` // free_space: bytes needed
	Path    string   `yaml:"path"`  // free_space/datadir: a path instead of the targets' datadirs
	// Host-fact checks (check_irq_affinity.go, check_mysqld_cpus.go,
	// check_mount_options.go): an IRQ device, a process name, CPU and
	// NUMA node lists, mount options.
	Device  string   `yaml:"device"`
	Process string   `yaml:"process"`
	CPUs    string   `yaml:"cpus"`
	Nodes   string   `yaml:"nodes"`
	Policy  string   `yaml:"policy"` // mysqld_cpus: memory policy as numa_maps prints it, interleave:0-3
	Options []string `yaml:"options"`
	// IOPSFrom (io_capacity) is the plan's fio or loadgen fileio run whose
	// measured IOPS innodb_io_capacity is held to.
	IOPSFrom string `yaml:"iops_from"`
	// Paths (drive_data): the data filesystems, one per namespace of the
	// drive under test.
	Paths []string `yaml:"paths"`
	// Timeout bounds the check in place of its kind's budget (a check
	// whose work grows with the data: docs/experiment.md).
	Timeout Duration `yaml:"timeout"`
	Line    int      `yaml:"-"`
}

// Run is one measured configuration.
type Run struct {
	Name     string   `yaml:"name"`
	Scenario string   `yaml:"scenario"` // walab_loadgen_run_info{scenario}
	Between  []Step   `yaml:"between"`  // before this run: switch placement, start astream, ...
	Workload string   `yaml:"workload"` // loadgen workload: tpcc, oltp_read_write, ...
	Args     string   `yaml:"args"`     // more loadgen run arguments
	Threads  int      `yaml:"threads"`
	Duration Duration `yaml:"duration"`
	Targets  []string `yaml:"targets"`
	// Command is an external benchmark (seed 000's runBenchmark.sh) instead
	// of loadgen; its start and end are recorded for the time-range
	// comparison. It may write loadgen's result JSON to $WALAB_RESULT_JSON.
	Command string `yaml:"command"`
	Repeat  int    `yaml:"repeat"`  // repetitions (seed 002: 10)
	Restart string `yaml:"restart"` // command before every repetition after the first
	// RestartEvery runs restart before every measured run, the first of
	// each thread count included (seed 002's method).
	RestartEvery bool   `yaml:"restart_every"`
	Sweep        *Sweep `yaml:"sweep"`
	Line         int    `yaml:"-"`

	// Fio is fio's command line as typed (seed 002's lines verbatim, or
	// "fio job.fio"); walab adds its JSON output options (fio.go). A sweep
	// sets its numjobs.
	Fio string `yaml:"fio"`
	// Destructive: the run writes a raw device (fio --filename=/dev/...).
	Destructive bool `yaml:"destructive"`
	// UntilSteady ends the run once its WA holds (untilsteady.go).
	UntilSteady *UntilSteady `yaml:"until_steady"`

	// Split and parsed once by Load (compile.go).
	argWords []string // Args
	fio      *fioLine // Fio
}

// Sweep runs the workload at each value and reports the peak.
type Sweep struct {
	Threads []int `yaml:"threads"`
}

// Compare names the two runs of the verdict.
type Compare struct {
	Baseline  string `yaml:"baseline"`
	Candidate string `yaml:"candidate"`
	Line      int    `yaml:"-"`
}

// Duration is a time.Duration written as "90s", "12h", "720m".
type Duration time.Duration

func (d Duration) D() time.Duration { return time.Duration(d) }

// ByteSize is a size written as 1073741824, "64MiB" or "10GiB".
type ByteSize uint64

// Errors are all the problems found in a plan, each with its line.
type Errors []LineError

// LineError is one problem at a line of the plan (0: the whole file).
type LineError struct {
	Line int
	Msg  string
}

func (e Errors) Error() string {
	var b strings.Builder
	for i, le := range e {
		if i > 0 {
			b.WriteByte('\n')
		}
		if le.Line > 0 {
			fmt.Fprintf(&b, "line %d: %s", le.Line, le.Msg)
		} else {
			b.WriteString(le.Msg)
		}
	}
	return b.String()
}

const maxPlanBytes = 1 << 20

// Source is a plan as a caller hands it over: the text as written, the
// environment its ${NAME} references are expanded from, and typed values
// that replace the text's own.
type Source struct {
	Raw []byte // the plan as written: stored as it is, ${NAME} not expanded
	// Getenv gives the ${NAME} values; nil leaves every reference as it is
	// written (a plan that has none).
	Getenv func(string) (string, bool)
	Set    Settings
}

// Settings are values a caller gives as values, not as plan text (walab
// lab's --round and --run); a zero field leaves the plan's own.
type Settings struct {
	Round     time.Duration `json:"round,omitempty"`      // the plan's round
	RunLength time.Duration `json:"run_length,omitempty"` // every run whose duration the plan gives
	// FreeSpace gives the bytes free on the file system holding a path,
	// for the fio guard's size check; nil reads it with statfs. A test of
	// a shipped plan states the free space it assumes here, so that it
	// does not pass or fail with the disk of the machine running it.
	FreeSpace func(path string) (uint64, bool) `json:"-"`
}

// CheckKinds are the pre-run check kinds a plan may name, each with its
// validation of a plan's check of that kind (what is wrong beyond the
// common keys; nil when nothing is). The check kinds are defined where
// they run; validation receives them as a value.
type CheckKinds map[string]func(p *Plan, c Check) []string

// LoadgenRules check a loadgen command line (line as written, args its
// words) before anything runs: its workload (wl, or the line's word naming
// one), its phase when the line must give one (phase), its flags; they
// return what is wrong. loadgen's registry defines them
// (experiment/loadgenargs); validation receives them as a value, so that
// the plan links no workload.
type LoadgenRules func(wl string, phase bool, line string, args []string) []string

// Kinds are what validation receives as values from the packages that
// define them: the check kinds and loadgen's rules. A zero field checks
// nothing of its own (a plan test of the plan's own keys).
type Kinds struct {
	Checks  CheckKinds
	Loadgen LoadgenRules
}

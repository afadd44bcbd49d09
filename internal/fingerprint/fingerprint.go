// Package fingerprint records the conditions of a benchmark run — the
// drive, the host, the MySQL instances and the load generator's options —
// so that two runs can be checked for drift. The JSON schema is stable:
// fields are only added, and Schema says which version wrote a file.
package fingerprint

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/walab/walab/internal/hostapi"
)

// Schema is the version of the JSON layout this package writes.
const Schema = 1

// Fingerprint is one run's conditions at one moment (its start or end).
type Fingerprint struct {
	Schema int       `json:"schema"`
	Run    string    `json:"run,omitempty"`   // the run id
	Point  string    `json:"point,omitempty"` // start or end
	Taken  time.Time `json:"taken"`
	Drive  *Drive    `json:"drive,omitempty"`
	// Drives are every NVMe drive the exporter reports (the drive under
	// test and, for an array, its members), in device order: the report's
	// per-drive table (seed 001) reads their counters at start and end.
	Drives []Drive `json:"drives,omitempty"`
	// IOSizes are the I/O-size histograms of every block device and operation
	// (the exporter's io_size collector, when on): the report's size
	// profile (seed 001) is their change over the run. Counters: not in
	// Flatten, not drift.
	IOSizes []IOSize `json:"io_sizes,omitempty"`
	Host    Host     `json:"host"`
	MySQL   []MySQL  `json:"mysql,omitempty"`
	Loadgen []string `json:"loadgen,omitempty"` // the run's command line
	// Treatment is what the run's arm changes: its placement switch.
	Treatment *Treatment `json:"treatment,omitempty"`
	// Data is each target's data at its run's checks (same_data: tables
	// and checksum): both arms must start from the same.
	Data map[string]string `json:"data,omitempty"`
	// ResetDiscardedBytes are the bytes each disk under the data
	// discarded during the run's reset (the discard check).
	ResetDiscardedBytes map[string]float64 `json:"reset_discarded_bytes,omitempty"`
	// Tools are the walab builds involved: "walab" (the runner) and
	// "exporter" (the database host's exporter), as version (commit, go).
	Tools map[string]string `json:"tools,omitempty"`
	// Errors name the parts that could not be read, and why: a part that
	// is missing is absent, never zero.
	Errors []string `json:"errors,omitempty"`
}

// Drive is the drive under test as the walab exporter reports it.
type Drive struct {
	Device    string `json:"device"`
	Model     string `json:"model,omitempty"`
	Serial    string `json:"serial,omitempty"`
	Firmware  string `json:"firmware,omitempty"`
	Source    string `json:"source,omitempty"` // NAND counter source
	Simulated bool   `json:"simulated"`
	// Counters and levels; nil when the exporter does not report them.
	CapacityBytes     *float64 `json:"capacity_bytes,omitempty"`
	HostWrittenBytes  *float64 `json:"host_written_bytes,omitempty"`
	MediaWrittenBytes *float64 `json:"media_written_bytes,omitempty"`
	Fill              *float64 `json:"fill_ratio,omitempty"`
	WA1h              *float64 `json:"write_amplification_1h,omitempty"`
	// Placement: directives enabled (streams, fdp), placement daemons running.
	Directives map[string]bool `json:"directives,omitempty"`
	FDP        *bool           `json:"fdp_enabled,omitempty"`
	// FDPConfig is the active FDP configuration (logs 0x20, 0x21):
	// reclaim_unit_size_bytes, reclaim_unit_handles, handles_used_host,
	// handles_used_controller.
	FDPConfig map[string]float64 `json:"fdp_config,omitempty"`
	Daemons   map[string]bool    `json:"placement_daemons,omitempty"`
	// Hints is walab_placement_hints_effective's reason, "effective: "
	// prefixed when a file's writes can carry a placement hint to the
	// drive (kernel_streams), else the missing link (no_write_streams).
	Hints string `json:"placement_hints,omitempty"`
	// FilePlacement is the placement policy of the filesystem's device
	// backend (walab_simfs_device_info), when one writes a namespace, and
	// FileClassHandles the placement handles each file class's writes
	// carried (walab_simfs_device_written_bytes_total), ascending.
	FilePlacement    string           `json:"file_placement,omitempty"`
	FileClassHandles map[string][]int `json:"file_class_handles,omitempty"`
	// SimPlacement is the simulated drive's placement switch.
	SimPlacement *bool `json:"sim_placement,omitempty"`
	// PreconditionWrittenBytes is what the simulated drive's
	// re-preconditioning (POST /api/v1/sim/precondition) has written since
	// its exporter started; absent for a real drive.
	PreconditionWrittenBytes *float64 `json:"precondition_written_bytes,omitempty"`
	// RunStart is the exporter's run mark for the drive (Unix seconds,
	// walab_nvme_run_start_timestamp_seconds): POST /api/v1/run-start
	// moves it.
	RunStart *float64 `json:"run_start_timestamp_seconds,omitempty"`
	// NamespaceWritten is each namespace's own written bytes (its SMART
	// log), by block device ("nsid N" when the block is unknown); absent
	// for a controller that keeps SMART for itself only.
	NamespaceWritten map[string]float64 `json:"namespace_written_bytes,omitempty"`
	// NamespaceHandles is, by namespace, the reclaim unit handles that
	// the FDP events log (0x23) names for its writes, ascending: placement
	// as the drive saw it, within the window of events it keeps.
	NamespaceHandles map[string][]int `json:"namespace_handles,omitempty"`
	// Arrays are the md/dm arrays the drive's namespaces are under
	// (walab_blockdev_leaf_info), sorted; only in Fingerprint.Drives.
	Arrays []string `json:"arrays,omitempty"`
}

// IOSize is one block device's and operation's I/O-size histogram at the
// fingerprint's time: I/Os at or below each bound (cumulative, bounds
// ascending; +Inf is Count), all I/Os and their bytes.
type IOSize struct {
	Device  string    `json:"device"`
	Op      string    `json:"op"`
	Bounds  []float64 `json:"bounds"`
	Buckets []uint64  `json:"buckets"`
	Count   uint64    `json:"count"`
	Bytes   float64   `json:"bytes"`
}

// AllDrives are the drives the fingerprint names: Drives, or, in a
// fingerprint without that list (written before it existed, or without
// an exporter that lists them), the one Drive.
func (f *Fingerprint) AllDrives() []Drive {
	if f == nil {
		return nil
	}
	if len(f.Drives) > 0 {
		return f.Drives
	}
	if f.Drive != nil {
		return []Drive{*f.Drive}
	}
	return nil
}

// Host is the database host's operating system side, as its walab
// exporter reports it (GET /api/v1/host): the machine the runner runs on
// may be another one.
type Host struct {
	Hostname    string            `json:"hostname,omitempty"`
	Kernel      string            `json:"kernel,omitempty"`
	OS          string            `json:"os,omitempty"`
	CPUModel    string            `json:"cpu_model,omitempty"`
	CPUs        int               `json:"cpus,omitempty"`
	MemoryBytes uint64            `json:"memory_bytes,omitempty"`
	NUMANodes   int               `json:"numa_nodes,omitempty"`
	Schedulers  map[string]string `json:"io_schedulers,omitempty"` // block device → active scheduler
	Mounts      []Mount           `json:"mounts,omitempty"`        // of the data directories
	Governor    string            `json:"cpu_governor,omitempty"`
	Irqbalance  *bool             `json:"irqbalance_running,omitempty"`
	// Tuning: STEAL, its node limit, sysctls, THP, NIC channels, the page
	// cache at the fingerprint's time (volatile: not drift).
	Tuning *hostapi.Tuning `json:"tuning,omitempty"`
	// Processes are the watched mysqld/mariadbd: where each may run and
	// its memory policy (numactl -C, -i), by working directory (its datadir).
	Processes []Process `json:"processes,omitempty"`
}

// Process is one watched process's placement on the host.
type Process struct {
	Name       string `json:"name"`
	Dir        string `json:"dir"`
	CPUs       string `json:"cpus"`
	Mems       string `json:"mems,omitempty"`
	NUMAPolicy string `json:"numa_policy,omitempty"`
}

// Treatment is a run's placement switch as it ran: its commands (the
// run's between steps, on their host), the SHA-256 of every file they name
// that exists there (a placement daemon's rule files), and errors reading them.
type Treatment struct {
	Commands []string          `json:"commands,omitempty"`
	Files    map[string]string `json:"files,omitempty"` // path → sha256
	Errors   []string          `json:"errors,omitempty"`
}

// Mount is the filesystem a data directory lives on.
type Mount struct {
	Path    string `json:"path"`
	Device  string `json:"device"` // major:minor
	Source  string `json:"source,omitempty"`
	FSType  string `json:"fstype,omitempty"`
	Options string `json:"options,omitempty"`
	Block   string `json:"block,omitempty"` // backing block device (nvme0n1), when there is one
	// Disks are the whole disks under Block through partitions, dm and md.
	Disks     []string `json:"disks,omitempty"`
	Aligned4K *bool    `json:"aligned_4k,omitempty"`
}

// MySQL is one instance's version and the variables the seeds tune.
type MySQL struct {
	Target    string            `json:"target"`
	Version   string            `json:"version,omitempty"`
	Variables map[string]string `json:"variables,omitempty"`
	// Status are the status variables of MySQLStatus, lower-cased
	// (Innodb_buffer_pool_load_status: was the pool warm at this time?);
	// recorded, not drift.
	Status map[string]string `json:"status,omitempty"`
	Error  string            `json:"error,omitempty"`
}

// Volatile keys change during any run and are not drift.
var volatile = []string{"schema", "run", "point", "taken", "errors", "reset_discarded_bytes", "treatment.errors",
	"drive.host_written_bytes", "drive.media_written_bytes", "drive.fill_ratio", "drive.write_amplification_1h",
	"drive.namespace_written_bytes", "drive.precondition_written_bytes", "drive.run_start_timestamp_seconds",
	"host.tuning.page_cache_bytes",
	"loadgen"}

// Flatten gives every recorded value under a dotted key, e.g.
// "drive.firmware", "mysql.mysql-1.variables.innodb_flush_neighbors",
// "host.io_schedulers.nvme0n1". Lists of MySQL instances and mounts are
// keyed by target and path, so the order they were read in does not matter.
func (f *Fingerprint) Flatten() map[string]string {
	out := map[string]string{}
	put := func(k, v string) { out[k] = v }
	b, _ := json.Marshal(f)
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	keyBy(m, "mysql", "target")
	keyBy(m, "drives", "device")
	delete(m, "io_sizes") // counters, in the report's own table
	if host, ok := m["host"].(map[string]any); ok {
		keyBy(host, "mounts", "path")
		if list, ok := host["processes"].([]any); ok {
			keyed := map[string]any{}
			for _, x := range list {
				if mm, ok := x.(map[string]any); ok {
					key := fmt.Sprint(mm["name"], " ", mm["dir"])
					delete(mm, "name")
					delete(mm, "dir")
					keyed[key] = mm
				}
			}
			host["processes"] = keyed
		}
	}
	if lg, ok := m["loadgen"].([]any); ok {
		parts := make([]string, len(lg))
		for i, a := range lg {
			parts[i] = fmt.Sprint(a)
		}
		m["loadgen"] = strings.Join(parts, " ")
	}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, vv := range x {
				walk(join(prefix, k), vv)
			}
		case []any:
			for i, vv := range x {
				walk(join(prefix, strconv.Itoa(i)), vv)
			}
		case float64:
			put(prefix, strconv.FormatFloat(x, 'g', -1, 64))
		case nil:
		default:
			put(prefix, fmt.Sprint(x))
		}
	}
	walk("", m)
	return out
}

// keyBy replaces the list m[name] of objects with a map keyed by each
// object's field (which it drops), so the list's order does not matter.
func keyBy(m map[string]any, name, field string) {
	list, ok := m[name].([]any)
	if !ok {
		return
	}
	keyed := map[string]any{}
	for _, x := range list {
		if mm, ok := x.(map[string]any); ok {
			k, _ := mm[field].(string)
			delete(mm, field)
			keyed[k] = mm
		}
	}
	m[name] = keyed
}

func join(p, k string) string {
	if p == "" {
		return k
	}
	return p + "." + k
}

// Change is one key that differs between two fingerprints; a side that
// does not have the key is "" with Missing set.
type Change struct {
	Key      string `json:"key"`
	A        string `json:"a"`
	B        string `json:"b"`
	MissingA bool   `json:"missing_a,omitempty"`
	MissingB bool   `json:"missing_b,omitempty"`
}

func (c Change) String() string {
	side := func(v string, missing bool) string {
		if missing {
			return "(absent)"
		}
		return strconv.Quote(v)
	}
	return fmt.Sprintf("%s: %s → %s", c.Key, side(c.A, c.MissingA), side(c.B, c.MissingB))
}

// Diff lists the conditions that differ between two runs (drift), sorted
// by key. Counters, levels and timestamps that move during any run are left
// out; Loadgen options are compared separately by DiffLoadgen.
func Diff(a, b *Fingerprint) []Change {
	fa, fb := a.Flatten(), b.Flatten()
	keys := map[string]bool{}
	for k := range fa {
		keys[k] = true
	}
	for k := range fb {
		keys[k] = true
	}
	var out []Change
	for _, k := range slices.Sorted(maps.Keys(keys)) {
		if isVolatile(k) {
			continue
		}
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka && okb && va == vb {
			continue
		}
		out = append(out, Change{Key: k, A: va, B: vb, MissingA: !oka, MissingB: !okb})
	}
	return out
}

func isVolatile(k string) bool {
	if target, ok := strings.CutPrefix(k, "mysql."); ok && strings.Contains(target, ".status.") {
		return true // a load status carries its time
	}
	if rest, ok := strings.CutPrefix(k, "drives."); ok {
		// drives.<device>.<field>: volatile as drive.<field> is.
		if _, field, ok := strings.Cut(rest, "."); ok {
			k = "drive." + field
		}
	}
	for _, v := range volatile {
		if k == v || strings.HasPrefix(k, v+".") {
			return true
		}
	}
	return false
}

// Delta is end − start of a counter, or nil when either side lacks it or
// the counter went backwards (a reset: the delta is not known).
func Delta(start, end *float64) *float64 {
	if start == nil || end == nil || *end < *start {
		return nil
	}
	d := *end - *start
	return &d
}

// WA is the write amplification between two fingerprints of the same
// drive: Δmedia / Δhost; nil when a counter is missing, the drive or its
// source changed, or the host wrote nothing.
func WA(start, end *Fingerprint) *float64 {
	if start == nil || end == nil || start.Drive == nil || end.Drive == nil {
		return nil
	}
	s, e := start.Drive, end.Drive
	if s.Device != e.Device || s.Serial != e.Serial || s.Source != e.Source {
		return nil
	}
	host, media := Delta(s.HostWrittenBytes, e.HostWrittenBytes), Delta(s.MediaWrittenBytes, e.MediaWrittenBytes)
	if host == nil || media == nil || *host <= 0 {
		return nil
	}
	wa := *media / *host
	return &wa
}

// Disturbed names what changed the drive under the run between its
// fingerprints, each of which makes the run's WA another thing than the
// workload's: the simulated drive re-preconditioned (its precondition
// counter grew, or went back so that none can be ruled out), or the
// exporter's run mark moved. Empty when neither did or the exporter
// reports neither (a real drive has no precondition counter).
func Disturbed(start, end *Fingerprint) []string {
	if start == nil || end == nil || start.Drive == nil || end.Drive == nil {
		return nil
	}
	s, e := start.Drive, end.Drive
	var out []string
	if a, b := s.PreconditionWrittenBytes, e.PreconditionWrittenBytes; a != nil && b != nil && *a != *b {
		if *b > *a {
			out = append(out, fmt.Sprintf("the drive %s was preconditioned during the run (%g bytes by POST /api/v1/sim/precondition)", s.Device, *b-*a))
		} else {
			out = append(out, fmt.Sprintf("the drive %s's precondition counter went back during the run (%g to %g bytes: the exporter restarted), so a precondition cannot be ruled out", s.Device, *a, *b))
		}
	}
	if a, b := s.RunStart, e.RunStart; a != nil && b != nil && *a != *b {
		out = append(out, fmt.Sprintf("the exporter's run mark for %s moved during the run (%g s later: POST /api/v1/run-start)", s.Device, *b-*a))
	}
	return out
}

// Lost names what start read and end could not: the drive's host or NAND
// byte counters, a MySQL target that answered, the host's facts (the
// database host's exporter or a target lost during the run). Their run's
// WA or drift is then unknown. Empty when end read all that start did.
func Lost(start, end *Fingerprint) []string {
	var lost []string
	if sd := start.Drive; sd != nil {
		ed := end.Drive
		if sd.HostWrittenBytes != nil && (ed == nil || ed.HostWrittenBytes == nil) ||
			sd.MediaWrittenBytes != nil && (ed == nil || ed.MediaWrittenBytes == nil) {
			lost = append(lost, "the drive's counters ("+sd.Device+")")
		}
	}
	answered := map[string]bool{}
	for _, m := range end.MySQL {
		answered[m.Target] = m.Error == ""
	}
	for _, m := range start.MySQL {
		if m.Error == "" && !answered[m.Target] {
			lost = append(lost, "MySQL target "+m.Target)
		}
	}
	if start.Host.Hostname != "" && end.Host.Hostname == "" {
		lost = append(lost, "the host's facts ("+start.Host.Hostname+")")
	}
	return lost
}

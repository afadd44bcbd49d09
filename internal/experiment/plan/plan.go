// Package plan owns an experiment's plan: its types as the user writes
// them (YAML), the one way a plan is loaded (Load: decoding, ${NAME}
// values, validation, with the check kinds handed in as a value), the
// bounded reader of plan files (ReadPlan), and what follows from a plan
// alone: its flattened steps and their ids (Steps), each step's command
// line (Argv) and the host prefix that reaches the database host
// (transport.go), the destructive-command guard and fio's (fio_guard.go).
// It runs nothing and knows nothing of the executor.
package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
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

// valueError is a value that does not decode, as a *yaml.TypeError: the
// decoder records it and goes on with the rest of the plan, so that every
// problem comes in one report (another error stops the decoding there).
func valueError(format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf(format, args...)}}
}

// Duration is a time.Duration written as "90s", "12h", "720m".
type Duration time.Duration

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil || n.Kind != yaml.ScalarNode {
		return valueError("line %d: %q is not a duration (write e.g. 90s, 30m, 12h)", n.Line, n.Value)
	}
	if v < 0 {
		return valueError("line %d: duration %s is negative", n.Line, n.Value)
	}
	if v > maxDuration {
		return valueError("line %d: duration %s is longer than 30 days (%s)", n.Line, n.Value, maxDuration)
	}
	*d = Duration(v)
	return nil
}

func (d Duration) D() time.Duration { return time.Duration(d) }

// apply sets the caller's typed values on the decoded plan, before it is
// validated.
func (p *Plan) apply(s Settings) {
	if s.Round > 0 {
		p.Round = Duration(s.Round)
	}
	for i := range p.Runs {
		if s.RunLength > 0 && p.Runs[i].Duration > 0 {
			p.Runs[i].Duration = Duration(s.RunLength)
		}
	}
}

// ByteSize is a size written as 1073741824, "64MiB" or "10GiB".
type ByteSize uint64

var sizeRe = regexp.MustCompile(`^([0-9]+)\s*(|B|KiB|MiB|GiB|TiB|KB|MB|GB|TB)$`)

func (b *ByteSize) UnmarshalYAML(n *yaml.Node) error {
	m := sizeRe.FindStringSubmatch(strings.TrimSpace(n.Value))
	if m == nil || n.Kind != yaml.ScalarNode {
		return valueError("line %d: %q is not a size (write e.g. 500MiB, 20GiB)", n.Line, n.Value)
	}
	var v uint64
	if _, err := fmt.Sscan(m[1], &v); err != nil {
		return valueError("line %d: size %q: %v", n.Line, n.Value, err)
	}
	mult := map[string]uint64{"": 1, "B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}[m[2]]
	if v > (1<<63)/mult {
		return valueError("line %d: size %q is too large", n.Line, n.Value)
	}
	*b = ByteSize(v * mult)
	return nil
}

// decodeAt decodes n into v (a plain type without this method) and
// records n's line, for errors found after decoding.
func decodeAt(n *yaml.Node, line *int, v any) error {
	*line = n.Line
	return n.Decode(v)
}

func (t *Target) UnmarshalYAML(n *yaml.Node) error {
	type plain Target
	return decodeAt(n, &t.Line, (*plain)(t))
}

func (s *Step) UnmarshalYAML(n *yaml.Node) error {
	type plain Step
	return decodeAt(n, &s.Line, (*plain)(s))
}

func (c *Check) UnmarshalYAML(n *yaml.Node) error {
	type plain Check
	return decodeAt(n, &c.Line, (*plain)(c))
}

func (r *Run) UnmarshalYAML(n *yaml.Node) error {
	type plain Run
	return decodeAt(n, &r.Line, (*plain)(r))
}

func (c *Compare) UnmarshalYAML(n *yaml.Node) error {
	type plain Compare
	return decodeAt(n, &c.Line, (*plain)(c))
}

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

// Load is the one way a plan is read: walab experiment run and its
// --dry-run, a new experiment, a resumed one and walab lab all load
// through it. It decodes and validates the plan and reports every problem,
// each with its line: unknown keys, values of the wrong type, bad
// durations, runs without targets, destructive commands not marked
// destructive, checks of a kind not in kinds.
//
// Its ${NAME} and ${NAME:-default} are expanded from src.Getenv in the
// values, after the YAML is parsed, so that a value is one value whatever
// it holds (a newline adds no section, a YAML escape is not decoded). A
// plain value takes its type from the expanded text (cycles: ${N} is a
// number).
//
// A plan whose ${NAME} stands for YAML of its own (a flow list's items,
// [${JOBS:-1, 4, 16}], or a scalar inside {...}) is not YAML until it is
// expanded: such a plan's text is expanded first, and an environment value
// with a line break, which would add plan lines, is refused.
func Load(src Source, kinds CheckKinds) (*Plan, error) {
	p, err := parse(src.Raw, src.Getenv, src.Set, kinds)
	if !notYAML(err) || src.Getenv == nil {
		return p, err
	}
	var broken []string
	text, xerr := expandText(src.Raw, func(k string) (string, bool) {
		v, ok := src.Getenv(k)
		if ok && strings.ContainsAny(v, "\n\r") {
			broken = append(broken, k)
			return "", true
		}
		return v, ok
	}, false)
	if len(broken) > 0 {
		slices.Sort(broken)
		return nil, Errors{{0, fmt.Sprintf("${%s}: its value has a line break, which would add lines to the plan's text (this plan is YAML only once expanded)", strings.Join(slices.Compact(broken), "}, ${"))}}
	}
	if xerr != nil {
		return nil, xerr
	}
	return parse(text, nil, src.Set, kinds)
}

// notYAML: the plan could not be read as YAML at all.
func notYAML(err error) bool {
	var errs Errors
	return errors.As(err, &errs) && len(errs) == 1 && strings.HasPrefix(errs[0].Msg, "not YAML: ")
}

func parse(data []byte, getenv func(string) (string, bool), set Settings, kinds CheckKinds) (*Plan, error) {
	if len(data) > maxPlanBytes {
		return nil, Errors{{0, fmt.Sprintf("plan is %d bytes, more than the %d a plan may have", len(data), maxPlanBytes)}}
	}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, Errors{{0, "plan is empty"}}
		}
		return nil, Errors{{0, "not YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}}
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, Errors{{extra.Line, "a plan is one YAML document; found a second one"}}
	}
	if len(doc.Content) == 0 {
		return nil, Errors{{0, "plan is empty"}}
	}
	var errs Errors
	if getenv != nil {
		expandNode(&doc, getenv, &errs)
	}
	checkKeys(doc.Content[0], reflect.TypeOf(Plan{}), "", &errs)
	refuseGivenZeros(doc.Content[0], &errs)
	var p Plan
	if err := doc.Content[0].Decode(&p); err != nil {
		// Type errors the key walk did not already report at that line.
		lines := map[int]bool{}
		for _, e := range errs {
			lines[e.Line] = true
		}
		for _, e := range decodeErrors(err) {
			if !lines[e.Line] {
				errs = append(errs, e)
			}
		}
	}
	// One report: the plan's own problems beside those of its keys and
	// types, but none on a line already reported (a value that did not
	// decode is missing, not wrong).
	lines := map[int]bool{}
	for _, e := range errs {
		lines[e.Line] = true
	}
	decoded := len(errs) == 0
	p.apply(set)
	for _, e := range p.validate(kinds, set.FreeSpace) {
		if decoded || !lines[e.Line] && e.Line > 0 {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
	}
	if err := p.compile(); err != nil {
		return nil, Errors{{0, err.Error()}}
	}
	return &p, nil
}

// refuseGivenZeros refuses a count written as 0 where leaving it out
// means a default (cycles: one pass; a run's repeat: once, threads:
// loadgen's own): a given 0 is never read as "not given".
func refuseGivenZeros(top *yaml.Node, errs *Errors) {
	if n := keyValue(top, "cycles"); isZero(n) {
		*errs = append(*errs, LineError{n.Line, "cycles: 0: want 1..1000 (leave cycles out for one pass over the runs)"})
	}
	runs := keyValue(top, "runs")
	if runs == nil || runs.Kind != yaml.SequenceNode {
		return
	}
	for i, r := range runs.Content {
		name := ""
		if n := keyValue(r, "name"); n != nil {
			name = n.Value
		}
		for _, k := range [][2]string{{"repeat", "want 1..1000 (leave repeat out for one repetition)"}, {"threads", "want at least 1 (leave threads out for loadgen's default)"}} {
			if n := keyValue(r, k[0]); isZero(n) {
				*errs = append(*errs, LineError{n.Line, fmt.Sprintf("runs[%d] (%s): %s: 0: %s", i, name, k[0], k[1])})
			}
		}
	}
}

// isZero: n is a scalar integer 0 however written (0, 00, +0, 0x0).
func isZero(n *yaml.Node) bool {
	var v int
	return n != nil && n.Kind == yaml.ScalarNode && n.Decode(&v) == nil && v == 0
}

// keyValue is the value node of key in mapping n, or nil.
func keyValue(n *yaml.Node, key string) *yaml.Node {
	for i := 0; n.Kind == yaml.MappingNode && i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// expandNode expands ${NAME} in every scalar under n (Load).
func expandNode(n *yaml.Node, getenv func(string) (string, bool), errs *Errors) {
	if n.Kind == yaml.ScalarNode && strings.Contains(n.Value, "${") {
		v, err := expandText([]byte(n.Value), getenv, false)
		if err != nil {
			for _, e := range err.(Errors) {
				*errs = append(*errs, LineError{n.Line + e.Line - 1, e.Msg})
			}
			return
		}
		n.Value = string(v)
		if n.Style == 0 {
			n.Tag = "" // resolved again from the expanded value
		}
	}
	for _, c := range n.Content {
		expandNode(c, getenv, errs)
	}
}

func decodeErrors(err error) Errors {
	var te *yaml.TypeError
	if errors.As(err, &te) {
		var out Errors
		for _, e := range te.Errors {
			out = append(out, lineError(e))
		}
		return out
	}
	return Errors{lineError(err.Error())}
}

var lineRe = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

func lineError(s string) LineError {
	if m := lineRe.FindStringSubmatch(s); m != nil {
		var n int
		fmt.Sscan(m[1], &n)
		return LineError{n, m[2]}
	}
	return LineError{0, s}
}

// checkKeys walks the YAML against the Go types: a mapping key that is not
// a field is reported with its line and the keys that are known there.
func checkKeys(n *yaml.Node, t reflect.Type, path string, errs *Errors) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t.Kind() == reflect.Struct && !isLeaf(t):
		if n.Kind != yaml.MappingNode {
			if n.Tag == "!!null" {
				return
			}
			*errs = append(*errs, LineError{n.Line, fmt.Sprintf("%s: want a mapping of keys, found %s", where(path), kind(n))})
			return
		}
		fields := map[string]reflect.StructField{}
		var names []string
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("yaml"), ",")[0]
			if tag == "" || tag == "-" {
				continue
			}
			fields[tag] = f
			names = append(names, tag)
		}
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			f, ok := fields[k.Value]
			if !ok {
				*errs = append(*errs, LineError{k.Line, fmt.Sprintf("unknown key %q in %s (known: %s)", k.Value, where(path), strings.Join(names, ", "))})
				continue
			}
			if seen[k.Value] {
				*errs = append(*errs, LineError{k.Line, fmt.Sprintf("key %q given twice in %s", k.Value, where(path))})
			}
			seen[k.Value] = true
			checkKeys(v, f.Type, join(path, k.Value), errs)
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() != reflect.Uint8:
		if n.Kind != yaml.SequenceNode {
			if n.Tag == "!!null" {
				return
			}
			*errs = append(*errs, LineError{n.Line, fmt.Sprintf("%s: want a list, found %s", where(path), kind(n))})
			return
		}
		for i, c := range n.Content {
			checkKeys(c, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
		}
	default:
		if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
			*errs = append(*errs, LineError{n.Line, fmt.Sprintf("%s: want a single value, found %s", where(path), kind(n))})
			return
		}
		// Durations and sizes are checked here so that every bad one is
		// reported, not only the first the decoder meets.
		if u, ok := reflect.New(t).Interface().(yaml.Unmarshaler); ok && n.Tag != "!!null" {
			if err := u.UnmarshalYAML(n); err != nil {
				for _, le := range decodeErrors(err) {
					le.Msg = where(path) + ": " + le.Msg
					*errs = append(*errs, le)
				}
			}
		}
	}
}

func isLeaf(t reflect.Type) bool { return t == reflect.TypeOf(time.Time{}) }

func kind(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	default:
		return fmt.Sprintf("%q", n.Value)
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func where(path string) string {
	if path == "" {
		return "the plan"
	}
	return path
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$`)

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// destructive are command words that format, erase or overwrite a device
// or a dataset. The list is a guard against an unmarked step, not a proof
// of safety: any step may be marked destructive: true.
var destructive = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(^|[\s;&|(/])(mkfs(\.[a-z0-9]+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkudffs)(\s|$)`), "formats a filesystem"},
	{regexp.MustCompile(`(^|[\s;&|(/])nvme\s+(format|sanitize|delete-ns|create-ns|attach-ns|detach-ns|write|write-zeroes|write-uncor|dsm|zns\s+(reset-zone|finish-zone|offline-zone))\b`), "an NVMe command that erases, writes or changes namespaces"},
	{regexp.MustCompile(`(^|[\s;&|(/])(blkdiscard|wipefs|shred|sgdisk|gdisk|fdisk|cfdisk|parted|sfdisk|sg_format|sg_sanitize|sg_unmap|pvcreate|pvremove|vgremove|lvremove)\b`), "erases or repartitions a device"},
	{regexp.MustCompile(`(^|[\s;&|(/])(mdadm\s[^;&|]*(--create|-C|--zero-superblock)|cryptsetup\s[^;&|]*(luksFormat|erase)|hdparm\s[^;&|]*--(security-erase|trim-sector-ranges))\b`), "erases RAID, LUKS or drive contents"},
	{regexp.MustCompile(`(^|[\s;&|(/])dd\s[^;&|]*\bof=/dev/`), "dd writes to a device"},
	{regexp.MustCompile(`(>|\btee\s+(-a\s+)?)\s*/dev/(sd|nvme|vd|hd|xvd|md|dm-|mapper/|loop|disk/)`), "writes to a device"},
	{regexp.MustCompile(`(^|[\s;&|(/])fio\s[^;&|]*\bfilename=(\S*:)?/dev/`), "fio on a raw device overwrites it"},
	{regexp.MustCompile(`(^|[\s;&|(/])rm\s+(-\S+\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(\s|$)`), "rm -r deletes a tree"},
	{regexp.MustCompile(`(^|[\s;&|(/])find\s[^;&|]*\s-delete\b`), "find -delete deletes files"},
	{regexp.MustCompile(`(?i)(^|[\s;&|('"])truncate\s`), "truncate empties a file or a table"},
	{regexp.MustCompile(`(?i)\bdrop\s+(database|schema|table|tablespace)\b|\bmysqladmin\s[^;&|]*\bdrop\b`), "DROP deletes data"},
	{regexp.MustCompile(`(^|[\s;&|(/])(mysql|mariadb)\s[^;&|]*<\s*\S|\|\s*(mysql|mariadb)(\s|$)`), "feeding SQL into the server (a restore) replaces its tables"},
	{regexp.MustCompile(`(^|\s)(tpcc|tpcc\.lua|oltp_[a-z_]+)\s([^;&|]*\s)?(prepare|cleanup)\b`), "loadgen prepare/cleanup recreates the tables"},
	{regexp.MustCompile(`(^|\s)fileio\s[^;&|]*--device\b`), "loadgen fileio on a raw device overwrites it"},
}

// Destructive says why a command looks destructive, or "".
func Destructive(cmd string) string {
	for _, d := range destructive {
		if d.re.MatchString(cmd) {
			return d.what
		}
	}
	return ""
}

// envRef is ${NAME} or ${NAME:-default}; a default may itself hold
// ${OTHER} references (one level): ${EXPORTER:-http://${DB_HOST}:10131}.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-((?:[^{}\n]|\$\{[A-Za-z_][A-Za-z0-9_]*(?::-[^{}\n]*)?\})*))?\}`)

// ExpandKnown is the plan's text with every ${NAME} that getenv knows, or
// that has a default, replaced; the others are left as written. Resume
// compares its hash (secrets hidden) with the one taken at the start, so
// that a changed environment does not run another plan. It is not how a
// plan is loaded: Load expands values, not text.
func ExpandKnown(raw []byte, getenv func(string) (string, bool)) []byte {
	out, _ := expandText(raw, getenv, true)
	return out
}

// EnvRefs are the ${NAME} references of a plan as written, each with its
// default (the text after ":-", "" when none), defaults' own references
// included: redaction hides the values of the secret ones.
func EnvRefs(raw []byte) (names, defaults []string) {
	for _, m := range envRef.FindAllSubmatch(raw, -1) {
		n, d := EnvRefs(m[3]) // ${A:-${SECRET}}
		names, defaults = append(append(names, n...), string(m[1])), append(append(defaults, d...), string(m[3]))
	}
	return names, defaults
}

// expandText is Expand; lenient leaves a name that is not set and has no
// default as it is, without an error.
func expandText(data []byte, getenv func(string) (string, bool), lenient bool) ([]byte, error) {
	var errs Errors
	out := envRef.ReplaceAllFunc(data, func(ref []byte) []byte {
		m := envRef.FindSubmatch(ref)
		if v, ok := getenv(string(m[1])); ok {
			return []byte(v)
		}
		line := func() int { return 1 + bytes.Count(data[:bytes.Index(data, ref)], []byte("\n")) }
		if len(m[2]) > 0 {
			// The default, expanded too: it may name another variable.
			def, err := expandText(m[3], getenv, lenient)
			if err != nil {
				for _, e := range err.(Errors) {
					errs = append(errs, LineError{line(), e.Msg})
				}
				return ref
			}
			return def
		}
		if lenient {
			return ref
		}
		errs = append(errs, LineError{line(), fmt.Sprintf("${%s} is not set and has no default (write ${%s:-value})", m[1], m[1])})
		return ref
	})
	if len(errs) > 0 {
		return nil, errs
	}
	return out, nil
}

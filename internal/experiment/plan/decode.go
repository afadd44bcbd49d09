package plan

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Decoding: the one way a plan is read (Load), its YAML values and the
// report of every problem with its line.

// valueError is a value that does not decode, as a *yaml.TypeError: the
// decoder records it and goes on with the rest of the plan, so that every
// problem comes in one report (another error stops the decoding there).
func valueError(format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf(format, args...)}}
}

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

// Load is the one way a plan is read: walab experiment run and its
// --dry-run, a new experiment, a resumed one and walab lab all load
// through it. It decodes and validates the plan and reports every problem,
// each with its line: unknown keys, values of the wrong type, bad
// durations, runs without targets, destructive commands not marked
// destructive, checks of a kind not in kinds.Checks, loadgen lines
// kinds.Loadgen refuses.
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
func Load(src Source, kinds Kinds) (*Plan, error) {
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

func parse(data []byte, getenv func(string) (string, bool), set Settings, kinds Kinds) (*Plan, error) {
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
	p.compile()
	for _, e := range p.validate(kinds, set.FreeSpace) {
		if decoded || !lines[e.Line] && e.Line > 0 {
			errs = append(errs, e)
		}
	}
	if len(errs) > 0 {
		sort.SliceStable(errs, func(i, j int) bool { return errs[i].Line < errs[j].Line })
		return nil, errs
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

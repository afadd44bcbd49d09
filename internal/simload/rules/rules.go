// Package rules is the placement rule table: which stream (placement id) a
// file's writes go to, like the rule files of astream. The first matching
// regular expression wins; no match is stream 0, no hint.
package rules

import (
	"bufio"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"
)

// Rule maps file names to a placement id (stream), like a line of an astream
// rule file. Match is a regular expression that must match the whole base
// name of the file.
type Rule struct {
	Match  string `yaml:"match" json:"match"`
	Stream uint8  `yaml:"stream" json:"stream"`
}

// MaxStream is the highest placement id a rule may name.
const MaxStream = 15

// Table is a compiled rule table: the first matching rule wins, no match is stream 0.
type Table struct {
	rules []Rule
	res   []*regexp.Regexp
}

// Compile checks and compiles a rule table.
func Compile(rules []Rule) (*Table, error) {
	r := &Table{rules: append([]Rule(nil), rules...)}
	for i, rule := range rules {
		if rule.Match == "" {
			return nil, fmt.Errorf("rules: rule %d: empty match", i+1)
		}
		if rule.Stream > MaxStream {
			return nil, fmt.Errorf("rules: rule %d (%s): stream %d above %d", i+1, rule.Match, rule.Stream, MaxStream)
		}
		re, err := regexp.Compile("^(?:" + rule.Match + ")$")
		if err != nil {
			return nil, fmt.Errorf("rules: rule %d: %w", i+1, err)
		}
		r.res = append(r.res, re)
	}
	return r, nil
}

// Parse reads the text form: one rule per line, "<stream> <regex>",
// blank lines and lines starting with '#' ignored. The stream comes first
// because file patterns may themselves start with '#' (#ib_redo*).
func Parse(text string) (*Table, error) {
	var rules []Rule
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == '#' {
			continue
		}
		id, re, ok := strings.Cut(line, " ")
		re = strings.TrimSpace(re)
		if !ok || re == "" {
			return nil, fmt.Errorf("rules: rules line %d: want \"<stream> <regex>\", got %q", n, line)
		}
		s, err := strconv.ParseUint(id, 10, 8)
		if err != nil {
			return nil, fmt.Errorf("rules: rules line %d: stream %q is not a number 0-%d", n, id, MaxStream)
		}
		rules = append(rules, Rule{Match: re, Stream: uint8(s)})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("rules: rules: %w", err)
	}
	return Compile(rules)
}

// Stream returns the placement id for a file path (its base name is matched).
func (r *Table) Stream(file string) uint8 {
	if r == nil {
		return 0
	}
	base := path.Base(file)
	for i, re := range r.res {
		if re.MatchString(base) {
			return r.rules[i].Stream
		}
	}
	return 0
}

// List returns a copy of the rules.
func (r *Table) List() []Rule {
	if r == nil {
		return nil
	}
	return append([]Rule(nil), r.rules...)
}

// MaxID is the highest stream any rule names (0 for an empty table).
func (r *Table) MaxID() uint8 {
	var m uint8
	for _, rule := range r.List() {
		m = max(m, rule.Stream)
	}
	return m
}

// Default is an astream-like table for the MySQL mix: redo, binlog,
// tablespaces, doublewrite and undo each get their own stream. It also sends
// the synthetic hot/cold classes to streams 1 and 2.
func Default() []Rule {
	return []Rule{
		{Match: `ib_logfile.*|#ib_redo.*`, Stream: 1},
		{Match: `binlog\..*`, Stream: 2},
		{Match: `.*\.ibd`, Stream: 3},
		{Match: `.*\.dblwr|ib_doublewrite`, Stream: 4},
		{Match: `undo_.*`, Stream: 5},
		{Match: `hot\..*`, Stream: 1},
		{Match: `cold\..*`, Stream: 2},
	}
}

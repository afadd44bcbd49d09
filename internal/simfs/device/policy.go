package device

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/walab/walab/internal/simfs/fileclass"
)

// Placement is the placement policy as the user writes it: which FDP
// placement handle each file's writes carry. A file takes the handle of
// the first rule whose pattern matches its name (a path.Match pattern
// against the base name, or against the path inside the datadir when the
// pattern holds a slash, as astream's rule files named files), else its
// class's handle, else Default. The baseline is no rules and no classes:
// every write on Default, one handle.
type Placement struct {
	Default uint16            `yaml:"default"` // placement handle of what nothing else names
	Classes map[string]uint16 `yaml:"classes"` // fileclass name (redo, doublewrite, data, undo, binlog, system, other) -> handle
	Rules   []Rule            `yaml:"rules"`
}

// Rule gives the files whose name matches Pattern a placement handle.
type Rule struct {
	Pattern string `yaml:"pattern"`
	Handle  uint16 `yaml:"handle"`
}

// Policy is a compiled Placement.
type Policy struct {
	def     uint16
	classes [8]uint16 // by fileclass.Class
	rules   []Rule
}

// Compile checks p: known class names, valid patterns.
func (p Placement) Compile() (*Policy, error) {
	c := &Policy{def: p.Default, rules: slices.Clone(p.Rules)}
	for i := range c.classes {
		c.classes[i] = p.Default
	}
	for name, h := range p.Classes {
		i := slices.Index(fileclass.Names, name)
		if i < 0 {
			return nil, fmt.Errorf("placement: class %q: want one of %s", name, strings.Join(fileclass.Names, ", "))
		}
		c.classes[i] = h
	}
	for _, r := range p.Rules {
		if _, err := path.Match(r.Pattern, ""); err != nil || r.Pattern == "" {
			return nil, fmt.Errorf("placement: rule pattern %q is not a valid path.Match pattern", r.Pattern)
		}
	}
	return c, nil
}

// Handle is the placement handle of a write to the file at name (its path
// inside the datadir) of class c.
func (p *Policy) Handle(name string, c fileclass.Class) uint16 {
	for _, r := range p.rules {
		subject := path.Base(name)
		if strings.Contains(r.Pattern, "/") {
			subject = name
		}
		if ok, _ := path.Match(r.Pattern, subject); ok {
			return r.Handle
		}
	}
	return p.classes[c]
}

// Handles lists the distinct handles the policy can give, ascending.
func (p *Policy) Handles() []uint16 {
	hs := []uint16{p.def}
	hs = append(hs, p.classes[:len(fileclass.Names)]...)
	for _, r := range p.rules {
		hs = append(hs, r.Handle)
	}
	slices.Sort(hs)
	return slices.Compact(hs)
}

// String is the policy in one line, for the fingerprint and the report:
// "rules: ...; redo=1 doublewrite=2 ...; default 0", or "one handle: 0"
// for the baseline.
func (p *Policy) String() string {
	if len(p.Handles()) == 1 {
		return fmt.Sprintf("one handle: %d", p.def)
	}
	var parts []string
	for _, r := range p.rules {
		parts = append(parts, fmt.Sprintf("%s=%d", r.Pattern, r.Handle))
	}
	var classes []string
	for i, name := range fileclass.Names {
		classes = append(classes, fmt.Sprintf("%s=%d", name, p.classes[i]))
	}
	s := "classes: " + strings.Join(classes, " ")
	if len(parts) > 0 {
		s = "rules: " + strings.Join(parts, " ") + "; " + s
	}
	return s
}

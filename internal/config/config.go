// Package config loads the exporter's YAML file. Each collector owns its own
// top-level section and decodes it itself, so adding a collector never edits
// a shared struct.
package config

import (
	"bytes"
	"fmt"
	"os"

	"go.yaml.in/yaml/v3"
)

// File is a parsed configuration file, kept as one YAML node per section.
type File struct {
	path     string
	sections map[string]*yaml.Node
}

// Empty is the configuration used when no file is given.
func Empty() *File { return &File{sections: map[string]*yaml.Node{}} }

// Load reads and parses path. A missing or malformed file is an error that names it.
func Load(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", path, err)
	}
	f.path = path
	return f, nil
}

// Parse parses YAML bytes whose top level is a mapping of section names.
func Parse(b []byte) (*File, error) {
	f := Empty()
	var top map[string]yaml.Node
	if err := yaml.Unmarshal(b, &top); err != nil {
		return nil, err
	}
	for k := range top {
		n := top[k]
		f.sections[k] = &n
	}
	return f, nil
}

// Has reports whether the file has a section.
func (f *File) Has(section string) bool { _, ok := f.sections[section]; return ok }

// Sections lists the section names present (for "unknown section" warnings).
func (f *File) Sections() []string {
	out := make([]string, 0, len(f.sections))
	for k := range f.sections {
		out = append(out, k)
	}
	return out
}

// Decode decodes a section into v, refusing unknown keys so that a typo is
// an error rather than a silently ignored setting. A missing section leaves v as is.
func (f *File) Decode(section string, v any) error {
	n, ok := f.sections[section]
	if !ok {
		return nil
	}
	b, err := yaml.Marshal(n)
	if err != nil {
		return fmt.Errorf("config section %q: %w", section, err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("config section %q: %w", section, err)
	}
	return nil
}

// Path is the file the configuration came from ("" for Empty or Parse).
func (f *File) Path() string { return f.path }

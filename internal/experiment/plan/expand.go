package plan

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"

	"go.yaml.in/yaml/v3"
)

// ${NAME} and ${NAME:-default}: expanded in the decoded values (Load), or
// in the text for ExpandKnown and a plan that is YAML only once expanded.

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

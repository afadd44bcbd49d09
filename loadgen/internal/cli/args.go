package cli

import (
	"fmt"
	"strings"
)

// NormalizeArgs accepts sysbench's spellings on top of kingpin's:
// underscores in long flag names (--table_size = --table-size) and
// on/off values for boolean flags (--skip_trx=on, --create_secondary=off).
// Arguments after "--" and values of other flags are left alone.
func NormalizeArgs(args []string, boolFlags map[string]bool) ([]string, error) {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		if !strings.HasPrefix(a, "--") || len(a) == 2 {
			out = append(out, a)
			continue
		}
		name, val, hasVal := strings.Cut(a[2:], "=")
		// Dotted flags (--web.listen-address) keep their exact spelling.
		if !strings.Contains(name, ".") {
			name = strings.ReplaceAll(name, "_", "-")
		}
		if hasVal && boolFlags[name] {
			switch strings.ToLower(val) {
			case "on", "true", "yes", "1":
				out = append(out, "--"+name)
			case "off", "false", "no", "0":
				out = append(out, "--no-"+name)
			default:
				return nil, fmt.Errorf("--%s=%s: want on or off", name, val)
			}
			continue
		}
		if hasVal {
			out = append(out, "--"+name+"="+val)
		} else {
			out = append(out, "--"+name)
		}
	}
	return out, nil
}

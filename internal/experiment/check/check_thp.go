package check

import (
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// thpCheck: transparent huge pages' enabled mode on the database host is
// the planned one (never, for InnoDB's buffer pool; no seed sets it), and with
// options [DEFRAG], the defrag mode too.
var thpCheck = hostKind("expect (always|madvise|never), options ([defrag mode])",
	func(_ *plan.Plan, c plan.Check) []string {
		var out []string
		switch c.Expect {
		case "always", "madvise", "never":
		default:
			out = append(out, fmt.Sprintf("expect %q: want always, madvise or never", c.Expect))
		}
		if len(c.Options) > 1 {
			out = append(out, "options: at most one, the defrag mode")
		}
		return out
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		t := f.Tuning
		if t.THPEnabled == "" {
			return "", fmt.Errorf("the exporter on %s could not read transparent_hugepage/enabled", f.Hostname)
		}
		if t.THPEnabled != c.Expect {
			return "", fmt.Errorf("transparent huge pages are %s on %s, the plan expects %s", t.THPEnabled, f.Hostname, c.Expect)
		}
		msg := "transparent huge pages " + t.THPEnabled
		if len(c.Options) == 1 {
			if t.THPDefrag != c.Options[0] {
				return "", fmt.Errorf("transparent huge pages defrag is %s on %s, the plan expects %s", orUnknown(t.THPDefrag), f.Hostname, c.Options[0])
			}
			msg += ", defrag " + t.THPDefrag
		}
		return msg + " on " + f.Hostname, nil
	})

func init() { register("thp", thpCheck) }

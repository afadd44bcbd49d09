package check

import (
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// sysctlCheck: the database host's vm.dirty_* and vm.swappiness are the
// planned values (host tuning that changes what reaches the drive; no
// seed sets them), each option a "name=value".
var sysctlCheck = hostKind("options (name=value, e.g. vm.swappiness=1)",
	func(_ *plan.Plan, c plan.Check) []string {
		if len(c.Options) == 0 {
			return []string{"options missing (e.g. [vm.swappiness=1, vm.dirty_ratio=40])"}
		}
		var out []string
		for _, o := range c.Options {
			k, _, ok := strings.Cut(o, "=")
			if !ok || !slices.Contains(hostapi.Sysctls, k) {
				out = append(out, fmt.Sprintf("option %q: want name=value with a name of %s", o, strings.Join(hostapi.Sysctls, ", ")))
			}
		}
		return out
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		var found []string
		for _, o := range c.Options {
			k, want, _ := strings.Cut(o, "=")
			got, ok := f.Tuning.Sysctls[k]
			switch {
			case !ok:
				return "", fmt.Errorf("the exporter on %s could not read %s (an exporter older than the tuning facts, or no /proc/sys)", f.Hostname, k)
			case got != want:
				return "", fmt.Errorf("%s is %s on %s, the plan expects %s", k, got, f.Hostname, want)
			}
			found = append(found, k+"="+got)
		}
		return strings.Join(found, ", ") + " on " + f.Hostname, nil
	})

func init() { register("sysctl", sysctlCheck) }

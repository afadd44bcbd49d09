package check

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// checkMountOptions: the filesystems of the data directories on the
// database host carry every planned option (noatime, nodiscard, ...).
func (e *Env) checkMountOptions(ctx context.Context, c plan.Check) (string, error) {
	f, found, err := e.eachMount(ctx, c, func(f *hostapi.Facts, dir string, m *hostapi.Mount) (string, error) {
		have := strings.Split(m.Options, ",")
		for _, o := range c.Options {
			if !slices.Contains(have, o) {
				return "", fmt.Errorf("%s on %s is mounted at %s with %s: no %s", dir, f.Hostname, m.MountPoint, m.Options, o)
			}
		}
		return fmt.Sprintf("%s: %s has %s", dir, m.MountPoint, strings.Join(c.Options, ",")), nil
	})
	if err != nil {
		return "", err
	}
	return strings.Join(found, "; ") + " on " + f.Hostname, nil
}

var mountOptionsCheck = checkKind{
	keys:  "options, targets or path",
	needs: needs{exporter: true},
	validate: func(p *plan.Plan, c plan.Check) []string {
		out := needDirs(p, c)
		if len(c.Options) == 0 {
			out = append(out, "options missing (e.g. [noatime])")
		}
		return out
	},
	run: runOf((*Env).checkMountOptions),
}

func init() { register("mount_options", mountOptionsCheck) }

package check

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
)

// pageCacheCheck: the database host's page cache is at most bytes before
// the run (seed 000 drops it: echo 3 > /proc/sys/vm/drop_caches), so no
// run starts with the last one's files cached.
var pageCacheCheck = checkKind{
	keys:  "bytes (the most page cache allowed)",
	needs: needs{exporter: true},
	validate: func(_ *plan.Plan, c plan.Check) []string {
		if c.Bytes == 0 {
			return []string{"bytes missing (the most page cache allowed, e.g. 1GiB)"}
		}
		return nil
	},
	run: func(e *Env, ctx context.Context, c plan.Check, _ *plan.Run) (string, error) {
		f, err := e.hostFacts(ctx)
		if err != nil {
			return "", err
		}
		got := f.Tuning.PageCacheBytes
		if got == nil {
			return "", fmt.Errorf("the exporter on %s could not read the page cache size (meminfo Cached)", f.Hostname)
		}
		if *got > uint64(c.Bytes) {
			return "", fmt.Errorf("the page cache on %s holds %s, the plan allows %s (drop it in the reset: echo 3 > /proc/sys/vm/drop_caches)", f.Hostname, human(*got), human(uint64(c.Bytes)))
		}
		return fmt.Sprintf("page cache on %s: %s (at most %s)", f.Hostname, human(*got), human(uint64(c.Bytes))), nil
	},
}

func init() { register("page_cache", pageCacheCheck) }

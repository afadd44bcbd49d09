package check

import (
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// pageCacheCheck: the database host's page cache is at most bytes before
// the run (seed 000 drops it: echo 3 > /proc/sys/vm/drop_caches), so no
// run starts with the last one's files cached.
var pageCacheCheck = hostKind("bytes (the most page cache allowed)",
	func(_ *plan.Plan, c plan.Check) []string {
		return need(c.Bytes != 0, "bytes missing (the most page cache allowed, e.g. 1GiB)")
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		got := f.Tuning.PageCacheBytes
		if got == nil {
			return "", fmt.Errorf("the exporter on %s could not read the page cache size (meminfo Cached)", f.Hostname)
		}
		if *got > uint64(c.Bytes) {
			return "", fmt.Errorf("the page cache on %s holds %s, the plan allows %s (drop it in the reset: echo 3 > /proc/sys/vm/drop_caches)", f.Hostname, human(*got), human(uint64(c.Bytes)))
		}
		return fmt.Sprintf("page cache on %s: %s (at most %s)", f.Hostname, human(*got), human(uint64(c.Bytes))), nil
	})

func init() { register("page_cache", pageCacheCheck) }

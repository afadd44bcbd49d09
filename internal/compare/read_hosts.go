package compare

import (
	"context"
	"fmt"
	"strings"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// onHost is the matcher that ties a run's drive series to its host:
// `,instance="..."` when the Source names one, else "".
func (s Source) onHost() string {
	if s.Instance == "" {
		return ""
	}
	return fmt.Sprintf(",instance=%q", s.Instance)
}

// oneHost refuses a device whose counters came from more than one host
// (instance, job) during the run: the same name on two hosts (nvme0 is on
// every host) would be summed, host bytes doubled and WA blended. The
// Source's Instance picks one.
func (s Source) oneHost(ctx context.Context, run Run, device string) error {
	dur := runSpan(run)
	q := fmt.Sprintf(`count by (instance, job) (count_over_time(`+promql.NVMeHostWrittenBytes+`{device=%q%s}[%s]))`, device, s.onHost(), dur)
	res, _, _, err := s.API.Query(ctx, q, run.End)
	if err != nil {
		return fmt.Errorf("query %s: %w", q, err)
	}
	v, _ := res.(model.Vector)
	if len(v) < 2 {
		return nil
	}
	hosts := make([]string, len(v))
	for i, smp := range v {
		hosts[i] = fmt.Sprintf("instance=%q job=%q", smp.Metric["instance"], smp.Metric["job"])
	}
	return fmt.Errorf("run %s: device %s has counters from %d hosts (%s): their figures would be summed; name the run's host with --instance",
		run.ID, device, len(v), strings.Join(hosts, ", "))
}

// seriesNames lists a matrix's series for an error message (at most 3).
func seriesNames(m model.Matrix) string {
	var names []string
	for i, ss := range m {
		if i == 3 {
			names = append(names, "...")
			break
		}
		names = append(names, ss.Metric.String())
	}
	return strings.Join(names, ", ")
}

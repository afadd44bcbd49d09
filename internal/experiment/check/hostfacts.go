package check

import (
	"context"
	"fmt"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// hostFacts reads the database host's facts from its exporter: checks
// never read the machine the runner is on.
func (e *Env) hostFacts(ctx context.Context) (*hostapi.Facts, error) {
	url := e.Plan.DBExporter()
	if url == "" {
		return nil, fmt.Errorf("no exporter of the database host in the plan (exporter or hosts.db.exporter)")
	}
	f, err := hostapi.Get(ctx, e.client(), url)
	if err != nil {
		return nil, fmt.Errorf("database host facts: %w", err)
	}
	return f, nil
}

// dirMounts are the filesystems of a check's data directories on the
// database host, each with its directory.
func (e *Env) dirMounts(ctx context.Context, c plan.Check) (*hostapi.Facts, []string, []*hostapi.Mount, error) {
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return nil, nil, nil, err
	}
	f, err := e.hostFacts(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	var ms []*hostapi.Mount
	for _, d := range dirs {
		m, err := f.MountOf(d)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("data directory %s: %w", d, err)
		}
		ms = append(ms, m)
	}
	return f, dirs, ms, nil
}

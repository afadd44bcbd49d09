package experiment

import (
	"context"
	"path/filepath"
	"time"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hotspots"
)

// profileFile is a run's CPU profile in its directory.
const profileFile = "profile.pb.gz"

// startProfile starts the run's CPU profile from the database host's
// exporter when the plan asks for one (plan key profile: seed 003's view
// of where mysqld spends its CPU); the function it returns waits for it
// after the run and gives its record (nil: none asked).
func (rs *runStep) startProfile(ctx context.Context, it plan.Item, abs, dir string) func() *hotspots.Record {
	if rs.plan.Profile == 0 {
		return func() *hotspots.Record { return nil }
	}
	finish := hotspots.Start(ctx, httpClient(rs.http), rs.plan.DBExporter(), it.Expected, int(time.Duration(rs.plan.Profile)/time.Second), abs, profileFile)
	return func() *hotspots.Record {
		r := finish()
		if r.File != "" {
			r.File = filepath.Join(dir, r.File)
		}
		return r
	}
}

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

// hostKind is a check kind that judges the database host's facts, read
// through its exporter before judge runs.
func hostKind(keys string, validate func(*plan.Plan, plan.Check) []string, judge func(f *hostapi.Facts, c plan.Check) (string, error)) checkKind {
	return checkKind{
		keys:     keys,
		needs:    needs{exporter: true},
		validate: validate,
		run: func(e *Env, ctx context.Context, c plan.Check, _ *plan.Run) (string, error) {
			f, err := e.hostFacts(ctx)
			if err != nil {
				return "", err
			}
			return judge(f, c)
		},
	}
}

// runOf adapts a check that does not read the run to checkKind.run.
func runOf(check func(e *Env, ctx context.Context, c plan.Check) (string, error)) func(*Env, context.Context, plan.Check, *plan.Run) (string, error) {
	return func(e *Env, ctx context.Context, c plan.Check, _ *plan.Run) (string, error) { return check(e, ctx, c) }
}

// need is problem when ok is false, else nothing.
func need(ok bool, problem string) []string {
	if ok {
		return nil
	}
	return []string{problem}
}

// eachMount judges the filesystem of each of a check's data directories
// on the database host, in order: the facts and what each judge found, or
// the first error.
func (e *Env) eachMount(ctx context.Context, c plan.Check, judge func(f *hostapi.Facts, dir string, m *hostapi.Mount) (string, error)) (*hostapi.Facts, []string, error) {
	f, dirs, mounts, err := e.dirMounts(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	var found []string
	for i, m := range mounts {
		s, err := judge(f, dirs[i], m)
		if err != nil {
			return nil, nil, err
		}
		found = append(found, s)
	}
	return f, found, nil
}

// Package lab runs walab's whole loop on one machine, on loopback only:
// the exporter on a small simulated drive, a Prometheus with walab's rules,
// and a seed 000 plan (baseline vs streams under TPC-C) through the
// experiment executor, then the verdict and its HTML report. Every process
// it starts runs in a process group of its own and is stopped when Run
// returns, whether it succeeded, failed or was cancelled.
package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/walab/walab/alerts"
	"github.com/walab/walab/internal/compare"
	"github.com/walab/walab/internal/experiment"
	"github.com/walab/walab/internal/experiment/plan"
)

// Options are the lab's binaries, addresses and plan values.
type Options struct {
	Plan string // the plan file (deploy/experiments/seed000-sim.yml)
	Out  string // work directory: new or empty

	Exporter, Loadgen, Prometheus string // binaries

	// Loopback host:port each service listens on.
	ExporterAddr, PrometheusAddr, LoadgenAddr string

	// The plan's two MySQL/MariaDB instances on 127.0.0.1 and the
	// databases the lab loads there (created, then restored before each run).
	MySQLPort1, MySQLPort2 int
	DB1, DB2               string

	RunFor   time.Duration // each run's length
	Round    time.Duration // one row of the WA table
	Progress time.Duration // period of progress lines during a run

	// SimFS puts the drive under the exporter's FUSE filesystem and runs
	// a private mariadbd (MariaDBD) with its datadir there, in place of
	// the MySQL ports: the WA then comes from MariaDB's own writes.
	// Needs root and /dev/fuse.
	SimFS    bool
	MariaDBD string

	// Hold keeps the stack up after the verdict until ctx is done.
	Hold bool
	// Ready, when set, is called with the result before the lab holds.
	Ready  func(*Result)
	Stdout io.Writer
}

// Result is what the lab found and where it put it.
type Result struct {
	Verdict    string // walab compare's headline: VALID  WA -x% [a, b] ...
	Valid      bool
	HTML       string // compare's self-contained report
	Report     string // the experiment's Markdown report
	Prometheus string // base URL
	Exporter   string // metrics URL
}

// Run brings the stack up, runs the plan and, with Hold, keeps the stack
// up until ctx is done. Whatever happens, every process it started is
// stopped before it returns. The databases' host (hostFor) is chosen once,
// here.
func Run(ctx context.Context, o Options) (*Result, error) {
	if err := o.validate(); err != nil {
		return nil, &UsageError{err}
	}
	// The services run in the work directory: every path they get is absolute.
	for _, p := range []*string{&o.Out, &o.Exporter, &o.Loadgen, &o.Prometheus} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, err
		}
		*p = abs
	}
	host := hostFor(o)
	if err := host.usable(); err != nil {
		return nil, &UsageError{err}
	}
	if err := host.claim(); err != nil {
		return nil, err
	}
	plan, err := o.readPlan(host.databases())
	if err != nil {
		return nil, &UsageError{err} // as walab experiment run: exit 2
	}
	if err := newDir(o.Out); err != nil {
		return nil, err
	}
	if err := o.writeConfigs(ctx, host); err != nil {
		return nil, err
	}
	var procs []*proc
	defer func() {
		host.close() // before its server stops
		for i := len(procs) - 1; i >= 0; i-- {
			procs[i].stop(10 * time.Second)
		}
		host.detach()
		o.printf("lab: stopped every process it started; logs in %s", filepath.Join(o.Out, "log"))
	}()
	if err := o.startProcesses(ctx, host, &procs); err != nil {
		return nil, err
	}
	res, err := o.watchedExperiment(ctx, plan, host, procs)
	if err != nil {
		return nil, err
	}
	o.summary(res, host)
	if o.Ready != nil {
		o.Ready(res)
	}
	if o.Hold {
		o.printf("lab: up for exploring; Ctrl-C stops everything")
		select {
		case <-ctx.Done():
		case <-anyExited(procs):
			return res, errors.New("a lab service exited; see its log in " + filepath.Join(o.Out, "log"))
		}
	}
	return res, nil
}

// writeConfigs opens the databases' host and writes the lab's configs
// from what it gives; on failure the host is closed again.
func (o Options) writeConfigs(ctx context.Context, host databaseHost) error {
	dirs, err := host.open(ctx)
	if err != nil {
		return err
	}
	if err := o.writeConfigsFor(host, dirs); err != nil {
		host.close()
		return err
	}
	return nil
}

// startProcesses starts the lab's services, then what the databases' host
// runs (a private mariadbd), adding each process it started to procs,
// also on failure, for the caller to stop.
func (o Options) startProcesses(ctx context.Context, host databaseHost, procs *[]*proc) error {
	for _, s := range o.services() {
		o.printf("lab: starting %s on %s", s.name, s.addr)
		p, err := startService(ctx, o.Out, s, 90*time.Second)
		if p != nil {
			*procs = append(*procs, p)
		}
		if err != nil {
			return err
		}
	}
	return host.start(ctx, procs)
}

// service is one process the lab runs for the whole session.
type service struct {
	name, addr, bin, ready string
	args                   []string
}

func (o Options) services() []service {
	return []service{
		{name: "exporter", addr: o.ExporterAddr, bin: o.Exporter, ready: "http://" + o.ExporterAddr + "/metrics", args: []string{
			"--config.file=" + filepath.Join(o.Out, "exporter.yml"), "--web.listen-address=" + o.ExporterAddr,
			// Empty sysfs and devfs: the simulated drive even on a host with NVMe drives.
			"--path.sysfs=" + filepath.Join(o.Out, "empty"), "--path.devfs=" + filepath.Join(o.Out, "empty"),
			"--nvme.cache-max-age=500ms", "--web.enable-mutations", "--collector.placement_trace",
			// The plan's curl steps present the token; other local users
			// cannot read it (the exporter writes it 0600) and cannot post.
			"--web.mutations-token-file=" + o.tokenFile(),
			// The plan's host checks ask GET /api/v1/host; no scrape needs
			// the host, filesystem or irq series.
			"--no-collector.filesystem", "--no-collector.irq", "--no-collector.host"}},
		{name: "prometheus", addr: o.PrometheusAddr, bin: o.Prometheus, ready: "http://" + o.PrometheusAddr + "/-/ready", args: []string{
			"--config.file=" + filepath.Join(o.Out, "prometheus.yml"), "--storage.tsdb.path=" + filepath.Join(o.Out, "prom-data"),
			"--storage.tsdb.retention.time=7d",
			"--web.listen-address=" + o.PrometheusAddr}},
	}
}

// readPlan reads the plan, its databases dbs, with the experiment's bounded reader (a
// regular file of at most 1 MiB: /dev/zero or a FIFO is refused unread)
// and loads it as walab experiment run does, to refuse a bad plan before
// anything starts. The source it returns is what Create gets: the plan as
// written, the lab's environment (its values expanded in the plan's
// values, never in its text) and the round and run length as durations.
func (o Options) readPlan(dbs []database) (plan.Source, error) {
	raw, err := plan.ReadPlan(o.Plan)
	if err != nil {
		return plan.Source{}, fmt.Errorf("plan: %w", err)
	}
	env := o.planEnv(dbs)
	src := plan.Source{Raw: raw, Getenv: func(k string) (string, bool) {
		if v, ok := env[k]; ok {
			return v, true
		}
		return os.LookupEnv(k)
	}, Set: plan.Settings{Round: o.Round, RunLength: o.RunFor}}
	if _, err := plan.Load(src, experiment.Kinds()); err != nil {
		return plan.Source{}, fmt.Errorf("%s: %w", o.Plan, err)
	}
	return src, nil
}

// watchedExperiment is experiment, stopped as soon as one of the lab's
// processes exits: the error then names that process first. The exporter
// serves the simulated drive (and on fuseHost the filesystem under
// MariaDB's datadir): without it no WA is measured, and the experiment's
// own error (a failed step, a missing figure) would not say why.
func (o Options) watchedExperiment(ctx context.Context, src plan.Source, host databaseHost, procs []*proc) (*Result, error) {
	ectx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-anyExited(procs):
			cancel()
		case <-ectx.Done():
		}
	}()
	var stopped error
	var stopOnce sync.Once
	g := host.growth(o.ExporterAddr, o.Round, func(err error) { stopOnce.Do(func() { stopped = err; cancel() }) })
	res, err := o.experiment(ectx, src, g)
	if g != nil {
		g.close()
	}
	for _, p := range procs {
		if !p.exited() {
			continue
		}
		what := p.name
		if p.name == "exporter" {
			what = host.exporterRole()
		}
		return nil, fmt.Errorf("the lab's %s exited during the experiment (%s): the experiment was stopped and gives no WA; its log: %s; the experiment said: %v",
			what, p.cmd.ProcessState, p.log, err)
	}
	if stopped != nil {
		return nil, stopped
	}
	return res, err
}

// experiment runs the plan with the lab's values and writes compare's HTML
// report from the verdict the experiment recorded; with g, the drive's
// fill is followed through the runs (fill.go) and its table, beside WA per
// round, written to the lab's fill.txt.
func (o Options) experiment(ctx context.Context, src plan.Source, g *growth) (*Result, error) {
	out := filepath.Join(o.Out, "experiment")
	e, err := experiment.Create(src, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.Plan, err)
	}
	var verdict *compare.Result
	e.Stdout, e.ProgressEvery = o.Stdout, o.Progress
	e.OnCompare = func(r *compare.Result) { verdict = r }
	if g != nil {
		e.BeforeRun = g.beforeRun
	}
	o.printf("lab: running %s (%s per run, %s rounds) in %s", o.Plan, o.RunFor, o.Round, out)
	if err := e.Execute(ctx); err != nil {
		_ = e.WriteReport()
		return nil, fmt.Errorf("experiment: %w (report so far: %s)", err, filepath.Join(out, experiment.ReportFile))
	}
	if verdict == nil {
		return nil, fmt.Errorf("experiment: no verdict (see %s)", filepath.Join(out, experiment.ReportFile))
	}
	if g != nil {
		g.close()
		if err := o.writeFillTable(g, verdict); err != nil {
			return nil, err
		}
	}
	res := &Result{
		Verdict: verdict.Verdict.Headline(verdict), Valid: verdict.Verdict.Valid,
		HTML: filepath.Join(o.Out, "report.html"), Report: filepath.Join(out, experiment.ReportFile),
		Prometheus: "http://" + o.PrometheusAddr, Exporter: "http://" + o.ExporterAddr + "/metrics",
	}
	f, err := os.OpenFile(res.HTML, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return nil, err
	}
	err = verdict.WriteHTML(f, true)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return res, err
}

// planEnv are the plan's ${...} values for the lab, its databases dbs;
// its round and run length are not text but the plan's Settings
// (readPlan).
func (o Options) planEnv(dbs []database) map[string]string {
	return map[string]string{
		"WALAB_EXPORTER": "http://" + o.ExporterAddr, "WALAB_PROMETHEUS": "http://" + o.PrometheusAddr,
		"WALAB_DEVICE":  Device,
		"WALAB_LOADGEN": o.Loadgen, "WALAB_LOADGEN_LISTEN": o.LoadgenAddr,
		"WALAB_MYSQL_1_PORT": strconv.Itoa(dbs[0].port), "WALAB_DB_1": dbs[0].name,
		"WALAB_MYSQL_2_PORT": strconv.Itoa(dbs[1].port), "WALAB_DB_2": dbs[1].name,
		"WALAB_BACKUP":              filepath.Join(o.Out, "backup"),
		"WALAB_EXPORTER_TOKEN_FILE": o.tokenFile(),
	}
}

// tokenFile is where the lab's exporter writes the token its
// state-changing endpoints need (--web.mutations-token-file).
func (o Options) tokenFile() string { return filepath.Join(o.Out, "exporter.token") }

func (o Options) summary(r *Result, host databaseHost) {
	o.printf("")
	o.printf("%s", r.Verdict)
	o.printf("")
	o.printf("HTML report:       %s", r.HTML)
	o.printf("experiment report: %s", r.Report)
	o.printf("Prometheus:        %s", r.Prometheus)
	o.printf("  WA per device:   %s/graph?%s", r.Prometheus, url.Values{
		"g0.expr": {alerts.WA1h}, "g0.range_input": {"15m"}}.Encode())
	o.printf("exporter:          %s", r.Exporter)
	o.printf("WA source:         %s", host.source())
}

func (o Options) printf(format string, args ...any) {
	fmt.Fprintf(o.Stdout, format+"\n", args...)
}

// UsageError is an option the lab refuses before it starts anything: the
// command line's fault (walab lab exits 2 for it).
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// validate: every address is on loopback, every binary and value given
// (the databases' host checks its own needs: databaseHost.usable).
func (o Options) validate() error {
	for flag, a := range map[string]string{"exporter": o.ExporterAddr, "prometheus": o.PrometheusAddr, "loadgen": o.LoadgenAddr} {
		if err := loopback(a); err != nil {
			return fmt.Errorf("%s address: %w", flag, err)
		}
	}
	for name, v := range map[string]string{"exporter binary": o.Exporter, "loadgen binary": o.Loadgen,
		"prometheus binary": o.Prometheus, "plan": o.Plan, "work directory": o.Out, "database 1": o.DB1, "database 2": o.DB2} {
		if v == "" {
			return fmt.Errorf("%s not given", name)
		}
	}
	if o.MySQLPort1 == o.MySQLPort2 && o.DB1 == o.DB2 {
		return fmt.Errorf("database 1 and database 2 are both %s on 127.0.0.1:%d: the plan restores each before a run, give two", o.DB1, o.MySQLPort1)
	}
	if o.RunFor <= 0 || o.Round <= 0 || o.RunFor < 5*o.Round {
		return fmt.Errorf("run length %s and round %s: want positive, a run at least 5 rounds long", o.RunFor, o.Round)
	}
	return nil
}

// loopback accepts host:port with a loopback IP address.
func loopback(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q: %w", addr, err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("%q: the lab listens on loopback only (127.0.0.1 or ::1)", addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("%q: port: %w", addr, err)
	}
	return nil
}

// newDir creates dir (and the empty sysfs/devfs under it), which must not
// exist or be empty: the lab writes only into a directory of its own.
func newDir(dir string) error {
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return fmt.Errorf("%s is not empty: the lab writes only into a new or empty directory", dir)
	}
	return os.MkdirAll(filepath.Join(dir, "empty"), 0o755)
}

// anyExited is closed when any of procs exits.
func anyExited(procs []*proc) <-chan struct{} {
	ch := make(chan struct{})
	var once sync.Once
	for _, p := range procs {
		go func() {
			<-p.done
			once.Do(func() { close(ch) })
		}()
	}
	return ch
}

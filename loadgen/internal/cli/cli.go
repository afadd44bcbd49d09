// Package cli is loadgen's command line: sysbench-style flags for the OLTP
// scripts, TPC-C with BenchmarkSQL props files, several targets at once,
// the Prometheus endpoint, signals, summaries and the JSON result file.
package cli

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/benchmarksql"
	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/runner"
	"github.com/walab/walab/internal/workload"
	"github.com/walab/walab/internal/workload/oltp"
	"github.com/walab/walab/internal/workload/tpcc"
)

// flags holds every option; each workload uses its own.
type flags struct {
	// run control
	threads, terminals int
	timeSec            int
	timeSet            bool
	events             int64
	rate               float64
	reportInterval     int
	percentile         float64
	seed               uint64
	maxRetries         int
	drainTimeout       time.Duration
	scenario, runID    string
	resultJSON         string
	targets, props     []string
	conn               driver.Conn
	warehouses         int
	limitTxnsPerMin    int
	oltp               oltp.Options
	webDisable         bool
	web                *web.FlagConfig
	logLevel           *promslog.Level
	blockingIO         bool
	cpuProfile         string
	memProfile         string
}

var boolFlags = map[string]bool{
	"skip-trx": true, "create-secondary": true, "auto-inc": true, "range-selects": true, "web.disable": true, "mysql-blocking-io": true,
}

// Main runs loadgen with args (without the program name) and returns the
// exit code: 0 ok (also after SIGINT/SIGTERM), 1 a failed check, 2 an error.
func Main(args []string, stdout, stderr io.Writer) int {
	f := &flags{oltp: oltp.DefaultOptions("oltp_read_write")}
	f.oltp.PointSelects = 0 // 0 = the script's default (10, or 1 for oltp_point_select)
	app := kingpin.New("loadgen", "TPC-C and sysbench-style OLTP load against MySQL/MariaDB, observable with Prometheus.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	app.Terminate(nil)
	defineFlags(app, f)

	phases := []string{"prepare", "run", "check", "cleanup"}
	workloads := append(append([]string{}, oltp.Scripts...), "tpcc")
	for _, w := range workloads {
		c := app.Command(w, "the "+w+" workload")
		for _, p := range phases {
			c.Command(p, p+" "+w)
		}
	}
	norm, err := NormalizeArgs(args, boolFlags)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	cmd, err := app.Parse(norm)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	if cmd == "" { // --help
		return 0
	}
	wl, phase, _ := strings.Cut(cmd, " ")
	logger := promslog.New(&promslog.Config{Level: f.logLevel, Writer: stderr})
	// go-sql-driver logs every dropped connection; the runner already counts
	// and reports them, so they go to the debug log.
	_ = mysql.SetLogger(mysqlLogger{logger})
	stopProfile, err := startProfiles(f.cpuProfile, f.memProfile)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	code, err := execute(f, wl, phase, stdout, stderr, logger)
	if perr := stopProfile(); perr != nil {
		fmt.Fprintln(stderr, "loadgen:", perr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	return code
}

func defineFlags(app *kingpin.Application, f *flags) {
	o := &f.oltp
	app.Flag("threads", "Client threads (terminals) per target.").Default("1").IntVar(&f.threads)
	app.Flag("terminals", "TPC-C terminals per target (overrides --threads and the props file).").IntVar(&f.terminals)
	app.Flag("time", "Run time in seconds (0: no limit); overrides a props file's runMins.").Default("10").IsSetByUser(&f.timeSet).IntVar(&f.timeSec)
	app.Flag("events", "Total transactions per target (0: no limit).").Int64Var(&f.events)
	app.Flag("rate", "Transactions per second per target, scheduled at fixed intended start times (0: unlimited).").Float64Var(&f.rate)
	app.Flag("report-interval", "Seconds between report lines (0: none).").IntVar(&f.reportInterval)
	app.Flag("percentile", "Latency percentile in reports.").Default("95").Float64Var(&f.percentile)
	app.Flag("rand-seed", "Seed of the terminals' random streams (0: from time).").Uint64Var(&f.seed)
	app.Flag("max-retries", "Retries of a transaction after a deadlock or lock wait timeout.").Default("10").IntVar(&f.maxRetries)
	app.Flag("drain-timeout", "After the stop, how long in-flight transactions may take.").Default("30s").DurationVar(&f.drainTimeout)
	app.Flag("scenario", "Scenario label of walab_loadgen_run_info (baseline, streams, ...).").Default("baseline").StringVar(&f.scenario)
	app.Flag("run-id", "Run id label of walab_loadgen_run_info (default: generated).").StringVar(&f.runID)
	app.Flag("result-json", "Write the results as JSON to this file.").StringVar(&f.resultJSON)
	app.Flag("target", "A target as name=DSN, name=mysql://user:pw@host:port/db or name=props-file; repeatable.").StringsVar(&f.targets)
	app.Flag("props", "A BenchmarkSQL props file (TPC-C); repeatable, each is a target named after the file.").StringsVar(&f.props)

	app.Flag("mysql-host", "MySQL host (when no --target).").Default("localhost").StringVar(&f.conn.Host)
	app.Flag("mysql-port", "MySQL port.").Default("3306").IntVar(&f.conn.Port)
	app.Flag("mysql-socket", "MySQL Unix socket (instead of host and port).").StringVar(&f.conn.Socket)
	app.Flag("mysql-user", "MySQL user.").Default("sbtest").StringVar(&f.conn.User)
	app.Flag("mysql-password", "MySQL password.").StringVar(&f.conn.Password)
	app.Flag("mysql-db", "MySQL database.").Default("sbtest").StringVar(&f.conn.DB)
	app.Flag("mysql-blocking-io", "Blocking sockets for TCP connections: a terminal sleeps in recv like a sysbench thread instead of going through Go's netpoller (fewer syscalls and less client CPU per statement).").Default("true").BoolVar(&f.blockingIO)

	app.Flag("warehouses", "TPC-C warehouses (prepare: to load; run: to use, 0 = all loaded).").IntVar(&f.warehouses)
	app.Flag("limit-txns-per-min", "TPC-C rate limit per target in transactions per minute (BenchmarkSQL limitTxnsPerMin).").IntVar(&f.limitTxnsPerMin)

	app.Flag("tables", "Number of sbtest tables.").Default("1").IntVar(&o.Tables)
	app.Flag("table-size", "Rows per table.").Default("10000").Int64Var(&o.TableSize)
	app.Flag("range-size", "Rows per range query.").Default("100").Int64Var(&o.RangeSize)
	app.Flag("point-selects", "Point SELECTs per transaction (oltp_point_select: 1).").IntVar(&o.PointSelects)
	app.Flag("simple-ranges", "Simple range SELECTs per transaction.").Default("1").IntVar(&o.SimpleRanges)
	app.Flag("sum-ranges", "SUM() range SELECTs per transaction.").Default("1").IntVar(&o.SumRanges)
	app.Flag("order-ranges", "ORDER BY range SELECTs per transaction.").Default("1").IntVar(&o.OrderRanges)
	app.Flag("distinct-ranges", "DISTINCT range SELECTs per transaction.").Default("1").IntVar(&o.DistinctRanges)
	app.Flag("range-selects", "Run the range SELECTs at all.").Default("true").BoolVar(&o.RangeSelects)
	app.Flag("index-updates", "UPDATEs of the indexed column k per transaction.").Default("1").IntVar(&o.IndexUpdates)
	app.Flag("non-index-updates", "UPDATEs of column c per transaction.").Default("1").IntVar(&o.NonIndexUpdates)
	app.Flag("delete-inserts", "DELETE+INSERT pairs per transaction.").Default("1").IntVar(&o.DeleteInserts)
	app.Flag("skip-trx", "No BEGIN/COMMIT: every statement autocommits.").BoolVar(&o.SkipTrx)
	app.Flag("create-secondary", "Create the k index after loading.").Default("true").BoolVar(&o.CreateSecondary)
	app.Flag("auto-inc", "id is AUTO_INCREMENT (oltp_insert lets the server pick ids).").Default("true").BoolVar(&o.AutoInc)
	app.Flag("mysql-storage-engine", "Storage engine of the sbtest tables.").Default("innodb").StringVar(&o.StorageEngine)
	app.Flag("rand-type", "Id distribution: uniform, gaussian, special, pareto, zipfian.").Default("special").StringVar(&o.Rand.Type)
	app.Flag("rand-spec-iter", "Iterations of gaussian and special.").Default("12").IntVar(&o.Rand.SpecIter)
	app.Flag("rand-spec-pct", "special: hot slice, % of the range.").Default("1").Float64Var(&o.Rand.SpecPct)
	app.Flag("rand-spec-res", "special: % of draws in the hot slice.").Default("75").Float64Var(&o.Rand.SpecRes)
	app.Flag("rand-pareto-h", "pareto: h.").Default("0.2").Float64Var(&o.Rand.ParetoH)
	app.Flag("rand-zipfian-exp", "zipfian: exponent.").Default("0.8").Float64Var(&o.Rand.ZipfianExp)

	app.Flag("web.disable", "Do not serve /metrics.").BoolVar(&f.webDisable)
	app.Flag("cpuprofile", "Write a pprof CPU profile of the whole command to this file.").StringVar(&f.cpuProfile)
	app.Flag("memprofile", "Write a pprof allocation profile to this file at the end.").StringVar(&f.memProfile)
	f.web = kingpinflag.AddFlags(app, ":10132")
	f.logLevel = promslog.NewLevel()
	app.Flag("log.level", "Log level: debug, info, warn, error.").Default("info").SetValue(f.logLevel)
}

// target is one resolved target with its workload.
type target struct {
	name  string
	dsn   string
	props *benchmarksql.Config
	wl    workload.Workload
	db    *sql.DB
}

func execute(f *flags, wl, phase string, stdout, stderr io.Writer, logger *slog.Logger) (int, error) {
	if wl == "oltp_point_select" && f.oltp.PointSelects == 0 {
		f.oltp.PointSelects = 1
	} else if f.oltp.PointSelects == 0 {
		f.oltp.PointSelects = 10
	}
	targets, err := resolveTargets(f, wl, stderr)
	if err != nil {
		return 0, err
	}
	defer func() {
		for _, t := range targets {
			if t.db != nil {
				t.db.Close()
			}
		}
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	switch phase {
	case "prepare":
		return 0, forEach(targets, func(t *target) error { return prepare(ctx, f, t, wl, stderr, len(targets) > 1) })
	case "cleanup":
		return 0, forEach(targets, func(t *target) error { return t.wl.Cleanup(ctx, t.db) })
	case "check":
		return check(ctx, targets, stdout)
	case "run":
		return runPhase(ctx, f, wl, targets, stdout, stderr, logger)
	}
	return 0, fmt.Errorf("unknown phase %q", phase)
}

func forEach(targets []*target, fn func(*target) error) error {
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for i, t := range targets {
		wg.Go(func() {
			if err := fn(t); err != nil {
				errs[i] = fmt.Errorf("target %s: %w", t.name, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

func resolveTargets(f *flags, wl string, stderr io.Writer) ([]*target, error) {
	var out []*target
	seen := map[string]bool{}
	add := func(t *target) error {
		if seen[t.name] {
			return fmt.Errorf("target name %q given twice", t.name)
		}
		seen[t.name] = true
		out = append(out, t)
		return nil
	}
	for _, p := range f.props {
		name := strings.TrimSuffix(filepath.Base(p), filepath.Ext(p))
		if err := add(&target{name: name, dsn: "props:" + p}); err != nil {
			return nil, err
		}
	}
	for _, s := range f.targets {
		tg, err := driver.ParseTarget(s)
		if err != nil {
			return nil, err
		}
		t := &target{name: tg.Name, dsn: tg.DSN}
		if tg.Props != "" {
			t.dsn = "props:" + tg.Props
		}
		if err := add(t); err != nil {
			return nil, err
		}
	}
	if len(out) == 0 {
		dsn, err := f.conn.DSN()
		if err != nil {
			return nil, err
		}
		out = append(out, &target{name: "default", dsn: dsn})
	}
	for _, t := range out {
		if p, ok := strings.CutPrefix(t.dsn, "props:"); ok {
			if wl != "tpcc" {
				return nil, fmt.Errorf("target %s: a props file is for tpcc only", t.name)
			}
			cfg, err := benchmarksql.Load(p)
			if err != nil {
				return nil, fmt.Errorf("target %s: %w", t.name, err)
			}
			for _, w := range cfg.Warnings {
				fmt.Fprintf(stderr, "target %s: %s: %s\n", t.name, p, w)
			}
			t.props, t.dsn = cfg, cfg.DSN()
		}
		var err error
		if t.wl, err = newWorkload(f, wl, t.props); err != nil {
			return nil, err
		}
		if f.blockingIO {
			t.db, err = driver.OpenDB(t.dsn)
		} else {
			t.db, err = sql.Open("mysql", t.dsn)
		}
		if err != nil {
			return nil, fmt.Errorf("target %s: %w", t.name, err)
		}
		n := max(f.threads, f.terminals, 1) + 2
		if t.props != nil {
			n = max(n, t.props.Terminals+2, t.props.LoadWorkers+2)
		}
		t.db.SetMaxOpenConns(n)
		t.db.SetMaxIdleConns(n)
	}
	return out, nil
}

func newWorkload(f *flags, wl string, props *benchmarksql.Config) (workload.Workload, error) {
	if wl != "tpcc" {
		return oltp.New(wl, f.oltp)
	}
	opts := tpcc.Options{Seed: f.seed}
	if props != nil {
		opts = props.TPCCOptions()
		opts.Seed = f.seed
	}
	if f.warehouses > 0 {
		opts.Warehouses = f.warehouses
	}
	return tpcc.New(opts)
}

// ensureDatabase creates the DSN's database when missing, so prepare
// works on a fresh server.
func ensureDatabase(ctx context.Context, dsn string) error {
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil || cfg.DBName == "" {
		return err
	}
	name := cfg.DBName
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	_, err = db.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS `"+strings.ReplaceAll(name, "`", "``")+"`")
	return err
}

func isTTY(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

func prepare(ctx context.Context, f *flags, t *target, wl string, stderr io.Writer, multi bool) error {
	if err := ensureDatabase(ctx, t.dsn); err != nil {
		return err
	}
	workers := max(f.threads, 1)
	if t.props != nil && t.props.LoadWorkers > 0 && f.threads <= 1 {
		workers = t.props.LoadWorkers
	}
	prefix := ""
	if multi {
		prefix = "[" + t.name + "] "
	}
	fmt.Fprintf(stderr, "%sloading %s with %d workers\n", prefix, wl, workers)
	p := runner.NewProgress(stderr, isTTY(stderr) && !multi, prefix, nil)
	err := t.wl.Prepare(ctx, t.db, workload.PrepareOptions{Workers: workers, Progress: p.Update})
	p.Done()
	return err
}

func check(ctx context.Context, targets []*target, stdout io.Writer) (int, error) {
	failed := false
	for _, t := range targets {
		res, err := t.wl.Check(ctx, t.db)
		for _, c := range res {
			status := "PASS"
			if !c.Passed {
				status, failed = "FAIL", true
			}
			fmt.Fprintf(stdout, "[%s] %s %s: %s\n", t.name, status, c.Name, c.Detail)
		}
		if err != nil {
			return 0, fmt.Errorf("target %s: %w", t.name, err)
		}
	}
	if failed {
		return 1, nil
	}
	return 0, nil
}

func newRunID() string {
	b := make([]byte, 3)
	_, _ = rand.Read(b)
	return time.Now().UTC().Format("20060102T150405Z") + "-" + hex.EncodeToString(b)
}

func runPhase(ctx context.Context, f *flags, wl string, targets []*target, stdout, stderr io.Writer, logger *slog.Logger) (int, error) {
	if f.runID == "" {
		f.runID = newRunID()
	}
	if f.seed == 0 {
		f.seed = uint64(time.Now().UnixNano())
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	metrics := runner.NewMetrics(reg)
	if !f.webDisable {
		mux := http.NewServeMux()
		mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{EnableOpenMetrics: true}))
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go func() {
			if err := web.ListenAndServe(srv, f.web, logger); err != nil && !errors.Is(err, http.ErrServerClosed) {
				logger.Error("metrics endpoint failed", "err", err)
			}
		}()
		defer srv.Close()
	}

	multi := len(targets) > 1
	var outMu sync.Mutex
	out := &lockedWriter{w: stdout, mu: &outMu}
	results := make([]*runner.Result, len(targets))
	err := forEach(targets, func(t *target) error {
		cfg, err := runConfig(f, wl, t)
		if err != nil {
			return err
		}
		if tw, ok := t.wl.(*tpcc.Workload); ok {
			if err := tw.Init(ctx, t.db); err != nil {
				return err
			}
		}
		cfg.Out, cfg.Metrics = out, metrics
		if multi {
			cfg.LinePrefix = "[" + t.name + "] "
		}
		cfg.OnError = func(term int, class driver.Class, err error) {
			logger.Debug("transaction failed", "target", t.name, "terminal", term, "class", class.String(), "err", err)
		}
		name := ""
		if multi {
			name = t.name
		}
		fmt.Fprint(out, runner.Banner(cfg.Threads, cfg.Rate, name))
		res, err := runner.Run(ctx, cfg)
		if err != nil {
			return err
		}
		if wl == "tpcc" {
			res.SetNewOrderType(tpcc.TxNewOrder)
		}
		for i := range targets {
			if targets[i] == t {
				results[i] = res
			}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	for _, r := range results {
		if multi {
			fmt.Fprintf(stdout, "\n== target %s ==\n", r.Target)
		}
		fmt.Fprintln(stdout)
		if wl == "tpcc" {
			r.WriteTPCC(stdout)
		} else {
			r.WriteSysbench(stdout)
		}
	}
	if f.resultJSON != "" {
		if err := runner.WriteJSON(f.resultJSON, results); err != nil {
			return 0, err
		}
	}
	return 0, nil
}

func runConfig(f *flags, wl string, t *target) (runner.Config, error) {
	cfg := runner.Config{
		Target: t.name, Workload: t.wl, DB: t.db, Threads: f.threads,
		Duration: time.Duration(f.timeSec) * time.Second, Events: f.events, Rate: f.rate,
		ReportInterval: time.Duration(f.reportInterval) * time.Second, Percentile: f.percentile,
		RunID: f.runID, Scenario: f.scenario, Seed: f.seed, MaxRetries: f.maxRetries, DrainTimeout: f.drainTimeout,
	}
	if wl != "tpcc" {
		return cfg, nil
	}
	if p := t.props; p != nil {
		if p.Terminals > 0 {
			cfg.Threads = p.Terminals
		}
		if p.RunMins > 0 && !f.timeSet {
			cfg.Duration = time.Duration(p.RunMins) * time.Minute
		}
		if p.RunTxnsPerTerminal > 0 && !f.timeSet && f.events == 0 {
			cfg.Duration = 0
			cfg.Events = int64(p.RunTxnsPerTerminal) * int64(cfg.Threads)
		}
		if p.LimitTxnsPerMin > 0 {
			cfg.Rate = float64(p.LimitTxnsPerMin) / 60
		}
	}
	if f.terminals > 0 {
		cfg.Threads = f.terminals
	}
	if f.limitTxnsPerMin > 0 {
		cfg.Rate = float64(f.limitTxnsPerMin) / 60
	}
	// Props files say limitTxnsPerMin=1000000000 to mean "no limit"; as an
	// arrival schedule such a rate would only pile up lateness.
	if cfg.Rate > maxRate {
		cfg.Rate = 0
	}
	return cfg, nil
}

// maxRate is the highest rate taken as a real limit (transactions per
// second); above it a limit is unreachable by any server and means none.
const maxRate = 1e6

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

type mysqlLogger struct{ l *slog.Logger }

func (m mysqlLogger) Print(v ...any) { m.l.Debug("mysql driver", "msg", fmt.Sprint(v...)) }

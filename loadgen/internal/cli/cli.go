// Package cli is loadgen's command line: sysbench-style flags for the OLTP
// scripts, TPC-C with BenchmarkSQL props files, several targets at once,
// the Prometheus endpoint, signals, summaries and the JSON result file.
package cli

import (
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kingpin/v2"
	"github.com/go-sql-driver/mysql"
	"github.com/prometheus/common/promslog"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/cliflag"
	"github.com/walab/walab/internal/driver"
	"github.com/walab/walab/internal/mycnf"
	"github.com/walab/walab/internal/workload"
)

// flags holds loadgen's own options; each workload's are in its FlagSet.
// maxTimeSec bounds --time: 100 years, far inside a time.Duration
// (292 years), so that the run time never wraps to a negative one.
const maxTimeSec = 100 * 365 * 24 * 3600

type flags struct {
	run             runFlags
	runFS           *workload.FlagSet
	targets, props  []string
	conn            driver.Conn
	webDisable      bool
	webSet          bool // --web.listen-address given: prepare serves its progress too
	web             *web.FlagConfig
	logLevel        *promslog.Level
	blockingIO      bool
	blockingIOSet   bool // --mysql-blocking-io given: it overrides the plan's choice (blockingFor)
	rawReadWait     time.Duration
	cpuProfile      string
	memProfile      string
	scenario, runID string
	resultJSON      string
	compat          sysbenchCompat
	creds           credentials
}

// credentials are where the connection's password (and, from an option
// file, user, host, port and socket) may come from besides the command
// line, so that no password needs to sit in `ps`.
type credentials struct {
	passwordFile, defaultsFile string
	// set: the connection flags the user gave, which an option file does
	// not override.
	userSet, hostSet, portSet, socketSet bool
}

// sysbenchCompat are sysbench options loadgen accepts so that the seeds'
// command lines run unchanged; each either has sysbench's meaning or is
// reported as having no effect, with the reason.
type sysbenchCompat struct {
	dbDriver, psMode, ignoreErrors string
	histogram                      bool
	warmup, threadInitTimeout      int
}

// runFlags are the runner's options.
type runFlags struct {
	threads        int
	timeSec        int
	events         int64
	rate           float64
	reportInterval int
	percentile     float64
	seed           uint64
	maxRetries     int
	drainTimeout   time.Duration
	maxErrorRate   float64
	maxUnreachable float64

	threadsF, timeF, eventsF, rateF *workload.Flag
}

func defineRunFlags(fs *workload.FlagSet, r *runFlags) {
	r.threadsF = fs.Int(&r.threads, "threads", 1, "Client threads (terminals) per target.").Range(1, maxThreads)
	r.timeF = fs.Int(&r.timeSec, "time", 10, "Run time in seconds (0: no limit, at most 100 years); overrides a props file's runMins.").Range(0, maxTimeSec)
	r.eventsF = fs.Int64(&r.events, "events", 0, "Total transactions per target (0: no limit).").Min(0)
	r.rateF = fs.Float(&r.rate, "rate", 0, "Transactions per second per target, scheduled at fixed intended start times (0: unlimited; at most 10000000).").Range(0, maxRate)
	fs.Int(&r.reportInterval, "report-interval", 0, "Seconds between report lines (0: none).").Min(0)
	fs.Float(&r.percentile, "percentile", 95, "Latency percentile in reports.").Range(1, 100)
	fs.Uint64(&r.seed, "rand-seed", 0, "Seed of the terminals' random streams (0: from time).")
	fs.Int(&r.maxRetries, "max-retries", 10, "Retries of a transaction after a deadlock or lock wait timeout.").Min(0)
	fs.Duration(&r.drainTimeout, "drain-timeout", 30*time.Second, "After the stop, how long in-flight transactions may take.").Min(0)
	fs.Float(&r.maxUnreachable, "max-unreachable", 0.05, "Exit 3 when a target could not be reached (its server down: no terminal connected and connecting failed) for more than this share of the run (1: never).").Range(0, 1)
	fs.Float(&r.maxErrorRate, "max-error-rate", 1, "Exit 1 when failed attempts / (completed + failed) of a target exceed this share (1: never; a run in which nothing completed always exits 1).").Range(0, 1)
}

// maxThreads bounds --threads: each thread holds a connection.
const maxThreads = 100000

// maxRate bounds --rate: ten million transactions per second per target is
// beyond any server, and keeps the intended-start interval at 100 ns.
const maxRate = 1e7

// command is one registered workload with its parsed flags.
type command struct {
	spec    workload.Spec
	fs      *workload.FlagSet
	factory workload.Factory
}

// Exit codes beyond 0 (ok), 1 (a failed check, a run that measured nothing
// or failed more than --max-error-rate) and 2 (an error).
const (
	// exitUnreachable: a target was unreachable for more than
	// --max-unreachable of the run; its figures do not describe the load
	// asked for, and walab experiment does not count the run.
	exitUnreachable = 3
)

// Main runs loadgen with args (without the program name) and returns the
// exit code: 0 ok (also after SIGINT/SIGTERM), 1 a failed check or a run
// that measured nothing (no transaction completed on a target) or failed
// more than --max-error-rate, 2 an error, 3 (exitUnreachable) a target
// unreachable for more than --max-unreachable of the run.
func Main(args []string, stdout, stderr io.Writer) int {
	f, c, phase, err := parse(args, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	if c == nil { // --help, --version
		return 0
	}
	if err := f.compat.apply(f, stderr); err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	logger := promslog.New(&promslog.Config{Level: f.logLevel, Writer: stderr})
	// go-sql-driver logs every dropped connection; the runner already counts
	// and reports them, so they go to the debug log.
	_ = mysql.SetLogger(mysqlLogger{logger})
	stopProfile, err := startProfiles(f.cpuProfile, f.memProfile)
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	code, err := execute(f, c, phase, stdout, stderr, logger)
	if perr := stopProfile(); perr != nil {
		fmt.Fprintln(stderr, "loadgen:", perr)
	}
	if err != nil {
		fmt.Fprintln(stderr, "loadgen:", err)
		return 2
	}
	return code
}

// parse builds the command line from the registered workloads and parses
// args. A nil command means help was printed (to stderr).
func parse(args []string, stderr io.Writer) (*flags, *command, string, error) {
	f := &flags{runFS: &workload.FlagSet{}}
	app := kingpin.New("loadgen", "TPC-C and sysbench-style OLTP load against MySQL/MariaDB, observable with Prometheus.")
	app.UsageWriter(stderr)
	app.ErrorWriter(stderr)
	app.Terminate(nil)
	var helped bool
	app.HelpFlag.IsSetByUser(&helped)
	versionAsked := buildinfo.VersionFlag(app, "loadgen", stderr) // where --help goes
	defineRunFlags(f.runFS, &f.run)
	bindFlags(app, f.runFS)
	defineFlags(app, f)

	commands := map[string]*command{}
	for _, spec := range workload.Specs() {
		c := &command{spec: spec, fs: &workload.FlagSet{}}
		c.factory = spec.Define(c.fs)
		if err := c.checkFactory(); err != nil {
			panic("cli: " + err.Error())
		}
		cmd := app.Command(spec.Name, spec.Help)
		bindFlags(cmd, c.fs)
		for _, p := range spec.Phases {
			cmd.Command(p, p+": "+spec.Help)
		}
		commands[spec.Name] = c
	}
	norm, err := NormalizeArgs(args, boolFlags(app.Model()))
	if err != nil {
		return nil, nil, "", err
	}
	cmd, err := app.Parse(norm)
	if helped || *versionAsked {
		return f, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", err
	}
	if cmd == "" {
		return f, nil, "", nil
	}
	wl, phase, _ := strings.Cut(cmd, " ")
	c, ok := commands[wl]
	if !ok || phase == "" { // "help ...", printed by kingpin
		return f, nil, "", nil
	}
	for _, fs := range []*workload.FlagSet{f.runFS, c.fs} {
		for _, fl := range fs.Flags() {
			if err := fl.Check(); err != nil {
				return nil, nil, "", fmt.Errorf("--%s=%w", fl.Name, err)
			}
		}
	}
	return f, c, phase, nil
}

// flagger is where flags are bound: the application or a command.
type flagger interface {
	Flag(name, help string) *kingpin.FlagClause
}

// bindFlags binds the flag model fs to kingpin.
func bindFlags(to flagger, fs *workload.FlagSet) {
	for _, fl := range fs.Flags() {
		c := to.Flag(fl.Name, fl.Help).Default(fl.Default()).IsSetByUser(&fl.Set)
		if fl.Hidden {
			c.Hidden()
		}
		switch p := fl.Value.(type) {
		case *int:
			c.IntVar(p)
		case *int64:
			c.Int64Var(p)
		case *uint64:
			c.Uint64Var(p)
		case *float64:
			// Finite only: NaN passed the range check below (exit 0 at
			// 68.5 % unreachable with --max-unreachable=NaN).
			cliflag.FloatVar(c, p, math.Inf(-1), math.Inf(1))
		case *string:
			c.StringVar(p)
		case *bool:
			c.BoolVar(p)
		case *time.Duration:
			c.DurationVar(p)
		default:
			panic(fmt.Sprintf("cli: flag --%s has unsupported type %T", fl.Name, fl.Value))
		}
	}
}

// boolFlags lists the boolean flags of the application and its commands.
func boolFlags(m *kingpin.ApplicationModel) map[string]bool {
	out := map[string]bool{}
	add := func(fs []*kingpin.FlagModel) {
		for _, f := range fs {
			if f.IsBoolFlag() {
				out[f.Name] = true
			}
		}
	}
	add(m.Flags)
	var walk func([]*kingpin.CmdModel)
	walk = func(cs []*kingpin.CmdModel) {
		for _, c := range cs {
			add(c.Flags)
			walk(c.Commands)
		}
	}
	walk(m.Commands)
	return out
}

func defineFlags(app *kingpin.Application, f *flags) {
	app.Flag("scenario", "Scenario label of walab_loadgen_run_info (baseline, streams, ...).").Default("baseline").StringVar(&f.scenario)
	app.Flag("run-id", "Run id label of walab_loadgen_run_info (default: generated).").StringVar(&f.runID)
	app.Flag("result-json", "Write the results as JSON to this file.").StringVar(&f.resultJSON)
	app.Flag("target", "A target as name=DSN, name=mysql://user:pw@host:port/db or name=props-file; repeatable.").StringsVar(&f.targets)
	app.Flag("props", "A BenchmarkSQL props file (TPC-C); repeatable, each is a target named after the file.").StringsVar(&f.props)

	app.Flag("mysql-host", "MySQL host (when no --target).").Default("localhost").IsSetByUser(&f.creds.hostSet).StringVar(&f.conn.Host)
	app.Flag("mysql-port", "MySQL port.").Default("3306").IsSetByUser(&f.creds.portSet).IntVar(&f.conn.Port)
	app.Flag("mysql-socket", "MySQL Unix socket (instead of host and port).").IsSetByUser(&f.creds.socketSet).StringVar(&f.conn.Socket)
	app.Flag("mysql-user", "MySQL user.").Default("sbtest").IsSetByUser(&f.creds.userSet).StringVar(&f.conn.User)
	app.Flag("mysql-password", "MySQL password (visible in ps: prefer --mysql-password-file, --defaults-extra-file or MYSQL_PWD).").StringVar(&f.conn.Password)
	app.Flag("mysql-password-file", "Read the MySQL password from the first line of this file.").StringVar(&f.creds.passwordFile)
	app.Flag("defaults-extra-file", "A MySQL option file (my.cnf) whose [client] user, password, host, port and socket apply where the command line gives none, as for the mysql client.").StringVar(&f.creds.defaultsFile)
	app.Flag("mysql-db", "MySQL database.").Default("sbtest").StringVar(&f.conn.DB)
	app.Flag("mysql-raw-read-wait", "With --mysql-blocking-io: how long a terminal waits for a reply in a raw read(2), keeping its thread as a sysbench thread keeps its CPU, before it waits through the Go runtime (0: always through the runtime). Raw reads need a P per terminal: when GOMAXPROCS is not set, loadgen raises it to the terminals + 2 (up to 256); with fewer Ps, reads go through the runtime.").Default("2ms").DurationVar(&f.rawReadWait)
	app.Flag("mysql-blocking-io", "Blocking sockets for TCP connections: a terminal sleeps in recv like a sysbench thread instead of going through Go's netpoller (fewer syscalls per statement). Default: on for a sysbench workload with at most 4 terminals per CPU, off for tpcc and for more terminals, where the poller costs less client CPU per transaction.").IsSetByUser(&f.blockingIOSet).BoolVar(&f.blockingIO)

	app.Flag("db-driver", "sysbench's database driver: mysql is the one loadgen drives.").Default("mysql").StringVar(&f.compat.dbDriver)
	app.Flag("db-ps-mode", "sysbench's prepared-statement mode (auto, disable); accepted, see docs/loadgen.md.").Default("auto").EnumVar(&f.compat.psMode, "auto", "disable")
	app.Flag("mysql-ignore-errors", "sysbench's list of MySQL error codes to ignore (or all, none); accepted: loadgen retries deadlocks and lock wait timeouts (--max-retries) and counts the rest by class.").StringVar(&f.compat.ignoreErrors)
	app.Flag("histogram", "sysbench's latency histogram at the end; accepted, no effect: walab_loadgen_transaction_duration_seconds is the histogram.").BoolVar(&f.compat.histogram)
	app.Flag("warmup-time", "sysbench's seconds of load before statistics; accepted, no effect: loadgen counts from the start, and walab compare selects steady rounds.").Default("0").IntVar(&f.compat.warmup)
	app.Flag("thread-init-timeout", "sysbench's wait for threads to initialise; accepted, no effect: terminals connect as they start, and never-connected ones are reported.").Default("30").IntVar(&f.compat.threadInitTimeout)
	app.Flag("web.disable", "Do not serve /metrics.").BoolVar(&f.webDisable)
	app.Flag("cpuprofile", "Write a pprof CPU profile of the whole command to this file.").StringVar(&f.cpuProfile)
	app.Flag("memprofile", "Write a pprof allocation profile to this file at the end.").StringVar(&f.memProfile)
	f.web = kingpinflag.AddFlags(app, ":10132")
	app.GetFlag("web.listen-address").IsSetByUser(&f.webSet)
	f.logLevel = promslog.NewLevel()
	app.Flag("log.level", "Log level: debug, info, warn, error.").Default("info").SetValue(f.logLevel)
}

type lockedWriter struct {
	w  io.Writer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}

// apply fills the connection from the other sources, in the mysql
// client's order: the command line first, then --mysql-password-file, then
// the option file's [client] group, then MYSQL_PWD.
func (c credentials) apply(conn *driver.Conn) error {
	if c.passwordFile != "" && conn.Password == "" {
		pw, err := readPasswordFile(c.passwordFile)
		if err != nil {
			return fmt.Errorf("--mysql-password-file: %w", err)
		}
		conn.Password = pw
	}
	if c.defaultsFile != "" {
		cl, err := mycnf.ParseFile(c.defaultsFile)
		if err != nil {
			return fmt.Errorf("--defaults-extra-file: %w", err)
		}
		if conn.Password == "" {
			conn.Password = cl.Password
		}
		if !c.userSet && cl.User != "" {
			conn.User = cl.User
		}
		if !c.hostSet && cl.Host != "" {
			conn.Host = cl.Host
		}
		if !c.portSet && cl.Port != 0 {
			conn.Port = cl.Port
		}
		if !c.socketSet && !c.hostSet && cl.Socket != "" && cl.Host == "" {
			conn.Socket = cl.Socket
		}
	}
	if conn.Password == "" {
		conn.Password = os.Getenv("MYSQL_PWD")
	}
	return nil
}

// readPasswordFile reads the first line of a regular file (a FIFO or a
// device is refused rather than blocked on or read without end).
func readPasswordFile(path string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s: not a regular file (%s)", path, fi.Mode().Type())
	}
	if fi.Size() > 4096 {
		return "", fmt.Errorf("%s: %d bytes, too long for a password file", path, fi.Size())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return strings.TrimSuffix(line, "\r"), nil
}

type mysqlLogger struct{ l *slog.Logger }

func (m mysqlLogger) Print(v ...any) { m.l.Debug("mysql driver", "msg", fmt.Sprint(v...)) }

// apply checks the sysbench options, takes the credentials the command
// line does not give from the other places (credentials.apply), and says
// which accepted options have no effect.
func (s sysbenchCompat) apply(f *flags, stderr io.Writer) error {
	if s.dbDriver != "mysql" {
		return fmt.Errorf("--db-driver=%s: loadgen drives MySQL and MariaDB only (mysql)", s.dbDriver)
	}
	if err := f.creds.apply(&f.conn); err != nil {
		return err
	}
	note := func(flag, why string) { fmt.Fprintf(stderr, "loadgen: %s accepted, no effect: %s\n", flag, why) }
	if s.psMode == "disable" {
		note("--db-ps-mode=disable", "loadgen's OLTP scripts use server-side prepared statements, as sysbench's auto mode does")
	}
	if s.ignoreErrors != "" {
		note("--mysql-ignore-errors="+s.ignoreErrors, "deadlocks and lock wait timeouts are retried (--max-retries); other errors are counted by class and the run goes on")
	}
	if s.histogram {
		note("--histogram", "the latency histogram is walab_loadgen_transaction_duration_seconds")
	}
	if s.warmup > 0 {
		note(fmt.Sprintf("--warmup-time=%d", s.warmup), "loadgen counts from the start; walab compare selects the steady rounds")
	}
	return nil
}

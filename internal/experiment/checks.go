package experiment

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/fingerprint"
)

// runChecks runs the plan's checks before a run; a failing "stop" check
// fails the step with its reason, a failing "warn" check is recorded.
func (e *Executor) runChecks(ctx context.Context, it Item, logPath string) error {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer logf.Close()
	// A re-run (resume) replaces this run's earlier results.
	kept := e.state.Checks[:0]
	for _, c := range e.state.Checks {
		if c.Run != it.Run.Name {
			kept = append(kept, c)
		}
	}
	e.state.Checks = kept
	var stops []string
	for _, c := range e.Plan.Checks {
		cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		reason, err := e.check(cctx, c, it.Run)
		cancel()
		res := CheckResult{Run: it.Run.Name, Check: c.Check, Status: "pass", Reason: reason, At: time.Now().UTC()}
		if err != nil {
			res.Status, res.Reason = "fail", err.Error()
			if c.onFail() == "warn" {
				res.Status = "warn"
			} else {
				stops = append(stops, c.Check+": "+err.Error())
			}
		}
		e.state.Checks = append(e.state.Checks, res)
		fmt.Fprintf(logf, "%s %-14s %-5s %s\n", res.At.Format(time.RFC3339), c.Check, res.Status, res.Reason)
		e.printf("[checks] %s: %s %s: %s", it.Run.Name, strings.ToUpper(res.Status), c.Check, res.Reason)
	}
	if len(stops) > 0 {
		return fmt.Errorf("pre-run check failed: %s", strings.Join(stops, "; "))
	}
	return nil
}

// check runs one check: a nil error passes with the reason saying what was
// found; an error says what is wrong.
func (e *Executor) check(ctx context.Context, c Check, run *Run) (string, error) {
	switch c.Check {
	case "target_loaded":
		return e.checkLoaded(ctx, c)
	case "datadir":
		return e.checkDatadir(ctx, c)
	case "fill":
		return e.checkFill(ctx, c)
	case "placement":
		return e.checkPlacement(ctx, c, run)
	case "irqbalance":
		running, err := fingerprint.ProcessRunning("irqbalance")
		if err != nil {
			return "", err
		}
		if running != (c.Expect == "running") {
			return "", fmt.Errorf("irqbalance is %s, the plan expects it %s", runningWord(running), c.Expect)
		}
		return "irqbalance is " + runningWord(running), nil
	case "prometheus":
		return e.checkPrometheus(ctx)
	case "free_space":
		return e.checkFree(ctx, c)
	}
	return "", fmt.Errorf("unknown check %q", c.Check)
}

func runningWord(b bool) string {
	if b {
		return "running"
	}
	return "stopped"
}

func (e *Executor) openTarget(name string) (*sql.DB, error) {
	t := e.Plan.target(name)
	if t == nil {
		return nil, fmt.Errorf("target %q not defined", name)
	}
	return sql.Open("mysql", t.DSN)
}

func (e *Executor) checkLoaded(ctx context.Context, c Check) (string, error) {
	var found []string
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return "", err
		}
		msg, err := loaded(ctx, db, c.Tables)
		db.Close()
		if err != nil {
			return "", fmt.Errorf("target %s: %w", name, err)
		}
		found = append(found, name+": "+msg)
	}
	return strings.Join(found, "; "), nil
}

// loaded checks that the tables have rows; without tables, that a TPC-C
// dataset's bmsql_config names its warehouses, or else that the database
// holds a table with rows.
func loaded(ctx context.Context, db *sql.DB, tables []string) (string, error) {
	if err := db.PingContext(ctx); err != nil {
		return "", fmt.Errorf("unreachable: %w", err)
	}
	if len(tables) > 0 {
		for _, t := range tables {
			var one int
			err := db.QueryRowContext(ctx, "SELECT 1 FROM `"+strings.ReplaceAll(t, "`", "``")+"` LIMIT 1").Scan(&one)
			if err == sql.ErrNoRows {
				return "", fmt.Errorf("table %s is empty", t)
			}
			if err != nil {
				return "", fmt.Errorf("table %s: %w", t, err)
			}
		}
		return "rows in " + strings.Join(tables, ", "), nil
	}
	var wh string
	err := db.QueryRowContext(ctx, "SELECT cfg_value FROM bmsql_config WHERE cfg_name = 'warehouses'").Scan(&wh)
	if err == nil {
		return "bmsql_config warehouses=" + wh, nil
	}
	var name string
	var rows int64
	err = db.QueryRowContext(ctx, `SELECT TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = DATABASE() AND TABLE_ROWS > 0 ORDER BY TABLE_ROWS DESC LIMIT 1`).Scan(&name, &rows)
	if err == sql.ErrNoRows {
		return "", fmt.Errorf("no bmsql_config and no table with rows in the database")
	}
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("no bmsql_config; largest table %s ~%d rows", name, rows), nil
}

// datadirs are the paths a check looks at: its path, or the data
// directories the targets report (SELECT @@datadir).
func (e *Executor) datadirs(ctx context.Context, c Check) ([]string, error) {
	if c.Path != "" {
		return []string{c.Path}, nil
	}
	var out []string
	for _, name := range c.Targets {
		db, err := e.openTarget(name)
		if err != nil {
			return nil, err
		}
		var dir string
		err = db.QueryRowContext(ctx, "SELECT @@datadir").Scan(&dir)
		db.Close()
		if err != nil {
			return nil, fmt.Errorf("target %s: datadir: %w", name, err)
		}
		out = append(out, dir)
	}
	return out, nil
}

// checkDatadir: the data directory's filesystem is backed by the namespace
// of the drive under test. On the simulated drive there is no block device
// to compare: the check then verifies that the directory exists on this
// host and that the exporter's device is the simulator, and says so.
func (e *Executor) checkDatadir(ctx context.Context, c Check) (string, error) {
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return "", err
	}
	simulated := false
	if e.Plan.Exporter != "" {
		d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
		if d == nil {
			return "", err
		}
		simulated = d.Simulated
	}
	var found []string
	for _, dir := range dirs {
		m, err := fingerprint.MountOf(dir)
		if err != nil {
			return "", fmt.Errorf("data directory %s is not on this host: %w", dir, err)
		}
		if simulated {
			found = append(found, fmt.Sprintf("%s on %s (%s); drive %s is simulated: no block device backs it, so only the directory's presence on this host is checked", dir, m.Source, m.FSType, e.Plan.Device))
			continue
		}
		blocks := []string{m.Block}
		if s := fingerprint.Slaves(m.Block); len(s) > 0 {
			blocks = s
		}
		ok := false
		for _, b := range blocks {
			if fingerprint.Controller(b) == e.Plan.Device {
				ok = true
			}
		}
		if !ok {
			return "", fmt.Errorf("data directory %s is on %s (block %s), not on the drive under test %s", dir, m.Source, strings.Join(blocks, ","), e.Plan.Device)
		}
		found = append(found, fmt.Sprintf("%s on %s (%s)", dir, m.Block, e.Plan.Device))
	}
	return strings.Join(found, "; "), nil
}

// fill is the drive's used ratio: the simulator's fill, else the used
// share of the data filesystems as df shows it (seed 000's df -h).
func (e *Executor) fill(ctx context.Context, c Check) (float64, string, error) {
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if d == nil {
		return 0, "", err
	}
	if d.Simulated {
		if d.Fill == nil {
			return 0, "", fmt.Errorf("simulated drive: fill not known: %v", err)
		}
		return *d.Fill, "simulated drive", nil
	}
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return 0, "", err
	}
	if len(dirs) == 0 {
		return 0, "", fmt.Errorf("fill of a real drive: give the check targets or a path on its filesystem")
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dirs[0], &st); err != nil {
		return 0, "", err
	}
	f, ok := dfUse(st)
	if !ok {
		return 0, "", fmt.Errorf("%s: filesystem size 0", dirs[0])
	}
	return f, "filesystem of " + dirs[0], nil
}

// dfUse is the used share as df computes its Use%: used / (used +
// available to unprivileged users), so the blocks reserved for root count
// as neither (ext4 reserves 5 %).
func dfUse(st unix.Statfs_t) (float64, bool) {
	used := float64(st.Blocks - st.Bfree)
	total := used + float64(st.Bavail)
	if total <= 0 {
		return 0, false
	}
	return used / total, true
}

func (e *Executor) checkFill(ctx context.Context, c Check) (string, error) {
	f, src, err := e.fill(ctx, c)
	if err != nil {
		return "", err
	}
	if c.Min != nil && f < *c.Min || c.Max != nil && f > *c.Max {
		return "", fmt.Errorf("fill %.1f%% (%s) outside %s", 100*f, src, fillRange(c))
	}
	return fmt.Sprintf("fill %.1f%% (%s) within %s", 100*f, src, fillRange(c)), nil
}

func fillRange(c Check) string {
	lo, hi := "0%", "100%"
	if c.Min != nil {
		lo = fmt.Sprintf("%.0f%%", 100**c.Min)
	}
	if c.Max != nil {
		hi = fmt.Sprintf("%.0f%%", 100**c.Max)
	}
	return lo + ".." + hi
}

// wantPlacement: expect run means off for a run whose scenario is
// baseline, on for any other.
func wantPlacement(c Check, run *Run) bool {
	if c.Expect == "run" {
		return run.ScenarioLabel() != "baseline"
	}
	return c.Expect == "on"
}

func (e *Executor) checkPlacement(ctx context.Context, c Check, run *Run) (string, error) {
	want := wantPlacement(c, run)
	d, err := fingerprint.ReadDrive(ctx, e.client(), e.Plan.Exporter, e.Plan.Device)
	if d == nil {
		return "", err
	}
	var on bool
	var what string
	switch {
	case d.Simulated && d.SimPlacement != nil:
		on, what = *d.SimPlacement, "simulated placement"
	case d.Simulated:
		return "", fmt.Errorf("simulated drive: placement state not readable: %v", err)
	default:
		streams, fdp := d.Directives["streams"], d.FDP != nil && *d.FDP
		on, what = streams || fdp, fmt.Sprintf("streams directive enabled=%v, FDP enabled=%v", streams, fdp)
	}
	msg := fmt.Sprintf("%s: %s (scenario %s expects %s)", what, onOff(on), run.ScenarioLabel(), onOff(want))
	if on != want {
		return "", fmt.Errorf("%s", msg)
	}
	if c.Daemon != "" && !d.Simulated {
		running, known := d.Daemons[c.Daemon]
		if !known {
			return "", fmt.Errorf("%s; the exporter does not watch placement daemon %q", msg, c.Daemon)
		}
		if running != want {
			return "", fmt.Errorf("%s; placement daemon %s is %s", msg, c.Daemon, runningWord(running))
		}
		msg += "; " + c.Daemon + " " + runningWord(running)
	}
	return msg, nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// checkPrometheus: Prometheus has the exporter's identity series for the
// device from a recent scrape, and the WA sampler's last sample is recent.
func (e *Executor) checkPrometheus(ctx context.Context) (string, error) {
	client, err := api.NewClient(api.Config{Address: e.Plan.Prometheus})
	if err != nil {
		return "", err
	}
	papi := v1.NewAPI(client)
	now := time.Now()
	ask := func(q string) (float64, error) {
		v, _, _, err := papi.Query(ctx, q, now)
		if err != nil {
			return 0, fmt.Errorf("Prometheus %s: %w", e.Plan.Prometheus, err)
		}
		vec, ok := v.(model.Vector)
		if !ok || len(vec) == 0 {
			return 0, fmt.Errorf("Prometheus %s has no %s", e.Plan.Prometheus, q)
		}
		return float64(vec[0].Value), nil
	}
	dev := fmt.Sprintf("{device=%q}", e.Plan.Device)
	scraped, err := ask("max(timestamp(walab_nvme_info" + dev + "))")
	if err != nil {
		return "", fmt.Errorf("the exporter is not scraped: %w", err)
	}
	age := now.Sub(time.Unix(int64(scraped), 0))
	if age > 2*time.Minute {
		return "", fmt.Errorf("last scrape of walab_nvme_info%s is %s old", dev, age.Round(time.Second))
	}
	sample, err := ask("max(walab_nvme_wa_last_sample_timestamp_seconds" + dev + ")")
	if err != nil {
		return "", fmt.Errorf("the WA sampler produces no values: %w", err)
	}
	sAge := now.Sub(time.Unix(int64(sample), 0))
	if sample <= 0 || sAge > 5*time.Minute {
		return "", fmt.Errorf("the WA sampler's last sample is %s old", sAge.Round(time.Second))
	}
	return fmt.Sprintf("exporter scraped %s ago; WA sampler's last sample %s ago", age.Round(time.Second), sAge.Round(time.Second)), nil
}

func (e *Executor) checkFree(ctx context.Context, c Check) (string, error) {
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return "", err
	}
	var found []string
	for _, d := range dirs {
		var st unix.Statfs_t
		if err := unix.Statfs(d, &st); err != nil {
			return "", err
		}
		avail := uint64(st.Bavail) * uint64(st.Bsize)
		if avail < uint64(c.Bytes) {
			return "", fmt.Errorf("%s has %s free, the run needs %s", d, human(avail), human(uint64(c.Bytes)))
		}
		found = append(found, fmt.Sprintf("%s: %s free (need %s)", filepath.Clean(d), human(avail), human(uint64(c.Bytes))))
	}
	return strings.Join(found, "; "), nil
}

func human(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/walab/walab/internal/lab"
)

// labCmd is `walab lab`: the lab's whole loop on this machine (make run).
type labCmd struct {
	cmd           *kingpin.CmdClause
	opts          lab.Options
	out           string
	printExporter bool
	portSet       [2]bool // --mysql.port-1, -2 given
}

func defineLab(app *kingpin.Application) *labCmd {
	c := &labCmd{}
	o := &c.opts
	c.cmd = app.Command("lab", "Run the lab on this machine, on loopback: the exporter with a small simulated drive under a FUSE filesystem, a private mariadbd whose datadir is there (so the WA is MariaDB's own), Prometheus with walab's rules, "+
		"and seed 000's plan in a short form (baseline vs streams under TPC-C); print the verdict and write its HTML report; "+
		"then stay up for exploring until Ctrl-C. Exit 0 VALID, 3 NOT VALID, 1 error, 2 usage, 130 interrupted before the verdict.")
	c.cmd.Flag("plan", "The plan file (default: "+labPlan+" in a source tree, else "+packagedPlan+", from the walab package).").StringVar(&o.Plan)
	c.cmd.Flag("out", "Work directory, new or empty: configs, logs, Prometheus data, the experiment, report.html (default $TMPDIR/walab-lab-<time>).").StringVar(&c.out)
	c.cmd.Flag("exporter.bin", "The exporter binary (default: exporter next to walab, else on PATH).").StringVar(&o.Exporter)
	c.cmd.Flag("loadgen.bin", "The loadgen binary (default: loadgen next to walab, else on PATH).").StringVar(&o.Loadgen)
	c.cmd.Flag("prometheus.bin", "The Prometheus binary (Debian package prometheus).").Default("prometheus").StringVar(&o.Prometheus)
	c.cmd.Flag("exporter.listen", "Loopback address of the exporter.").Default("127.0.0.1:10131").StringVar(&o.ExporterAddr)
	c.cmd.Flag("prometheus.listen", "Loopback address of Prometheus.").Default("127.0.0.1:9090").StringVar(&o.PrometheusAddr)
	c.cmd.Flag("loadgen.listen", "Loopback address of loadgen's metrics during a run.").Default("127.0.0.1:10132").StringVar(&o.LoadgenAddr)
	c.cmd.Flag("mysql.port-1", "With --no-simfs: port of MySQL/MariaDB instance 1 on 127.0.0.1 (user root, no password).").Default("3306").IsSetByUser(&c.portSet[0]).IntVar(&o.MySQLPort1)
	c.cmd.Flag("mysql.port-2", "With --no-simfs: port of instance 2 (the same server as instance 1 by default, another database).").Default("3306").IsSetByUser(&c.portSet[1]).IntVar(&o.MySQLPort2)
	c.cmd.Flag("mysql.db-1", "Database the lab creates and loads on instance 1 (TPC-C, one warehouse; restored before each run).").Default("walab_lab_1").StringVar(&o.DB1)
	c.cmd.Flag("mysql.db-2", "Database on instance 2.").Default("walab_lab_2").StringVar(&o.DB2)
	c.cmd.Flag("run", "Length of each run (baseline, then streams): long enough that both arms are past their climb at the lab's held fill (docs/sim.md).").Default("180s").DurationVar(&o.RunFor)
	c.cmd.Flag("round", "One row of the WA table (the simulated drive's \"hour\").").Default("10s").DurationVar(&o.Round)
	c.cmd.Flag("progress", "Period of progress lines during a run.").Default("15s").DurationVar(&o.Progress)
	c.cmd.Flag("print-exporter", "Only write the lab's configuration into --out and print the exporter's command line as the lab runs it, one argument per line (bench/exporter-at-rest.sh measures that exporter).").BoolVar(&c.printExporter)
	c.cmd.Flag("simfs", "The simulated drive under a FUSE filesystem and a private mariadbd with its datadir there: the WA comes from MariaDB's own writes (docs/sim.md). Needs root and /dev/fuse; without them the lab refuses to start. "+
		"--no-simfs: the drive's synthetic MySQL-like mix on the --mysql.port-* servers, whose writes do not reach the drive.").Default("true").BoolVar(&o.SimFS)
	c.cmd.Flag("mariadbd.bin", "The mariadbd binary --simfs starts.").Default("/usr/sbin/mariadbd").StringVar(&o.MariaDBD)
	c.cmd.Flag("hold", "Stay up after the verdict until Ctrl-C (--no-hold: stop at once).").Default("true").BoolVar(&o.Hold)
	return c
}

func (c *labCmd) handles(cmd string) bool { return cmd == c.cmd.FullCommand() }

func (c *labCmd) execute(ctx context.Context, stdout, stderr io.Writer) int {
	o := c.opts
	o.Stdout, o.Out = stdout, c.out
	if o.Out == "" {
		o.Out = filepath.Join(os.TempDir(), "walab-lab-"+time.Now().Format("20060102-150405"))
	}
	if o.SimFS && (c.portSet[0] || c.portSet[1]) {
		fmt.Fprintln(stderr, "walab lab: --mysql.port-* name the servers of --no-simfs; the lab's default runs a private mariadbd on the simulated drive")
		return 2
	}
	if c.printExporter {
		return c.printExporterCommand(o, stdout, stderr)
	}
	if o.Plan == "" {
		p, err := defaultPlan([]string{labPlan, packagedPlan})
		if err != nil {
			fmt.Fprintln(stderr, "walab lab:", err)
			return 2
		}
		o.Plan = p
	}
	for _, b := range []struct {
		flag, name, hint string
		bin              *string
	}{
		{"--exporter.bin", "exporter", "make run builds it into bin/; the walab-exporter package installs it", &o.Exporter},
		{"--loadgen.bin", "loadgen", "make run builds it into bin/; the walab package installs it", &o.Loadgen},
		{"--prometheus.bin", "prometheus", "Debian package prometheus; bash scripts/setup.sh installs it", &o.Prometheus},
	} {
		p, err := findBinary(*b.bin, b.name)
		if err != nil {
			fmt.Fprintf(stderr, "walab lab: %s: %v (%s)\n", b.flag, err, b.hint)
			return 2
		}
		*b.bin = p
	}
	// The plan's steps run these.
	for _, tool := range []string{"mariadb", "mariadb-dump", "curl"} {
		if _, err := exec.LookPath(tool); err != nil {
			fmt.Fprintf(stderr, "walab lab: %s not on PATH: the plan's steps run it (bash scripts/setup.sh installs it)\n", tool)
			return 2
		}
	}
	res, err := lab.Run(ctx, o)
	var usage *lab.UsageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(stderr, "walab lab:", err)
		return 2
	case err != nil && res == nil && ctx.Err() != nil:
		fmt.Fprintln(stderr, "walab lab: interrupted before the verdict")
		return 130
	case err != nil:
		fmt.Fprintln(stderr, "walab lab:", err)
		return 1
	case !res.Valid:
		return 3
	}
	return 0
}

// printExporterCommand is --print-exporter.
func (c *labCmd) printExporterCommand(o lab.Options, stdout, stderr io.Writer) int {
	p, err := findBinary(o.Exporter, "exporter")
	if err != nil {
		fmt.Fprintf(stderr, "walab lab: --exporter.bin: %v (make run builds it into bin/)\n", err)
		return 2
	}
	o.Exporter = p
	args, err := lab.ExporterCommand(o)
	if err != nil {
		fmt.Fprintf(stderr, "walab lab --print-exporter: %v\n", err)
		if errors.As(err, new(*lab.UsageError)) {
			return 2
		}
		return 1
	}
	for _, a := range args {
		fmt.Fprintln(stdout, a)
	}
	return 0
}

// The lab's plan: the source tree's, else the walab package's copy.
const (
	labPlan      = "deploy/experiments/seed000-sim.yml"
	packagedPlan = "/usr/share/walab/experiments/seed000-sim.yml"
)

// defaultPlan is the first of candidates that exists, or an error that
// names them all.
func defaultPlan(candidates []string) (string, error) {
	for _, p := range candidates {
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no plan: neither %s (a walab source tree) nor %s (the walab package) exists; give --plan",
		candidates[0], strings.Join(candidates[1:], " nor "))
}

// findBinary resolves a binary: the flag's value if given (a path or a name
// on PATH), else name or its packaged name walab-<name> next to this
// executable, else either on PATH.
func findBinary(flag, name string) (string, error) {
	if flag != "" {
		p, err := exec.LookPath(flag)
		if err != nil {
			return "", err
		}
		return filepath.Abs(p)
	}
	names := []string{name, "walab-" + name}
	if self, err := os.Executable(); err == nil {
		for _, n := range names {
			p := filepath.Join(filepath.Dir(self), n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
				return p, nil
			}
		}
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return filepath.Abs(p)
		}
	}
	return "", fmt.Errorf("neither %s nor %s next to walab nor on PATH", names[0], names[1])
}

package lab

import (
	"context"
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/walab/walab/alerts"
)

// Device is the simulated drive's name (the exporter's device label).
const Device = "nvmesim0"

// ExporterConfig is a small, fast simulated drive: 256 MiB, 10 % spare,
// 64-page blocks, the MySQL-like mix with astream-like rules. At 64 MiB/s
// and 8x time it turns over about twice a real second, so its WA is steady
// within the first minute of a run, and the fill barely moves during the
// lab. tick 0s: the drive advances when the exporter reads it. Its WA
// history lives in memory only (the tests' throw-away exporters); the lab's
// own exporter keeps it in its work directory (exporterConfig).
const ExporterConfig = "wa:\n  persist: false\n" + waSampling + simDrive

// waSampling is the lab's WA sampler: a sample a second, a 20 s window.
const waSampling = `  interval: 1s
  windows: [20s]
`

// simDrive is the sim section without its state file.
const simDrive = `sim:
  name: ` + Device + `
  capacity: 256MiB
  scale: 1
  spare_factor: 0.1
  block_pages: 64
  rate: 64MiB
  speed_up: 8
  tick: 0s
  seed: 3
  workload:
    name: mysql
    mysql:
      binlog_retain_space: 0.05
  placement:
    streams: true
`

// State files in the lab's work directory: the WA sampler's history and
// run marks, and the simulated drive's lifetime counters (without which a
// restarted drive's counters start lower and the sampler resets), so that
// an exporter restarted mid-run keeps both (docs/wa.md, docs/sim.md).
const (
	WAStateFile  = "wa-state.bin"
	SimStateFile = "sim-state.json"
)

//go:embed rules-override.yml
var rulesOverride []byte

// rules is walab's rule file with the lab's short windows.
func rules() ([]byte, error) {
	cfg, err := alerts.ParseOver(alerts.Default(), rulesOverride)
	if err != nil {
		return nil, err
	}
	return alerts.Generate(cfg).Marshal()
}

// prometheusConfig scrapes the exporter and loadgen every second and
// evaluates rules.yml as often.
func prometheusConfig(exporter, loadgen string) string {
	var b strings.Builder
	b.WriteString("global: {scrape_interval: 1s, evaluation_interval: 1s}\nrule_files: [rules.yml]\nscrape_configs:\n")
	for _, j := range [][2]string{{"walab-exporter", exporter}, {"walab-loadgen", loadgen}} {
		fmt.Fprintf(&b, "  - job_name: %s\n    static_configs: [{targets: [%q]}]\n", j[0], j[1])
	}
	return b.String()
}

// configValues are what the lab's configuration files say: the exporter's
// sim section (simDrive, or simfsDrive's under the FUSE filesystem), the
// plan's two databases, the data directories the exporter watches, and
// the addresses Prometheus scrapes.
type configValues struct {
	sim               string
	dbs               []database
	dataDirs          []string
	exporter, loadgen string
}

// writeConfigsFor writes the lab's configs into o.Out for the databases'
// host and the data directories it gave.
func (o Options) writeConfigsFor(host databaseHost, dataDirs []string) error {
	sim, err := host.drive()
	if err != nil {
		return err
	}
	return writeConfigs(o.Out, configValues{sim: sim, dbs: host.databases(), dataDirs: dataDirs,
		exporter: o.ExporterAddr, loadgen: o.LoadgenAddr})
}

// exporterConfig is ExporterConfig with the lab's two MySQL instances as
// InnoDB targets, named as the plan names them, so the verdict can check
// that both runs had the same MySQL settings. The plan's datadir and
// free_space checks read the database host's mounts from the exporter
// (host: data_dirs): the lab's database host is this machine, and the
// exporter watches its MariaDB's data directories (@@datadir), not the
// whole tree (a host with more than 64 mounts cut the list at /).
func exporterConfig(dir string, c configValues) string {
	quoted := make([]string, len(c.dataDirs))
	for i, d := range c.dataDirs {
		quoted[i] = strconv.Quote(d)
	}
	return fmt.Sprintf("wa:\n  state_file: %q\n", filepath.Join(dir, WAStateFile)) + waSampling +
		c.sim + fmt.Sprintf("  state_file: %q\n", filepath.Join(dir, SimStateFile)) +
		fmt.Sprintf(`host:
  data_dirs: [%s]
innodb:
  targets:
    - {name: mysql-1, dsn: "root@tcp(127.0.0.1:%d)/"}
    - {name: mysql-2, dsn: "root@tcp(127.0.0.1:%d)/"}
`, strings.Join(quoted, ", "), c.dbs[0].port, c.dbs[1].port)
}

// writeConfigs writes the exporter's, Prometheus' and the rule file into
// dir, each a new file.
func writeConfigs(dir string, c configValues) error {
	r, err := rules()
	if err != nil {
		return err
	}
	for name, content := range map[string][]byte{
		"exporter.yml":   []byte(exporterConfig(dir, c)),
		"rules.yml":      r,
		"prometheus.yml": []byte(prometheusConfig(c.exporter, c.loadgen)),
	} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		_, err = f.Write(content)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// ExporterCommand writes the lab's configuration files into o.Out (new or
// empty) and returns the exporter's command line exactly as Run starts it,
// the binary first, without starting anything (with SimFS the exporter
// mounts the drive's filesystem under o.Out when it starts). bench/exporter-at-rest.sh
// measures this exporter as `make run`'s.
func ExporterCommand(o Options) ([]string, error) {
	if err := loopback(o.ExporterAddr); err != nil {
		return nil, &UsageError{fmt.Errorf("exporter address: %w", err)}
	}
	if o.Exporter == "" || o.Out == "" {
		return nil, &UsageError{fmt.Errorf("exporter binary %q and work directory %q: both needed", o.Exporter, o.Out)}
	}
	for _, p := range []*string{&o.Out, &o.Exporter} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			return nil, err
		}
		*p = abs
	}
	if err := newDir(o.Out); err != nil {
		return nil, err
	}
	host := hostFor(o)
	dirs, err := host.dataDirs(context.Background())
	if err != nil {
		return nil, err
	}
	if err := o.writeConfigsFor(host, dirs); err != nil {
		return nil, err
	}
	for _, s := range o.services() {
		if s.name == "exporter" {
			return append([]string{s.bin}, s.args...), nil
		}
	}
	return nil, fmt.Errorf("the lab runs no exporter")
}

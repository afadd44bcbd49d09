// Command exporter is walab's Prometheus exporter: NVMe write amplification
// (SMART plus the best NAND counter each drive has), placement, IRQ,
// filesystem and InnoDB collectors. `serve` (the default) serves /metrics;
// `capture` writes what the exporter reads from a device in the replay
// format, for bug reports and test fixtures.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/alecthomas/kingpin/v2"
	"github.com/prometheus/common/promslog"
	promslogflag "github.com/prometheus/common/promslog/flag"
	"github.com/prometheus/exporter-toolkit/web/kingpinflag"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/buildinfo"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/exporterapp"
	"github.com/walab/walab/internal/nvme/fleet"
)

// DefaultListenAddress: the Prometheus default-port allocation wiki
// (9100-9999) is full, so walab takes 10131 (exporter) and 10132 (loadgen).
const DefaultListenAddress = ":10131"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stderr))
}

// run parses args and runs the chosen subcommand; it returns the exit code.
func run(ctx context.Context, args []string, stderr io.Writer) int {
	app := kingpin.New("exporter", "walab's Prometheus exporter for NVMe write amplification under MySQL.")
	// --version prints and stops, where --help goes.
	versionAsked := buildinfo.VersionFlag(app, "walab_exporter", stderr)
	app.HelpFlag.Short('h')
	app.ErrorWriter(stderr)
	app.UsageWriter(stderr)
	// --help and --version end the program through Terminate; record it
	// instead of exiting so run stays testable, and stop before serving.
	exited, exitCode := false, 0
	app.Terminate(func(code int) { exited, exitCode = true, code })

	o := addFlags(app)
	logCfg := &promslog.Config{Writer: stderr}
	promslogflag.AddFlags(app, logCfg)
	collector.RegisterFlags(app)

	serveCmd := app.Command("serve", "Serve metrics over HTTP (default).").Default()
	captureCmd := app.Command("capture", "Write what the exporter would read from NVMe controllers, in the replay format.")
	capDevice := captureCmd.Flag("device", "Controller to capture (e.g. /dev/nvme0). Without it, every controller of --nvme.replay or sysfs is captured.").String()
	capOut := captureCmd.Flag("out", "Directory to write; each controller gets a subfolder (OUT/nvme0/).").Required().String()

	cmd, err := app.Parse(buildinfo.VersionArgs(args))
	if *versionAsked {
		return 0
	}
	if exited {
		return exitCode
	}
	if err == nil && o.ReadTimeout == 0 {
		// exporterapp reads 0 as "no bound"; on the command line it would
		// let one hung device hold the WA sampler and run-starts for ever.
		err = errors.New("--nvme.read-timeout must be positive (0 would wait for a hung device for ever)")
	}
	if err == nil {
		err = collector.CheckFlags()
	}
	if err != nil {
		fmt.Fprintf(stderr, "exporter: %v (try --help)\n", err)
		return 2
	}
	logger := promslog.New(logCfg)
	switch cmd {
	case serveCmd.FullCommand():
		err = exporterapp.Serve(ctx, *o, logger)
	case captureCmd.FullCommand():
		err = exporterapp.Capture(ctx, *o, logger, *capDevice, *capOut)
	}
	if err != nil {
		logger.Error("exporter failed", "cmd", cmd, "err", withFlag(err))
		return 1
	}
	return 0
}

// withFlag names the flag behind a start-up error the library reports by
// value.
func withFlag(err error) error {
	for _, f := range []struct {
		is   error
		flag string
	}{{fleet.ErrSysfsRoot, "--path.sysfs"}, {fleet.ErrSameController, "--nvme.device"}} {
		if errors.Is(err, f.is) {
			return fmt.Errorf("%s: %w", f.flag, err)
		}
	}
	return err
}

// addFlags declares the flags of both subcommands on the application, so
// `exporter --nvme.replay=DIR` works with the default subcommand.
func addFlags(app *kingpin.Application) *exporterapp.Options {
	o := &exporterapp.Options{}
	o.Web = kingpinflag.AddFlags(app, DefaultListenAddress)
	app.Flag("web.telemetry-path", "Path under which to expose metrics.").Default("/metrics").StringVar(&o.TelemetryPath)
	app.Flag("web.max-requests", "Maximum number of parallel scrape requests (0 = no limit).").Default("40").IntVar(&o.MaxRequests)
	app.Flag("web.disable-exporter-metrics", "Exclude go_*, process_* and promhttp_* metrics of the exporter itself.").BoolVar(&o.DisableExporterMetrics)
	app.Flag("config.file", "Exporter YAML configuration (sections: nvme, wa, and each collector's own).").StringVar(&o.ConfigFile)
	app.Flag("path.procfs", "procfs mount point.").Default("/proc").StringVar(&o.Paths.ProcFS)
	app.Flag("path.sysfs", "sysfs mount point (NVMe controllers are discovered under <sysfs>/class/nvme).").Default("/sys").StringVar(&o.Paths.SysFS)
	app.Flag("path.devfs", "devfs mount point (controller character devices <devfs>/nvmeX).").Default("/dev").StringVar(&o.Paths.DevFS)
	app.Flag("nvme.device", "NVMe controller to watch instead of sysfs discovery (repeatable), e.g. /dev/nvme0.").StringsVar(&o.Devices)
	app.Flag("nvme.replay", "Run entirely on a replay directory (one subfolder of captured responses per controller) instead of real devices.").StringVar(&o.ReplayDir)
	app.Flag("nvme.cache-max-age", "How long one device read serves scrapes and the WA sampler before the device is read again.").Default("5s").DurationVar(&o.CacheMaxAge)
	app.Flag("scrape.timeout", "Bound on each scrape's collectors (0 = none). A device still being read is reported up=0 for that scrape; its read finishes in the background and serves the next scrape. The default stays under Prometheus's default scrape_timeout (10s), so a hung device costs its own series, not the whole scrape.").Default("9s").DurationVar(&o.ScrapeTimeout)
	app.Flag("nvme.read-timeout", "How long the WA sampler and a run-start mark wait for one device's read; a device slower than that is skipped for the round (its WA absent, walab_nvme_read_timeouts_total counts it) so a hung controller never holds up the others. Scrapes are bounded by --scrape.timeout.").Default("5s").DurationVar(&o.ReadTimeout)
	app.Flag("web.enable-mutations", "Allow the state-changing endpoints (POST /api/v1/run-start, POST /api/v1/sim/placement). Off by default; when on they need the header "+apiguard.Header+": "+apiguard.HeaderValue+" (a cross-origin form cannot send it), are rate-limited, and sit behind --web.config.file's auth like every endpoint.").BoolVar(&o.EnableMutations)
	app.Flag("web.mutations-token-file", "With --web.enable-mutations: write a new random token to this file (mode 0600, the exporter's user's) at start; the state-changing endpoints then need it in the header "+apiguard.TokenHeader+", so another local user of the host cannot post. The runner reads the file (same user or root).").StringVar(&o.MutationsTokenFile)
	app.Flag("web.mutations-host", "A Host header value (name or address, no port) the state-changing endpoints accept besides loopback ones and the --web.listen-address hosts (repeatable); any other Host is refused, against DNS rebinding.").StringsVar(&o.MutationHosts)
	return o
}

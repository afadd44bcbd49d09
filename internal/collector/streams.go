package collector

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/placement"
	"github.com/walab/walab/internal/promql"
	"github.com/walab/walab/internal/writehint"
)

// streamsConfig is the `streams:` section.
type streamsConfig struct {
	// DataDirs are walked for write-life hints (e.g. the MySQL datadirs).
	DataDirs []string `yaml:"data_dirs"`
	// MaxFiles bounds each walk; the counts cover only that many files.
	MaxFiles int `yaml:"max_files"`
	// RescanInterval is the least time between two walks of a directory.
	RescanInterval time.Duration `yaml:"rescan_interval"`
	// Daemon is the placement daemon looked for in procfs; "" turns it off.
	Daemon *string `yaml:"daemon"`
	// DaemonPIDFile is checked before scanning procfs, if set.
	DaemonPIDFile string `yaml:"daemon_pid_file"`
}

const (
	defaultHintMaxFiles = 100000
	defaultHintRescan   = 60 * time.Second
	defaultDaemon       = "astream"
)

var directiveNames = []struct {
	bit  int
	name string
}{
	{decode.DirectiveIdentify, "identify"},
	{decode.DirectiveStreams, "streams"},
	{decode.DirectiveDataPlacement, "data_placement"},
}

func streamsGauge(name, help string, labels ...string) *prometheus.Desc {
	return prometheus.NewDesc(name, help, labels, nil)
}

var (
	dirSupportedDesc = streamsGauge(Namespace+"_nvme_directive_supported", "1 if the controller supports the directive (Identify Controller OACS bit 5, then Directive Receive Identify).", "device", "directive")
	dirEnabledDesc   = streamsGauge(promql.NVMeDirectiveEnabled, "1 if the directive is enabled on the first namespace (Directive Receive Identify, enabled bitmap).", "device", "directive")
	streamsMaxDesc   = streamsGauge(Namespace+"_nvme_streams_max_limit", "Streams directive: maximum streams limit (MSL).", "device")
	streamsSSADesc   = streamsGauge(Namespace+"_nvme_streams_subsystem_available", "Streams directive: NVM subsystem streams available (NSSA).", "device")
	streamsSSODesc   = streamsGauge(Namespace+"_nvme_streams_subsystem_open", "Streams directive: NVM subsystem streams open (NSSO).", "device")
	streamsNSADesc   = streamsGauge(Namespace+"_nvme_streams_namespace_allocated", "Streams directive: streams allocated to the first namespace (NSA).", "device")
	streamsNSODesc   = streamsGauge(Namespace+"_nvme_streams_namespace_open", "Streams directive: streams open in the first namespace (NSO).", "device")
	streamsOpenDesc  = streamsGauge(Namespace+"_nvme_streams_open", "Streams directive: open stream count from Get Status.", "device")
	streamsSWSDesc   = streamsGauge(Namespace+"_nvme_streams_write_size_bytes", "Stream write size: SWS logical blocks x the namespace's LBA size.", "device")
	streamsSGSDesc   = streamsGauge(Namespace+"_nvme_streams_granularity_bytes", "Stream granularity: SGS x SWS x the LBA size.", "device")
	fdpSupportedDesc = streamsGauge(Namespace+"_nvme_fdp_supported", "1 if the controller supports Flexible Data Placement (CTRATT bit 19).", "device")
	fdpEnabledDesc   = streamsGauge(promql.NVMeFDPEnabled, "1 if FDP is enabled on the first namespace's endurance group (Get Features 0x1D).", "device")
	fdpRUHDesc       = streamsGauge(promql.NVMeFDPHandles, "Reclaim unit handles of the active FDP configuration (log 0x20).", "device")
	fdpRUSizeDesc    = streamsGauge(promql.NVMeFDPUnitSize, "Nominal reclaim unit size of the active FDP configuration (log 0x20).", "device")
	fdpRUHUsedDesc   = streamsGauge(promql.NVMeFDPHandlesUsed, "Reclaim unit handles in use, by who specified them (log 0x21).", "device", "by")
	hintsEffDesc     = streamsGauge(promql.PlacementHintsEffective, "1 if placement hints from this host can reach the device: file write-life hints via kernel Streams (reason kernel_streams), or only raw block writes naming a write stream, never files on a filesystem (reason fdp_write_streams_block_only); 0 names the missing link.", "device", "reason")
	kernelParamDesc  = streamsGauge(Namespace+"_kernel_nvme_streams_param", "Value of the nvme_core streams module parameter (absent on Linux >= 5.18: present=\"false\", value 0).", "present")
	hintFilesDesc    = streamsGauge(Namespace+"_write_hint_files", "Regular files under a data directory carrying each Linux write-life hint (from the last walk).", "dir", "hint")
	hintBytesDesc    = streamsGauge(Namespace+"_write_hint_bytes", "Bytes of the files under a data directory carrying each write-life hint (from the last walk).", "dir", "hint")
	hintTruncDesc    = streamsGauge(Namespace+"_write_hint_scan_truncated", "1 if the last walk of the directory stopped at max_files, so the hint counts are partial.", "dir")
	daemonDesc       = streamsGauge(promql.PlacementDaemonRunning, "1 if the named placement daemon runs (procfs comm/argv[0], or its pid file).", "daemon")
)

type streamsCollector struct {
	logger  *slog.Logger
	paths   Paths
	devices []streamsDevice
	dirs    []*writehint.Cache
	daemon  string
	pidFile string
}

func init() { Register("streams", true, newStreamsCollector) }

func (c *streamsConfig) complete() error {
	return cmp.Or(orDefault(&c.MaxFiles, defaultHintMaxFiles, "streams", "max_files"),
		orDefault(&c.RescanInterval, defaultHintRescan, "streams", "rescan_interval"),
		checkList("streams", "data dir", c.DataDirs, cleanAbsolute))
}

func newStreamsCollector(env Env) (Collector, error) {
	var cfg streamsConfig
	if err := decodeSection(env.Config, "streams", &cfg); err != nil {
		return nil, err
	}
	c := &streamsCollector{logger: env.log(), paths: env.Paths, daemon: defaultDaemon, pidFile: cfg.DaemonPIDFile}
	if cfg.Daemon != nil {
		c.daemon = *cfg.Daemon
	}
	for _, d := range cfg.DataDirs {
		c.dirs = append(c.dirs, &writehint.Cache{Root: d, MaxFiles: cfg.MaxFiles, TTL: cfg.RescanInterval})
	}
	if env.Fleet != nil {
		for _, ctrl := range env.Fleet.Controllers {
			c.devices = append(c.devices, streamsDevice{ctrl: ctrl})
		}
	}
	return c, nil
}

func (c *streamsCollector) Update(ctx context.Context, ch chan<- prometheus.Metric) error {
	var errs []error
	kv, err := placement.ReadKernelVersion(c.paths.ProcFS)
	if err != nil {
		return fmt.Errorf("kernel version: %w", err)
	}
	param, err := placement.ReadStreamsParam(c.paths.SysFS)
	if err != nil {
		return err
	}
	ch <- prometheus.MustNewConstMetric(kernelParamDesc, prometheus.GaugeValue, hostBoolFloat(param.Enabled), strconv.FormatBool(param.Present))
	if kv.AtLeast(5, 18) {
		// The driver no longer maps hints to streams, whatever a stale
		// module option file or a fixture says.
		param = placement.StreamsParam{}
	}

	for _, d := range c.devices {
		var st probe.Placement
		err := fmt.Errorf("%s: no admin device", d.ctrl.Name)
		if d.ctrl.Poller != nil {
			// A failed read this scrape (or FDP supported with its state
			// unread) leaves st.Complete false: the device's placement is
			// unknown, and saying "disabled" would send the operator after
			// the wrong problem.
			st, err = d.ctrl.Poller.Placement(ctx)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", d.ctrl.Name, err))
		}
		maxWS := 0
		if st.Known && len(d.ctrl.Namespaces) > 0 {
			n, _, err := placement.ReadMaxWriteStreams(c.paths.SysFS, d.ctrl.Namespaces[0].Block)
			if err != nil {
				errs = append(errs, err)
			}
			maxWS = n
		}
		c.emitDevice(ch, d.ctrl.Name, st, maxWS, param)
		emitNamespaceHandles(ch, d.ctrl, st)
	}

	for _, dc := range c.dirs {
		res, err := dc.Get(ctx)
		if err != nil {
			// A datadir not created yet is a state, not a collector failure.
			c.logger.Warn("write hint scan failed; the directory's series are absent", "dir", dc.Root, "err", err)
			continue
		}
		for _, l := range writehint.Labels {
			ch <- prometheus.MustNewConstMetric(hintFilesDesc, prometheus.GaugeValue, float64(res.Files[l]), dc.Root, l)
			ch <- prometheus.MustNewConstMetric(hintBytesDesc, prometheus.GaugeValue, float64(res.Bytes[l]), dc.Root, l)
		}
		ch <- prometheus.MustNewConstMetric(hintTruncDesc, prometheus.GaugeValue, hostBoolFloat(res.Truncated), dc.Root)
	}

	if c.daemon != "" {
		running, err := placement.Running(c.paths.ProcFS, c.daemon, c.pidFile)
		if err != nil {
			errs = append(errs, err)
		} else {
			ch <- prometheus.MustNewConstMetric(daemonDesc, prometheus.GaugeValue, hostBoolFloat(running), c.daemon)
		}
	}
	return errors.Join(errs...)
}

// streamsDevice is one controller; its poller (nil without an admin
// device) reads the placement pages, cached like every other device read.
type streamsDevice struct {
	ctrl *fleet.Controller
}

func (c *streamsCollector) emitDevice(ch chan<- prometheus.Metric, name string, st probe.Placement, maxWriteStreams int, param placement.StreamsParam) {
	g := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, append([]string{name}, labels...)...)
	}
	in := placement.Inputs{DeviceKnown: st.Known && st.Complete, Kernel: param, MaxWriteStreams: maxWriteStreams}
	if st.Known {
		in.Directives = st.Directives
		in.FDPSupport = st.FDPSupported
		in.FDPEnabled = st.FDPEnabled
		// Directive bitmaps: known from Identify alone when OACS bit 5 is
		// clear (nothing supported), from Directive Receive otherwise.
		switch {
		case !st.Directives:
			for _, dn := range directiveNames {
				g(dirSupportedDesc, 0, dn.name)
				g(dirEnabledDesc, 0, dn.name)
			}
		case st.DirID != nil:
			for _, dn := range directiveNames {
				g(dirSupportedDesc, hostBoolFloat(st.DirID.SupportedBit(dn.bit)), dn.name)
				g(dirEnabledDesc, hostBoolFloat(st.DirID.EnabledBit(dn.bit)), dn.name)
			}
			in.StreamsSupport = st.DirID.SupportedBit(decode.DirectiveStreams)
			in.StreamsEnabled = st.DirID.EnabledBit(decode.DirectiveStreams)
		}
		if p := st.StreamsParams; p != nil {
			g(streamsMaxDesc, float64(p.MSL))
			g(streamsSSADesc, float64(p.NSSA))
			g(streamsSSODesc, float64(p.NSSO))
			g(streamsNSADesc, float64(p.NSA))
			g(streamsNSODesc, float64(p.NSO))
			if st.LBASize > 0 {
				sws := float64(p.SWS) * float64(st.LBASize)
				g(streamsSWSDesc, sws)
				g(streamsSGSDesc, float64(p.SGS)*sws)
			}
		}
		if st.StreamsOpen != nil {
			g(streamsOpenDesc, float64(*st.StreamsOpen))
		}
		g(fdpSupportedDesc, hostBoolFloat(st.FDPSupported))
		if !st.FDPSupported || st.FDPKnown {
			g(fdpEnabledDesc, hostBoolFloat(st.FDPEnabled))
		}
		if cfg := st.FDPConfig; cfg != nil {
			g(fdpRUHDesc, float64(cfg.NRUH))
			g(fdpRUSizeDesc, float64(cfg.ReclaimUnitNominalSize))
		}
		if u := st.RUHUsage; u != nil {
			var host, ctrl float64
			for _, a := range u.Attributes {
				if a&1 != 0 {
					host++
				}
				if a&2 != 0 {
					ctrl++
				}
			}
			g(fdpRUHUsedDesc, host, "host")
			g(fdpRUHUsedDesc, ctrl, "controller")
		}
		emitFDPEvents(g, st)
	}
	eff, reason := placement.HintsEffective(in)
	g(hintsEffDesc, hostBoolFloat(eff), reason)
}

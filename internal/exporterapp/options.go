// Package exporterapp is the exporter's composition root: from Options (the
// parsed command line) it builds the fleet, the collectors, the WA sampler
// and the HTTP handler, runs them until the context ends, reloads on SIGHUP,
// and captures devices in the replay format. The exporter binary is its
// flags and a call to Serve or Capture, as Alertmanager's cmd is over its
// packages.
package exporterapp

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/prometheus/exporter-toolkit/web"

	"github.com/walab/walab/internal/apiguard"
	"github.com/walab/walab/internal/collector"
	"github.com/walab/walab/internal/config"
	"github.com/walab/walab/internal/nvme/sim"
)

// Options are what the exporter is told on its command line, but the
// collectors' own flags, which their files declare and hold
// (collector.RegisterFlags).
type Options struct {
	Web                    *web.FlagConfig // listen addresses and TLS/auth file; Serve only
	TelemetryPath          string          // "/metrics"
	MaxRequests            int             // parallel scrapes (0 = no limit)
	DisableExporterMetrics bool            // leave out go_*, process_*, promhttp_*
	ConfigFile             string          // exporter YAML ("" = defaults)
	Paths                  collector.Paths
	Devices                []string // controllers to watch instead of sysfs discovery
	ReplayDir              string   // run on a replay directory instead of devices
	CacheMaxAge            time.Duration
	ScrapeTimeout          time.Duration
	ReadTimeout            time.Duration
	EnableMutations        bool     // the state-changing endpoints
	MutationHosts          []string // Host values they accept besides loopback and the listen hosts
	// MutationsTokenFile, when set, is where the exporter writes a new
	// token at start (0600): the state-changing endpoints then need it
	// (apiguard.TokenHeader), so another local user cannot post.
	MutationsTokenFile string

	// Simulator builds the simulated drive served when no controller is
	// found (neither ReplayDir nor Devices given and sysfs has none). Nil:
	// the drive the configuration's sim: section describes.
	Simulator func(cfg *config.File, logger *slog.Logger) (*sim.Drive, error)
}

// Validate refuses flag values that mean nothing, naming the flag: the
// options' and the collectors' own (collector.CheckFlags).
func (o *Options) Validate() error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--nvme.cache-max-age", o.CacheMaxAge}, {"--scrape.timeout", o.ScrapeTimeout}, {"--nvme.read-timeout", o.ReadTimeout}} {
		if d.v < 0 {
			return fmt.Errorf("%s must not be negative (got %s)", d.flag, d.v)
		}
	}
	if o.MaxRequests < 0 {
		return fmt.Errorf("--web.max-requests must be 0 (no limit) or more (got %d)", o.MaxRequests)
	}
	if err := collector.CheckFlags(); err != nil {
		return err
	}
	if o.MutationsTokenFile != "" && !o.EnableMutations {
		return fmt.Errorf("%s needs %s (it guards the state-changing endpoints)", apiguard.TokenFileFlag, apiguard.EnableFlag)
	}
	for _, h := range o.MutationHosts {
		if err := checkHostValue(h); err != nil {
			return fmt.Errorf("%s=%q: %w", apiguard.HostFlag, h, err)
		}
	}
	return nil
}

// checkHostValue refuses a --web.mutations-host value that no Host header
// can match: empty, with a port, a scheme or a path, or with spaces.
func checkHostValue(h string) error {
	switch {
	case strings.TrimSpace(h) == "":
		return errors.New("empty: give a host name or address")
	case strings.ContainsAny(h, " \t/@"):
		return errors.New("not a host name or address (no scheme, path or spaces)")
	case strings.Contains(h, ":") && net.ParseIP(strings.Trim(h, "[]")) == nil:
		return errors.New("give the host without a port (the port of a Host header is not compared)")
	}
	return nil
}

// mutationHosts are the Host values the mutation guard accepts besides
// loopback: MutationHosts and the hosts of the listen addresses (a
// wildcard address names no host).
func (o *Options) mutationHosts() []string {
	hosts := append([]string(nil), o.MutationHosts...)
	if o.Web == nil || o.Web.WebListenAddresses == nil {
		return hosts
	}
	for _, a := range *o.Web.WebListenAddresses {
		h, _, err := net.SplitHostPort(a)
		if err != nil || h == "" {
			continue
		}
		if ip := net.ParseIP(h); ip != nil && ip.IsUnspecified() {
			continue
		}
		hosts = append(hosts, h)
	}
	return hosts
}

// loopbackOnly: every listen address is a loopback one. Then the exporter
// checks the Host of reads too (apiguard.CheckHost): nothing off this
// machine can reach it, so a Host it does not know is a DNS-rebinding page.
// On any other address Prometheus may scrape it by whatever name it is
// known by, which the exporter cannot list, so reads are left open there.
func (o *Options) loopbackOnly() bool {
	if o.Web == nil || o.Web.WebListenAddresses == nil || len(*o.Web.WebListenAddresses) == 0 ||
		(o.Web.WebSystemdSocket != nil && *o.Web.WebSystemdSocket) {
		return false
	}
	for _, a := range *o.Web.WebListenAddresses {
		h, _, err := net.SplitHostPort(a)
		if err != nil {
			return false
		}
		if ip := net.ParseIP(h); (ip == nil || !ip.IsLoopback()) && h != "localhost" {
			return false
		}
	}
	return true
}

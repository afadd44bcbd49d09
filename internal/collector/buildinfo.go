package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/buildinfo"
)

// BuildInfoName is the build-info series; a fingerprint and `walab
// experiment` read the exporter's version from it.
const BuildInfoName = Namespace + "_build_info"

var buildInfoDesc = prometheus.NewDesc(BuildInfoName,
	"Always 1: the walab build serving these metrics (module version, git commit with -modified for a dirty tree, or unknown; Go toolchain).",
	[]string{"version", "revision", "goversion"}, nil)

// BuildInfo is the walab_build_info collector of the binary it runs in:
// one series, registered by the exporter next to the collector set.
func BuildInfo() prometheus.Collector { return buildInfo{buildinfo.Get()} }

type buildInfo struct{ in buildinfo.Info }

func (b buildInfo) Describe(ch chan<- *prometheus.Desc) { ch <- buildInfoDesc }

func (b buildInfo) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(buildInfoDesc, prometheus.GaugeValue, 1, b.in.Version, b.in.Commit(), b.in.GoVersion)
}

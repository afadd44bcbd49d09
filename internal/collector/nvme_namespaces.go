package collector

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/fleet"
	"github.com/walab/walab/internal/nvme/probe"
	"github.com/walab/walab/internal/promql"
)

// Per-namespace placement as the drive reports it: which namespace took
// the host's writes (each namespace's own SMART log) and which reclaim unit
// handles its writes went to (the FDP events that name both). Together they
// show placement by namespace, the only placement a kernel without write
// streams for files gives MySQL (docs/seed000-nvme.md).
var (
	nvmeNSWrittenDesc = prometheus.NewDesc(promql.NVMeNamespaceWrittenBytes,
		"Bytes the host wrote to this namespace: the SMART log read with the namespace's NSID (Identify LPA bit 0), Data Units Written x 512000. "+
			"Read only for a controller with more than one namespace; absent when the controller keeps SMART for itself only.",
		[]string{"device", "namespace", "nsid"}, nil)
	fdpNSHandleEventsDesc = prometheus.NewDesc(promql.NVMeFDPNamespaceHandleEvents,
		"FDP events in the events logs (0x23) that name both a namespace and a reclaim unit handle (flags NSID and location valid), by namespace and handle: "+
			"the handles each namespace's writes used, as far as the controller's window of latest events shows. Not a counter; host events are logged only for the event types the host enabled (Set Features 0x1E).",
		[]string{"device", "namespace", "nsid", "handle"}, nil)
)

// namespaceName is the block device of nsid on ctrl ("" when unknown).
func namespaceName(ctrl *fleet.Controller, nsid uint32) string {
	for _, ns := range ctrl.Namespaces {
		if ns.NSID == nsid {
			return ns.Block
		}
	}
	return ""
}

// emitNamespaceWritten publishes each namespace's own write counter.
func emitNamespaceWritten(ch chan<- prometheus.Metric, ctrl *fleet.Controller, s *probe.Sample) {
	for nsid, b := range s.NamespaceHostBytes {
		ch <- prometheus.MustNewConstMetric(nvmeNSWrittenDesc, prometheus.CounterValue, b.Float64(),
			ctrl.Name, namespaceName(ctrl, nsid), strconv.FormatUint(uint64(nsid), 10))
	}
}

// namespaceHandle is one (namespace, reclaim unit handle) pair an FDP
// event names.
type namespaceHandle struct {
	nsid   uint32
	handle uint8
}

// namespaceHandles counts the events of logs that name a namespace and a
// handle; nil when either log is unread (one alone would under-count).
func namespaceHandles(logs ...*decode.FDPEvents) map[namespaceHandle]int {
	out := map[namespaceHandle]int{}
	for _, l := range logs {
		if l == nil {
			return nil
		}
		for _, e := range l.Events {
			if e.NSIDValid() && e.LocationValid() {
				out[namespaceHandle{e.NSID, e.RUHID}]++
			}
		}
	}
	return out
}

// emitNamespaceHandles publishes the events by namespace and handle.
func emitNamespaceHandles(ch chan<- prometheus.Metric, ctrl *fleet.Controller, st probe.Placement) {
	for k, n := range namespaceHandles(st.FDPHostEvents, st.FDPCtrlEvents) {
		ch <- prometheus.MustNewConstMetric(fdpNSHandleEventsDesc, prometheus.GaugeValue, float64(n),
			ctrl.Name, namespaceName(ctrl, k.nsid), strconv.FormatUint(uint64(k.nsid), 10), strconv.Itoa(int(k.handle)))
	}
}

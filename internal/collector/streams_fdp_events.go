package collector

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/walab/walab/internal/nvme/decode"
	"github.com/walab/walab/internal/nvme/probe"
)

var (
	fdpEventsDesc = streamsGauge(Namespace+"_nvme_fdp_events",
		"FDP events the controller holds in its FDP Events logs (0x23, host and controller events of the first namespace's endurance group), by event type (unknown types: other). "+
			"A window of the latest events the controller keeps, not a counter: it falls when old events roll out; read only while FDP is enabled, and the host must enable event types (Set Features 0x1E) for host events to be logged.",
		"device", "type")
	fdpEventNewestDesc = streamsGauge(Namespace+"_nvme_fdp_event_newest_timestamp_seconds",
		"Unix time of the newest event in the FDP Events logs (0x23), from the event's timestamp; absent when no event's timestamp was set by the host (origin other than Set Features Timestamp).",
		"device")
)

// emitFDPEvents publishes the FDP Events logs when both were read: one of
// the two alone would under-count the types of the other.
func emitFDPEvents(g func(d *prometheus.Desc, v float64, labels ...string), st probe.Placement) {
	if st.FDPHostEvents == nil || st.FDPCtrlEvents == nil {
		return
	}
	counts := map[string]float64{}
	var newest uint64
	var stamped bool
	for _, log := range []*decode.FDPEvents{st.FDPHostEvents, st.FDPCtrlEvents} {
		for _, e := range log.Events {
			counts[e.Type.Name()]++
			if e.Timestamp.WallClock() {
				newest, stamped = max(newest, e.Timestamp.Millis), true
			}
		}
	}
	for _, name := range decode.FDPEventTypeNames() {
		g(fdpEventsDesc, counts[name], name)
	}
	if stamped {
		g(fdpEventNewestDesc, float64(newest)/1000)
	}
}

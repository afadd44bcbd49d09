package check

import (
	"fmt"
	"strconv"

	"github.com/walab/walab/internal/experiment/plan"
	"github.com/walab/walab/internal/hostapi"
)

// nicChannelsCheck: the database host's NIC has the planned number of
// channels (seed 000: ethtool -L eth0 combined 6): as many receive and
// transmit queues.
var nicChannelsCheck = hostKind("device (the NIC), expect (channels)",
	func(_ *plan.Plan, c plan.Check) []string {
		var out []string
		if c.Device == "" {
			out = append(out, "device missing (the NIC, e.g. eth0)")
		}
		if n, err := strconv.Atoi(c.Expect); err != nil || n < 1 {
			out = append(out, fmt.Sprintf("expect %q: want the channel count, a positive number", c.Expect))
		}
		return out
	},
	func(f *hostapi.Facts, c plan.Check) (string, error) {
		ch, ok := f.Tuning.NICChannels[c.Device]
		if !ok {
			return "", fmt.Errorf("the exporter on %s shows no NIC %s (its irq: interfaces, or a NIC backed by a device)", f.Hostname, c.Device)
		}
		want, _ := strconv.Atoi(c.Expect)
		if ch.RX != want || ch.TX != want {
			return "", fmt.Errorf("%s on %s has %d receive and %d transmit channels, the plan expects %d", c.Device, f.Hostname, ch.RX, ch.TX, want)
		}
		return fmt.Sprintf("%s on %s has %d channels", c.Device, f.Hostname, want), nil
	})

func init() { register("nic_channels", nicChannelsCheck) }

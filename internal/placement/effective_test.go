package placement

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHintsEffective(t *testing.T) {
	on := StreamsParam{Present: true, Enabled: true}
	off := StreamsParam{Present: true}
	for _, tc := range []struct {
		name   string
		in     Inputs
		want   bool
		reason string
	}{
		{"unreadable", Inputs{}, false, ReasonUnknown},
		{"old kernel streams on", Inputs{DeviceKnown: true, Directives: true, StreamsSupport: true, StreamsEnabled: true, Kernel: on}, true, ReasonKernelStreams},
		{"new kernel, device streams enabled by a tool", Inputs{DeviceKnown: true, Directives: true, StreamsSupport: true, StreamsEnabled: true}, false, ReasonKernelLacksStreams},
		{"param off", Inputs{DeviceKnown: true, Directives: true, StreamsSupport: true, Kernel: off}, false, ReasonKernelStreamsDisabled},
		{"param on, device not enabled", Inputs{DeviceKnown: true, Directives: true, StreamsSupport: true, Kernel: on}, false, ReasonDeviceStreamsDisabled},
		{"no directives", Inputs{DeviceKnown: true, Kernel: on}, false, ReasonNoDirectives},
		{"identify directive only", Inputs{DeviceKnown: true, Directives: true, Kernel: on}, false, ReasonDeviceLacksStreams},
		{"fdp with write streams", Inputs{DeviceKnown: true, FDPSupport: true, FDPEnabled: true, MaxWriteStreams: 8}, true, ReasonFDPWriteStreams},
		{"fdp enabled, kernel without write streams", Inputs{DeviceKnown: true, FDPSupport: true, FDPEnabled: true}, false, ReasonNoWriteStreams},
		{"fdp supported not enabled", Inputs{DeviceKnown: true, Directives: true, FDPSupport: true, MaxWriteStreams: 8}, false, ReasonFDPDisabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reason := HintsEffective(tc.in)
			require.Equal(t, tc.want, got)
			require.Equal(t, tc.reason, reason)
		})
	}
}

package placement

// Reasons for walab_placement_hints_effective. The set is closed so the
// label stays bounded; docs/collectors-host.md explains each.
const (
	// Value 1.
	ReasonKernelStreams   = "kernel_streams"               // nvme_core.streams=Y and the Streams directive is enabled
	ReasonFDPWriteStreams = "fdp_write_streams_block_only" // FDP on and the block device has write streams; files on a filesystem still get none
	// Value 0.
	ReasonUnknown               = "device_unreadable"       // Identify or the directive pages could not be read
	ReasonNoDirectives          = "no_directives"           // OACS bit 5 clear and no FDP
	ReasonDeviceLacksStreams    = "device_lacks_streams"    // directives exist, Streams is not among them
	ReasonKernelLacksStreams    = "kernel_lacks_streams"    // no nvme_core streams parameter (Linux >= 5.18)
	ReasonKernelStreamsDisabled = "kernel_streams_disabled" // the parameter exists and is N
	ReasonDeviceStreamsDisabled = "device_streams_disabled" // kernel on, but the directive is not enabled on the device
	ReasonFDPDisabled           = "fdp_disabled"            // FDP supported, not enabled on the endurance group
	ReasonNoWriteStreams        = "no_write_streams"        // FDP enabled, the kernel exposes no write streams for the namespace
)

// Inputs is what the decision needs about one device and the kernel.
type Inputs struct {
	DeviceKnown bool // Identify Controller was read

	Directives     bool // OACS bit 5
	StreamsSupport bool // Directive Identify: Streams supported
	StreamsEnabled bool // Directive Identify: Streams enabled

	FDPSupport bool // CTRATT bit 19
	FDPEnabled bool // Get Features 0x1D DW0 bit 0

	Kernel          StreamsParam
	MaxWriteStreams int // <sysfs>/block/<ns>/queue/max_write_streams, 0 if absent
}

// HintsEffective decides whether a write-life hint set on a file can reach
// the device, and gives one reason.
//
// Streams: the nvme driver mapped write-life hints to stream ids only while
// it had the streams parameter (4.13 to 5.17) and only once it had enabled
// the directive on the device. FDP (Linux >= 6.16): the block layer exposes
// max_write_streams and io_uring writes to the raw block device can name a
// stream; ext4/xfs do not turn a file's write-life hint into a stream, so
// this counts as effective with a reason that says "block only".
func HintsEffective(in Inputs) (bool, string) {
	if !in.DeviceKnown {
		return false, ReasonUnknown
	}
	if in.Kernel.Enabled && in.StreamsEnabled {
		return true, ReasonKernelStreams
	}
	if in.FDPEnabled && in.MaxWriteStreams > 0 {
		return true, ReasonFDPWriteStreams
	}
	// Not effective: name the first missing link, FDP first when the
	// device has it because that is the only path on current kernels.
	switch {
	case in.FDPSupport && !in.FDPEnabled:
		return false, ReasonFDPDisabled
	case in.FDPSupport:
		return false, ReasonNoWriteStreams
	case !in.Directives:
		return false, ReasonNoDirectives
	case !in.StreamsSupport:
		return false, ReasonDeviceLacksStreams
	case !in.Kernel.Present:
		return false, ReasonKernelLacksStreams
	case !in.Kernel.Enabled:
		return false, ReasonKernelStreamsDisabled
	default:
		return false, ReasonDeviceStreamsDisabled
	}
}

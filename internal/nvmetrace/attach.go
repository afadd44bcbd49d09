package nvmetrace

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"github.com/cilium/ebpf"
	"golang.org/x/sys/unix"
)

// perfLink is a BPF program attached to a tracepoint through a perf event.
type perfLink struct{ fd int }

func (l perfLink) Close() error { return unix.Close(l.fd) }

// attachTracepoint attaches prog to the tracepoint group:name whose id it
// reads under tracefs, through a perf event (perf_event_open,
// PERF_EVENT_IOC_SET_BPF): the program then runs for the tracepoint on
// every CPU. Unlike cilium/ebpf's link.Tracepoint, which looks for tracefs
// at its usual places only, it works with tracefs mounted anywhere, as the
// collectors' tracefs setting allows.
func attachTracepoint(tracefs, group, name string, prog *ebpf.Program) (io.Closer, error) {
	b, err := os.ReadFile(filepath.Join(tracefs, "events", group, name, "id"))
	if err != nil {
		return nil, err
	}
	id, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		return nil, fmt.Errorf("tracepoint %s:%s id %q: %w", group, name, b, err)
	}
	attr := unix.PerfEventAttr{Type: unix.PERF_TYPE_TRACEPOINT, Config: id, Sample_type: unix.PERF_SAMPLE_RAW, Sample: 1, Wakeup: 1}
	attr.Size = uint32(unsafe.Sizeof(attr))
	fd, err := unix.PerfEventOpen(&attr, -1, 0, -1, unix.PERF_FLAG_FD_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("perf_event_open %s:%s: %w", group, name, err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_SET_BPF, prog.FD()); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("attaching to %s:%s: %w", group, name, err)
	}
	if err := unix.IoctlSetInt(fd, unix.PERF_EVENT_IOC_ENABLE, 0); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("enabling %s:%s: %w", group, name, err)
	}
	return perfLink{fd}, nil
}

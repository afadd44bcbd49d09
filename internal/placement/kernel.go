package placement

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/sysfile"
)

// KernelVersion is the major.minor of the running kernel.
type KernelVersion struct{ Major, Minor int }

// AtLeast reports whether v >= major.minor.
func (v KernelVersion) AtLeast(major, minor int) bool {
	return v.Major > major || v.Major == major && v.Minor >= minor
}

func (v KernelVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// ReadKernelVersion reads <procfs>/sys/kernel/osrelease ("6.18.44-fc-v1045").
func ReadKernelVersion(procRoot string) (KernelVersion, error) {
	b, err := os.ReadFile(filepath.Join(procRoot, "sys/kernel/osrelease"))
	if err != nil {
		return KernelVersion{}, err
	}
	return ParseKernelVersion(string(b))
}

// ParseKernelVersion takes the leading "major.minor" of a release string.
func ParseKernelVersion(s string) (KernelVersion, error) {
	s = strings.TrimSpace(s)
	maj, rest, ok := strings.Cut(s, ".")
	if !ok {
		return KernelVersion{}, fmt.Errorf("kernel release %q has no major.minor", s)
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	a, err1 := strconv.Atoi(maj)
	b, err2 := strconv.Atoi(rest[:end])
	if err1 != nil || err2 != nil || a < 0 || b < 0 {
		return KernelVersion{}, fmt.Errorf("kernel release %q has no major.minor", s)
	}
	return KernelVersion{Major: a, Minor: b}, nil
}

// StreamsParam is nvme_core's "streams" module parameter. Present is false
// on kernels >= 5.18, which removed it together with Streams support.
type StreamsParam struct {
	Present bool
	Enabled bool
}

// ReadStreamsParam reads <sysfs>/module/nvme_core/parameters/streams ("Y"/"N").
func ReadStreamsParam(sysRoot string) (StreamsParam, error) {
	p := filepath.Join(sysRoot, "module/nvme_core/parameters/streams")
	s, ok, err := sysfile.ReadOptional(p)
	if !ok {
		return StreamsParam{}, err
	}
	switch s {
	case "Y", "y", "1":
		return StreamsParam{Present: true, Enabled: true}, nil
	case "N", "n", "0":
		return StreamsParam{Present: true}, nil
	}
	return StreamsParam{}, fmt.Errorf("%s: unexpected value %q", p, s)
}

// ReadMaxWriteStreams reads <sysfs>/block/<dev>/queue/max_write_streams
// (Linux >= 6.16, FDP namespaces). ok is false when the file is absent.
func ReadMaxWriteStreams(sysRoot, blockDev string) (n int, ok bool, err error) {
	if blockDev == "" || strings.ContainsAny(blockDev, "/") || blockDev == ".." {
		return 0, false, nil
	}
	p := filepath.Join(sysRoot, "block", blockDev, "queue/max_write_streams")
	s, ok, err := sysfile.ReadOptional(p)
	if !ok {
		return 0, false, err
	}
	n, err = strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0, false, fmt.Errorf("%s: unexpected value %q", p, s)
	}
	return n, true, nil
}

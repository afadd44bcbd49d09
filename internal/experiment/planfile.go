package experiment

import (
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// maxDuration bounds every duration of a plan: a run, a round or a
// timeout of more than 30 days is a typing error, not an experiment.
const maxDuration = 30 * 24 * time.Hour

// ReadPlan reads a plan file: a regular file of at most maxPlanBytes. A
// FIFO, a device (/dev/zero) or anything else is refused without reading
// from it, so that `walab experiment run` neither blocks nor grows.
func ReadPlan(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): a plan is a YAML file", path, kindOf(fi.Mode()))
	}
	if fi.Size() > maxPlanBytes {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d a plan may have", path, fi.Size(), maxPlanBytes)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxPlanBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxPlanBytes {
		return nil, fmt.Errorf("%s grew past the %d bytes a plan may have while it was read", path, maxPlanBytes)
	}
	return b, nil
}

func kindOf(m os.FileMode) string {
	switch {
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m.IsDir():
		return "a directory"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return m.Type().String()
}

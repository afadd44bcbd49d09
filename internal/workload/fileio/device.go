package fileio

import "github.com/walab/walab/internal/rawdev"

// Guard is the raw-device guard (internal/rawdev), shared with fio runs
// of walab experiment; DefaultGuard reads the running system.
type Guard = rawdev.Guard

// DefaultGuard reads the running system's /sys and /proc.
var DefaultGuard = rawdev.Default

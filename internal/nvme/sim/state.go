package sim

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/walab/walab/internal/safefile"
)

// stateFormat marks a file as the simulator's own: a state_file that does
// not carry it is refused, never overwritten.
const stateFormat = "walab-sim-state/1"

// savedState is the drive's identity and lifetime counters.
type savedState struct {
	Format            string  `json:"format"`
	Name              string  `json:"name"`
	Serial            string  `json:"serial"`
	CapacityBytes     uint64  `json:"capacity_bytes"`
	HostBytes         uint64  `json:"host_written_bytes"`
	MediaBytes        uint64  `json:"media_written_bytes"`
	GCBytes           uint64  `json:"gc_written_bytes"`
	TrimmedBytes      uint64  `json:"trimmed_bytes"`
	HostWriteCommands uint64  `json:"host_write_commands"`
	Erases            uint64  `json:"erases"`
	SimulatedSeconds  float64 `json:"simulated_seconds"`
}

// loadState reads the state file into d.base. A missing file is a new
// drive; a file of another drive (name, serial or capacity differ) is
// replaced, with a warning; anything that is not the simulator's state is
// an error naming the path.
func (d *Drive) loadState() error {
	path := d.cfg.StateFile
	b, err := safefile.ReadFile(path, 64<<10)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("sim: state_file %s: %w", path, err)
	}
	var st savedState
	if err := json.Unmarshal(b, &st); err != nil || st.Format != stateFormat {
		return fmt.Errorf("sim: state_file %s is not a walab simulator state (no %q format line); remove it or choose another path", path, stateFormat)
	}
	capacity := uint64(d.model.Config().LogicalPages) * uint64(d.cfg.PageSize) * d.cfg.Scale
	if st.Name != d.cfg.Name || st.Serial != d.cfg.Serial || st.CapacityBytes != capacity {
		d.log.Warn("sim: state_file is another drive's (name, serial or capacity changed); starting a new drive",
			"path", path, "saved_name", st.Name, "saved_serial", st.Serial, "saved_capacity_bytes", st.CapacityBytes)
		return nil
	}
	d.base, d.saved = st, st
	d.log.Info("sim: lifetime counters restored", "path", path, "host_written_bytes", st.HostBytes, "media_written_bytes", st.MediaBytes)
	return nil
}

// persist writes s to the state file when it moved since the last write,
// before s is returned to anyone: whatever a reader (the exporter's WA
// sampler) saw is on disk, so a kill -9 never makes the counters go back.
// d.mu held. A failed write is logged and retried on the next call.
func (d *Drive) persist(s Stats) {
	if d.cfg.StateFile == "" {
		return
	}
	st := savedState{Format: stateFormat, Name: d.cfg.Name, Serial: d.cfg.Serial, CapacityBytes: s.CapacityBytes,
		HostBytes: s.HostBytes, MediaBytes: s.MediaBytes, GCBytes: s.GCBytes, TrimmedBytes: s.TrimmedBytes,
		HostWriteCommands: s.HostWriteCommands, Erases: s.Erases, SimulatedSeconds: d.base.SimulatedSeconds + d.simSeconds}
	if st == d.saved {
		return
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err == nil {
		err = safefile.WriteAtomic(d.cfg.StateFile, append(b, '\n'), nil)
	}
	if err != nil {
		if d.lastErr != err.Error() {
			d.log.Error("sim: could not save the state file; counters may go back after a restart", "path", d.cfg.StateFile, "err", err)
		}
		d.lastErr = err.Error()
		return
	}
	d.saved = st
}

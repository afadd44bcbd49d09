package sim

import (
	"errors"
	"reflect"
)

// ErrRebuild means a new configuration changes more than the placement
// switch: the caller must Close this drive and build a new one with New.
var ErrRebuild = errors.New("sim: configuration changed beyond placement.streams; rebuild the drive")

// Reload applies a re-read configuration (SIGHUP). placement.streams always
// switches in place, keeping the drive's history, whatever else changed: a
// "streams" run must never measure the baseline because another key was
// edited too. Any other change returns ErrRebuild (after the placement
// switch) and is otherwise left for a restart. An invalid configuration
// changes nothing.
func (d *Drive) Reload(cfg Config) error {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	cur := d.cfg
	cur.Placement.Streams = cfg.Placement.Streams
	// The ticker setting of a drive with an injected clock was forced to 0.
	cur.Tick, cfg.Tick = nil, nil
	d.SetPlacement(cfg.Placement.Streams)
	if !reflect.DeepEqual(cur, cfg) {
		return ErrRebuild
	}
	return nil
}

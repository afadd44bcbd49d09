package sim

import (
	"errors"
	"reflect"
)

// ErrRebuild means a new configuration changes more than the placement
// switch: the caller must Close this drive and build a new one with New.
var ErrRebuild = errors.New("sim: configuration changed beyond placement.streams; rebuild the drive")

// Reload applies a re-read configuration (SIGHUP). When only
// placement.streams differs it switches placement in place, keeping the
// drive's history; any other change returns ErrRebuild and leaves the drive as is.
func (d *Drive) Reload(cfg Config) error {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return err
	}
	cur := d.cfg
	cur.Placement.Streams = cfg.Placement.Streams
	// The ticker setting of a drive with an injected clock was forced to 0.
	cur.Tick, cfg.Tick = nil, nil
	if !reflect.DeepEqual(cur, cfg) {
		return ErrRebuild
	}
	d.SetPlacement(cfg.Placement.Streams)
	return nil
}

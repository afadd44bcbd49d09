package plan

import "time"

// MaxProfile is the longest CPU profile the exporter records
// (GET /debug/walab/profile?seconds=N).
const MaxProfile = 300 * time.Second

// profile refuses a profile: the database host's exporter cannot take.
func (v *validator) profile() {
	d := time.Duration(v.p.Profile)
	switch {
	case d == 0:
	case d < time.Second || d > MaxProfile || d%time.Second != 0:
		v.add(0, "profile: %s: whole seconds from 1s to %s", d, MaxProfile)
	case v.p.DBExporter() == "":
		v.add(0, "profile: needs the database host's exporter (exporter, or hosts.db.exporter) running with --collector.profile")
	}
}

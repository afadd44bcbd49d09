package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/walab/walab/internal/experiment/state"
	"github.com/walab/walab/internal/hotspots"
)

// reportProfiles writes seed 003's table when the plan takes CPU
// profiles: each run's top functions beside the spin-lock knobs of its
// start fingerprint (first target) and its tpmTOTAL; a run without a
// profile says why.
func (in *Input) reportProfiles(b *strings.Builder) {
	if in.Plan.Profile == 0 {
		return
	}
	fmt.Fprintf(b, "## CPU profile\n\nSelf samples of mysqld's functions, as shares of each run's samples (%s from the middle of the run; `runs/<run id>/profile.pb.gz` is the whole profile, which `go tool pprof` reads), beside the spin-lock knobs and tpmTOTAL.\n\n", time.Duration(in.Plan.Profile))
	var runs []hotspots.Run
	var missing []string
	for i := range in.State.Runs {
		r := &in.State.Runs[i]
		hr := hotspots.Run{Name: r.RunID, TpmTOTAL: r.TpmTotal, Profile: r.Profile.Profile()}
		if f, err := state.ReadFingerprint(in.Out, r, "start"); err == nil && len(f.MySQL) > 0 {
			hr.Settings = f.MySQL[0].Variables
		}
		switch {
		case r.Profile == nil:
			missing = append(missing, r.RunID+": no profile was taken")
		case r.Profile.Error != "":
			missing = append(missing, r.RunID+": "+r.Profile.Error)
		}
		runs = append(runs, hr)
	}
	b.WriteString(hotspots.Table(runs, hotspots.SpinKnobs, 10))
	for _, m := range missing {
		fmt.Fprintf(b, "- %s\n", cell(m))
	}
	b.WriteString("\n")
}

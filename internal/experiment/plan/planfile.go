package plan

import (
	"time"

	"github.com/walab/walab/internal/safefile"
)

// maxDuration bounds every duration of a plan: a run, a round or a
// timeout of more than 30 days is a typing error, not an experiment.
const maxDuration = 30 * 24 * time.Hour

// ReadPlan reads a plan file: a regular file (a symlink to one is
// followed) of at most maxPlanBytes. A FIFO, a device (/dev/zero) or
// anything else is refused without reading from it, so that `walab
// experiment run` neither blocks nor grows.
func ReadPlan(path string) ([]byte, error) { return safefile.ReadUserFile(path, maxPlanBytes) }

package experiment

import "github.com/walab/walab/internal/experiment/plan"

// The plan's types and constants under the names the executor has always
// used for them: the plan package owns them.
type (
	Plan      = plan.Plan
	Target    = plan.Target
	Step      = plan.Step
	Check     = plan.Check
	Run       = plan.Run
	Sweep     = plan.Sweep
	Compare   = plan.Compare
	Hosts     = plan.Hosts
	Host      = plan.Host
	Item      = plan.Item
	Duration  = plan.Duration
	ByteSize  = plan.ByteSize
	Errors    = plan.Errors
	LineError = plan.LineError
)

const (
	PhasePrepare      = plan.PhasePrepare
	PhaseReset        = plan.PhaseReset
	PhasePrecondition = plan.PhasePrecondition
	PhaseBetween      = plan.PhaseBetween
	PhaseChecks       = plan.PhaseChecks
	PhaseRestart      = plan.PhaseRestart
	PhaseRun          = plan.PhaseRun
	PhaseCompare      = plan.PhaseCompare
	PhaseReport       = plan.PhaseReport
	HostDB            = plan.HostDB
	HostClient        = plan.HostClient
	FioOutput         = plan.FioOutput
)

// Steps flattens the plan (plan.Steps).
func Steps(p *Plan) ([]Item, error) { return plan.Steps(p) }

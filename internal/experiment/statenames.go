package experiment

import "github.com/walab/walab/internal/experiment/state"

// The journal's types and names as the executor uses them: the state
// package owns them.
type (
	State            = state.State
	StepState        = state.StepState
	RunRecord        = state.RunRecord
	CheckResult      = state.CheckResult
	CompareRecord    = state.CompareRecord
	ProcGroup        = state.ProcGroup
	RemoteSession    = state.RemoteSession
	FioRecord        = state.FioRecord
	IOStat           = state.IOStat
	RoundsThroughput = state.RoundsThroughput
	DiscardSnapshot  = state.DiscardSnapshot
	Dataset          = state.Dataset
)

const (
	StateFile     = state.StateFile
	PlanFile      = state.PlanFile
	StatusStarted = state.StatusStarted
	StatusDone    = state.StatusDone
	StatusFailed  = state.StatusFailed
	StatusSkipped = state.StatusSkipped
	StatusAgain   = state.StatusAgain
)

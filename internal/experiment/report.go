package experiment

import (
	"path/filepath"

	"github.com/walab/walab/internal/experiment/report"
	"github.com/walab/walab/internal/experiment/state"
)

// ReportFile is the experiment's report in its output directory.
const ReportFile = report.File

// WriteReport writes the report as it stands (also after a failure), its
// secrets hidden.
func (e *Executor) WriteReport() error {
	return state.WriteAtomic(filepath.Join(e.Out, ReportFile), []byte(e.redact.text(e.Report())))
}

// Report is the report of the experiment as it stands (report.Markdown).
func (e *Executor) Report() string {
	return report.Markdown(report.Input{Plan: e.Plan, PlanText: e.PlanBytes, State: e.state, Items: e.items, Out: e.Out})
}

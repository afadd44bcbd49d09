package plan

// Lookups of a plan's parts that the executor and the checks share.

// RunNamed is the plan's run called name, or nil.
func (p *Plan) RunNamed(name string) *Run {
	for i := range p.Runs {
		if p.Runs[i].Name == name {
			return &p.Runs[i]
		}
	}
	return nil
}

// DBExporter is the database host's exporter: hosts.db.exporter, else the
// plan's exporter (one machine, or the exporter beside the drive).
func (p *Plan) DBExporter() string {
	if h := p.host(HostDB); h != nil && h.Exporter != "" {
		return h.Exporter
	}
	return p.Exporter
}

// UsesLoadgen: some step or run of the plan runs loadgen.
func (p *Plan) UsesLoadgen() bool {
	for _, r := range p.Runs {
		if r.Workload != "" {
			return true
		}
	}
	for _, list := range [][]Step{p.Prepare, p.Reset, p.Precondition} {
		for _, s := range list {
			if s.Loadgen != "" {
				return true
			}
		}
	}
	return false
}

func (c Check) OnFailMode() string {
	if c.OnFail == "" {
		return "stop"
	}
	return c.OnFail
}

package plan

// compile parses once what the plan's lookups and its validation read
// again and again: each host's transport, each loadgen step's words, each
// run's loadgen arguments and fio line. It runs before validation and keeps
// what parses; what does not, validation parses again to say why (the plan
// is then refused). A plan built in Go rather than loaded has none of
// them; its lookups parse on demand.
func (p *Plan) compile() {
	if p.Hosts != nil {
		p.transports = map[string]*transport{}
		for name, h := range map[string]*Host{HostDB: p.Hosts.DB, HostClient: p.Hosts.Client} {
			if h == nil || h.Exec == "" {
				continue
			}
			if t, err := parseTransport(name, h); err == nil {
				p.transports[name] = t
			}
		}
	}
	for _, list := range p.stepLists() {
		for i := range list {
			list[i].compile()
		}
	}
	for i := range p.Runs {
		p.Runs[i].compile()
	}
}

// stepLists are the plan's lists of steps: prepare, reset, precondition
// and each run's between.
func (p *Plan) stepLists() [][]Step {
	lists := [][]Step{p.Prepare, p.Reset, p.Precondition}
	for _, r := range p.Runs {
		lists = append(lists, r.Between)
	}
	return lists
}

func (s *Step) compile() {
	if w, err := splitWords(s.Loadgen); err == nil && s.Loadgen != "" {
		s.loadgenWords = append([]string{}, w...)
	}
}

func (r *Run) compile() {
	if w, err := splitWords(r.Args); err == nil {
		r.argWords = append([]string{}, w...)
	}
	if r.Fio == "" {
		return
	}
	if f, problems := parseFio(r.Fio); len(problems) == 0 {
		r.fio = f
	}
}

// transport is the named host's transport: the one Load parsed, else (a
// plan built in Go) parsed now; nil for a step that runs where walab runs.
func (p *Plan) transport(on string) (*transport, error) {
	if t := p.transports[on]; t != nil {
		return t, nil
	}
	return p.hostTransport(on)
}

// loadgenArgs are a loadgen step's words.
func (s *Step) loadgenArgs() ([]string, error) {
	if s.loadgenWords != nil {
		return s.loadgenWords, nil
	}
	return splitWords(s.Loadgen)
}

// args are a loadgen run's extra arguments.
func (r *Run) args() ([]string, error) {
	if r.argWords != nil {
		return r.argWords, nil
	}
	return splitWords(r.Args)
}

// fioLine is the run's fio command line, parsed.
func (r *Run) fioLine() (*fioLine, []string) {
	if r.fio != nil {
		return r.fio, nil
	}
	return parseFio(r.Fio)
}

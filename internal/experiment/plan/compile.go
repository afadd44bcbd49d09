package plan

import "fmt"

// compile hands over what Load validated as values ready to use, so that
// no caller splits the plan's words again: each host's transport, each
// loadgen step's words, each run's loadgen arguments and fio line. A plan
// built in Go rather than loaded has none of them; its lookups parse on
// demand.
func (p *Plan) compile() error {
	if p.Hosts != nil {
		p.transports = map[string]*transport{}
		for name, h := range map[string]*Host{HostDB: p.Hosts.DB, HostClient: p.Hosts.Client} {
			if h == nil || h.Exec == "" {
				continue
			}
			t, err := parseTransport(name, h)
			if err != nil {
				return err
			}
			p.transports[name] = t
		}
	}
	for _, list := range p.stepLists() {
		for i := range list {
			if err := list[i].compile(); err != nil {
				return err
			}
		}
	}
	for i := range p.Runs {
		if err := p.Runs[i].compile(); err != nil {
			return err
		}
	}
	return nil
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

func (s *Step) compile() error {
	if s.Loadgen == "" {
		return nil
	}
	w, err := splitWords(s.Loadgen)
	s.loadgenWords = append([]string{}, w...)
	return err
}

func (r *Run) compile() error {
	w, err := splitWords(r.Args)
	if err != nil {
		return fmt.Errorf("run %s: args: %w", r.Name, err)
	}
	r.argWords = append([]string{}, w...)
	if r.Fio == "" {
		return nil
	}
	f, problems := parseFio(r.Fio)
	if len(problems) > 0 {
		return fmt.Errorf("run %s: %v", r.Name, problems)
	}
	r.fio = f
	return nil
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

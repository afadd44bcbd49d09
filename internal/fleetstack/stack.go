// Package fleetstack is the fleet's monitoring stack, described once: the
// fleet test (test/fleetstack) and bench/fleet.sh (through
// tools/fleetstack) start it from here. Sharded vmagents scrape the
// simulated fleet and remote-write every sample to each store; a store is
// VictoriaMetrics single node or Thanos (receivers in a hashring with
// replication, a querier deduplicating their replicas), each with walab's
// rules evaluated by its own vmalert against the store's Prometheus API
// and its own Alertmanager. Every process runs on loopback, in its own
// process group, its log in Dir/log.
package fleetstack

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	svc "github.com/walab/walab/internal/service"
)

// Engine is a store's kind.
type Engine string

const (
	// SingleNode is VictoriaMetrics single node.
	SingleNode Engine = "victoria-metrics"
	// Thanos is Thanos receive (a hashring with replication) and query.
	Thanos Engine = "thanos"
)

// Config is a stack to start.
type Config struct {
	Dir     string   // working directory: data and logs
	Scrape  string   // vmagent's scrape configuration (Prometheus format)
	Rules   string   // walab's rules (alerts/gen's output)
	Engines []Engine // one store each, in this order
	Agents  int      // sharded vmagents (0: 2)
	// Receivers is Thanos' receivers (0: 3); each series is written to
	// Replication of them (0: 3; a write quorum of 2 then survives losing
	// one receiver).
	Receivers, Replication int
	Eval                   time.Duration // vmalert's evaluation interval (0: 5 s)
	Nice                   int           // niceness of every process
}

// Stack is a started stack.
type Stack struct {
	Stores []*Store
	Agents []*svc.Process
	cfg    Config
	bins   map[string]string
	procs  []*svc.Process // in start order
}

// Store is one engine's part of the stack.
type Store struct {
	Engine       Engine
	Query        string        // the Prometheus API's base URL
	Alertmanager string        // base URL
	Ruler        string        // vmalert's base URL
	write        []string      // where the agents write, round robin
	rulesWrite   string        // where vmalert writes its recording rules
	receivers    []svc.Service // Thanos' receivers, for a restart
	querier      svc.Service   // Thanos' querier, for a restart
	Procs        map[string]*svc.Process
}

// Programs are the binaries a stack of engines needs.
func Programs(engines []Engine) []string {
	p := []string{"vmagent", "vmalert", "prometheus-alertmanager"}
	for _, e := range engines {
		p = append(p, string(e))
	}
	return p
}

// Start starts the stack; on error it stops what it started.
func Start(ctx context.Context, cfg Config) (*Stack, error) {
	cfg = cfg.defaults()
	s := &Stack{cfg: cfg, bins: map[string]string{}}
	for _, p := range Programs(cfg.Engines) {
		bin, err := exec.LookPath(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (scripts/setup.sh installs it)", p, err)
		}
		s.bins[p] = bin
	}
	if err := s.start(ctx); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (c Config) defaults() Config {
	for _, d := range []struct {
		v   *int
		def int
	}{{&c.Agents, 2}, {&c.Receivers, 3}, {&c.Replication, 3}} {
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.Eval == 0 {
		c.Eval = 5 * time.Second
	}
	return c
}

func (s *Stack) start(ctx context.Context) error {
	for _, e := range s.cfg.Engines {
		st := &Store{Engine: e, Procs: map[string]*svc.Process{}}
		s.Stores = append(s.Stores, st)
		var err error
		if e == Thanos {
			err = s.startThanos(ctx, st)
		} else {
			err = s.startSingleNode(ctx, st)
		}
		if err == nil {
			err = s.startRules(ctx, st)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", e, err)
		}
	}
	return s.startAgents(ctx)
}

// service is program prog as the service name, niced, its log in
// Dir/log/name.log.
func (s *Stack) service(name, prog, ready string, args func(addr string) []string) svc.Service {
	bin := s.bins[prog]
	return svc.Service{Cmd: svc.Cmd{Name: name, Bin: "nice", Dir: s.cfg.Dir, Log: filepath.Join(s.cfg.Dir, "log", name+".log")},
		Ready: ready, Within: 2 * time.Minute,
		Args: func(a string) []string { return append([]string{"-n", strconv.Itoa(s.cfg.Nice), bin}, args(a)...) }}
}

// runService runs sv as a process of the stack and, unless st is nil, of
// the store st.
func (s *Stack) runService(ctx context.Context, st *Store, sv svc.Service) (*svc.Process, error) {
	p, err := sv.Run(ctx)
	if p != nil {
		s.procs = append(s.procs, p)
		if st != nil {
			st.Procs[sv.Name] = p
		}
	}
	return p, err
}

// Stop stops every process, newest first (the agents and rulers before
// the stores they write to), each with SIGTERM, SIGKILL after 10 s.
func (s *Stack) Stop() {
	for i := len(s.procs) - 1; i >= 0; i-- {
		s.procs[i].Stop(10 * time.Second)
	}
	s.procs = nil
}

// Processes are the stack's running processes by name.
func (s *Stack) Processes() []*svc.Process { return append([]*svc.Process(nil), s.procs...) }

// Store is the stack's store of engine e, nil without one.
func (s *Stack) Store(e Engine) *Store {
	for _, st := range s.Stores {
		if st.Engine == e {
			return st
		}
	}
	return nil
}

// Tails is the end of every process's log, for a failure's report.
func (s *Stack) Tails(n int) string {
	var b []byte
	for _, p := range s.procs {
		b = fmt.Appendf(b, "--- %s (%s) ---\n%s\n", p.Name, p.Log, p.Tail(n))
	}
	return string(b)
}

// Env is the stack as shell assignments: each store's query_, alertmanager_
// and ruler_ URL (the engine's name with _ for -), agents (the vmagents'
// base URLs), and each process's pid_ and url_ (by its name, _ for -).
func (s *Stack) Env() string {
	var b strings.Builder
	key := func(k string) string { return strings.NewReplacer("-", "_", ".", "_").Replace(k) }
	for _, st := range s.Stores {
		e := key(string(st.Engine))
		fmt.Fprintf(&b, "query_%s=%s\nalertmanager_%s=%s\nruler_%s=%s\n", e, st.Query, e, st.Alertmanager, e, st.Ruler)
	}
	var agents []string
	for _, a := range s.Agents {
		agents = append(agents, a.URL())
	}
	fmt.Fprintf(&b, "agents=(%s)\n", strings.Join(agents, " "))
	for _, p := range s.procs {
		fmt.Fprintf(&b, "pid_%s=%d\nurl_%s=%s\n", key(p.Name), p.Cmd.Process.Pid, key(p.Name), p.URL())
	}
	return b.String()
}

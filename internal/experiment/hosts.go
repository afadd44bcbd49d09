package experiment

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/mattn/go-shellwords"
	"go.yaml.in/yaml/v3"
)

// Host names of a plan's hosts: section.
const (
	HostDB     = "db"     // the database host: mysqld on the drive under test, its exporter
	HostClient = "client" // where walab and loadgen run
)

// Hosts are the machines of seed 000's two-machine set-up.
type Hosts struct {
	DB     *Host `yaml:"db"`
	Client *Host `yaml:"client"`
}

// Host is one machine. Exec is the command prefix that runs a command on
// it ("ssh db-server", "ip netns exec db"); Exporter its walab exporter,
// which the checks and fingerprints read its facts from.
type Host struct {
	Exporter string `yaml:"exporter"`
	Exec     string `yaml:"exec"`
	Line     int    `yaml:"-"`
}

func (h *Host) UnmarshalYAML(n *yaml.Node) error {
	type plain Host
	return decodeAt(n, &h.Line, (*plain)(h))
}

// host returns the named host of the plan, or nil.
func (p *Plan) host(name string) *Host {
	if p.Hosts == nil {
		return nil
	}
	switch name {
	case HostDB:
		return p.Hosts.DB
	case HostClient:
		return p.Hosts.Client
	}
	return nil
}

// restartHost is where a run's restart runs: a database restart is on the
// database host whenever the plan says how to reach it.
func (p *Plan) restartHost() string {
	if h := p.host(HostDB); h != nil && h.Exec != "" {
		return HostDB
	}
	return ""
}

// onHost prefixes a command's argv with the host's exec prefix. ssh joins
// its arguments into one remote command line, so for ssh the command is
// passed as one shell-quoted word; other prefixes (ip netns exec, sudo,
// nsenter) take the argv as it is.
func (p *Plan) onHost(on string, argv []string) ([]string, error) {
	h := p.host(on)
	if on == "" || on == HostClient && (h == nil || h.Exec == "") {
		return argv, nil
	}
	if h == nil || h.Exec == "" {
		return nil, fmt.Errorf("on: %s needs hosts.%s.exec", on, on)
	}
	prefix, err := shellwords.Parse(h.Exec)
	if err != nil || len(prefix) == 0 {
		return nil, fmt.Errorf("hosts.%s.exec %q: not a command prefix", on, h.Exec)
	}
	if filepath.Base(prefix[0]) == "ssh" {
		return append(prefix, shellQuoteAll(argv)), nil
	}
	return append(prefix, argv...), nil
}

// shellQuoteAll is argv as one line for a remote shell: words that need
// it are quoted.
func shellQuoteAll(argv []string) string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = a
		if !plainArg.MatchString(a) {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}

// hosts validates the hosts: section and every step's on:.
func (v *validator) hosts() {
	p := v.p
	if p.Hosts != nil {
		for _, h := range []struct {
			name string
			h    *Host
		}{{HostDB, p.Hosts.DB}, {HostClient, p.Hosts.Client}} {
			if h.h == nil {
				continue
			}
			if h.h.Exec != "" {
				if w, err := shellwords.Parse(h.h.Exec); err != nil || len(w) == 0 {
					v.add(h.h.Line, "hosts.%s.exec %q: not a command prefix", h.name, h.h.Exec)
				}
			}
			if u := h.h.Exporter; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				v.add(h.h.Line, "hosts.%s.exporter: %q: want an http:// or https:// URL", h.name, u)
			}
		}
	}
	lists := [][]Step{p.Prepare, p.Reset, p.Precondition}
	for _, r := range p.Runs {
		lists = append(lists, r.Between)
	}
	for _, list := range lists {
		for _, s := range list {
			v.stepHost(s)
		}
	}
}

func (v *validator) stepHost(s Step) {
	switch {
	case s.On == "" || s.On == HostClient:
	case s.On != HostDB:
		v.add(s.Line, "on %q: want db or client", s.On)
	case s.Loadgen != "":
		v.add(s.Line, "on: db: loadgen runs on the client (seed 000 §1.1); only commands run on the database host")
	case v.p.host(HostDB) == nil || v.p.host(HostDB).Exec == "":
		v.add(s.Line, "on: db needs hosts.db.exec, the command prefix that reaches the database host (e.g. ssh db-server)")
	}
}

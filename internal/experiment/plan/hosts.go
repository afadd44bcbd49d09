package plan

import (
	"strings"

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
	// RemoteShell says whether Exec joins its arguments into a remote
	// shell line (true, as ssh does) or runs them as they are (false), for
	// a prefix walab cannot classify (transport.go).
	RemoteShell *bool `yaml:"remote_shell"`
	Line        int   `yaml:"-"`
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
				if _, err := p.transport(h.name); err != nil {
					v.add(h.h.Line, "%v", err)
				}
			}
			if u := h.h.Exporter; u != "" && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
				v.add(h.h.Line, "hosts.%s.exporter: %q: want an http:// or https:// URL", h.name, u)
			}
		}
	}
	for _, list := range p.stepLists() {
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

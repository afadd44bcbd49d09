package fleetstack

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	svc "github.com/walab/walab/internal/service"
)

func (s *Stack) startSingleNode(ctx context.Context, st *Store) error {
	p, err := s.runService(ctx, st, s.service("victoria-metrics", "victoria-metrics", "/health", func(a string) []string {
		return []string{"-storageDataPath=" + filepath.Join(s.cfg.Dir, "vm"), "-httpListenAddr=" + a,
			"-retentionPeriod=1d", "-search.latencyOffset=1s", "-search.disableCache"}
	}))
	if err != nil {
		return err
	}
	st.Query = p.URL()
	st.write = []string{p.URL() + "/api/v1/write"}
	st.rulesWrite = st.write[0]
	return nil
}

// startThanos starts the receivers, each on a gRPC port of the hashring,
// a remote-write port and a Cap'n Proto replication port of its own (all
// on loopback), taking samples up to 2 minutes out of order (vmagent's
// parallel queues and retries deliver a series' samples out of order; a
// receiver without the window refuses the request with HTTP 409 and the
// sample is lost), labelled replica="rN" (what the
// querier deduplicates on), then the querier over them.
func (s *Stack) startThanos(ctx context.Context, st *Store) error {
	grpc, write, capnp := make([]string, s.cfg.Receivers), make([]string, s.cfg.Receivers), make([]string, s.cfg.Receivers)
	for i := range grpc {
		for _, a := range []*string{&grpc[i], &write[i], &capnp[i]} {
			port, err := svc.FreePort()
			if err != nil {
				return err
			}
			*a = "127.0.0.1:" + strconv.Itoa(port)
		}
	}
	ring, err := json.Marshal([]map[string]any{{"hashring": "default", "endpoints": grpc}})
	if err != nil {
		return err
	}
	ringFile := filepath.Join(s.cfg.Dir, "hashring.json")
	if err := os.WriteFile(ringFile, ring, 0o644); err != nil {
		return err
	}
	for i := range grpc {
		sv := s.service(fmt.Sprintf("thanos-receive%d", i), "thanos", "/-/ready", func(a string) []string {
			return []string{"receive", "--http-address=" + a, "--grpc-address=" + grpc[i],
				"--remote-write.address=" + write[i], "--receive.capnproto-address=" + capnp[i], "--receive.local-endpoint=" + grpc[i],
				"--receive.hashrings-file=" + ringFile, "--receive.replication-factor=" + strconv.Itoa(s.cfg.Replication),
				"--tsdb.path=" + filepath.Join(s.cfg.Dir, fmt.Sprintf("receive%d", i)), "--tsdb.retention=1d",
				"--tsdb.out-of-order.time-window=2m",
				fmt.Sprintf(`--label=replica="r%d"`, i), "--log.level=warn"}
		})
		p, err := s.runService(ctx, st, sv)
		if err != nil {
			return err
		}
		sv.Addr = p.Addr // a restart listens where it did
		st.receivers = append(st.receivers, sv)
		st.write = append(st.write, "http://"+write[i]+"/api/v1/receive")
	}
	if err := s.startRelay(ctx, st); err != nil {
		return err
	}
	sv := s.service("thanos-query", "thanos", "/-/ready", func(a string) []string {
		args := []string{"query", "--http-address=" + a, "--grpc-address=127.0.0.1:0",
			"--query.replica-label=replica", "--deduplication.func=chain", "--log.level=warn"}
		for _, g := range grpc {
			args = append(args, "--endpoint="+g)
		}
		return args
	})
	p, err := s.runService(ctx, st, sv)
	if err != nil {
		return err
	}
	sv.Addr = p.Addr // a restart listens where it did
	st.querier = sv
	st.Query = p.URL()
	return nil
}

// startRelay starts a vmagent that sorts the labels of vmalert's
// recording rules and writes them to receiver 0: vmalert appends __name__
// after the series' labels, and Thanos' receivers drop a series whose
// labels are out of order (VictoriaMetrics takes them in any order).
func (s *Stack) startRelay(ctx context.Context, st *Store) error {
	p, err := s.runService(ctx, st, s.service("thanos-rules-relay", "vmagent", "/health", func(a string) []string {
		return []string{"-sortLabels", "-remoteWrite.url=" + st.write[0], "-httpListenAddr=" + a,
			"-remoteWrite.tmpDataPath=" + filepath.Join(s.cfg.Dir, "rules-relay")}
	}))
	if err != nil {
		return err
	}
	st.rulesWrite = p.URL() + "/api/v1/write"
	return nil
}

// KillReceiver is kill -9 of Thanos receiver i.
func (st *Store) KillReceiver(i int) {
	st.Procs[st.receivers[i].Name].Kill()
}

// RestartReceiver starts receiver i again on its ports and data (its log
// in a file of its own) and waits until it is ready.
func (s *Stack) RestartReceiver(ctx context.Context, st *Store, i int) error {
	return s.restart(ctx, st, st.receivers[i])
}

// KillQuerier is kill -9 of Thanos' querier.
func (st *Store) KillQuerier() {
	st.Procs[st.querier.Name].Kill()
}

// RestartQuerier starts Thanos' querier again on its address (its log in
// a file of its own) and waits until it is ready.
func (s *Stack) RestartQuerier(ctx context.Context, st *Store) error {
	return s.restart(ctx, st, st.querier)
}

// restart runs sv again, its log in the first free
// Dir/log/name.restartN.log.
func (s *Stack) restart(ctx context.Context, st *Store, sv svc.Service) error {
	n := 1
	for ; ; n++ {
		if _, err := os.Lstat(filepath.Join(s.cfg.Dir, "log", fmt.Sprintf("%s.restart%d.log", sv.Name, n))); os.IsNotExist(err) {
			break
		}
	}
	sv.Log = filepath.Join(s.cfg.Dir, "log", fmt.Sprintf("%s.restart%d.log", sv.Name, n))
	_, err := s.runService(ctx, st, sv)
	return err
}

// startRules starts the store's Alertmanager and vmalert: walab's rules
// against the store's Prometheus API, recording rules written back to it
// (VictoriaMetrics, or Thanos' receiver 0 through the relay).
func (s *Stack) startRules(ctx context.Context, st *Store) error {
	pre := string(st.Engine) + "-"
	amCfg := filepath.Join(s.cfg.Dir, pre+"am.yml")
	if err := os.WriteFile(amCfg, []byte("route:\n  receiver: none\n  group_wait: 1s\n  group_interval: 1s\nreceivers:\n  - name: none\n"), 0o644); err != nil {
		return err
	}
	am, err := s.runService(ctx, st, s.service(pre+"alertmanager", "prometheus-alertmanager", "/-/ready", func(a string) []string {
		return []string{"--config.file=" + amCfg, "--storage.path=" + filepath.Join(s.cfg.Dir, pre+"am"),
			"--web.listen-address=" + a, "--cluster.listen-address="}
	}))
	if err != nil {
		return err
	}
	st.Alertmanager = am.URL()
	ruler, err := s.runService(ctx, st, s.service(pre+"vmalert", "vmalert", "/health", func(a string) []string {
		args := []string{"-rule=" + s.cfg.Rules, "-datasource.url=" + st.Query,
			"-remoteWrite.url=" + st.rulesWrite, "-remoteWrite.disablePathAppend",
			"-notifier.url=" + st.Alertmanager, "-evaluationInterval=" + s.cfg.Eval.String(), "-httpListenAddr=" + a}
		if st.Engine == SingleNode { // the alerts' state restored from the store at a restart
			args = append(args, "-remoteRead.url="+st.Query)
		}
		return args
	}))
	if err != nil {
		return err
	}
	st.Ruler = ruler.URL()
	return nil
}

// startAgents starts the sharded vmagents; agent i writes each store's
// samples to the store's write URL i (round robin over Thanos' receivers).
func (s *Stack) startAgents(ctx context.Context) error {
	for i := range s.cfg.Agents {
		p, err := s.runService(ctx, nil, s.service(fmt.Sprintf("vmagent%d", i), "vmagent", "/health", func(a string) []string {
			args := []string{"-promscrape.config=" + s.cfg.Scrape, "-sortLabels", "-promscrape.cluster.membersCount=" + strconv.Itoa(s.cfg.Agents),
				"-promscrape.cluster.memberNum=" + strconv.Itoa(i), "-remoteWrite.tmpDataPath=" + filepath.Join(s.cfg.Dir, fmt.Sprintf("vmagent%d", i)),
				"-httpListenAddr=" + a}
			for _, st := range s.Stores {
				args = append(args, "-remoteWrite.url="+st.write[i%len(st.write)])
			}
			return args
		}))
		if err != nil {
			return err
		}
		s.Agents = append(s.Agents, p)
	}
	return nil
}

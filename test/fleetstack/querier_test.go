package fleetstack

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	fstack "github.com/walab/walab/internal/fleetstack"
)

// TestFleetStackThanosQuerierLoss runs the fleet through both stores as
// TestFleetStackThanosReceiverLoss does; once Thanos' Alertmanager has
// held the regression alert of every regressed drive, Thanos' querier is
// killed with -9 and started again on its address 30 s later. During the
// gap Thanos' vmalert reports its rules' evaluation errors (what a user
// sees); after it, the alert is sent again on exactly the regressed
// drives, the rules evaluate without error, and the querier answers every
// sample of the regressed drives' hosts, the gap's too, that
// VictoriaMetrics holds: the receivers ingested through the querier's
// loss. Under CI=true a missing binary (thanos too) fails it.
func TestFleetStackThanosQuerierLoss(t *testing.T) {
	requirePrograms(t, fstack.SingleNode, fstack.Thanos)
	r := runFleet(t, loseQuerier, fstack.SingleNode, fstack.Thanos)
	vm, th := r.stack.Store(fstack.SingleNode).Query, r.stack.Store(fstack.Thanos).Query
	checkSamples(t, vm, th, r.regressed, r.scraping.Add(10*time.Second), r.end.Add(-10*time.Second))
}

// loseQuerier is the events of Thanos' querier's loss: kill -9 once
// Thanos' Alertmanager has held the regressed drives' alerts and the
// querier has answered the top WA change, and a restart 30 s
// later (in the background: the clock goes on) after reading what vmalert
// reports; once the querier is back, Thanos' alerts must come again.
// finished waits until vmalert's regression rule evaluates without error.
func loseQuerier(t *testing.T, s *fstack.Stack, _ time.Time) (events []event, finished func()) {
	th := s.Store(fstack.Thanos)
	var killed time.Time
	var restartErr error
	restarted := make(chan error, 1)
	return []event{
			{when: func(shown map[fstack.Engine]*seen) bool { return shown[fstack.Thanos].topChange != nil }, do: func() {
				th.KillQuerier()
				killed = time.Now()
				t.Log("killed thanos-query (kill -9)")
			}},
			{when: func(map[fstack.Engine]*seen) bool { return !killed.IsZero() && time.Since(killed) > 30*time.Second }, do: func() {
				e := ruleError(t, th.Ruler, alertName)
				require.NotEmpty(t, e, "vmalert reports the querier's loss")
				t.Logf("without the querier, vmalert reports for %s: %s; Thanos' Alertmanager holds %d of its alerts",
					alertName, e, len(amAlerts(t, th.Alertmanager, alertName, time.Time{})))
				go func() { restarted <- s.RestartQuerier(context.Background(), th) }()
			}},
			{when: func(map[fstack.Engine]*seen) bool {
				select {
				case restartErr = <-restarted:
					return true
				default:
					return false
				}
			}, do: func() {
				require.NoError(t, restartErr, "thanos-query's restart")
				t.Log("thanos-query is back on its address")
			}, again: fstack.Thanos},
		}, func() {
			e := ruleError(t, th.Ruler, alertName)
			for deadline := time.Now().Add(2 * time.Minute); e != "" && time.Now().Before(deadline); e = ruleError(t, th.Ruler, alertName) {
				time.Sleep(time.Second)
			}
			require.Empty(t, e, "vmalert evaluates %s without error again", alertName)
		}
}

// ruleError is the last evaluation error vmalert at ruler reports for its
// rule named name ("" without one).
func ruleError(t *testing.T, ruler, name string) string {
	t.Helper()
	resp, err := http.Get(ruler + "/api/v1/rules")
	require.NoError(t, err)
	defer resp.Body.Close()
	var out struct {
		Data struct {
			Groups []struct {
				Rules []struct {
					Name      string `json:"name"`
					LastError string `json:"lastError"`
				} `json:"rules"`
			} `json:"groups"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	for _, g := range out.Data.Groups {
		for _, r := range g.Rules {
			if r.Name == name {
				return r.LastError
			}
		}
	}
	require.Failf(t, "no such rule", "vmalert at %s has no rule %s", ruler, name)
	return ""
}

// Package alerts: the tests that hold the rules, alerts, dashboards and stacks (moved from docs/lab.md).
//
// # Tests
//
//   - `go test ./alerts`: the generated files are current, `promtool check
//     rules`, and `promtool test rules` on `alerts/tests/*_test.yml` (rules
//     generated with `alerts/tests/config.yml` over the production config: a
//     per-device reference, `baseline_offset: 2h`, a 30 m regression duration).
//     Hourly WA, 24 h and run WA, reference, both reductions and the
//     per-New-Order cost are checked against hand-computed values on five hours
//     of synthetic counters; every alert fires when it should and stays silent
//     on a healthy twin. Counter steps are chosen so every value is exact in
//     binary (promtool 2.42 has no fuzzy compare).
//   - `go test ./dashboards ./internal/dashboard`: golden JSON, layout, refIds.
//   - `go test ./deploy`: compose file through compose-go (services, pinned
//     images, mounted files exist, loopback ports, healthchecks, depends_on
//     conditions), `promtool check config`, `amtool check-config`, k8s objects.
//   - `go test ./internal/compare ./walab`: tables, CSV/PNG, and `Compare`
//     against a real Prometheus whose TSDB is backfilled with `promtool tsdb
//     create-blocks-from openmetrics` (a baseline and a streams run 30 hours
//     apart give exactly 12 %).
//   - `go test ./e2e` (about 1-2 minutes): the machine's MariaDB and a second
//     mariadbd, the real exporter on a replayed FDP drive whose counters the
//     test advances, loadgen TPC-C on both instances, node_exporter,
//     Prometheus and Alertmanager on loopback. The rules are generated with
//     `e2e/testdata/rules-override.yml`: the same rules over a 20 s "hour", so a
//     WA regression injected through the replayed counters (WA 1.5 → 3) reaches
//     the test's webhook within a minute. Then every dashboard query is run
//     through Prometheus' HTTP API (a parse error fails the test) and the panels
//     this stack feeds must return data.
//   - `go test -run TestLabSimulatedPlacement ./e2e` (about 1 minute, needs
//     only Prometheus): the real exporter with empty `--path.sysfs` and
//     `--path.devfs`, so it serves the simulated drive (a 256 MiB drive, 10 %
//     spare, the MySQL-like mix with astream-like rules, about two drive turns
//     per real second), and Prometheus with the same 20 s-"hour" rules. After
//     eight drive turns and one full window with placement on, the hourly WA
//     recording rule reads about 1.34. The test then switches placement off with
//     `POST /api/v1/sim/placement?streams=off` and waits until the same series
//     is more than 10 % higher. It reaches about 1.69 (+25 %) once the window
//     holds only placement-off traffic. It also checks that
//     `walab_nvme_info{simulated="true",source="ocp_c0"}` reaches Prometheus.
package alerts

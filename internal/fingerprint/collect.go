package fingerprint

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/walab/walab/internal/innodb"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// MySQLVariables are the variables a fingerprint records: the ones the
// exporter reports as walab_mysql_setting (one list, innodb.SeedVariables).
var MySQLVariables = innodb.SeedVariables

// QueryMySQL reads an instance's version and MySQLVariables (the ones the
// server has; MariaDB lacks some of MySQL's and the other way round).
func QueryMySQL(ctx context.Context, target, dsn string) MySQL {
	m := MySQL{Target: target}
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		m.Error = err.Error()
		return m
	}
	defer db.Close()
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&m.Version); err != nil {
		m.Error = err.Error()
		return m
	}
	if m.Variables, err = nameValues(ctx, db, innodb.VariablesQuery(MySQLVariables)); err != nil {
		m.Error = err.Error()
		return m
	}
	if m.Status, err = nameValues(ctx, db, statusQuery); err != nil {
		m.Error = err.Error()
	}
	return m
}

// MySQLStatus are the status variables a fingerprint records.
var MySQLStatus = []string{"Innodb_buffer_pool_load_status", "Innodb_buffer_pool_dump_status"}

var statusQuery = "SHOW GLOBAL STATUS WHERE Variable_name IN ('" + strings.Join(MySQLStatus, "', '") + "')"

// nameValues runs a SHOW that answers (name, value) rows, names lower-cased.
func nameValues(ctx context.Context, db *sql.DB, query string) (map[string]string, error) {
	rows, err := db.QueryContext(ctx, query)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return nil, err
		}
		out[strings.ToLower(k)] = v
	}
	return out, rows.Err()
}

// Families are one scrape of an exporter's /metrics.
type Families map[string]*dto.MetricFamily

const maxScrape = 64 << 20

// Scrape reads and parses a /metrics page (text format).
func Scrape(ctx context.Context, client *http.Client, url string) (Families, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/plain;version=0.0.4")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(io.LimitReader(resp.Body, maxScrape))
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", url, err)
	}
	return fams, nil
}

// Sample is one series of a scrape: its labels and value.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// All returns every sample of name whose labels include match.
func (f Families) All(name string, match map[string]string) []Sample {
	mf := f[name]
	if mf == nil {
		return nil
	}
	var out []Sample
next:
	for _, m := range mf.Metric {
		ls := map[string]string{}
		for _, lp := range m.Label {
			ls[lp.GetName()] = lp.GetValue()
		}
		for k, want := range match {
			if ls[k] != want {
				continue next
			}
		}
		s := Sample{Labels: ls}
		switch {
		case m.Gauge != nil:
			s.Value = m.Gauge.GetValue()
		case m.Counter != nil:
			s.Value = m.Counter.GetValue()
		case m.Untyped != nil:
			s.Value = m.Untyped.GetValue()
		default:
			continue
		}
		out = append(out, s)
	}
	return out
}

// Get returns the first sample of name whose labels include match; ok is
// false when there is none.
func (f Families) Get(name string, match map[string]string) (v float64, labels map[string]string, ok bool) {
	if all := f.All(name, match); len(all) > 0 {
		return all[0].Value, all[0].Labels, true
	}
	return 0, nil, false
}

func ptr[T any](v T) *T { return &v }

func (d *Drive) setFDP(k string, v float64) {
	if d.FDPConfig == nil {
		d.FDPConfig = map[string]float64{}
	}
	d.FDPConfig[k] = v
}

// SimPath is the simulated drive's placement endpoint on the exporter.
const SimPath = "/api/v1/sim/placement"

// SimState is the part of the simulator's state a fingerprint records.
type SimState struct {
	Placement bool    `json:"placement"`
	Fill      float64 `json:"fill_ratio"`
	LastError string  `json:"last_error"`
	// Precondition is what re-preconditioning wrote since the exporter
	// started; nil from an exporter that does not say.
	Precondition *float64 `json:"precondition_written_bytes"`
	// CapacityBytes is the drive's logical capacity (walab lab's growth
	// projection; no fingerprint field).
	CapacityBytes float64 `json:"capacity_bytes"`
}

// GetSim reads the simulated drive's state from the exporter.
func GetSim(ctx context.Context, client *http.Client, base string) (SimState, error) {
	var st SimState
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+SimPath, nil)
	if err != nil {
		return st, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return st, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return st, fmt.Errorf("GET %s: %s", SimPath, resp.Status)
	}
	return st, json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&st)
}

// ReadDrive builds the drive part from the exporter at base (its /metrics,
// and the simulator's state when the drive is simulated).
func ReadDrive(ctx context.Context, client *http.Client, base, device string) (*Drive, error) {
	fams, err := Scrape(ctx, client, base+"/metrics")
	if err != nil {
		return nil, err
	}
	d, err := driveOf(fams, device)
	if err != nil {
		return nil, fmt.Errorf("exporter %s %w", base, err)
	}
	if d.Simulated {
		st, err := GetSim(ctx, client, base)
		if err != nil {
			return d, fmt.Errorf("simulated drive state: %w", err)
		}
		d.SimPlacement = ptr(st.Placement)
		d.Fill = ptr(st.Fill)
		d.PreconditionWrittenBytes = st.Precondition
	}
	return d, nil
}

// ReadPerDevice fills f.Drives and f.IOSizes from one scrape of the
// exporter at base: every NVMe drive it reports (walab_nvme_info), in
// device order, with its counters and the arrays it is under, and every
// I/O-size histogram (the io_size collector's, when on): seed 001's
// per-drive table and size profile read them at a run's start and end.
// The simulator's state is not read (ReadDrive has it).
func ReadPerDevice(ctx context.Context, client *http.Client, base string, f *Fingerprint) error {
	fams, err := Scrape(ctx, client, base+"/metrics")
	if err != nil {
		return err
	}
	if f.Drives, err = drivesOf(fams); err != nil {
		return err
	}
	f.IOSizes = ioSizesOf(fams)
	return nil
}

// ioSizesOf reads the I/O-size histograms of a scrape, sorted by
// device and operation.
func ioSizesOf(fams Families) []IOSize {
	mf := fams[strings.TrimSuffix(promql.BlockdevIOSizeBucket, "_bucket")]
	if mf == nil {
		return nil
	}
	var out []IOSize
	for _, m := range mf.GetMetric() {
		h := m.GetHistogram()
		if h == nil {
			continue
		}
		s := IOSize{Count: h.GetSampleCount(), Bytes: h.GetSampleSum()}
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "device":
				s.Device = l.GetValue()
			case "op":
				s.Op = l.GetValue()
			}
		}
		for _, b := range h.GetBucket() {
			if ub := b.GetUpperBound(); !math.IsInf(ub, 1) {
				s.Bounds, s.Buckets = append(s.Bounds, ub), append(s.Buckets, b.GetCumulativeCount())
			}
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b IOSize) int { return strings.Compare(a.Device+"\x00"+a.Op, b.Device+"\x00"+b.Op) })
	return out
}

// drivesOf is ReadDrives over one scrape.
func drivesOf(fams Families) ([]Drive, error) {
	seen := map[string]bool{}
	var out []Drive
	for _, s := range fams.All(promql.NVMeInfo, nil) {
		dev := s.Labels["device"]
		if seen[dev] {
			continue
		}
		seen[dev] = true
		d, err := driveOf(fams, dev)
		if err != nil {
			return nil, err
		}
		arrays := map[string]bool{}
		for _, l := range fams.All(promql.BlockdevLeafInfo, map[string]string{"controller": dev}) {
			arrays[l.Labels["array"]] = true
		}
		d.Arrays = slices.Sorted(maps.Keys(arrays))
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b Drive) int { return strings.Compare(a.Device, b.Device) })
	return out, nil
}

// driveOf builds one device's drive part from a scrape.
func driveOf(fams Families, device string) (*Drive, error) {
	dev := map[string]string{"device": device}
	_, info, ok := fams.Get(promql.NVMeInfo, dev)
	if !ok {
		return nil, fmt.Errorf("has no "+promql.NVMeInfo+" for device %q", device)
	}
	d := &Drive{Device: device, Model: info["model"], Serial: info["serial"], Firmware: info["firmware"],
		Source: info["source"], Simulated: info["simulated"] == "true"}
	get := func(name string, match map[string]string) *float64 {
		if v, _, ok := fams.Get(name, match); ok {
			return ptr(v)
		}
		return nil
	}
	d.CapacityBytes = get(promql.NVMeCapacity, dev)
	d.HostWrittenBytes = get(promql.NVMeHostWrittenBytes, dev)
	d.MediaWrittenBytes = get(promql.NVMeMediaWrittenBytes, dev)
	d.WA1h = get(promql.NVMeWriteAmplification, map[string]string{"device": device, "window": "1h"})
	d.RunStart = get(promql.NVMeRunStart, dev)
	for _, s := range fams.All(promql.NVMeDirectiveEnabled, dev) {
		if d.Directives == nil {
			d.Directives = map[string]bool{}
		}
		d.Directives[s.Labels["directive"]] = s.Value == 1
	}
	if v := get(promql.NVMeFDPEnabled, dev); v != nil {
		d.FDP = ptr(*v == 1)
	}
	for k, n := range map[string]string{"reclaim_unit_size_bytes": promql.NVMeFDPUnitSize, "reclaim_unit_handles": promql.NVMeFDPHandles} {
		if v := get(n, dev); v != nil {
			d.setFDP(k, *v)
		}
	}
	for _, s := range fams.All(promql.NVMeFDPHandlesUsed, dev) {
		d.setFDP("handles_used_"+s.Labels["by"], s.Value)
	}
	readNamespaces(d, fams, dev)
	readFilePlacement(d, fams)
	if v, l, ok := fams.Get(promql.PlacementHintsEffective, dev); ok {
		d.Hints = l["reason"]
		if v == 1 {
			d.Hints = "effective: " + d.Hints
		}
	}
	for _, s := range fams.All(promql.PlacementDaemonRunning, nil) {
		if d.Daemons == nil {
			d.Daemons = map[string]bool{}
		}
		d.Daemons[s.Labels["daemon"]] = s.Value == 1
	}
	return d, nil
}

// readNamespaces fills d's per-namespace facts: each namespace's written
// bytes and the handles the FDP events name for it.
func readNamespaces(d *Drive, fams Families, dev map[string]string) {
	name := func(l map[string]string) string {
		if b := l["namespace"]; b != "" {
			return b
		}
		return "nsid " + l["nsid"]
	}
	for _, s := range fams.All(promql.NVMeNamespaceWrittenBytes, dev) {
		if d.NamespaceWritten == nil {
			d.NamespaceWritten = map[string]float64{}
		}
		d.NamespaceWritten[name(s.Labels)] = s.Value
	}
	for _, s := range fams.All(promql.NVMeFDPNamespaceHandleEvents, dev) {
		addHandle(&d.NamespaceHandles, name(s.Labels), s)
	}
}

// addHandle adds s's handle label to (*m)[key], ascending, once, when s
// counted something.
func addHandle(m *map[string][]int, key string, s Sample) {
	h, err := strconv.Atoi(s.Labels["handle"])
	if err != nil || s.Value <= 0 {
		return
	}
	if *m == nil {
		*m = map[string][]int{}
	}
	if !slices.Contains((*m)[key], h) {
		(*m)[key] = append((*m)[key], h)
		slices.Sort((*m)[key])
	}
}

// readFilePlacement reads the filesystem's device backend, whichever
// simulated drive it feeds: its policy and, by file class, the handles
// its writes carried.
func readFilePlacement(d *Drive, fams Families) {
	for _, s := range fams.All(promql.SimFSDeviceInfo, nil) {
		d.FilePlacement = s.Labels["policy"]
	}
	for _, s := range fams.All(promql.SimFSDeviceWrittenBytes, nil) {
		addHandle(&d.FileClassHandles, s.Labels["class"], s)
	}
}

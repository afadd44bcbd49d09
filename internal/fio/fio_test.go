package fio

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return b
}

// TestParseGroupReport: seed 002's randwrite line (scaled to 16 MiB, 2 s)
// with group_reporting, as fio 3.33 printed it: one group, the write side
// only; the read side has no I/O and therefore no latency.
func TestParseGroupReport(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-randwrite-group.json"))
	require.NoError(t, err)
	require.Equal(t, "fio-3.33", o.Version)
	require.Len(t, o.Jobs, 1)
	j := o.Jobs[0]
	require.Equal(t, "test-rand-write", j.Name)
	require.InDelta(t, 33991.701245, j.Write.IOPS, 1e-6)
	require.InDelta(t, 139230008, j.Write.BytesPerSecond, 0.5)
	require.Equal(t, uint64(8192), j.Write.IOs)
	require.Equal(t, uint64(32<<20), j.Write.Bytes, "2 jobs × 16 MiB")
	p99, ok := j.Write.Clat(99)
	require.True(t, ok)
	require.Equal(t, 35389440.0, p99)
	p999, ok := j.Write.Clat(99.9)
	require.True(t, ok)
	require.GreaterOrEqual(t, p999, p99)
	_, ok = j.Read.Clat(99)
	require.False(t, ok, "no reads: no read latency")
	require.Nil(t, j.Read.ClatMeanNs)
	require.Nil(t, j.Steady)
	tot := o.Total()
	require.Equal(t, 0, tot.JobsWithError)
	require.InDelta(t, j.Write.IOPS, tot.WriteIOPS, 1e-9)
}

// TestParseJSONPlusTwoJobs: json+ (latency bins) of two jobs without
// group_reporting: each job on its own, the totals their sum.
func TestParseJSONPlusTwoJobs(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-randrw-jsonplus.json"))
	require.NoError(t, err)
	require.Len(t, o.Jobs, 2)
	tot := o.Total()
	require.InDelta(t, 19490.196078+19000.0, tot.ReadIOPS, 1e-6)
	require.InDelta(t, 20666.666667+20384.615385, tot.WriteIOPS, 1e-6)
	require.Equal(t, uint64(994+988), tot.ReadIOs)
	for _, j := range o.Jobs {
		ps := j.Read.ClatPercentiles
		require.NotEmpty(t, ps)
		for i := 1; i < len(ps); i++ {
			require.Less(t, ps[i-1].P, ps[i].P)
			require.LessOrEqual(t, ps[i-1].Ns, ps[i].Ns)
		}
	}
}

func TestParseSteadyState(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-steadystate.json"))
	require.NoError(t, err)
	s := o.Jobs[0].Steady
	require.NotNil(t, s)
	require.Equal(t, Steady{Criterion: "iops:20.000000%", Attained: true, DurationS: 2, Measured: "4.047131%"}, *s)
	tot := o.Total()
	require.Equal(t, 1, tot.SteadyJobs)
	require.Equal(t, 1, tot.SteadyAttained)
}

// TestParseRefuses: what is not a whole report is an error that says why.
func TestParseRefuses(t *testing.T) {
	good := read(t, "fio-3.33-randwrite-group.json")
	for _, tc := range []struct{ in, want string }{
		{"", "no JSON object"},
		{"fio: failed to open testfile\n", "no JSON object"},
		{string(good[:len(good)/2]), "fio report"},
		{`{"fio version":"fio-3.33","jobs":[]}`, "has no jobs"},
		{`{"jobs":[{"jobname":"x","write":{"total_ios":1,"io_bytes":1,"bw_bytes":1,"iops":-1}}]}`, "iops -1 is not a rate"},
		{`{"jobs":[{"jobname":"x","write":{"total_ios":1,"io_bytes":1,"bw_bytes":1,"iops":1,"clat_ns":{"N":1,"percentile":{"abc":1}}}}]}`, `clat percentile "abc"`},
		{`{"jobs":[{"jobname":"x","write":{"total_ios":1,"io_bytes":1,"bw_bytes":1,"iops":1,"clat_ns":{"N":1,"percentile":{"99":1,"99.000000":2}}}}]}`, "given twice"},
		{string(good) + string(good), "more than one JSON value"},
		{`{"fio version":"fio-2.1.11","jobs":[{"jobname":"x","write":{"io_bytes":4,"bw":1,"iops":1,"runtime":4}}]}`, "no total_ios (fio before 2.2"},
		{`{"jobs":[{"jobname":"x","write":{"total_ios":1,"io_bytes":4,"runtime":4,"iops":1}}]}`, "no bw_bytes or bw"},
		{`{"jobs":[{"jobname":"x","sync":{"total_ios":1}}]}`, "no read, write, trim or mixed figures"},
	} {
		_, err := Parse([]byte(tc.in))
		require.ErrorContains(t, err, tc.want, "input %.60q", tc.in)
	}
}

// TestParseNotes: a note fio prints before the JSON is kept, not an error.
func TestParseNotes(t *testing.T) {
	in := "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n" + string(read(t, "fio-3.33-randwrite-group.json"))
	o, err := Parse([]byte(in))
	require.NoError(t, err)
	require.Len(t, o.Notes, 1)
	require.Len(t, o.Jobs, 1)
}

// FuzzParse: any input is parsed or refused, never a panic; what is
// parsed has finite, non-negative rates and ascending percentiles, and
// survives a round trip through the JSON walab records.
func FuzzParse(f *testing.F) {
	names, err := filepath.Glob(filepath.Join("testdata", "fio-*"))
	if err != nil || len(names) < 10 {
		f.Fatalf("fixtures: %v %v", names, err)
	}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		require.NotEmpty(t, o.Jobs)
		for _, j := range o.Jobs {
			require.Equal(t, j.MixedOnly, j.MixedOnly && j.Mixed != nil, "mixed only without mixed figures")
			for _, d := range []Dir{j.Read, j.Write, j.Trim} {
				for _, x := range []float64{d.IOPS, d.BytesPerSecond, j.IOPS()} {
					require.False(t, x < 0 || math.IsNaN(x) || math.IsInf(x, 0), "rate %v", x)
				}
				for i := 1; i < len(d.ClatPercentiles); i++ {
					require.Less(t, d.ClatPercentiles[i-1].P, d.ClatPercentiles[i].P)
				}
			}
		}
		tot := o.Total()
		for _, x := range []float64{tot.IOPS, tot.BytesPerSecond, tot.ReadIOPS, tot.WriteIOPS, tot.TrimIOPS, tot.ReadBytesPerSecond, tot.WriteBytesPerSecond} {
			require.False(t, math.IsInf(x, 0) || math.IsNaN(x), "total %v", x)
		}
		_, err = json.Marshal(tot)
		require.NoError(t, err)
		b, err := json.Marshal(o)
		require.NoError(t, err)
		var back Output
		require.NoError(t, json.Unmarshal(b, &back))
	})
}

// fixture is what one direction of one job of a fixture must read as, in
// base units; a nil latency is one fio did not print or did not measure.
type fixture struct {
	file, version string
	job           int
	dir           string
	iops, bps     float64
	bytes, ios    uint64
	mean, p99     *float64 // ns
}

func ns(v float64) *float64 { return &v }

func direction(t *testing.T, j Job, name string) Dir {
	t.Helper()
	switch name {
	case "read":
		return j.Read
	case "write":
		return j.Write
	case "mixed":
		require.NotNil(t, j.Mixed, "job %s has no mixed figures", j.Name)
		return *j.Mixed
	}
	t.Fatalf("direction %s", name)
	return Dir{}
}

// TestParseFormats: each shape of fio's report users meet, from the
// version named in the fixture's file name, reads as the figures fio
// printed, in base units.
func TestParseFormats(t *testing.T) {
	for _, c := range fioFixtures {
		t.Run(c.file+"/"+c.dir, func(t *testing.T) {
			o, err := Parse(read(t, c.file))
			require.NoError(t, err)
			require.Equal(t, c.version, o.Version)
			d := direction(t, o.Jobs[c.job], c.dir)
			require.InDelta(t, c.iops, d.IOPS, 1e-6)
			require.InDelta(t, c.bps, d.BytesPerSecond, 1e-6)
			require.Equal(t, c.bytes, d.Bytes)
			require.Equal(t, c.ios, d.IOs)
			if c.mean == nil {
				require.Nil(t, d.ClatMeanNs, "a latency fio did not measure")
			} else {
				require.NotNil(t, d.ClatMeanNs, "clat mean")
				require.InDelta(t, *c.mean, *d.ClatMeanNs, 1e-6)
			}
			p99, ok := d.Clat(99)
			require.Equal(t, c.p99 != nil, ok, "clat p99 present")
			if ok {
				require.Equal(t, *c.p99, p99)
			}
		})
	}
}

// TestParseMixed: with --unified_rw_reporting=mixed fio prints only
// "mixed"; the job's IOPS are those, not 0 read + 0 write. With "both" the
// read and write figures are the job's, and mixed is their sum.
func TestParseMixed(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-mixed.json"))
	require.NoError(t, err)
	j := o.Jobs[0]
	require.True(t, j.MixedOnly)
	require.InDelta(t, 9615.023474, j.IOPS(), 1e-6)
	tot := o.Total()
	require.InDelta(t, 9615.023474, tot.IOPS, 1e-6)
	require.InDelta(t, 39383136, tot.BytesPerSecond, 1e-6)
	require.Equal(t, 1, tot.MixedOnlyJobs)

	o, err = Parse(read(t, "fio-3.33-both.json"))
	require.NoError(t, err)
	j = o.Jobs[0]
	require.False(t, j.MixedOnly)
	require.InDelta(t, 3280.528053+3478.547855, j.IOPS(), 1e-6)
	require.InDelta(t, j.Mixed.IOPS, j.IOPS(), 0.01, "mixed is read + write")
	tot = o.Total()
	require.InDelta(t, j.IOPS(), tot.IOPS, 1e-9, "mixed not counted twice")
	require.Equal(t, 0, tot.MixedOnlyJobs)
}

// TestParseInterrupted: fio stopped by a signal writes its report with
// "fio: terminating on signal 2" before it; the report says so.
func TestParseInterrupted(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-interrupted.json"))
	require.NoError(t, err)
	require.Equal(t, "signal 2", o.Interrupted)
	o, err = Parse(read(t, "fio-3.33-randwrite-group.json"))
	require.NoError(t, err)
	require.Empty(t, o.Interrupted)
}

// TestParseClientServer: fio --client's report holds client_stats, not
// jobs: refused as what it is.
func TestParseClientServer(t *testing.T) {
	_, err := Parse(read(t, "fio-3.33-client-server.json"))
	require.ErrorContains(t, err, "client/server output (fio --client, 1 client_stats entries)")
}

// TestParseNormalAfterJSON: --output-format=normal,json puts fio's text
// report around the JSON; the JSON is read, the text after it noted.
func TestParseNormalAfterJSON(t *testing.T) {
	o, err := Parse(read(t, "fio-3.33-normal-and-json.txt"))
	require.NoError(t, err)
	require.Contains(t, o.Notes, "fio-3.33")
	require.Regexp(t, `^\d+ lines after the JSON \(fio's normal or terse output\), not read$`, o.Notes[len(o.Notes)-1])
}

// twoJobs is a report of two write jobs with the given iops and total_ios.
func twoJobs(iops string, ios string) []byte {
	j := `{"jobname":"j%d","error":0,"write":{"iops":` + iops + `,"io_bytes":1,"io_kbytes":0,"bw_bytes":1,"total_ios":` + ios + `}}`
	return []byte(`{"fio version":"fio-3.33","jobs":[` + fmt.Sprintf(j, 1) + "," + fmt.Sprintf(j, 2) + `]}`)
}

// TestParseRefusesOverflowingSums: jobs whose IOPS sum past a float64, or
// whose I/O counts sum past a uint64, are refused with the reason: no
// +Inf and no wrapped count reaches the run's record (issue 54).
func TestParseRefusesOverflowingSums(t *testing.T) {
	_, err := Parse(twoJobs("1.7e308", "1"))
	require.ErrorContains(t, err, "write IOPS")
	require.ErrorContains(t, err, "overflow")
	_, err = Parse(twoJobs("1", "18446744073709551615"))
	require.ErrorContains(t, err, "write I/Os")
	o, err := Parse(twoJobs("8.5e307", "9223372036854775807"))
	require.NoError(t, err, "sums that fit are read")
	tot := o.Total()
	require.Equal(t, 1.7e308, tot.WriteIOPS)
	require.Equal(t, uint64(math.MaxUint64-1), tot.WriteIOs)
}

// TestTotalCountsIOErrors: a job that went on after I/O errors
// (continue_on_error: total_err > 0, error 0) is a job with errors.
func TestTotalCountsIOErrors(t *testing.T) {
	o, err := Parse([]byte(`{"jobs":[{"jobname":"c","error":0,"total_err":12,"write":{"iops":1,"io_bytes":1,"io_kbytes":0,"bw_bytes":1,"total_ios":1}},` +
		`{"jobname":"d","error":0,"total_err":0,"write":{"iops":1,"io_bytes":1,"io_kbytes":0,"bw_bytes":1,"total_ios":1}}]}`))
	require.NoError(t, err)
	tot := o.Total()
	require.Equal(t, 1, tot.JobsWithError)
	require.Equal(t, uint64(12), tot.IOErrors)
}

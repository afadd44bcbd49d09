package fio

import (
	"encoding/json"
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
	o, err := Parse(read(t, "randwrite-group.json"))
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
	o, err := Parse(read(t, "randrw-jsonplus.json"))
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
	o, err := Parse(read(t, "steadystate.json"))
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
	good := read(t, "randwrite-group.json")
	for _, tc := range []struct{ in, want string }{
		{"", "no JSON object"},
		{"fio: failed to open testfile\n", "no JSON object"},
		{string(good[:len(good)/2]), "fio report"},
		{`{"fio version":"fio-3.33","jobs":[]}`, "has no jobs"},
		{`{"jobs":[{"jobname":"x","write":{"iops":-1}}]}`, "iops -1 is not a rate"},
		{`{"jobs":[{"jobname":"x","write":{"iops":1,"clat_ns":{"N":1,"percentile":{"abc":1}}}}]}`, `clat percentile "abc"`},
		{`{"jobs":[{"jobname":"x","write":{"iops":1,"clat_ns":{"N":1,"percentile":{"99":1,"99.000000":2}}}}]}`, "given twice"},
		{string(good) + string(good), "more than one JSON value"},
	} {
		_, err := Parse([]byte(tc.in))
		require.ErrorContains(t, err, tc.want, "input %.60q", tc.in)
	}
}

// TestParseNotes: a note fio prints before the JSON is kept, not an error.
func TestParseNotes(t *testing.T) {
	in := "note: both iodepth >= 1 and synchronous I/O engine are selected, queue depth will be capped at 1\n" + string(read(t, "randwrite-group.json"))
	o, err := Parse([]byte(in))
	require.NoError(t, err)
	require.Len(t, o.Notes, 1)
	require.Len(t, o.Jobs, 1)
}

// FuzzParse: any input is parsed or refused, never a panic; what is
// parsed has finite, non-negative rates and ascending percentiles, and
// survives a round trip through the JSON walab records.
func FuzzParse(f *testing.F) {
	for _, n := range []string{"randwrite-group.json", "steadystate.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", n))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"jobs":[{"jobname":"x","read":{"iops":1,"clat_us":{"N":1,"mean":2,"percentile":{"50.000000":3}}}}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := Parse(data)
		if err != nil {
			return
		}
		require.NotEmpty(t, o.Jobs)
		for _, j := range o.Jobs {
			for _, d := range []Dir{j.Read, j.Write, j.Trim} {
				for _, x := range []float64{d.IOPS, d.BytesPerSecond} {
					require.False(t, x < 0 || math.IsNaN(x) || math.IsInf(x, 0), "rate %v", x)
				}
				for i := 1; i < len(d.ClatPercentiles); i++ {
					require.Less(t, d.ClatPercentiles[i-1].P, d.ClatPercentiles[i].P)
				}
			}
		}
		b, err := json.Marshal(o)
		require.NoError(t, err)
		var back Output
		require.NoError(t, json.Unmarshal(b, &back))
	})
}

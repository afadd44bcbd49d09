package hotspots

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/cpuprof"
)

// TestReadExporterProfile reads back what the exporter's endpoint writes
// (cpuprof.Profile) into self samples by leaf function.
func TestReadExporterProfile(t *testing.T) {
	spin := cpuprof.Frame{Function: "ut_delay", Module: "mariadbd", Path: "/usr/sbin/mariadbd", Addr: 0x100}
	caller := cpuprof.Frame{Function: "srw_mutex_impl::wait_and_lock", Module: "mariadbd", Path: "/usr/sbin/mariadbd", Addr: 0x200}
	kspin := cpuprof.Frame{Function: "native_queued_spin_lock_slowpath", Module: cpuprof.ModuleKernel, Addr: 0xffffffff81000100}
	samples := []cpuprof.Sample{
		{PID: 7, Comm: "mariadbd", Frames: []cpuprof.Frame{spin, caller}, Count: 30},
		{PID: 7, Comm: "mariadbd", Frames: []cpuprof.Frame{kspin, caller}, Count: 10},
		{PID: 7, Comm: "mariadbd", Frames: []cpuprof.Frame{{Function: "ut_delay", Module: "mariadbd", Path: "/usr/sbin/mariadbd", Addr: 0x104}}, Count: 5},
		{PID: 7, Comm: "mariadbd", Frames: []cpuprof.Frame{caller}, Count: 5},
	}
	pp, err := cpuprof.Profile(samples, 99, time.Unix(1700000000, 0), 10*time.Second)
	require.NoError(t, err)
	var buf bytes.Buffer
	require.NoError(t, cpuprof.WriteProfile(&buf, pp))
	p, err := Read(&buf)
	require.NoError(t, err)
	require.Equal(t, Profile{Total: 50, Seconds: 10, Funcs: []Func{
		{"ut_delay", "mariadbd", 35},
		{"native_queued_spin_lock_slowpath", "kernel", 10},
		{"srw_mutex_impl::wait_and_lock", "mariadbd", 5},
	}}, p)

	// Another profile (a heap profile's sample types) is refused.
	other := &profile.Profile{SampleType: []*profile.ValueType{{Type: "alloc_space", Unit: "bytes"}}}
	buf.Reset()
	require.NoError(t, other.Write(&buf))
	_, err = Read(&buf)
	require.ErrorContains(t, err, "not the exporter's profile")
}

// TestTable: seed 003's before/after table, knobs and tpmTOTAL beside the
// top functions' shares; what a run lacks is "—", never 0.
func TestTable(t *testing.T) {
	tpm := 41234.0
	before := Run{Name: "delay=4", Settings: map[string]string{"innodb_spin_wait_delay": "4", "innodb_sync_spin_loops": "30"}, TpmTOTAL: &tpm,
		Profile: &Profile{Total: 200, Funcs: []Func{{"ut_delay", "mariadbd", 80}, {"native_queued_spin_lock_slowpath", "kernel", 40}, {"row_search_mvcc", "mariadbd", 20}, {"a|b", "mariadbd", 1}}}}
	after := Run{Name: "delay=48", Settings: map[string]string{"innodb_spin_wait_delay": "48"},
		Profile: &Profile{Total: 100, Funcs: []Func{{"row_search_mvcc", "mariadbd", 30}, {"ut_delay", "mariadbd", 10}}}}
	none := Run{Name: "no profile"}
	got := Table([]Run{before, after, none}, SpinKnobs, 2)
	want := `|  | delay=4 | delay=48 | no profile |
|---|---:|---:|---:|
| innodb_spin_wait_delay | 4 | 48 | — |
| innodb_sync_spin_loops | 30 | — | — |
| tpmTOTAL | 41234 | — | — |
| CPU samples | 200 | 100 | — |
| ut_delay (mariadbd) | 40.0 % | 10.0 % | — |
| row_search_mvcc (mariadbd) | 10.0 % | 30.0 % | — |
| native_queued_spin_lock_slowpath (kernel) | 20.0 % | 0.0 % | — |
`
	require.Equal(t, want, got)
	require.Equal(t, "", Table(nil, SpinKnobs, 5))
	require.Contains(t, Table([]Run{before}, nil, 10), "| a\\|b (mariadbd) | 0.5 % |")
}

// TestTakeAndPartialRecord: a run's profile is fetched from an exporter's
// endpoint, written, and kept as its top functions; in the table a
// function its record does not list is "≤" the last listed share, not 0.
func TestTakeAndPartialRecord(t *testing.T) {
	var samples []cpuprof.Sample
	for i := range RecordTop + 5 {
		samples = append(samples, cpuprof.Sample{PID: 1, Comm: "mariadbd", Count: uint64(100 - i),
			Frames: []cpuprof.Frame{{Function: fmt.Sprintf("f%02d", i), Module: "mariadbd", Path: "/usr/sbin/mariadbd", Addr: uint64(0x1000 + i)}}})
	}
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		require.Equal(t, Path, r.URL.Path)
		asked = append(asked, r.URL.Query().Get("seconds"))
		pp, err := cpuprof.Profile(samples, 99, time.Now(), 2*time.Second)
		require.NoError(t, err)
		require.NoError(t, cpuprof.WriteProfile(w, pp))
	}))
	defer srv.Close()
	dir := t.TempDir()
	rec := Start(context.Background(), srv.Client(), srv.URL, 0, 2, dir, "profile.pb.gz")()
	require.Empty(t, rec.Error)
	require.Len(t, rec.Top, RecordTop)
	require.Equal(t, int64(25*100-300), rec.Total)
	f, err := os.Open(filepath.Join(dir, "profile.pb.gz"))
	require.NoError(t, err)
	defer f.Close()
	back, err := Read(f)
	require.NoError(t, err)
	require.Len(t, back.Funcs, RecordTop+5, "the file keeps every function")

	other := Run{Name: "b", Profile: &Profile{Total: 10, Funcs: []Func{{"f24", "mariadbd", 10}}}}
	tab := Table([]Run{{Name: "a", Profile: rec.Profile()}, other}, nil, 1)
	require.Contains(t, tab, "| f24 (mariadbd) | ≤ 3.7 % | 100.0 % |", "f19 (81 of 2200 samples) is the last listed")

	// A run that ends before the middle where its profile would start.
	require.Contains(t, Start(context.Background(), srv.Client(), srv.URL, time.Hour, 2, dir, "x")().Error, "ended before")
	// A run shorter than the profile: sampled for the run's whole seconds,
	// from its start.
	finish := Start(context.Background(), srv.Client(), srv.URL, 1200*time.Millisecond, 30, dir, "y")
	time.Sleep(1200 * time.Millisecond) // the run
	require.Empty(t, finish().Error)
	require.Equal(t, []string{"2", "1"}, asked)
	require.Nil(t, (&Record{Error: "x"}).Profile())
}

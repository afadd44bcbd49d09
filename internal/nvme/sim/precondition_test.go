package sim

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/simfs/alloc"
	"github.com/walab/walab/internal/simfs/fileclass"
)

// churn writes the same pseudo-random mix of files to d: rounds x 64
// writes of 1-8 pages, the redo on stream 1, the data on stream 3.
func churn(t *testing.T, d *Drive, seed uint32, rounds int) {
	t.Helper()
	n := d.LogicalPages()
	x := seed | 1
	for i := 0; i < rounds*64; i++ {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		pages := x%8 + 1
		lpn := x % (n - pages)
		name, class := "db/t.ibd", fileclass.Data
		if x%3 == 0 {
			name, class, lpn = "ib_logfile0", fileclass.Redo, x%64*8
		}
		require.NoError(t, d.HostWrite(name, class, lpn, pages))
	}
}

// TestPrecondition: after it every logical page is mapped exactly once
// (the pages live files hold among them), the lifetime counters grew by the
// fill and never went back, and two drives with different histories then
// amplify the same later writes identically: the same start state.
func TestPrecondition(t *testing.T) {
	a, _, _ := newDrive(t, fsConfig())
	b, _, _ := newDrive(t, fsConfig())
	churn(t, a, 7, 40) // a: a long history on the streams
	b.SetPlacement(false)
	churn(t, b, 99, 5) // b: a short one without them
	b.SetPlacement(true)
	n := uint64(a.LogicalPages())
	for _, d := range []*Drive{a, b} {
		before := d.Stats()
		after, err := d.Precondition()
		require.NoError(t, err)
		require.NoError(t, d.CheckModel())
		require.Equal(t, 1.0, after.Fill, "every logical page mapped")
		require.Equal(t, n, uint64(after.Fill*float64(n)))
		require.Equal(t, before.HostBytes+n*4096, after.HostBytes, "the fill counts as host writes")
		require.Equal(t, before.PreconditionBytes+n*4096, after.PreconditionBytes, "and says so")
		require.GreaterOrEqual(t, after.MediaBytes, before.MediaBytes+n*4096, "and as NAND writes")
		require.GreaterOrEqual(t, after.TrimmedBytes, before.TrimmedBytes)
		require.GreaterOrEqual(t, after.Erases, before.Erases)
		require.GreaterOrEqual(t, after.HostWriteCommands, before.HostWriteCommands)
		require.Equal(t, before.ClassBytes, after.ClassBytes, "the fill is no file's")
	}
	sa, sb := a.Stats(), b.Stats()
	churn(t, a, 3, 60)
	churn(t, b, 3, 60)
	ea, eb := a.Stats(), b.Stats()
	require.Equal(t, ea.HostBytes-sa.HostBytes, eb.HostBytes-sb.HostBytes)
	require.Equal(t, ea.MediaBytes-sa.MediaBytes, eb.MediaBytes-sb.MediaBytes, "same start state, same NAND writes")
	require.Greater(t, ea.GCBytes-sa.GCBytes, uint64(0), "the writes reached garbage collection: the comparison tests the state")
}

func TestPreconditionHandler(t *testing.T) {
	d, _, _ := newDrive(t, fsConfig())
	srv := httptest.NewServer(d.PreconditionHandler())
	defer srv.Close()
	res, err := srv.Client().Get(srv.URL + PreconditionPath)
	require.NoError(t, err)
	res.Body.Close()
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode, "GET must not rewrite the drive")
	require.Equal(t, "POST", res.Header.Get("Allow"))
	require.Zero(t, d.Stats().HostBytes)

	res, err = srv.Client().Post(srv.URL+PreconditionPath, "", nil)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode)
	var st Stats
	require.NoError(t, json.NewDecoder(res.Body).Decode(&st))
	require.Equal(t, 1.0, st.Fill)
	require.Equal(t, uint64(d.LogicalPages())*4096, st.HostBytes)

	d.FeedFailed(http.ErrServerClosed)
	res2, err := srv.Client().Post(srv.URL+PreconditionPath, "", nil)
	require.NoError(t, err)
	res2.Body.Close()
	require.Equal(t, http.StatusServiceUnavailable, res2.StatusCode, "a drive whose feed stopped is not rewritten")
}

// TestPreconditionLiveMap: under a filesystem the drive keeps only the
// pages the files hold (the runs the live map gives), each written once,
// whatever it held before, and it is rewritten inside the map's call
// (the filesystem holds still meanwhile).
func TestPreconditionLiveMap(t *testing.T) {
	d, _, _ := newDrive(t, fsConfig())
	churn(t, d, 7, 40)
	live := []alloc.Ext{{LPN: 3, Pages: 5}, {LPN: 100, Pages: 1}, {LPN: 200, Pages: 70}}
	before := d.Stats()
	calls := 0
	d.SetLiveMap(func(fn func([]alloc.Ext) error) error {
		calls++
		err := fn(live)
		require.Equal(t, before.PreconditionBytes+76*4096, d.Stats().PreconditionBytes, "rewritten before the map's lock is let go")
		return err
	})
	after, err := d.Precondition()
	require.NoError(t, err)
	require.Equal(t, 1, calls)
	require.NoError(t, d.CheckModel())
	n := float64(d.LogicalPages())
	require.Equal(t, 76/n, after.Fill, "exactly the live pages are mapped")
	require.Equal(t, before.PreconditionBytes+76*4096, after.PreconditionBytes)
	require.Equal(t, before.HostBytes+76*4096, after.HostBytes)

	d.SetLiveMap(func(fn func([]alloc.Ext) error) error { return fn(nil) })
	empty, err := d.Precondition()
	require.NoError(t, err)
	require.Zero(t, empty.Fill, "an empty filesystem leaves no page mapped")
	require.Equal(t, after.PreconditionBytes, empty.PreconditionBytes, "and writes none")

	failing := errors.New("filesystem gone")
	d.SetLiveMap(func(func([]alloc.Ext) error) error { return failing })
	_, err = d.Precondition()
	require.ErrorIs(t, err, failing, "a layout the filesystem cannot give fails the precondition")
}

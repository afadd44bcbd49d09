package sim

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/walab/walab/internal/golden"

	"github.com/stretchr/testify/require"
)

func TestPlacementHandler(t *testing.T) {
	d, clk, _ := newDrive(t, smallConfig())
	srv := httptest.NewServer(d.Handler())
	defer srv.Close()
	do := func(method, query string) (*http.Response, []byte) {
		req, err := http.NewRequest(method, srv.URL+PlacementPath+query, nil)
		require.NoError(t, err)
		res, err := srv.Client().Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		var b strings.Builder
		_, err = io.Copy(&b, res.Body)
		require.NoError(t, err)
		return res, []byte(b.String())
	}
	clk.Add(30 * time.Second)
	res, body := do(http.MethodGet, "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "application/json", res.Header.Get("Content-Type"))
	golden.Assert(t, "testdata/state.json", body)

	for _, tc := range []struct {
		query string
		on    bool
	}{{"?streams=off", false}, {"?streams=on", true}, {"?streams=false", false}, {"?streams=1", true}} {
		res, body = do(http.MethodPost, tc.query)
		require.Equal(t, http.StatusOK, res.StatusCode, tc.query)
		var st Stats
		require.NoError(t, json.Unmarshal(body, &st))
		require.Equal(t, tc.on, st.Placement, tc.query)
		require.Equal(t, tc.on, d.Placement())
		require.True(t, st.Simulated)
	}
	res, body = do(http.MethodPost, "?streams=maybe")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	require.Contains(t, string(body), `"maybe"`)
	res, _ = do(http.MethodPost, "")
	require.Equal(t, http.StatusBadRequest, res.StatusCode)
	res, _ = do(http.MethodPut, "?streams=on")
	require.Equal(t, http.StatusMethodNotAllowed, res.StatusCode)
	require.Equal(t, "GET, HEAD, POST", res.Header.Get("Allow"))
}

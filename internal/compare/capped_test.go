package compare

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/api"
	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/stretchr/testify/require"
)

// TestCappedTransport: an answer longer than the cap is an error naming
// the cap, with or without a Content-Length; one within it is read whole.
func TestCappedTransport(t *testing.T) {
	const max = 4096
	answer := `{"status":"success","data":{"resultType":"vector","result":[]}}`
	for _, tc := range []struct {
		name    string
		body    string
		chunked bool
		wantErr bool
	}{
		{"small", answer, false, false},
		{"exactly the cap", answer + strings.Repeat(" ", max-len(answer)), true, false},
		{"long, with length", answer + strings.Repeat(" ", 2*max), false, true},
		{"long, chunked", answer + strings.Repeat(" ", 2*max), true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				if tc.chunked {
					for i := 0; i < len(tc.body); i += 1000 {
						io.WriteString(w, tc.body[i:min(i+1000, len(tc.body))])
						w.(http.Flusher).Flush()
					}
					return
				}
				io.WriteString(w, tc.body)
			}))
			defer srv.Close()
			c, err := api.NewClient(api.Config{Address: srv.URL, RoundTripper: CappedTransport(nil, max)})
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, _, _, err = v1.NewAPI(c).Query(ctx, "up", time.Now())
			if tc.wantErr {
				require.ErrorContains(t, err, "more than the 4096")
			} else {
				require.NoError(t, err)
			}
		})
	}
}

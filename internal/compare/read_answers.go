package compare

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// warnAPI keeps the warnings of every answer: a store that answers from
// part of its data (Thanos, Cortex, a VictoriaMetrics cluster with a
// storage node down) says so only there, and a comparison of half the
// data is not one.
type warnAPI struct {
	v1.API
	mu   sync.Mutex
	seen []string
}

func (a *warnAPI) keep(query string, w v1.Warnings) {
	if len(w) == 0 {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.seen = append(a.seen, fmt.Sprintf("%s (query %s)", strings.Join(w, "; "), query))
}

func (a *warnAPI) Query(ctx context.Context, q string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	v, w, i, err := a.API.Query(ctx, q, ts, opts...)
	a.keep(q, w)
	return v, w, i, err
}

func (a *warnAPI) QueryRange(ctx context.Context, q string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	v, w, i, err := a.API.QueryRange(ctx, q, r, opts...)
	a.keep(q, w)
	return v, w, i, err
}

func (a *warnAPI) warnings() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.seen...)
}

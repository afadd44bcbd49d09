package compare

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/prometheus/common/model"

	"github.com/walab/walab/internal/promql"
)

// blockFacts reads the block-layer view of the drives' namespaces and
// whether an md sync over them ran.
func (s Source) blockFacts(ctx context.Context, f *RunFacts, w factWindow) error {
	ctrl := strings.Replace(deviceSelector(w.devices), "device", "controller", 1) + s.onHost()
	ns := fmt.Sprintf(promql.BlockdevInfo+`{%s,kind="nvme"}`, ctrl)
	if err := s.blockRates(ctx, &f.Block, w, ns); err != nil {
		return err
	}
	return s.mdSyncFact(ctx, f, w, ctrl, ns)
}

// blockRates reads the namespaces' (ns) writes and bytes a second, write
// await and utilisation over the window.
func (s Source) blockRates(ctx context.Context, b *BlockView, w factWindow, ns string) error {
	per := func(metric string) string {
		return fmt.Sprintf(`sum(increase(%s[%s]) * on (instance, job, device) group_left () %s)`, metric, w.win, ns)
	}
	secs, err := model.ParseDuration(w.win)
	if err != nil {
		return err
	}
	sec := time.Duration(secs).Seconds()
	for _, q := range []struct {
		dst  **float64
		expr string
	}{
		{&b.WritesPerSec, per(promql.BlockdevWritesCompleted) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteBytesPerSec, per(promql.BlockdevWrittenBytes) + fmt.Sprintf(" / %g", sec)},
		{&b.WriteAwaitSec, per(promql.BlockdevWriteTime) + " / (" + per(promql.BlockdevWritesCompleted) + " > 0)"},
		{&b.Util, fmt.Sprintf(`max(increase(`+promql.BlockdevIOTime+`[%s]) * on (instance, job, device) group_left () %s) / %g`, w.win, ns, sec)},
	} {
		if *q.dst, err = s.firstScalar(ctx, q.expr, w.winEnd); err != nil {
			return err
		}
	}
	return nil
}

// mdSyncFact reads whether an md sync ran on arrays over the drives'
// namespaces (ns, of the controllers ctrl), if the namespaces are known.
func (s Source) mdSyncFact(ctx context.Context, f *RunFacts, w factWindow, ctrl, ns string) error {
	known, err := s.firstScalar(ctx, fmt.Sprintf(`count(last_over_time(%s[%s]))`, ns, w.win), w.winEnd)
	if err != nil || known == nil {
		return err
	}
	sync, err := s.firstScalar(ctx, fmt.Sprintf(`max(max_over_time(`+promql.MDSyncActive+`[%s]) * on (instance, job, device) group_left () label_replace(max by (instance, job, array) (last_over_time(`+promql.BlockdevLeafInfo+`{%s}[%s])), "device", "$1", "array", "(.+)"))`, w.win, ctrl, w.win), w.winEnd)
	if err != nil {
		return err
	}
	v := sync != nil && *sync > 0
	f.MDSync = &v
	return nil
}

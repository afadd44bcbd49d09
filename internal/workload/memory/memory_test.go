package memory

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/runner"
)

func TestEvent(t *testing.T) {
	buf := make([]uintptr, 8)
	r := rand.New(rand.NewPCG(1, 2))
	Event(buf, "write", false, r, 100)
	require.Equal(t, []uintptr{100, 101, 102, 103, 104, 105, 106, 107}, buf, "seq write: every word, in order")
	require.Equal(t, uintptr(8*100+28), Event(buf, "read", false, r, 0), "seq read: the sum of every word")
	require.Equal(t, uintptr(5), Event(buf, "none", true, r, 5))
	clear(buf)
	Event(buf, "write", true, r, 1)
	written := 0
	for _, v := range buf {
		if v != 0 {
			written++
		}
	}
	require.Positive(t, written, "rnd write touched the block")
	require.NotZero(t, Event(buf, "read", true, r, 0), "rnd read saw what was written")
}

// TestRunsAsSysbenchMemory: the run ends when the total size is
// transferred (400 KiB in 4 KiB blocks: 100 events), with sysbench's
// operations and transfer lines leading the summary; each scope and mode
// runs.
func TestRunsAsSysbenchMemory(t *testing.T) {
	for _, o := range []Options{
		{BlockSize: 4096, TotalSize: 400 << 10, Scope: "global", Oper: "read", Mode: "rnd"},
		{BlockSize: 4096, TotalSize: 400 << 10, Scope: "local", Oper: "write", Mode: "seq"},
	} {
		w, err := New(o)
		require.NoError(t, err)
		ro := w.RunOptions()
		require.Equal(t, int64(100), ro.MaxEvents)
		res, err := runner.Run(context.Background(), runner.Config{Workload: w, Threads: 2, Events: ro.MaxEvents, Seed: 1})
		require.NoError(t, err)
		require.Equal(t, uint64(100), res.Transactions)
		var b strings.Builder
		res.WriteSummary(&b)
		require.True(t, strings.HasPrefix(b.String(), "Total operations: 100 ("), b.String())
		require.Contains(t, b.String(), "0.39 MiB transferred (")
		var d strings.Builder
		w.Describe(&d)
		require.Contains(t, d.String(), "  block size: 4KiB\n  total size: 0MiB\n  operation: "+o.Oper+"\n  scope: "+o.Scope+"\n")
	}
}

func TestOptionErrors(t *testing.T) {
	ok := Options{BlockSize: 1024, TotalSize: 1 << 20, Scope: "global", Oper: "read", Mode: "seq"}
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.BlockSize = 3 }, "--memory-block-size 3: want a positive multiple of 8 bytes"},
		{func(o *Options) { o.BlockSize = 32 << 30 }, "--memory-block-size 34359738368: at most"},
		{func(o *Options) { o.Scope = "node" }, `--memory-scope "node": want global or local`},
		{func(o *Options) { o.Oper = "copy" }, `--memory-oper "copy": want read, write or none`},
		{func(o *Options) { o.Mode = "stride" }, `--memory-access-mode "stride": want seq or rnd`},
	} {
		o := ok
		tc.mod(&o)
		_, err := New(o)
		require.ErrorContains(t, err, tc.want)
	}
	_, err := parseOptions("1X", "1G", "global", "read", "seq")
	require.ErrorContains(t, err, "--memory-block-size: size \"1X\"")
}

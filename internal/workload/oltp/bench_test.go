package oltp_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
	"github.com/walab/walab/internal/workload/oltp"
)

// BenchmarkEvent measures the client side of one event per script on the
// real server (go test -bench Event -cpuprofile ...): what loadgen adds on
// top of the round trips.
func BenchmarkEvent(b *testing.B) {
	db, _ := testenv.MariaDB(b, "walab_test_oltp_bench")
	ctx := context.Background()
	for _, script := range []string{"oltp_point_select", "oltp_read_write"} {
		opt := oltp.DefaultOptions(script)
		opt.Tables, opt.TableSize = 1, 1000
		w, err := oltp.New(script, opt)
		require.NoError(b, err)
		require.NoError(b, w.Prepare(ctx, db, workload.PrepareOptions{Workers: 1}))
		b.Run(script, func(b *testing.B) {
			conn, err := db.Conn(ctx)
			require.NoError(b, err)
			defer conn.Close()
			term := w.NewTerminal(0, rand.New(rand.NewPCG(1, 1)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := term.Run(ctx, conn, script); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

package tpcc

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
	"github.com/walab/walab/internal/workload"
)

// BenchmarkPrepare measures load speed at full scale in warehouses per
// minute: 2 warehouses per iteration, loaded from scratch.
//
//	go test ./internal/workload/tpcc -run '^$' -bench BenchmarkPrepare -benchtime 1x
func BenchmarkPrepare(b *testing.B) {
	const warehouses = 2
	for _, workers := range []int{2, 4} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			db, _ := testenv.MariaDB(b, "walab_test_tpcc_bench_load")
			ctx := context.Background()
			var total time.Duration
			for range b.N {
				w, err := New(Options{Warehouses: warehouses, Seed: 11})
				require.NoError(b, err)
				require.NoError(b, w.Cleanup(ctx, db))
				start := time.Now()
				require.NoError(b, w.Prepare(ctx, db, workload.PrepareOptions{Workers: workers}))
				total += time.Since(start)
			}
			b.ReportMetric(float64(warehouses*b.N)/total.Minutes(), "warehouses/min")
		})
	}
}

// BenchmarkTransactions measures the client's CPU per transaction (user +
// system time of this process, which runs only the terminals while the
// server works): 4 terminals on a small 2-warehouse data set.
//
//	go test ./internal/workload/tpcc -run '^$' -bench BenchmarkTransactions -benchtime 2000x
func BenchmarkTransactions(b *testing.B) {
	db, _ := testenv.MariaDB(b, "walab_test_tpcc_bench_run")
	w, err := New(Options{Warehouses: 2, TerminalWarehouseFixed: true, Seed: 5, scale: smallScale})
	require.NoError(b, err)
	require.NoError(b, w.Prepare(context.Background(), db, workload.PrepareOptions{Workers: 4}))
	const terminals = 4
	per := max(1, b.N/terminals)
	cpu0 := cpuTime()
	start := time.Now()
	b.ResetTimer()
	_, stmts := drive(b, db, w, terminals, per)
	b.StopTimer()
	n := float64(per * terminals)
	b.ReportMetric(float64(stmts)/n, "stmts/txn")
	b.ReportMetric((cpuTime()-cpu0).Seconds()*1000/n, "cpu-ms/txn")
	b.ReportMetric(n/time.Since(start).Seconds(), "txn/s")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

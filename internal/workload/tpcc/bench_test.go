package tpcc

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
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
	cpu := cpuTime() - cpu0
	b.ReportMetric(float64(stmts)/n, "stmts/txn")
	b.ReportMetric(cpu.Seconds()*1000/n, "cpu-ms/txn")
	b.ReportMetric(float64(cpu.Microseconds())/float64(stmts), "cpu-us/stmt")
	b.ReportMetric(n/time.Since(start).Seconds(), "txn/s")
}

// BenchmarkRoundTrip is the floor under BenchmarkTransactions' cpu-us/stmt:
// the client's CPU for one bare round trip through database/sql,
// go-sql-driver and the kernel's loopback TCP, with no transaction logic:
// "ping" is COM_PING, "select" a prepared one-row primary-key read, each on
// 1 and on 32 connections at once (more connections, more replies per wake).
//
//	go test ./internal/workload/tpcc -run '^$' -bench 'BenchmarkTransactions|BenchmarkRoundTrip' -benchtime 2000x
func BenchmarkRoundTrip(b *testing.B) {
	db, _ := testenv.MariaDB(b, "walab_test_tpcc_bench_rtt") // its own one-row bmsql_item, not the loaded one
	ctx := context.Background()
	_, err := db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS bmsql_item (i_id INT PRIMARY KEY, i_price DECIMAL(5,2))")
	require.NoError(b, err)
	_, err = db.ExecContext(ctx, "INSERT IGNORE INTO bmsql_item (i_id, i_price) VALUES (1, 1.00)")
	require.NoError(b, err)
	for _, conns := range []int{1, 32} {
		for _, op := range []string{"ping", "select"} {
			b.Run(fmt.Sprintf("%s/conns=%d", op, conns), func(b *testing.B) {
				ops := openRoundTrips(b, db, op, conns)
				per := max(1, b.N/conns)
				cpu0 := cpuTime()
				b.ResetTimer()
				var wg sync.WaitGroup
				for _, f := range ops {
					wg.Go(func() {
						for range per {
							if err := f(); err != nil {
								b.Error(err)
								return
							}
						}
					})
				}
				wg.Wait()
				b.StopTimer()
				b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/1000/float64(per*conns), "cpu-us/op")
			})
		}
	}
}

// openRoundTrips opens n connections, each with one round trip of kind op.
func openRoundTrips(b *testing.B, db *sql.DB, op string, n int) []func() error {
	ctx := context.Background()
	db.SetMaxIdleConns(n)
	ops := make([]func() error, n)
	for i := range ops {
		conn, err := db.Conn(ctx)
		require.NoError(b, err)
		b.Cleanup(func() { conn.Close() })
		if op == "ping" {
			ops[i] = func() error { return conn.PingContext(ctx) }
			continue
		}
		stmt, err := conn.PrepareContext(ctx, "SELECT i_price FROM bmsql_item WHERE i_id = ?")
		require.NoError(b, err)
		b.Cleanup(func() { stmt.Close() })
		ops[i] = func() error { var p float64; return stmt.QueryRowContext(ctx, 1).Scan(&p) }
	}
	return ops
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkTerminalMemory measures what one open TPC-C terminal holds in
// the client: live heap and goroutine stacks per terminal, the difference
// between 100 and 20 terminals kept open after each ran every transaction
// type memRounds times (its statements prepared on its connection),
// divided by 80. TPCC_HEAP_PROFILE names a file for the in-use heap at 100
// terminals (go tool pprof -sample_index=inuse_space -top FILE says where
// it is).
//
//	go test ./internal/workload/tpcc -run '^$' -bench BenchmarkTerminalMemory -benchtime 1x
func BenchmarkTerminalMemory(b *testing.B) {
	if os.Getenv("TPCC_HEAP_PROFILE") != "" {
		runtime.MemProfileRate = 1 // every allocation, so that small per-terminal ones show
	}
	db, _ := testenv.MariaDB(b, "walab_test_tpcc_bench_mem")
	w, err := New(Options{Warehouses: 1, Seed: 5, scale: smallScale})
	require.NoError(b, err)
	require.NoError(b, w.Prepare(context.Background(), db, workload.PrepareOptions{Workers: 2}))
	const few, many = 20, 100
	var heap, stack, goroutines float64
	for range b.N {
		h0, s0, g0 := holdTerminals(b, db, w, few, "")
		h1, s1, g1 := holdTerminals(b, db, w, many, os.Getenv("TPCC_HEAP_PROFILE"))
		heap += float64(h1-h0) / (many - few)
		stack += float64(s1-s0) / (many - few)
		goroutines += float64(g1-g0) / (many - few)
	}
	b.ReportMetric(heap/float64(b.N), "heap-B/terminal")
	b.ReportMetric(stack/float64(b.N), "stack-B/terminal")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/terminal")
}

const memRounds = 4

// holdTerminals opens n terminals, runs every transaction type memRounds
// times on each, and while they are all open returns the live heap, the
// goroutine stacks in use and the number of goroutines (after a GC); it
// writes the in-use heap profile to profile when set.
func holdTerminals(b *testing.B, db *sql.DB, w *Workload, n int, profile string) (heap, stack uint64, goroutines int) {
	b.Helper()
	ctx := context.Background()
	db.SetMaxOpenConns(n)
	ready := make(chan error, n)
	release := make(chan struct{})
	var wg sync.WaitGroup
	for id := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := db.Conn(ctx)
			if err != nil {
				ready <- err
				return
			}
			defer conn.Close()
			term := w.NewTerminal(id, rand.New(rand.NewPCG(uint64(id), 7)))
			defer term.(interface{ Close() error }).Close()
			for range memRounds {
				for _, tx := range txTypes {
					if _, err := term.Run(ctx, conn, tx); err != nil && !retryable(err) {
						ready <- fmt.Errorf("terminal %d %s: %w", id, tx, err)
						return
					}
				}
			}
			ready <- nil
			<-release
		}()
	}
	defer wg.Wait()
	defer close(release)
	for range n {
		require.NoError(b, <-ready)
	}
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	if profile != "" {
		f, err := os.Create(profile)
		require.NoError(b, err)
		require.NoError(b, pprof.Lookup("heap").WriteTo(f, 0))
		require.NoError(b, f.Close())
	}
	return ms.HeapAlloc, ms.StackInuse, runtime.NumGoroutine()
}

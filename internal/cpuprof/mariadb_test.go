package cpuprof

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestMariaDBHotFunction keeps the machine's mariadbd busy in one query
// (BENCHMARK of CONCAT) and finds the SQL layer's functions of that query
// among the server's top self frames, named from Debian's .dynsym and
// demangled as perf shows them.
func TestMariaDBHotFunction(t *testing.T) {
	db, _ := testenv.MariaDB(t, "")
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	require.NoError(t, err)
	defer conn.Close()
	var (
		id      int
		pidFile string
	)
	require.NoError(t, conn.QueryRowContext(ctx, "SELECT CONNECTION_ID(), @@pid_file").Scan(&id, &pidFile))
	b, err := os.ReadFile(pidFile)
	if err != nil {
		testenv.Missing(t, "the machine's mariadbd pid (%v): it runs elsewhere", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)

	p := startOrMissing(t, "mariadbd", "mysqld")
	done := make(chan error, 1)
	go func() {
		_, err := conn.ExecContext(ctx, "SELECT BENCHMARK(1000000000, CONCAT('wa', 'lab'))")
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	samples := p.Record(ctx, 4*time.Second)
	_, err = db.ExecContext(ctx, "KILL QUERY "+strconv.Itoa(id))
	require.NoError(t, err)
	<-done // interrupted

	var own []Sample
	for _, s := range samples {
		if s.PID == uint32(pid) {
			own = append(own, s)
		}
	}
	top := SelfCounts(own)
	require.NotEmpty(t, top, "no sample of mariadbd pid %d in 4 s", pid)
	want := map[string]bool{"Item_func_concat::val_str": true, "Item_func_concat::append_value": true, "Item_func_benchmark::val_int": true}
	found := 0
	for i, c := range top {
		if i < 5 && c.Module == "mariadbd" && want[c.Function] {
			found++
		}
	}
	require.GreaterOrEqual(t, found, 2, "the query's functions among the top 5: %v", top)
}

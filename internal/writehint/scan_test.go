package writehint

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// buildTree makes a datadir with regular files, a nested dir, a symlink to
// a file outside, a symlinked directory leading outside, and a fifo.
func buildTree(t *testing.T) (root string, hinted bool) {
	t.Helper()
	root = t.TempDir()
	outside := t.TempDir()
	write := func(rel string, size int) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, make([]byte, size), 0o644))
	}
	write("ib_logfile0", 4096)
	write("binlog.000001", 1000)
	write("db/t1.ibd", 16384)
	write("db/t2.ibd", 16384)
	write("db/deep/t3.ibd", 100)
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret"), make([]byte, 777), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link-out")))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "dir-out")))
	require.NoError(t, os.Symlink("db/t1.ibd", filepath.Join(root, "link-in")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))

	hinted = true
	for rel, h := range map[string]Hint{"ib_logfile0": Short, "binlog.000001": Short, "db/t1.ibd": Long} {
		f, err := os.Open(filepath.Join(root, rel))
		require.NoError(t, err)
		if err := Set(f, h); err != nil {
			hinted = false // this filesystem refuses hints: everything stays not_set
		}
		require.NoError(t, f.Close())
	}
	return root, hinted
}

func TestScanCounts(t *testing.T) {
	root, hinted := buildTree(t)
	res, err := Scan(context.Background(), root, 100)
	require.NoError(t, err)
	require.False(t, res.Truncated)
	require.Zero(t, res.Skipped)
	want := Result{Files: map[string]uint64{}, Bytes: map[string]uint64{}}
	for _, l := range Labels {
		want.Files[l], want.Bytes[l] = 0, 0
	}
	if hinted {
		want.Files["short"], want.Bytes["short"] = 2, 5096
		want.Files["long"], want.Bytes["long"] = 1, 16384
		want.Files["not_set"], want.Bytes["not_set"] = 2, 16484
	} else {
		t.Log("filesystem refused F_SET_RW_HINT: checking the walk with not_set only")
		want.Files["not_set"], want.Bytes["not_set"] = 5, 5096+16384+16484
	}
	// Symlinks (in or out of the root) and the fifo are never counted.
	require.Equal(t, want, res)
}

func TestScanLimitAndErrors(t *testing.T) {
	root, _ := buildTree(t)
	res, err := Scan(context.Background(), root, 2)
	require.NoError(t, err)
	require.True(t, res.Truncated)
	var files uint64
	for _, n := range res.Files {
		files += n
	}
	require.Equal(t, uint64(2), files)

	_, err = Scan(context.Background(), root, 0)
	require.ErrorContains(t, err, "must be positive")
	_, err = Scan(context.Background(), filepath.Join(root, "missing"), 10)
	require.ErrorContains(t, err, "missing")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = Scan(ctx, root, 10)
	require.ErrorIs(t, err, context.Canceled)
}

func TestCacheTTL(t *testing.T) {
	root, _ := buildTree(t)
	now := time.Unix(1000, 0)
	c := &Cache{Root: root, MaxFiles: 100, TTL: time.Minute, Now: func() time.Time { return now }}
	first, err := c.Get(context.Background())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(root, "new.ibd"), []byte("abc"), 0o644))
	now = now.Add(59 * time.Second)
	cached, err := c.Get(context.Background())
	require.NoError(t, err)
	require.Equal(t, first, cached, "inside the TTL the tree is not walked again")
	now = now.Add(time.Second)
	fresh, err := c.Get(context.Background())
	require.NoError(t, err)
	require.Equal(t, first.Files["not_set"]+1, fresh.Files["not_set"])
}

func BenchmarkScan(b *testing.B) {
	root := b.TempDir()
	for d := range 10 {
		dir := filepath.Join(root, "db"+string(rune('a'+d)))
		require.NoError(b, os.Mkdir(dir, 0o755))
		for f := range 100 {
			require.NoError(b, os.WriteFile(filepath.Join(dir, "t"+string(rune('a'+f%26))+string(rune('a'+f/26))), nil, 0o644))
		}
	}
	b.ReportAllocs()
	start, n := cpuTime(), 0
	for b.Loop() {
		_, err := Scan(context.Background(), root, 100000)
		require.NoError(b, err)
		n++
	}
	// The shared build box is loaded: CPU time per op says more than ns/op.
	b.ReportMetric(float64(cpuTime()-start)/float64(max(n, 1)), "cpu-ns/op")
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

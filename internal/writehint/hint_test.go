package writehint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestHintLabels(t *testing.T) {
	for h, want := range map[Hint]string{NotSet: "not_set", None: "none", Short: "short", Medium: "medium", Long: "long", Extreme: "extreme", 6: "unknown", 1 << 40: "unknown"} {
		require.Equal(t, want, h.String())
	}
	for _, tc := range []struct {
		in   string
		want Hint
		err  bool
	}{
		{in: "short", want: Short}, {in: "5", want: Extreme}, {in: "0", want: NotSet},
		{in: "unknown", err: true}, {in: "6", err: true}, {in: "", err: true}, {in: "-1", err: true},
	} {
		got, err := ParseHint(tc.in)
		if tc.err {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err)
		require.Equal(t, tc.want, got)
	}
}

func FuzzParseHint(f *testing.F) {
	f.Add("medium")
	f.Add("3")
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseHint(s)
		if err == nil {
			require.LessOrEqual(t, h, Extreme)
			require.NotEqual(t, "unknown", h.String())
		}
	})
}

// setSupported reports whether dir's filesystem accepts F_SET_RW_HINT. The
// hint is a VFS inode field, so every local filesystem should; the check is
// here so a filesystem that refuses gives a clear skip instead of a failure.
func setSupported(t *testing.T, dir string) bool {
	t.Helper()
	f, err := os.CreateTemp(dir, "probe")
	require.NoError(t, err)
	defer os.Remove(f.Name())
	defer f.Close()
	return Set(f, Short) == nil
}

// TestSetGetRoundTrip proves set then get on each filesystem this machine
// offers to tests (t.TempDir, and tmpfs at /dev/shm when present), and logs
// which accept hints.
func TestSetGetRoundTrip(t *testing.T) {
	dirs := map[string]string{"TempDir": t.TempDir()}
	if st, err := os.Stat("/dev/shm"); err == nil && st.IsDir() {
		d, err := os.MkdirTemp("/dev/shm", "walab-writehint")
		require.NoError(t, err)
		t.Cleanup(func() { os.RemoveAll(d) })
		dirs["tmpfs /dev/shm"] = d
	}
	tested := 0
	for name, dir := range dirs {
		if !setSupported(t, dir) {
			t.Logf("%s (%s): F_SET_RW_HINT refused", name, dir)
			continue
		}
		t.Logf("%s (%s): F_SET_RW_HINT supported", name, dir)
		tested++
		p := filepath.Join(dir, "f")
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
		f, err := os.Open(p) // read-only: the hint is per inode, any fd sets it
		require.NoError(t, err)
		h, err := Get(f)
		require.NoError(t, err)
		require.Equal(t, NotSet, h)
		for _, want := range []Hint{None, Short, Medium, Long, Extreme, NotSet} {
			require.NoError(t, Set(f, want))
			g, err := os.Open(p) // a second descriptor sees the same inode's hint
			require.NoError(t, err)
			got, err := Get(g)
			require.NoError(t, err)
			require.Equal(t, want, got)
			require.NoError(t, g.Close())
		}
		require.ErrorContains(t, Set(f, 6), "F_SET_RW_HINT")
		require.NoError(t, f.Close())
	}
	if tested == 0 {
		t.Skip("no filesystem here accepts write-life hints")
	}
}

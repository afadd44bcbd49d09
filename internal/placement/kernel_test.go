package placement

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseKernelVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want KernelVersion
		err  bool
	}{
		{in: "6.18.44-fc-v1045\n", want: KernelVersion{6, 18}},
		{in: "5.17.0", want: KernelVersion{5, 17}},
		{in: "4.19-rc1", want: KernelVersion{4, 19}},
		{in: "6", err: true},
		{in: "x.1", err: true},
		{in: "6.x", err: true},
		{in: "", err: true},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseKernelVersion(tc.in)
			if tc.err {
				require.ErrorContains(t, err, "major.minor")
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
	require.True(t, KernelVersion{5, 18}.AtLeast(5, 18))
	require.True(t, KernelVersion{6, 0}.AtLeast(5, 18))
	require.False(t, KernelVersion{5, 17}.AtLeast(5, 18))
}

func FuzzParseKernelVersion(f *testing.F) {
	f.Add("6.18.44-fc-v1045\n")
	f.Add("5.4")
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseKernelVersion(s)
		if err == nil {
			require.GreaterOrEqual(t, v.Major, 0)
			require.GreaterOrEqual(t, v.Minor, 0)
		}
	})
}

func put(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
}

func TestReadKernelFiles(t *testing.T) {
	root := t.TempDir()
	put(t, filepath.Join(root, "proc/sys/kernel/osrelease"), "5.15.0-91-generic\n")
	v, err := ReadKernelVersion(filepath.Join(root, "proc"))
	require.NoError(t, err)
	require.Equal(t, KernelVersion{5, 15}, v)

	sys := filepath.Join(root, "sys")
	p, err := ReadStreamsParam(sys)
	require.NoError(t, err)
	require.Equal(t, StreamsParam{}, p, "absent parameter")
	for val, want := range map[string]StreamsParam{"Y\n": {true, true}, "N\n": {Present: true}} {
		put(t, filepath.Join(sys, "module/nvme_core/parameters/streams"), val)
		p, err = ReadStreamsParam(sys)
		require.NoError(t, err)
		require.Equal(t, want, p)
	}
	put(t, filepath.Join(sys, "module/nvme_core/parameters/streams"), "maybe\n")
	_, err = ReadStreamsParam(sys)
	require.ErrorContains(t, err, "unexpected value")

	n, ok, err := ReadMaxWriteStreams(sys, "nvme0n1")
	require.NoError(t, err)
	require.False(t, ok)
	require.Zero(t, n)
	put(t, filepath.Join(sys, "block/nvme0n1/queue/max_write_streams"), "8\n")
	n, ok, err = ReadMaxWriteStreams(sys, "nvme0n1")
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, 8, n)
	_, ok, err = ReadMaxWriteStreams(sys, "../etc")
	require.NoError(t, err)
	require.False(t, ok, "a block name with a slash is never read")
	put(t, filepath.Join(sys, "block/nvme1n1/queue/max_write_streams"), "-3\n")
	_, _, err = ReadMaxWriteStreams(sys, "nvme1n1")
	require.ErrorContains(t, err, "unexpected value")
}

package hostapi

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestMountOf: the longest mount point at or above the path, among the
// mounts of the data directory that holds it; a path outside every data
// directory, or below one whose mount list was cut, is an error.
func TestMountOf(t *testing.T) {
	f := &Facts{Hostname: "db", DataDirs: []string{"/", "/data"}, Mounts: []Mount{
		{DataDir: "/", MountPoint: "/"},
		{DataDir: "/data", MountPoint: "/"},
		{DataDir: "/data", MountPoint: "/data/mysql-1"},
		{DataDir: "/data", MountPoint: "/data/mysql-10"},
	}}
	for path, want := range map[string][2]string{
		"/data/mysql-1/data/": {"/data", "/data/mysql-1"},
		"/data/mysql-10":      {"/data", "/data/mysql-10"},
		"/data/mysql-2":       {"/data", "/"},
		"/var/lib/mysql":      {"/", "/"},
	} {
		m, err := f.MountOf(path)
		require.NoError(t, err, path)
		require.Equal(t, want, [2]string{m.DataDir, m.MountPoint}, path)
	}
	f.DataDirs = []string{"/data"}
	_, err := f.MountOf("/var/lib/mysql")
	require.ErrorContains(t, err, "does not watch /var/lib/mysql")
	f.Truncated = []string{"mounts (at most 64)"}
	_, err = f.MountOf("/data/mysql-1")
	require.ErrorContains(t, err, "cut its lists")
	m, err := f.MountOf("/data")
	require.NoError(t, err, "the directory's own holder is always kept")
	require.Equal(t, "/", m.MountPoint)
}

package testenv

import (
	"os"
	"testing"
)

// RequireFUSE fails (CI) or skips unless the test can mount a FUSE
// filesystem itself: root and a usable /dev/fuse (the fuse3 package).
func RequireFUSE(t testing.TB) {
	t.Helper()
	skipShort(t, "root and /dev/fuse")
	if os.Geteuid() != 0 {
		Missing(t, "mounting a FUSE filesystem needs root")
	}
	f, err := os.OpenFile("/dev/fuse", os.O_RDWR, 0)
	if err != nil {
		Missing(t, "/dev/fuse: %v (apt-get install fuse3; in a container, --device /dev/fuse)", err)
	}
	_ = f.Close()
}

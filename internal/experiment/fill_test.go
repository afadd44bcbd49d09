package experiment

import (
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestDfUseMatchesDf: the fill check's share is df's Use% before rounding,
// used / (used + avail), read from df's own columns for the same
// filesystem. A share of the whole size (blocks - free) / blocks would sit
// below it on ext4, whose reserved blocks count as neither used nor
// available.
func TestDfUseMatchesDf(t *testing.T) {
	df, err := exec.LookPath("df")
	if err != nil {
		t.Fatalf("df: %v", err)
	}
	dir := t.TempDir()
	out, err := exec.Command(df, "--block-size=1", "--output=used,avail", dir).Output()
	if err != nil {
		t.Fatalf("df %s: %v", dir, err)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	cols := strings.Fields(lines[len(lines)-1])
	if len(cols) != 2 {
		t.Fatalf("df output %q", out)
	}
	used, err1 := strconv.ParseFloat(cols[0], 64)
	avail, err2 := strconv.ParseFloat(cols[1], 64)
	if err1 != nil || err2 != nil || used+avail == 0 {
		t.Fatalf("df output %q", out)
	}
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	got, ok := dfUse(st)
	want := used / (used + avail)
	// Both read the same live filesystem a moment apart: a few blocks
	// may change in between.
	if !ok || got < want-1e-4 || got > want+1e-4 {
		t.Fatalf("dfUse = %.6f (ok %v), df says %.6f", got, ok, want)
	}
}

func TestDfUseReservedBlocks(t *testing.T) {
	// 100 blocks, 60 free of which 10 reserved for root: df shows
	// 40 used, 50 available, Use% 44.4 (not 40).
	st := unix.Statfs_t{Blocks: 100, Bfree: 60, Bavail: 50, Bsize: 4096}
	if got, ok := dfUse(st); !ok || got < 0.4444 || got > 0.4445 {
		t.Fatalf("dfUse = %v, %v; want 0.4444", got, ok)
	}
	if _, ok := dfUse(unix.Statfs_t{}); ok {
		t.Fatal("an empty filesystem gave a share")
	}
}

package experiment

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

func (e *Executor) checkFree(ctx context.Context, c Check) (string, error) {
	dirs, err := e.datadirs(ctx, c)
	if err != nil {
		return "", err
	}
	var found []string
	for _, d := range dirs {
		var st unix.Statfs_t
		if err := unix.Statfs(d, &st); err != nil {
			return "", err
		}
		avail := uint64(st.Bavail) * uint64(st.Bsize)
		if avail < uint64(c.Bytes) {
			return "", fmt.Errorf("%s has %s free, the run needs %s", d, human(avail), human(uint64(c.Bytes)))
		}
		found = append(found, fmt.Sprintf("%s: %s free (need %s)", filepath.Clean(d), human(avail), human(uint64(c.Bytes))))
	}
	return strings.Join(found, "; "), nil
}

func human(b uint64) string {
	const unit = 1024
	if b < unit {
		return fmt.Sprintf("%d B", b)
	}
	div, exp := uint64(unit), 0
	for n := b / unit; n >= unit; n /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(b)/float64(div), "KMGTPE"[exp])
}

var freeCheck = checkKind{
	keys: "bytes, targets or path",
	validate: func(p *Plan, c Check) []string {
		out := needDirs(p, c)
		if c.Bytes == 0 {
			out = append(out, "bytes missing")
		}
		return out
	},
	run: func(e *Executor, ctx context.Context, c Check, _ *Run) (string, error) { return e.checkFree(ctx, c) },
}

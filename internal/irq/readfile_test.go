package irq

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// requireSameCPUList wants appendCPUList to read s as ParseCPUList does,
// also after what dst already holds.
func requireSameCPUList(t testing.TB, s string) {
	want, wantErr := ParseCPUList(s)
	got, err := appendCPUList([]int{7}, []byte(s))
	if wantErr != nil {
		require.EqualError(t, err, wantErr.Error())
		return
	}
	require.NoError(t, err)
	require.Equal(t, 7, got[0])
	require.True(t, slices.Equal(want, got[1:]), "%q: want %v, got %v", s, want, got[1:])
}

func TestAppendCPUListMatchesParseCPUList(t *testing.T) {
	for _, s := range []string{"", "\n", " 0-3 \n", "0-1,8,10-11", "3,1,1-2", "1-3,2-5", "3-1", "a", "1,,2",
		"0-3,", ",0", "0-70000", "65536", "65537", "0000012", "+1", "-1", "1-", "1--2", "0-7:2", "1\u00852", "\u00a01\u00a0", "1 ,2"} {
		requireSameCPUList(t, s)
	}
}

func FuzzAppendCPUList(f *testing.F) {
	for _, s := range []string{"0-3", "0-1,8,10-11", "", "65535", "3,1,1-2", " 5\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { requireSameCPUList(t, s) })
}

// TestAffinityReaderMatchesReadAffinity: on every kind of line directory
// (both files, no effective file, gone, a bad list, a list longer than the
// first read, an empty list, a symlink) the reader returns what
// ReadAffinity does, also when one reader reads them all in turn.
func TestAffinityReaderMatchesReadAffinity(t *testing.T) {
	root := t.TempDir()
	procfs := filepath.Join(root, "proc")
	var long []string
	for c := 0; c < 2000; c += 2 {
		long = append(long, fmt.Sprint(c))
	}
	files := map[string]string{
		"irq/1/smp_affinity_list": "0-3\n", "irq/1/effective_affinity_list": "2\n",
		"irq/2/smp_affinity_list": "0-1,8\n", // no effective file (old kernel)
		"irq/3/smp_affinity_list": "7-1\n", "irq/3/effective_affinity_list": "1\n",
		"irq/4/smp_affinity_list": "1\n", "irq/4/effective_affinity_list": "x\n",
		"irq/5/smp_affinity_list": strings.Join(long, ",") + "\n", "irq/5/effective_affinity_list": "0-1999\n",
		"irq/6/smp_affinity_list": "\n", "irq/6/effective_affinity_list": "\n",
		"target/smp_affinity_list": "4-5\n", "target/effective_affinity_list": "5\n",
		"irq/9/smp_affinity_list/x": "a directory where the file should be",
	}
	for p, c := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(procfs, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(procfs, p), []byte(c), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(procfs, "target"), filepath.Join(procfs, "irq/7")))

	var r AffinityReader
	defer r.Close()
	for _, root := range []string{procfs, filepath.Join(root, "no-such-proc"), procfs} {
		for irqN := range 11 { // 0, 8 and 10 are gone
			want, wantOK, wantErr := oracleReadAffinity(root, irqN)
			got, ok, err := r.Read(root, irqN)
			once, onceOK, onceErr := ReadAffinity(root, irqN)
			require.Equal(t, fmt.Sprint(got, ok, err), fmt.Sprint(once, onceOK, onceErr), "irq %d: ReadAffinity is one Read", irqN)
			if wantErr != nil {
				require.EqualError(t, err, wantErr.Error(), "irq %d", irqN)
				continue
			}
			require.NoError(t, err, "irq %d", irqN)
			require.Equal(t, wantOK, ok, "irq %d", irqN)
			require.Equal(t, want.HasEffective, got.HasEffective, "irq %d", irqN)
			require.True(t, slices.Equal(want.Configured, got.Configured), "irq %d configured", irqN)
			require.True(t, slices.Equal(want.Effective, got.Effective), "irq %d effective", irqN)
		}
	}
}

// oracleReadAffinity is ReadAffinity as it was before AffinityReader, with
// os.ReadFile and ParseCPUList: it reads <procfs>/irq/N/{smp,effective}_affinity_list. ok is
// false when the line's directory is gone (freed since /proc/interrupts).
func oracleReadAffinity(procfs string, irq int) (a Affinity, ok bool, err error) {
	dir := filepath.Join(procfs, "irq", strconv.Itoa(irq))
	b, err := os.ReadFile(filepath.Join(dir, "smp_affinity_list"))
	if errors.Is(err, fs.ErrNotExist) {
		return a, false, nil
	}
	if err != nil {
		return a, false, err
	}
	if a.Configured, err = ParseCPUList(string(b)); err != nil {
		return a, false, fmt.Errorf("irq %d smp_affinity_list: %w", irq, err)
	}
	b, err = os.ReadFile(filepath.Join(dir, "effective_affinity_list"))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return a, true, nil
	case err != nil:
		return a, false, err
	}
	if a.Effective, err = ParseCPUList(string(b)); err != nil {
		return a, false, fmt.Errorf("irq %d effective_affinity_list: %w", irq, err)
	}
	a.HasEffective = true
	return a, true, nil
}

package nvmetrace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/cilium/ebpf"
	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestProgramPassesTheVerifier loads the program built for Debian 6.1's
// record layout into this machine's kernel: the verifier accepts every
// record access and map call (attaching needs the nvme driver, which the
// QEMU test has).
func TestProgramPassesTheVerifier(t *testing.T) {
	b, err := os.ReadFile("testdata/nvme_setup_cmd.format")
	require.NoError(t, err)
	fields, err := ParseFormat(string(b))
	require.NoError(t, err)
	l, err := LayoutOf(fields)
	require.NoError(t, err)
	m, err := ebpf.NewMap(&ebpf.MapSpec{Type: ebpf.PerCPUHash, KeySize: keySize, ValueSize: valueSize, MaxEntries: MaxKeys})
	if err != nil {
		if errors.Is(err, os.ErrPermission) || errors.Is(err, ebpf.ErrNotSupported) {
			testenv.Missing(t, "BPF maps on this machine: %v", err)
		}
		require.NoError(t, err)
	}
	defer m.Close()
	insns := Program(l, m.FD())
	prog, err := ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.TracePoint, License: "GPL", Instructions: insns})
	require.NoError(t, err, "%v", insns)
	require.NoError(t, prog.Close())

	// An unaligned ctrl_id takes the byte-wise path, which verifies too.
	l.CtrlID.Offset = 41
	prog, err = ebpf.NewProgram(&ebpf.ProgramSpec{Type: ebpf.TracePoint, License: "GPL", Instructions: Program(l, m.FD())})
	require.NoError(t, err)
	require.NoError(t, prog.Close())
}

// TestOpenWithoutTracepoint: no directory to find or mount tracefs at,
// or one that holds other files (never mounted over), is no_tracefs; a
// tracefs without the event is no_tracepoint.
func TestOpenWithoutTracepoint(t *testing.T) {
	_, err := Open(filepath.Join(t.TempDir(), "absent"))
	var te *Error
	require.ErrorAs(t, err, &te)
	require.Equal(t, ReasonNoTracefs, te.Reason)
	full := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(full, "mine"), nil, 0o644))
	_, err = Open(full)
	require.ErrorAs(t, err, &te)
	require.Equal(t, ReasonNoTracefs, te.Reason)
	require.ErrorContains(t, err, "neither tracefs (no events/) nor empty")
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(dir+"/events", 0o755))
	_, err = Open(dir)
	require.ErrorAs(t, err, &te)
	require.Equal(t, ReasonNoTracepoint, te.Reason)
}

package cpuprof

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/walab/walab/internal/testenv"
)

// TestStrippedBinaryFunctionStarts: with .symtab stripped, an address
// inside walab_busy_spin is named by the function's start from
// .eh_frame_hdr, the address the unstripped binary gives it.
func TestStrippedBinaryFunctionStarts(t *testing.T) {
	bin, _ := buildBusy(t)
	f, err := elf.Open(bin)
	require.NoError(t, err)
	syms, err := f.Symbols()
	require.NoError(t, err)
	f.Close()
	var busy elf.Symbol
	for _, s := range syms {
		if s.Name == "walab_busy_spin" {
			busy = s
		}
	}
	require.NotZero(t, busy.Value)

	full, err := readELF(bin)
	require.NoError(t, err)
	require.Equal(t, "walab_busy_spin", full.name(busy.Value+busy.Size/2))
	sized := table{{start: 0x100, end: 0x110, name: "a"}, {start: 0x200, end: 0x210, name: "b"}}
	require.Equal(t, "a", sized.findName(0x10f))
	require.Equal(t, Unknown, sized.findName(0x110), "past its size a symbol does not cover")

	stripped := filepath.Join(t.TempDir(), "stripped")
	out, err := exec.Command(testenv.RequireBinary(t, "strip"), "-o", stripped, bin).CombinedOutput()
	require.NoError(t, err, "%s", out)
	e, err := readELF(stripped)
	require.NoError(t, err)
	require.Empty(t, e.funcs, "a stripped executable with no exports has no function symbols")
	require.Equal(t, "0x"+strconv.FormatUint(busy.Value, 16), e.name(busy.Value+busy.Size/2))
}

func TestReadKallsyms(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "kallsyms")
	require.NoError(t, os.WriteFile(p, []byte("ffffffff81000000 T _stext\nffffffff81000100 t native_queued_spin_lock_slowpath\nffffffff81000200 D some_data\nffffffff81000300 T ext4_write [ext4]\n"), 0o644))
	k, err := ReadKallsyms(p)
	require.NoError(t, err)
	require.Equal(t, "native_queued_spin_lock_slowpath", k.findName(0xffffffff81000150))
	require.Equal(t, "native_queued_spin_lock_slowpath", k.findName(0xffffffff81000250), "data symbols are not functions")
	require.Equal(t, "ext4_write", k.findName(0xffffffff81000301))
	require.Equal(t, Unknown, k.findName(0x1000))

	require.NoError(t, os.WriteFile(p, []byte("0000000000000000 T _stext\n0000000000000000 t foo\n"), 0o644))
	_, err = ReadKallsyms(p)
	require.ErrorContains(t, err, "kptr_restrict")
}

func TestFuncName(t *testing.T) {
	require.Equal(t, "pthread_rwlock_unlock", funcName("pthread_rwlock_unlock@@GLIBC_2.34"))
	require.Equal(t, "Item_func_concat::val_str", funcName("_ZN16Item_func_concat7val_strEP6String"))
	require.Equal(t, "ut_delay", funcName("ut_delay"))
}

// TestUnnamedReasons: why kernel frames cannot be named, from a procfs
// whose kallsyms shows zeros: CAP_SYSLOG would show the addresses at
// kptr_restrict 0 or 1, nothing at 2; a kallsyms that cannot be read is
// unreadable; one with addresses names them (no reason).
func TestUnnamedReasons(t *testing.T) {
	for kptr, want := range map[string]string{"1": UnnamedNeedsSyslog, "2": UnnamedKptrRestrict, "": UnnamedUnreadable, "0 with addresses": ""} {
		proc := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(proc, "sys", "kernel"), 0o755))
		addr := "0000000000000000"
		if kptr == "0 with addresses" {
			addr, kptr = "ffffffff81000000", "0"
		}
		if kptr != "" {
			require.NoError(t, os.WriteFile(filepath.Join(proc, "kallsyms"), []byte(addr+" T _stext\n"+addr+" T queued_spin_lock_slowpath\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(proc, "sys", "kernel", "kptr_restrict"), []byte(kptr+"\n"), 0o644))
		}
		got := NewSymbolizer(proc).Unnamed()
		if want == "" {
			require.Empty(t, got, kptr)
			continue
		}
		require.Equal(t, map[string]string{"kernel": want}, got, kptr)
	}
}

// TestUnnamedUserFrames: as another user without a capability, a root
// process's /proc/PID/maps is refused, and the symbolizer says user
// frames need CAP_SYS_PTRACE.
func TestUnnamedUserFrames(t *testing.T) {
	if testenv.Rerun(t) != "" {
		s := NewSymbolizer("/proc")
		f, ok := s.User(1, 0x1000)
		require.False(t, ok)
		require.Equal(t, Unknown, f.Function)
		require.Equal(t, UnnamedNeedsPtrace, s.Unnamed()["user"])
		return
	}
	testenv.RerunAs(t, "nobody", "--reuid=65534", "--regid=65534", "--clear-groups",
		"--inh-caps=-all", "--ambient-caps=-all", "--bounding-set=-all")
}

package plan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/walab/walab/internal/testenv"
)

// fioPlan is a one-run plan around a fio line.
func fioRunPlan(line string, destructive bool) []byte {
	return fmt.Appendf(nil, "name: v\nruns:\n  - {name: r, destructive: %v, fio: %q}\n", destructive, line)
}

// TestFioGuardResolvesTargets: every way fio names what it writes is
// resolved at validation, before any step runs (issue 42 items 4, 5, 6):
// each line here is refused without destructive: true and accepted with
// it, or refused outright.
func TestFioGuardResolvesTargets(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "precious.db")
	require.NoError(t, os.WriteFile(existing, []byte("x"), 0o644))
	job := func(name, text string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		return p
	}
	needDestructive := map[string]string{
		// item 4: raw devices however fio is told of them
		"fio --filename_format=/dev/loop2 --name=x":                                  "/dev/loop2",
		"fio --directory=/dev --filename=loop2 --name=x":                             "/dev/loop2",
		"fio --filename=//dev/loop2 --name=x":                                        "/dev/loop2",
		"fio -filename=/srv/a\\:b:/dev/loop3 --name=x":                               "/dev/loop3",
		"fio --directory=/dev --name=x":                                              "/dev",
		"fio " + job("var.fio", "[x]\nfilename=${DEV}\n"):                            "${DEV}",
		"fio " + job("inc.fio", "[x]\ninclude other.fio\n"):                          "include",
		"fio " + job("dev.fio", "[global]\ndirectory = /dev\n[x]\nfilename=loop4\n"): "/dev/loop4",
		"fio --filename=/dev/loop$ncpus --name=x":                                    "$ncpus",
		"fio --opendir=/srv --name=x":                                                "opendir",
		// item 6: writes outside what fio creates
		"fio --filename=" + existing + " --name=x":              "overwrites the existing file " + existing,
		"fio --unlink=1 --name=x":                               "unlink",
		"fio --write_iolog=/etc/x --name=x":                     "write_iolog",
		"fio --write_bw_log=/tmp/bw --name=x":                   "write_bw_log",
		"fio --write_lat_log=lat --name=x":                      "write_lat_log",
		"fio --exec_prerun='rm -rf /' --name=x":                 "exec_prerun",
		"fio --exec_postrun=x --name=x":                         "exec_postrun",
		"fio --ioengine=exec --program=/bin/rm --name=x":        "ioengine=exec",
		"fio --size=1000000T --directory=" + dir + " --name=x":  "free",
		"fio --trigger=reboot --name=x":                         "trigger",
		"fio " + job("log.fio", "[x]\nwrite_hist_log=/var/h\n"): "write_hist_log",
		// issue 54 item 5: the disk's scheduler, cgroups, verify state files
		"fio --ioscheduler=none --name=x":                             "ioscheduler",
		"fio --cgroup=walab --name=x":                                 "cgroup",
		"fio --cgroup_weight=500 --name=x":                            "cgroup_weight",
		"fio --cgroup_nodelete=1 --name=x":                            "cgroup_nodelete",
		"fio --verify=crc32c --verify_state_save=1 --name=x":          "verify_state_save",
		"fio --verify=crc32c --verify_state_load=1 --name=x":          "verify_state_load",
		"fio " + job("sched.fio", "[x]\nioscheduler = mq-deadline\n"): "ioscheduler",
	}
	for line, want := range needDestructive {
		_, err := Parse(fioRunPlan(line, false))
		require.ErrorContains(t, err, want, line)
		require.ErrorContains(t, err, "destructive: true", line)
		_, err = Parse(fioRunPlan(line, true))
		require.NoError(t, err, "%s with destructive: true", line)
	}
	// item 5: fio takes unique prefixes of its options (getopt_long_only):
	// walab reads full names only.
	for line, want := range map[string]string{
		"fio --cli=h --name=x":            "--cli",
		"fio --serv --name=x":             "--serv",
		"fio --filen=/dev/loop2 --name=x": "--filen",
		"fio -filename_f=/dev/x --name=x": "-filename_f",
		"fio --server --name=x":           "this host only",
		"fio --daemonize=/p --name=x":     "this host only",
		"fio --remote-config=j --name=x":  "this host only",
		"fio --trigger-remote=x --name=x": "this host only",
	} {
		for _, d := range []bool{false, true} {
			_, err := Parse(fioRunPlan(line, d))
			require.ErrorContains(t, err, want, line)
		}
	}
	for _, line := range []string{
		"fio --name=x --rw=randwrite --size=1M --directory=" + dir,
		"fio --name=x --filename=" + filepath.Join(dir, "new.dat") + " --size=1M",
		"fio --name=x --bs=4k --iodepth=32 --ioengine=libaio --hipri",

		"fio " + job("ok.fio", "; comment\n[global]\nbs=4k\n[x]\nfilename="+filepath.Join(dir, "f")+"\nsize=1M\n"),
	} {
		_, err := Parse(fioRunPlan(line, false))
		require.NoError(t, err, line)
	}
	// A directory of its own file system under /dev (/dev/shm's tmpfs) is
	// a directory, not a raw device (issue 54).
	var devSt, shmSt unix.Stat_t
	if unix.Stat("/dev", &devSt) == nil && unix.Stat("/dev/shm", &shmSt) == nil && shmSt.Dev != devSt.Dev {
		for _, line := range []string{
			"fio --name=x --size=1M --directory=/dev/shm",
			"fio --name=x --size=1M --directory=/dev/shm --filename=walab-fio-test",
			"fio --name=x --size=1M --filename=/dev/shm/walab-fio-test",
		} {
			_, err := Parse(fioRunPlan(line, false))
			require.NoError(t, err, line)
		}
	} else {
		t.Log("/dev/shm is not a file system of its own here: its lines are not tried")
	}
	_, err := Parse(fioRunPlan("fio "+filepath.Join(dir, "missing.fio"), true))
	require.ErrorContains(t, err, "missing.fio", "a missing job file is found at validation")

}

// TestFioOptionsFixture: the option list read from fio 3.33's source holds
// every job option the installed fio prints (fio --cmdhelp=all), so that
// no abbreviation of one of them passes for an unknown option.
func TestFioOptionsFixture(t *testing.T) {
	bin := testenv.RequireBinary(t, "fio")
	out, err := exec.Command(bin, "--cmdhelp=all").Output()
	require.NoError(t, err)
	n := 0
	for _, l := range strings.Split(string(out), "\n") {
		name, _, ok := strings.Cut(l, ":")
		if name = strings.TrimSpace(name); !ok || name == "" {
			continue
		}
		n++
		require.Contains(t, fioOptionNames, name, "fio's option %s is missing from fio-%s-options.txt", name, fioOptionsVersion)
	}
	require.Greater(t, n, 200, "fio --cmdhelp=all lists its options")
}

// TestFioGuardEngines: fio runs its jobs through local I/O engines only;
// an engine that reaches another host (net, nbd, http, rdma, rados, ...)
// or loads a library (external:, a name fio would dlopen) is refused at
// validation, destructive or not (issue 54 item 2).
func TestFioGuardEngines(t *testing.T) {
	dir := t.TempDir()
	job := filepath.Join(dir, "net.fio")
	require.NoError(t, os.WriteFile(job, []byte("[global]\nioengine = nbd\n[x]\nsize=1M\n"), 0o644))
	for _, line := range []string{
		"fio --ioengine=net --hostname=192.0.2.1 --port=8765 --name=x",
		"fio --ioengine=netsplice --hostname=h --name=x",
		"fio --ioengine=nbd --uri=nbd://h --name=x",
		"fio --ioengine=http --http_host=h --name=x",
		"fio --ioengine=external:/tmp/lib.so --name=x",
		"fio --ioengine=/tmp/lib.so --name=x",
		"fio -ioengine=rdma --name=x",
		"fio --ioengine=rados --name=x",
		"fio --ioengine=rbd --name=x",
		"fio --ioengine=libcufile --name=x",
		"fio --ioengine=nfs --name=x",
		"fio --ioengine=libiscsi --name=x",
		"fio --ioengine=${ENGINE} --name=x",
		"fio --ioengine=LIBAIO --name=x",
		"fio " + job,
	} {
		for _, d := range []bool{false, true} {
			_, err := Parse(fioRunPlan(line, d))
			require.ErrorContains(t, err, "local I/O engines only", "%s (destructive: %v)", line, d)
		}
	}
	for _, e := range []string{"sync", "psync", "vsync", "pvsync", "pvsync2", "libaio", "io_uring", "io_uring_cmd",
		"posixaio", "mmap", "null", "splice", "sg", "cpuio", "falloc", "ftruncate", "filecreate", "filestat",
		"filedelete", "dircreate", "dirstat", "dirdelete"} {
		_, err := Parse(fioRunPlan("fio --ioengine="+e+" --size=1M --name=x --directory="+dir, false))
		require.NoError(t, err, e)
	}
}

package plan

import (
	"bufio"
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The fio guard: what a fio run writes, resolved from its command line and
// job files the way fio resolves them (fio 3.33: init.c parse_cmd_line,
// __parse_jobs_ini; options.c fio_option_dup_subs, fio_keyword_replace;
// filesetup.c add_file), at validation, before any step runs. What walab
// cannot resolve statically needs destructive: true.

// fioOptionsText is fio's option table, read from its source (the file's
// header says how); fioOptionsVersion the fio version it is from.
//
//go:embed fio-3.33-options.txt
var fioOptionsText string

const fioOptionsVersion = "3.33"

// fioOptionNames maps each of fio's long option names and aliases to the
// option's name.
var fioOptionNames = func() map[string]string {
	m := map[string]string{}
	for _, l := range strings.Split(fioOptionsText, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) == 0 || strings.HasPrefix(l, "#"):
		case len(f) == 1:
			m[f[0]] = f[0]
		default:
			m[f[0]] = f[1]
		}
	}
	return m
}()

// fioOpt is one option of a fio line or of one of its job files.
type fioOpt struct {
	name, val string
	where     string // "the command line" or the job file
}

// fioRemote are the options that make fio talk to or serve other hosts.
var fioRemote = map[string]bool{"client": true, "server": true, "server-internal": true, "daemonize": true,
	"remote-config": true, "trigger-remote": true}

// cmdlineOptions resolves the line's options to fio's names. fio reads its
// command line with getopt_long_only, which takes any unique prefix of an
// option (--cli= is --client=): walab refuses abbreviations, so that the
// name it checks is the name fio acts on.
func (f *fioLine) cmdlineOptions() (opts []fioOpt, problems []string) {
	for _, a := range f.args[1:] {
		name, val, ok := fioOption(a)
		if !ok {
			continue
		}
		canon, known := fioOptionNames[name]
		if !known {
			if full := fioPrefixOf(name); full != "" {
				problems = append(problems, fmt.Sprintf("fio: %s: fio takes it as an abbreviation (of --%s): write fio's options in full (fio %s's option list)",
					strings.SplitN(a, "=", 2)[0], full, fioOptionsVersion))
			}
			canon = name // an ioengine's option, or one fio refuses
		}
		opts = append(opts, fioOpt{name: canon, val: val, where: "the command line"})
	}
	return opts, problems
}

// fioPrefixOf is the first option that name abbreviates, or "".
func fioPrefixOf(name string) string {
	for _, l := range strings.Split(fioOptionsText, "\n") {
		if f := strings.Fields(l); len(f) > 0 && !strings.HasPrefix(l, "#") && strings.HasPrefix(f[0], name) {
			return f[0]
		}
	}
	return ""
}

// jobFileOptions are the options of an ini-style job file, as fio reads
// it: ';' and '#' start comments, [name] a section, "key=value" or "key" an
// option. A line starting with include includes another file: walab does
// not follow it (unresolved).
func jobFileOptions(path string) (opts []fioOpt, unresolved []string, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("fio job file: %w", err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		l := strings.TrimSpace(sc.Text())
		switch {
		case l == "" || l[0] == ';' || l[0] == '#' || l[0] == '[':
		case strings.HasPrefix(l, "include"):
			unresolved = append(unresolved, fmt.Sprintf("%s: %q: an include walab does not follow", path, l))
		default:
			k, v, _ := strings.Cut(l, "=")
			k = strings.TrimSpace(k)
			if canon, ok := fioOptionNames[k]; ok {
				k = canon
			}
			opts = append(opts, fioOpt{name: k, val: strings.TrimSpace(v), where: path})
		}
	}
	return opts, unresolved, sc.Err()
}

// fioGuard is what a fio line writes, as far as walab can tell.
type fioGuard struct {
	devices  []string // raw devices (under /dev, or block or character devices)
	needs    []string // why the run needs destructive: true
	problems []string // refused whatever the run says
}

// fioLocalEngines are the I/O engines of fio 3.33 (engines/*.c) that
// reach only this host's files and devices. Any other name is refused: the
// network and storage-cluster engines (net, netsplice, nbd, http, rdma,
// rados, rbd, nfs, libiscsi, gfapi, libhdfs, dfs, xnvme's fabrics),
// libcufile (a GPU), external:PATH and any name fio would load as a
// library (dlopen). exec runs a program: it needs destructive: true.
var fioLocalEngines = map[string]bool{
	"sync": true, "psync": true, "vsync": true, "pvsync": true, "pvsync2": true, "libaio": true,
	"io_uring": true, "io_uring_cmd": true, "posixaio": true, "mmap": true, "null": true, "splice": true,
	"sg": true, "cpuio": true, "falloc": true, "ftruncate": true, "e4defrag": true, "filecreate": true,
	"filestat": true, "filedelete": true, "dircreate": true, "dirstat": true, "dirdelete": true,
	"libzbc": true, "mtd": true, "dev-dax": true, "libpmem": true, "exec": true,
}

// engineProblem refuses an ioengine= that is not a local engine.
func engineProblem(o fioOpt) string {
	if fioLocalEngines[o.val] {
		return ""
	}
	names := slices.Sorted(maps.Keys(fioLocalEngines))
	return fmt.Sprintf("fio: ioengine=%s (%s): walab runs fio with local I/O engines only (%s): fio talks to no other host and loads no library",
		o.val, o.where, strings.Join(names, ", "))
}

// fioWrites are options that write, delete or run something beyond the
// files fio creates for its jobs.
var fioWrites = map[string]string{
	"unlink": "deletes its files", "unlink_each_loop": "deletes its files",
	"write_iolog": "writes a file anywhere", "write_bw_log": "writes log files anywhere",
	"write_lat_log": "writes log files anywhere", "write_iops_log": "writes log files anywhere",
	"write_hist_log": "writes log files anywhere", "latency-log": "writes log files",
	"bandwidth-log": "writes log files", "aux-path": "writes its files there",
	"exec_prerun": "runs a command", "exec_postrun": "runs a command", "trigger": "runs a command",
	"replay_redirect": "redirects a replay's writes to a device", "fill_device": "fills the file system",
	"ioscheduler": "switches the disk's I/O scheduler and leaves it switched after fio ends",
	"cgroup":      "creates a cgroup under /sys/fs/cgroup", "cgroup_weight": "creates a cgroup under /sys/fs/cgroup",
	"cgroup_nodelete":   "leaves its cgroup behind",
	"verify_state_save": "writes verify state files into walab's working directory",
	"verify_state_load": "reads verify state files from walab's working directory",
}

// fioSwitchOff: a flag of fioWrites set to 0 writes nothing.
var fioSwitchOff = map[string]bool{"unlink": true, "unlink_each_loop": true, "cgroup_nodelete": true,
	"verify_state_save": true, "verify_state_load": true}

func fioWritesSomething(o fioOpt) bool {
	return fioWrites[o.name] != "" && !(fioSwitchOff[o.name] && (o.val == "0" || o.val == "false"))
}

// unresolvedValue: ${VAR} is the environment of fio's process
// (fio_option_dup_subs), $pagesize, $mb_memory and $ncpus fio's keywords.
var unresolvedValue = regexp.MustCompile(`\$\{|\$(pagesize|mb_memory|ncpus)`)

// guard resolves the line's targets and writes; numjobs is the most jobs
// one run starts (a sweep's largest); free gives a path's free bytes (nil:
// statfs).
func (f *fioLine) guard(numjobs int, free func(string) (uint64, bool)) fioGuard {
	var g fioGuard
	opts, problems := f.cmdlineOptions()
	g.problems = problems
	for _, jf := range f.jobFiles {
		o, unres, err := jobFileOptions(jf)
		if err != nil {
			g.problems = append(g.problems, err.Error())
		}
		opts = append(opts, o...)
		g.needs = append(g.needs, unres...)
	}
	var files, dirs []string
	var size string
	for _, o := range opts {
		switch {
		case fioRemote[o.name]:
			g.problems = append(g.problems, fmt.Sprintf("fio: %s (%s): walab runs fio on this host only", o.name, o.where))
		case o.name == "ioengine" && engineProblem(o) != "":
			g.problems = append(g.problems, engineProblem(o))
		case fioWritesSomething(o):
			g.needs = append(g.needs, fmt.Sprintf("%s (%s) %s", o.name, o.where, fioWrites[o.name]))
		case o.name == "ioengine" && o.val == "exec":
			g.needs = append(g.needs, fmt.Sprintf("ioengine=exec (%s) runs a program", o.where))
		case o.name == "opendir":
			g.needs = append(g.needs, fmt.Sprintf("opendir=%s (%s) takes every file under it", o.val, o.where))
		case o.name == "filename" || o.name == "filename_format" || o.name == "directory":
			if unresolvedValue.MatchString(o.val) {
				g.needs = append(g.needs, fmt.Sprintf("%s=%s (%s): fio expands it at run time, walab cannot resolve it", o.name, o.val, o.where))
				continue
			}
			if o.name == "directory" {
				dirs = append(dirs, fioSplit(o.val)...)
				continue
			}
			if o.name == "filename_format" {
				o.val = fioFormatTokens.ReplaceAllString(o.val, "0")
			}
			files = append(files, fioSplit(o.val)...)
		case o.name == "size":
			size = o.val
		}
	}
	g.targets(files, dirs)
	if n := g.freeSpace(size, files, dirs, numjobs, free); n != "" {
		g.needs = append(g.needs, n)
	}
	return g
}

// fioFormatTokens are filename_format's own expansions.
var fioFormatTokens = regexp.MustCompile(`\$(jobname|jobnum|filenum|clientuid)`)

// fioSplit splits fio's ':'-separated list; "\:" is a colon in a name.
func fioSplit(v string) []string {
	parts := strings.Split(strings.ReplaceAll(v, `\:`, "\x00"), ":")
	var out []string
	for _, p := range parts {
		if p != "" {
			out = append(out, strings.ReplaceAll(p, "\x00", ":"))
		}
	}
	return out
}

// targets resolves each file under each directory (fio writes
// DIRECTORY/NAME, an absolute name included: add_file), and the
// directories themselves when no file is named (fio names its files after
// the job there).
func (g *fioGuard) targets(files, dirs []string) {
	var paths []string
	for _, f := range files {
		if len(dirs) == 0 {
			paths = append(paths, filepath.Clean(f))
		}
		for _, d := range dirs {
			paths = append(paths, filepath.Join(d, f))
		}
	}
	if len(files) == 0 {
		for _, d := range dirs {
			if isRawDevPath(filepath.Clean(d)) {
				g.devices = append(g.devices, filepath.Clean(d))
			}
		}
	}
	for _, p := range paths {
		if p == "-" {
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case isRawDevPath(p) || err == nil && fi.Mode()&os.ModeDevice != 0:
			g.devices = append(g.devices, p)
		case err == nil && fi.Mode().IsRegular():
			g.needs = append(g.needs, fmt.Sprintf("overwrites the existing file %s", p))
		}
	}
}

func isDevPath(p string) bool { return p == "/dev" || strings.HasPrefix(p, "/dev/") }

// isRawDevPath: a path under /dev that is not in a file system of its
// own mounted there (/dev/shm's tmpfs): fio's files in /dev/shm are files.
func isRawDevPath(p string) bool {
	if !isDevPath(p) {
		return false
	}
	var dev unix.Stat_t
	if unix.Stat("/dev", &dev) != nil {
		return true
	}
	for d := p; d != "/dev" && d != "/"; d = filepath.Dir(d) {
		var st unix.Stat_t
		if unix.Stat(d, &st) == nil && st.Mode&unix.S_IFMT == unix.S_IFDIR && st.Dev != dev.Dev {
			return false
		}
	}
	return true
}

// freeSpace: a --size (bytes; fio's suffixes, base 1024), times the jobs
// when each job makes its own file, above the free space of the file system that holds the files.
func (g *fioGuard) freeSpace(size string, files, dirs []string, numjobs int, free func(string) (uint64, bool)) string {
	n, ok := fioBytes(size)
	if !ok {
		return ""
	}
	where := append(append([]string{}, dirs...), files...)
	if len(where) == 0 {
		where = []string{"."}
	}
	// Named files are shared by the jobs; else each job makes its own.
	jobs := max(numjobs, 1)
	if len(files) > 0 {
		jobs = 1
	}
	total := n * uint64(jobs)
	if free == nil {
		free = statfsFree
	}
	for _, w := range where {
		if avail, ok := free(w); ok && total > avail {
			return fmt.Sprintf("size=%s × %d job(s) is more than the %d bytes free under %s: it fills the file system", size, jobs, avail, w)
		}
	}
	return ""
}

// statfsFree is the bytes free to an unprivileged writer on the file system
// holding path, or of its nearest existing parent; false when none is found.
func statfsFree(path string) (uint64, bool) {
	var st unix.Statfs_t
	for d := path; ; d = filepath.Dir(d) {
		if unix.Statfs(d, &st) == nil {
			return st.Bavail * uint64(st.Bsize), true
		}
		if d == filepath.Dir(d) {
			return 0, false
		}
	}
}

// fioBytes reads a size as fio does with its default kb_base (1024):
// a number with an optional k, m, g, t or p (any case, optional "i"/"b").
// A percentage or a range is not read (false).
func fioBytes(s string) (uint64, bool) {
	m := regexp.MustCompile(`^(\d+)([kKmMgGtTpP]?)(i?[bB])?$`).FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, false
	}
	shift := strings.Index("kmgtp", strings.ToLower(m[2])) + 1
	if m[2] == "" {
		shift = 0
	}
	if n > (1<<63)>>(10*shift) {
		return 1 << 63, true
	}
	return n << (10 * shift), true
}

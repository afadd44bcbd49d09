// Package plan: how fio command lines and job files are read for raw devices, writes beyond fio's own files, abbreviations and I/O engines (docs/fio.md summarises it).
//
// walab finds the device however fio
// is told of it, when the plan is read, before any step runs. It reads the
// command line and the job files as fio 3.33 does:
//
//   - `filename` (a `:` list, `\:` for a colon in a name) and `filename_format`
//     (its `$jobname`, `$jobnum`, `$filenum` and `$clientuid`);
//   - each of them under every `directory` (fio writes DIRECTORY/NAME, an absolute
//     name included), cleaned, so `//dev/loop2` and `--directory=/dev
//     --filename=loop2` are `/dev/loop2`;
//   - a `directory` under /dev with no filename.
//
// A path under /dev, or a block or character device elsewhere (a symlink to one),
// is a raw device; a path in a file system of its own mounted under /dev
// (`/dev/shm`'s tmpfs) is a file. What walab cannot resolve before fio runs needs `destructive:
// true` too. That covers `${VAR}` (fio expands its environment), fio's keywords
// `$pagesize`, `$mb_memory` and `$ncpus`, a job file's `include` line, and
// `opendir`.
//
// fio also writes, deletes or runs more than its own files. So these need
// `destructive: true`:
//
//   - a target that is an existing regular file (fio overwrites it);
//   - `unlink`, `write_iolog`, `write_bw_log`, `write_lat_log`, `write_iops_log`,
//     `write_hist_log`, `--latency-log`, `--bandwidth-log`, `--aux-path`;
//   - `exec_prerun`, `exec_postrun`, `trigger`, `ioengine=exec`,
//     `replay_redirect`, `fill_device`;
//   - `ioscheduler` (fio switches the disk's scheduler and leaves it so for every
//     later run, MySQL's included; the fingerprint's `host.io_schedulers` shows
//     the data disks' schedulers at each run's start and end), `cgroup`,
//     `cgroup_weight`, `cgroup_nodelete` (fio makes a cgroup under
//     /sys/fs/cgroup), `verify_state_save` and `verify_state_load` unless set to 0
//     (fio writes and reads verify state files in walab's working directory);
//   - a `size` above the free space of the target's file system (times the jobs
//     when each job makes its own file).
//
// fio takes any unique prefix of an option (`--cli=` is `--client=`). walab
// refuses an abbreviation of one of fio's options: write them in full. The list
// is fio 3.33's option table, read from its source, in
// `internal/experiment/plan/fio-3.33-options.txt`. `client`, `server`, `daemonize`,
// `remote-config` and `trigger-remote` are refused: walab runs fio on this host
// only.
//
// fio runs its jobs through local I/O engines only: `sync`, `psync`, `vsync`,
// `pvsync`, `pvsync2`, `libaio`, `io_uring`, `io_uring_cmd`, `posixaio`, `mmap`,
// `null`, `splice`, `sg`, `cpuio`, `falloc`, `ftruncate`, `e4defrag`,
// `filecreate`, `filestat`, `filedelete`, `dircreate`, `dirstat`, `dirdelete`,
// `libzbc`, `mtd`, `dev-dax`, `libpmem`, and `exec` (with `destructive: true`).
// Any other `ioengine`, on the command line or in a job file, is refused,
// destructive or not: the network and cluster engines (`net`, `netsplice`,
// `nbd`, `http`, `rdma`, `rados`, `rbd`, `nfs`, `libiscsi`, ...), `libcufile`,
// `external:PATH`, and any other name, which fio would try to load as a library.
//
// Before fio starts, walab applies
// the checks of `loadgen fileio --device` (internal/rawdev): the device must be a
// block device that is not mounted, not swap, not held by md or dm, and that has
// no partition in any of these states. The check runs
// just before fio starts; fio opens the device without O_EXCL, so a mount in
// between is not caught (loadgen fileio's O_EXCL open would refuse it). `--dry-run` marks such runs `[DESTRUCTIVE]`,
// and a `command:` step that runs fio on `/dev/...` must be marked destructive too.
package plan

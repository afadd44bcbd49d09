// Package rawdev: the raw-device guard in detail, and the tests that hold it (docs/loadgen.md summarises it).
//
// and it is refused, before
// anything is opened, when the path is no block device, when the device or a
// partition of it is mounted (`/proc/self/mountinfo`), used as swap, held
// by md, dm or another holder (`holders/` in sysfs), or open by another
// process (`/proc/PID/fd`: a VM's disk, a `dd`). The same checks cover every
// alias that writes the same bytes: the disk a partition is on, and for a loop
// device every other loop device over the same backing file (compared by
// device and inode), with their partitions; a loop device whose backing file
// another process has open is refused too. The open adds `O_EXCL`,
// with which the kernel itself refuses a device in use (but only a claim on
// that one block device, which is why the aliases are checked first).
// `TestDeviceGuardAliases` attaches two loop devices to one file, mounts one
// and refuses the other, and holds a device and the backing file open from
// another process. `prepare` writes the
// device once, sequentially; it records itself in the host's
// `/var/lib/walab/fileio` (`device-MAJ-MIN.json`, complete only at the end),
// and a `run` from any `--file-dir` refuses a device whose last prepare did
// not finish
// (`TestInterruptedPrepareOnDevice`). A file set's `prepare` first checks that
// the filesystem of `--file-dir` has room for what the files still need
// (`--file-total-size=1000T` used to fill it to 100 %; `TestPrepareChecksFreeSpace`). `TestRawDeviceOnLoop` runs it on a loop device;
// `TestDeviceGuardRefusesTheRootDisk` makes a block node of this machine's
// root disk and sees it refused as mounted.
package rawdev

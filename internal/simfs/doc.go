// Package simfs is the filesystem the simulated drive sits under: a FUSE
// loopback filesystem (hanwen/go-fuse v2) that keeps the files in a
// backing directory and reports every write, truncate, fallocate,
// punch-hole, unlink and rename-over, with the file's name, to the drive.
// An allocator (internal/simfs/alloc) lays the files out on the drive's
// logical space, so a database's datadir on the mountpoint becomes the
// drive's host writes and TRIMs at their real sizes and places.
//
//   - **The filesystem's process acts as the caller.** Every operation that resolves a path in the
//     backing directory (lookup, create, open, mkdir, mknod, symlink, link, unlink, rmdir, rename,
//     readdir, readlink, setattr, statfs, getattr without an open file) runs on a thread
//     whose fsuid, fsgid and supplementary groups are the caller's (`setfsuid`, `setfsgid` and the
//     per-thread `setgroups` system call; the groups from `/proc/<pid>/status`, kept a second per
//     process, whose fsuid and fsgid must be the request's). The backing filesystem then checks every
//     step of the path as it would the caller's own, so a caller who swaps one of their directories
//     for a symbolic link while an operation in it is under way reaches only what they could reach
//     without the mount. The paths start from a descriptor of the backing directory
//     (`/proc/self/fd/N`), so the caller needs no right on the private directories above it.
//     Reads, writes, `fsync` and `fallocate` go through the descriptor the caller's open gave and
//     resolve nothing. Run as the exporter: callers with uid 0 or the exporter's own uid and gid
//     (the packaged exporter, its own user with `CAP_SYS_ADMIN` only, serves itself so), the kernel's clearing of setuid and setgid
//     bits after another user's write (only that change, on the inode the caller's own lookup of
//     the path gives, checked against the one the kernel named), and the exporter's own work
//     (adopting the files at mount, preconditioning). A caller whose `/proc/<pid>/status` cannot be
//     read (it is in another pid namespace, so the request carries no pid) or names another
//     identity gets `EACCES`. With `allow_other` the exporter needs `CAP_SETUID` and `CAP_SETGID`
//     (root has them): without them every other user gets `EPERM` rather than the exporter's rights.
//
// `walab lab` keeps both in `<out>/simfs` (0700, with the private mariadbd's run directory): its
// mariadbd runs as root, so the lab mounts without `allow_other`. `internal/simfs`'s
// `TestFSGrantsNothingARealFilesystemWouldNot` runs issue 54's attack on a real mount with
// `allow_other`, as `nobody` (uid 65534, no groups): reading a 0600 root file, writing a 0700 root
// directory or the root's 0755 directory, `chmod`, `rm` in a sticky directory, a hard link to
// root's file, `chown 0:0` of its own copy of `id` and the backing directory are all refused; its
// file is its own; a setuid-root `id` on the mount prints euid 65534; its write clears root's
// setuid bit. `TestFSRaceLandsNothingOutside` runs the path race as `nobody`: up to 20,000
// `RENAME_EXCHANGE`s of its directory with a symbolic link to a root-only directory beside the
// backing directory, while two loops create, unlink and make directories in the directory it holds
// open; the root-only directory must keep exactly its one file (acting as root, the daemon made
// nobody's directory and unlinked root's file there within seconds). `TestFSCallerKeepsItsRights`
// holds what the caller keeps: create, write, read back, `chgrp` to its own group, rename, links, a
// supplementary group's 0770 directory (and not without the group), root's `chown`, and the
// drive's count of nobody's writes. `TestFSOtherUserGetsNothingWithoutAllowOther` holds the default,
// `TestMountRefusesBadDirectories` the directory rules, `lab: TestSimFSDirsArePrivate` the lab's.
//
// **How it works.**
//
//   - **The filesystem.** It is go-fuse's loopback node, wrapped: opens, creates, unlinks, renames
//     and size changes go through the node, reads and writes through a file handle.
//   - **The allocator** (`internal/simfs/alloc`) maps each file's 4 KiB pages (the drive's page
//     size) to logical pages (LBAs):
//   - A page gets an LBA on its first write, next to the LBA of the file's previous page when that
//     one is free, so a file grows in extents. Otherwise it takes the next free LBA (next fit).
//   - An overwrite goes to the file's own live LBA. No LBA is ever live in two files.
//   - `fallocate` reserves LBAs without writing them (unwritten extents).
//   - `unlink` of the last link, truncation, `FALLOC_FL_PUNCH_HOLE` and a rename over a file free
//     LBAs. The drive gets them as a TRIM, unless `discard: false`: then, as under XFS or ext4
//     mounted without `-o discard` (their default), the drive keeps those pages valid until the
//     filesystem writes the LBAs again, and `walab_simfs_trimmed_bytes_total` stays 0.
//     Only LBAs that were written are trimmed and counted: a page `fallocate` reserved and nothing
//     wrote was never on the drive (`TestFSTrimCountsWrittenPagesOnly`).
//   - A write that needs more free LBAs than the drive has fails with `ENOSPC`, and nothing is
//     written.
//   - A write the backing filesystem refuses (`ENOSPC`, `EFBIG`, `EIO`, `EDQUOT`) counts nothing
//     (no byte, write call or host page) and gives back the LBAs it was given; a short write
//     counts and keeps what reached the backing file. A refused `fallocate` reserves nothing
//     (`TestFSFailedWriteCountsNothing`, `TestFSBackingFullCountsWhatLanded`).
//   - **Free space.** `statfs` on the mount (`df`, MariaDB, the host facts and walab's `free_space`
//     check) reports the drive, not the backing disk: its logical pages as the blocks (block size
//     the page size), and as free the pages no file holds (space `fallocate` reserved counts as
//     used), never more than the backing filesystem can still take. Inode counts are the backing
//     filesystem's (`TestFSStatfsIsTheDrive`, `exporterapp: TestHostFactsSeeTheSimulatedDrive`).
//   - **Placement.** The rule table (*Traffic*) maps the file's real base name to a stream
//     (`ib_logfile0` → 1, `binlog.000004` → 2, `t.ibd` → 3, ...).
//   - **What the drive counts.** The model is page granular, so a write that touches part of a page
//     counts the whole page, as on a 4Kn drive: a 512-byte redo block or a 700-byte binlog
//     append is 4 KiB of host writes. The exact bytes are counted too (`walab_simfs_written_bytes_total`).
//   - **Start.** The drive starts empty (no prefill, scale 1). Files already in the backing directory
//     at mount, such as a restored datadir, are laid out and written to the drive once, as the restore
//     would have been.
//   - **File ids.** Files are known by their backing inode number, so a rename keeps a file's LBAs.
//     The backing directory must be one filesystem.
//
// **What it measures, and what not.**
//
//   - **Page cache and fsync.** The mount uses neither `writeback_cache` nor `direct_io`
//     (`FOPEN_DIRECT_IO`).
//   - Without `writeback_cache`, every `write()` reaches the filesystem before it returns (write
//     through). The drive therefore sees MariaDB's writes in MariaDB's sizes and order, not the
//     kernel's flusher's, and a dirty page never lingers in the FUSE page cache where a crash of
//     the exporter would lose it.
//   - Without `direct_io`, buffered reads are still cached.
//   - `fsync` through the mount fsyncs the backing file, `fdatasync` fdatasyncs it. Something
//     MariaDB fsynced is on the backing filesystem's disk, as it would be on a local filesystem.
//   - **No extended attributes.** The first `getxattr`, `setxattr`, `listxattr` or `removexattr`
//     gets ENOSYS, after which the kernel answers every caller `EOPNOTSUPP` itself, as on a
//     filesystem without them: it would otherwise ask for `security.capability` before every
//     write, a FUSE round trip of its own. File capabilities do nothing on a `nosuid` mount, and
//     the mount enforces no POSIX ACLs.
//   - **O_DIRECT.** With `O_DIRECT` (MariaDB's default `innodb_flush_method`), the kernel sends the
//     writes straight to the filesystem at the caller's offsets and sizes, bypassing the FUSE page
//     cache. The backing file is opened **without** `O_DIRECT`, because go-fuse's buffers are not
//     aligned for it. Those writes therefore sit in the backing filesystem's page cache until it writes
//     them back or MariaDB fsyncs:
//   - with `O_DIRECT` and `fsync` (the defaults) nothing changes for durability;
//   - with `O_DIRECT_NO_FSYNC`, a page is durable on the backing disk only after the backing
//     filesystem's writeback. A kill of the exporter loses nothing (the kernel holds the
//     pages), but a power loss can.
//   - **Accounting.** The bytes the filesystem serves equal `/proc/PID/io` `write_bytes` of mariadbd
//     (measured equal to the byte over two 1,500-transaction runs). `wchar` is not comparable:
//     InnoDB's asynchronous (io_uring/libaio) writes are not counted in it, and the client replies are.
//   - **What a real filesystem adds and this one does not.** No journal or metadata writes (ext4 or
//     XFS add some), no delayed allocation, and the allocator is simpler than ext4's. The
//     kernel splits writes larger than `max_write` (512 KiB) into several. Write-life hints
//     (`F_SET_RW_HINT`) do not cross FUSE, so placement is by file name only. An unlinked file
//     that is still open loses its LBAs at the unlink, where a filesystem frees them at the last
//     close.
//   - **The host counter in /metrics.** The drive's `walab_nvme_host_written_bytes_total` comes
//     from SMART Data Units Written, in units of 512,000 bytes rounded up. The exact host bytes are
//     the sum of `walab_simfs_host_written_bytes_total` and `host_written_bytes` of
//     `/api/v1/sim/placement`.
//   - **When the filesystem dies.**
//   - A mount that stops without the exporter's unmount (`umount` from outside, an aborted
//     connection) fails the drive: every admin command errors, so `walab_nvme_up` is 0, its
//     byte counters and WA are absent, and `walab_simfs_serving` is 0. No WA is computed
//     from a drive that no longer sees the writes.
//   - When the exporter itself is killed, its metrics go with it. MariaDB's next write fails
//     with `ENOTCONN` (`[FATAL] InnoDB: pwrite("ib_logfile0") returned -1, operating system
//     error 107`) and mariadbd aborts. What it fsynced is in the backing directory: a mariadbd
//     started on the backing datadir directly reads it (`TestKillFilesystemProcess`).
//   - A dead mount left behind (`Transport endpoint is not connected`: the exporter, or the
//     `walab lab` that started it, was killed with -9) is detached by the next exporter that
//     mounts, wherever its mountpoint: every `fuse.walabsim` mount whose server is gone
//     (`ENOTCONN`) is lazily unmounted, and logged. A live one is left alone
//     (`TestMountDetachesDeadMounts`). go-fuse v2.12 has no `auto_unmount` (it needs
//     `fusermount3`, which it does not keep running), so the mount cannot go with the process.
//     `walab lab` killed with -9 sends its exporter SIGTERM (its other services get SIGKILL), so
//     the exporter unmounts and the work directory keeps no dead mount
//     (`lab: TestKilledLabStopsTheExporterGently`).
//   - **Shutdown.** Stop MariaDB before the exporter. On exit the exporter unmounts; if files are
//     still open it detaches the mount lazily, and mariadbd then fails as above.
//   - **Permissions.** Mounting needs root and `/dev/fuse` (Debian's `fuse3`). See *Who can reach
//     the mount*.
package simfs

// Package plan: the destructive-step patterns, as docs/experiment.md's validation summarises them.
//
// A step is treated as destructive when its command formats (`mkfs`, `mkfs.*`,
// `mke2fs`, `mkswap`), erases or repartitions a device (`blkdiscard`, `wipefs`,
// `shred`, `sg_format`, `sgdisk`, `parted`, `sfdisk`, `mdadm --create`,
// `cryptsetup luksFormat`, `nvme format|sanitize|write|…`), writes to one (`dd …
// of=/dev/…`, `> /dev/sdX`, `fio --filename=/dev/…`, loadgen `fileio --device`),
// deletes (`rm -r` in any spelling, `find … -delete`, `truncate`, `DROP`,
// `mysqladmin drop`), feeds SQL into the server (`mariadb … < dump.sql`, `… |
// mysql`), or runs loadgen `prepare|cleanup` (`TestDestructiveSpellings`).
// Such a step is refused unless it says `destructive: true`. Runs and restarts may
// not be destructive. This pattern list only guards against an unmarked step. It
// does not prove a step safe: mark any step that overwrites data (a dataset
// restore, for example) as `destructive: true` yourself. walab itself never sends a
// writing NVMe command. Destructive steps are always the user's own commands.
package plan

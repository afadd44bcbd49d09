package plan

import "regexp"

// The destructive-command guard: a step whose command looks like it
// formats, erases or overwrites must be marked destructive: true.

// destructive are command words that format, erase or overwrite a device
// or a dataset. The list is a guard against an unmarked step, not a proof
// of safety: any step may be marked destructive: true.
var destructive = []struct {
	re   *regexp.Regexp
	what string
}{
	{regexp.MustCompile(`(^|[\s;&|(/])(mkfs(\.[a-z0-9]+)?|mke2fs|mkswap|mkdosfs|mkntfs|mkudffs)(\s|$)`), "formats a filesystem"},
	{regexp.MustCompile(`(^|[\s;&|(/])nvme\s+(format|sanitize|delete-ns|create-ns|attach-ns|detach-ns|write|write-zeroes|write-uncor|dsm|zns\s+(reset-zone|finish-zone|offline-zone))\b`), "an NVMe command that erases, writes or changes namespaces"},
	{regexp.MustCompile(`(^|[\s;&|(/])(blkdiscard|wipefs|shred|sgdisk|gdisk|fdisk|cfdisk|parted|sfdisk|sg_format|sg_sanitize|sg_unmap|pvcreate|pvremove|vgremove|lvremove)\b`), "erases or repartitions a device"},
	{regexp.MustCompile(`(^|[\s;&|(/])(mdadm\s[^;&|]*(--create|-C|--zero-superblock)|cryptsetup\s[^;&|]*(luksFormat|erase)|hdparm\s[^;&|]*--(security-erase|trim-sector-ranges))\b`), "erases RAID, LUKS or drive contents"},
	{regexp.MustCompile(`(^|[\s;&|(/])dd\s[^;&|]*\bof=/dev/`), "dd writes to a device"},
	{regexp.MustCompile(`(>|\btee\s+(-a\s+)?)\s*/dev/(sd|nvme|vd|hd|xvd|md|dm-|mapper/|loop|disk/)`), "writes to a device"},
	{regexp.MustCompile(`(^|[\s;&|(/])fio\s[^;&|]*\bfilename=(\S*:)?/dev/`), "fio on a raw device overwrites it"},
	{regexp.MustCompile(`(^|[\s;&|(/])rm\s+(-\S+\s+)*(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)(\s|$)`), "rm -r deletes a tree"},
	{regexp.MustCompile(`(^|[\s;&|(/])find\s[^;&|]*\s-delete\b`), "find -delete deletes files"},
	{regexp.MustCompile(`(?i)(^|[\s;&|('"])truncate\s`), "truncate empties a file or a table"},
	{regexp.MustCompile(`(?i)\bdrop\s+(database|schema|table|tablespace)\b|\bmysqladmin\s[^;&|]*\bdrop\b`), "DROP deletes data"},
	{regexp.MustCompile(`(^|[\s;&|(/])(mysql|mariadb)\s[^;&|]*<\s*\S|\|\s*(mysql|mariadb)(\s|$)`), "feeding SQL into the server (a restore) replaces its tables"},
	{regexp.MustCompile(`(^|\s)(tpcc|tpcc\.lua|oltp_[a-z_]+)\s([^;&|]*\s)?(prepare|cleanup)\b`), "loadgen prepare/cleanup recreates the tables"},
	{regexp.MustCompile(`(^|\s)fileio\s[^;&|]*--device\b`), "loadgen fileio on a raw device overwrites it"},
}

// Destructive says why a command looks destructive, or "".
func Destructive(cmd string) string {
	for _, d := range destructive {
		if d.re.MatchString(cmd) {
			return d.what
		}
	}
	return ""
}

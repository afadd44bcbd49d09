package plan

import "testing"

// TestDestructiveSpellings: the common ways to format, erase, overwrite or
// recreate data, as people write them, are recognised; everyday commands
// that only read or touch walab's own files are not.
func TestDestructiveSpellings(t *testing.T) {
	for _, tt := range []struct {
		cmd  string
		want bool
	}{
		{"mke2fs -t ext4 /dev/nvme0n1", true},
		{"mkfs.ext4 /dev/nvme0n1p1", true},
		{"sudo mkfs -t xfs -f /dev/sdb", true},
		{"mkswap /dev/sdb2", true},
		{"wipefs -a /dev/nvme0n1", true},
		{"blkdiscard -f /dev/nvme0n1", true},
		{"dd if=/dev/urandom of=/dev/nvme0n1 bs=1M oflag=direct", true},
		{"dd bs=1M if=/dev/zero of=/dev/disk/by-id/nvme-x", true},
		{"rm -rf /data/mysql", true},
		{"rm -f -r /data/mysql", true},
		{"rm -r -f /data/mysql", true},
		{"rm -v --force -R /data", true},
		{"rm --recursive /data", true},
		{"cd /data && rm -Rf *", true},
		{"shred -n 1 /dev/sdb", true},
		{"nvme format /dev/nvme0n1 --ses=1", true},
		{"nvme write /dev/nvme0n1 --data=x", true},
		{"nvme zns reset-zone /dev/nvme0n2 -a", true},
		{"sg_format --format /dev/sg1", true},
		{"parted -s /dev/sdb mklabel gpt", true},
		{"sfdisk /dev/sdb < layout", true},
		{"sgdisk --zap-all /dev/sdb", true},
		{"mdadm --create /dev/md0 --level=5 --raid-devices=3 /dev/nvme[0-2]n1", true},
		{"mdadm --zero-superblock /dev/nvme0n1", true},
		{"cryptsetup luksFormat /dev/sdb", true},
		{"loadgen fileio --device /dev/nvme1n1 --i-know-this-destroys-data prepare", true},
		{"fileio --file-test-mode=rndwr --device=/dev/loop3 run", true},
		{"fio --name=w --filename=/dev/nvme0n1 --rw=randwrite", true},
		{"cat image > /dev/sdb", true},
		{"truncate -s 0 /data/ibdata1", true},
		{"mysql -e 'TRUNCATE TABLE stock'", true},
		{"mysql -e 'truncate stock'", true},
		{"mariadb -e 'DROP DATABASE tpcc'", true},
		{"mysql -e 'drop table if exists t'", true},
		{"mysqladmin -uroot -f drop tpcc", true},
		{"mariadb -uroot tpcc < /bak/tpcc.sql", true},
		{"zcat dump.sql.gz | mysql -uroot tpcc", true},
		{"find /data/mysql -name '*.ibd' -delete", true},
		{"tpcc prepare --warehouses 2", true},
		{"loadgen tpcc --warehouses 2 prepare", true},
		{"oltp_read_write --tables 4 cleanup", true},

		{"rm -f /tmp/x.pid", false},
		{"rm /tmp/x.pid", false},
		{"dd if=/dev/nvme0n1 of=/tmp/x count=1", false},
		{"nvme id-ctrl /dev/nvme0", false},
		{"nvme smart-log /dev/nvme0", false},
		{"mysql -e 'select 1'", false},
		{"mariadb-dump -uroot tpcc > /bak/tpcc.sql", false},
		{"fio --name=w --filename=/tmp/f --rw=randwrite", false},
		{"loadgen fileio --file-total-size=1G prepare", false},
		{"tpcc run --time 60", false},
		{"echo truncated", false},
		{"grep -r x /data > /tmp/out", false},
		{"systemctl restart mariadb", false},
	} {
		if got := Destructive(tt.cmd); (got != "") != tt.want {
			t.Errorf("Destructive(%q) = %q, want destructive %v", tt.cmd, got, tt.want)
		}
	}
}

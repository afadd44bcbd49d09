package fio

// fioFixtures are the figures in testdata's reports, read off each file
// by hand (fio's own numbers, converted to bytes and nanoseconds).
var fioFixtures = []fixture{
	{file: "fio-3.33-randwrite-group.json", version: "fio-3.33", dir: "write", iops: 33991.701245, bps: 139230008, bytes: 33554432, ios: 8192, mean: ns(1590369.438232), p99: ns(35389440)},
	{file: "fio-3.33-randwrite-group.json", version: "fio-3.33", dir: "read"},
	{file: "fio-3.33-randrw-jsonplus.json", version: "fio-3.33", job: 1, dir: "write", iops: 20384.615385, bps: 83495384, bytes: 4341760, ios: 1060, mean: ns(211683.367925), p99: ns(2768896)},
	{file: "fio-3.33-mixed.json", version: "fio-3.33", dir: "mixed", iops: 9615.023474, bps: 39383136, bytes: 8388608, ios: 2048, mean: ns(103148.206543), p99: ns(2039808)},
	{file: "fio-3.33-both.json", version: "fio-3.33", dir: "mixed", iops: 6759.075908, bps: 27685174, bytes: 8388608, ios: 2048, mean: ns(139389.914551), p99: ns(2965504)},
	{file: "fio-3.33-both.json", version: "fio-3.33", dir: "read", iops: 3280.528053, bps: 13437042, bytes: 4071424, ios: 994, mean: ns(281068.337022), p99: ns(4489216)},
	{file: "fio-3.33-groups.json", version: "fio-3.33", job: 1, dir: "read", iops: 12880.503145, bps: 52758540, bytes: 8388608, ios: 2048, mean: ns(137933.154297), p99: ns(3129344)},
	{file: "fio-3.33-fsync.json", version: "fio-3.33", dir: "write", iops: 927.943761, bps: 3800857, bytes: 2162688, ios: 528, mean: ns(15973.763258), p99: ns(51968)},
	{file: "fio-3.33-gtod-reduce.json", version: "fio-3.33", dir: "write", iops: 51200, bps: 209715200, bytes: 1048576, ios: 256},
	{file: "fio-3.33-interrupted.json", version: "fio-3.33", dir: "write", iops: 60190.152801, bps: 246538865, bytes: 290422784, ios: 70904, mean: ns(12572.384139), p99: ns(13632)},
	{file: "fio-3.33-normal-and-json.txt", version: "fio-3.33", dir: "write", iops: 36571.428571, bps: 149796571, bytes: 1048576, ios: 256, mean: ns(21125.429688), p99: ns(28800)},
	// fio 3.16 (Ubuntu 20.04), built from its tag: no N in latency objects.
	{file: "fio-3.16-group.json", version: "fio-3.16", dir: "write", iops: 62060.606061, bps: 254200242, bytes: 16777216, ios: 4096, mean: ns(15014.221436), p99: ns(19840)},
	{file: "fio-3.16-group.json", version: "fio-3.16", dir: "read"},
	{file: "fio-3.16-jsonplus.json", version: "fio-3.16", dir: "read", iops: 1676.222597, bps: 6865807, bytes: 4071424, ios: 994, mean: ns(538533.274648), p99: ns(4112384)},
	{file: "fio-3.16-mixed.json", version: "fio-3.16", dir: "mixed", iops: 6585.209003, bps: 26973016, bytes: 8388608, ios: 2048, mean: ns(146288.146973), p99: ns(2539520)},
	// fio 3.1 (Ubuntu 18.04), built from its tag: bw in KiB/s and no
	// bw_bytes; "0.00": 0 three times in each percentile object.
	{file: "fio-3.1-group.json", version: "fio-3.1", dir: "write", iops: 55351.351351, bps: 221405 * 1024, bytes: 16777216, ios: 4096, mean: ns(21698.543213), p99: ns(20864)},
	{file: "fio-3.1-group.json", version: "fio-3.1", dir: "read"},
	{file: "fio-3.1-mixed.json", version: "fio-3.1", dir: "mixed", iops: 11252.747253, bps: 45010 * 1024, bytes: 8388608, ios: 2048, mean: ns(81063.95166), p99: ns(1646592)},
	// fio 2.16 (Debian 9), built from its tag: io_bytes in KiB, clat in
	// µs, bw in KiB/s.
	{file: "fio-2.16-group.json", version: "fio-2.16", dir: "write", iops: 39384.615385, bps: 157538 * 1024, bytes: 16384 * 1024, ios: 4096, mean: ns(28131.592), p99: ns(23000)},
	{file: "fio-2.16-group.json", version: "fio-2.16", dir: "read"},
	{file: "fio-2.16-jsonplus.json", version: "fio-2.16", dir: "read", iops: 2925.072046, bps: 11700 * 1024, bytes: 4060 * 1024, ios: 1015, mean: ns(305995.074), p99: ns(3984000)},
	{file: "fio-2.16-mixed.json", version: "fio-2.16", dir: "mixed", iops: 5970.845481, bps: 23883 * 1024, bytes: 8192 * 1024, ios: 2048, mean: ns(155732.422), p99: ns(2992000)},
	// fio 2.2.10 (Ubuntu 16.04), built from its tag: as 2.16, and floats
	// printed with two decimals.
	{file: "fio-2.2.10-group.json", version: "fio-2.2.10", dir: "write", iops: 62060.61, bps: 248242 * 1024, bytes: 16384 * 1024, ios: 4096, mean: ns(25450), p99: ns(262000)},
	{file: "fio-2.2.10-mixed.json", version: "fio-2.2.10", dir: "mixed", iops: 3190.03, bps: 12760 * 1024, bytes: 8192 * 1024, ios: 2048, mean: ns(5830), p99: ns(5152000)},
}

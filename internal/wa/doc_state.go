// Package wa: the state file and how a window is computed (moved from docs/wa.md).
//
// # The state file
//
// So that a restart does not throw away 24 hours of history, the sampler
// writes its samples and run marks to a state file (`wa.state_file`, e.g.
// `/var/lib/walab/wa-state.bin`) after every sample, and once more on
// shutdown. There is no default path: each exporter names its own file, so a
// second, throw-away exporter never adopts another instance's history (with
// a shared default it did, issue 33); without `state_file` the history and
// the run marks live in memory only, and the start log says so. On start it loads the file, drops samples older than the longest
// window, and resumes: windows go on with the same values, with a gap where
// the exporter was down (the windows simply span it).
//
//   - Format: little-endian binary, magic `WALABWA\0`, a version (1), the
//     payload length and a CRC-32C of the payload; then per device its name,
//     counter source, reset count, run mark and samples (Unix ms, host bytes,
//     media bytes). 24 devices x 1441 samples is 831 KB.
//   - Writes are atomic: a temporary file in the same directory, `fsync`,
//     `rename` over the old file, `fsync` of the directory. A crash or a full
//     disk leaves the previous file intact; a failed save is logged and retried
//     with the next sample.
//   - A missing file is a normal first start. An empty, truncated, corrupt
//     (checksum) or other-version walab file is logged as a warning and
//     ignored: the sampler starts fresh and replaces it at the next save.
//   - The file must be walab's and only walab's. A symlink (to anything,
//     `/dev/null` included), a FIFO, a device node, a directory, a file
//     without walab's magic, or a file larger than the cap (64 MiB, or 64
//     devices' full rings when the windows need more) makes the exporter
//     refuse to start with an error naming the path; nothing at the path is
//     read past its header, written, or replaced. The file is opened with
//     `O_NOFOLLOW|O_NONBLOCK` (a FIFO cannot hang start-up) and checked with
//     `fstat` before a byte is read.
//   - One exporter per state file: the sampler holds an exclusive `flock` on
//     `<state_file>.lock` for its lifetime (the lock file stays; it is empty).
//     A second exporter on the same path exits at start with "state file …
//     is in use by another exporter". A state directory that is not writable
//     does not stop the exporter (nothing can be overwritten there): it runs
//     without the lock, and every failed save is counted.
//   - Samples dated after the current time (the clock was ahead when they were
//     taken, or stepped back since) are dropped with a warning, on load and
//     while running, and sampling goes on; they used to freeze every window
//     for the whole skew.
//   - A failed save is counted in `walab_nvme_wa_state_save_errors_total`
//     (`walab_nvme_wa_state_last_save_timestamp_seconds` is the last success)
//     and logged once when saving starts failing and once when it works again,
//     not at every sample. A `POST /api/v1/run-start` whose mark could not be
//     saved answers 500 (the mark holds in memory until a restart).
//   - Cost (see Benchmarks below): a full save of 24 devices takes 7-18 ms,
//     most of it the two fsyncs, at most 0.03 % of a 60 s interval, so saving
//     after every sample is the default.
//     `persist_every: N` saves every N samples instead.
//
// Benchmarks: `go doc ./internal/wa`.
//
// # How a window is computed
//
// The sampler reads every device's cumulative host and media byte counters
// every `interval` (60 s by default), on its own ticker: scrapes do not read
// the drive for WA and scrape frequency does not change the result.
// For a window of length W it takes the newest sample (`last`) and the
// oldest sample not older than `last - W - interval/2` (`first`), then
//
//	WA = (media[last] - media[first]) / (host[last] - host[first])
//
// The half-interval tolerance absorbs ticker jitter, so a 1h window at 60 s
// sampling covers 3600 s rather than 3540 s. The span `last - first` is
// published as `walab_nvme_wa_window_seconds`:
//
//   - while the exporter (or the device's history) is younger than W, the
//     window uses everything there is and says so: after 3 hours the `24h`
//     series is a 3-hour WA with `walab_nvme_wa_window_seconds` 10800. Filter
//     on it in dashboards if only full windows may count
//     (`walab_nvme_write_amplification and on(device, window) walab_nvme_wa_window_seconds >= 86000`);
//   - with one sample only the span is 0 and there is no WA.
//
// When the host wrote nothing in the window, the WA series is **absent**
// (never 0, never NaN). Seed 000's script appends a line `0 0` with no WA in
// that case (`bc` refuses to divide by zero and prints nothing for it), and
// the seed reads only the latest non-zero lines. Deltas are taken in integers and only
// the final division rounds, so the value is the exact ratio correctly
// rounded to float64. A test runs the script's own arithmetic (bash, `bc`
// with `scale=5`) on the same two snapshots and checks that the sampler's
// value truncated to 5 decimals is the script's WA field.
//
// The `run` window starts at the run mark instead: the first sample of the
// device (exporter start) or a `POST /api/v1/run-start`; a counter reset
// never moves it (below).
//
// # Counters that go backwards
//
// A reading lower than the previous sample (host or media bytes) is first
// taken as a glitch — an emptied or half-written page, a firmware hiccup:
// it is not recorded, the device's WA is absent for that round,
// `walab_nvme_wa_glitches_total` goes up, and a warning is logged
// once. When the counters come back, the windows go on as if the glitch had
// not happened. Only when three consecutive readings stay below it and agree
// with each other (each at or above the one before, not all zero) is it a
// reset — a swapped drive, counters cleared by a format: the history is
// cleared and restarts at the first of those readings, and
// `walab_nvme_wa_resets_total` goes up. A change of counter source (the
// exporter now reads a different log page) is a reset at once.
//
// A reset never moves the run mark: its counters belong to the old drive, so
// the `run` window has no WA (and `GET /api/v1/run-start` shows `"lost":
// true`) until the next `POST /api/v1/run-start`. A run-start taken while the
// counters read below their history is pending: the next good sample is its
// baseline.
// A sample whose timestamp is not newer than the previous one (clock stepped
// back) is dropped.
//
// # Memory bound
//
// Each device has a fixed ring of `ceil(longest window / interval) + 1`
// samples of 24 bytes: 1441 samples (about 34 KiB) per device with the
// defaults, allocated once. Older samples fall off the ring and are also
// dropped by age. A device that has not been read for the longest window is
// forgotten. Nothing else grows.
//
// The state file: `go doc ./internal/wa`.
package wa

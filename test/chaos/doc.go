// Package chaos runs the attack scripts (chaos.sh, reload.sh, experiment.sh)
// that anyone can run, and holds the ledger of what walab promises under
// attack: each finding, how it is kept, and the test that fails without it.
// docs/reliability.md lists the promises.
//
// # Reliability and security: what a broken drive or a careless user can and cannot do
//
// Issue 14 attacked the exporter and `walab compare` on loopback (kill -9,
// broken files, symlinks, FIFOs, floods, cross-origin requests). Each finding,
// what walab does now, and the test that fails without the fix:
//
//	| finding | behaviour now | test |
//	|---|---|---|
//	| a NAND source that starts failing silently became source `none`, WA frozen, compare counted WA 0 ("42.29 %" from two identical runs) | the probed source is kept; `walab_nvme_source_up{device,source}` 0, `walab_nvme_source_errors_total{reason}`, one log line per change; the source's counters and every WA window are absent while it fails and come back by themselves; `WalabNANDSourceDown`; compare marks such hours `missing` (never WA 0) and the verdict NOT VALID; a change of source is deliberate: a restart or SIGHUP re-probes, and the WA windows restart (`walab_nvme_wa_resets_total`) rather than span two sources | `exporter: TestNANDSourceFailsMidRun`, `probe: TestPollerKeepsItsSourceWhenThePageFails`, `wa: TestFailingDeviceHasNoWA`, `compare: TestCompareMissingNANDHours` (real Prometheus, backfilled) |
//	| `state_file` overwrote whatever was at its path; FIFO hang; /dev/zero OOM; future samples froze WA; two exporters on one file | no-follow open, regular files with walab's header only, size cap, exclusive lock, future samples dropped, save errors counted and a run-start that could not be saved answers 500 | `wa: state_safety_test.go` |
//	| replay pages and identity files trusted (symlink to /dev/zero, root-only file exported as a label) | pages must be regular files inside the replay folder (`os.Root`), identity files not followed, capped, sanitised | `replay: untrusted_test.go`, `sysfs` tests |
//	| one hung device read stalled scrapes, run-start and WA sampling | `--scrape.timeout` defaults to 9 s (below Prometheus's 10 s); the sampler and run-start wait at most `--nvme.read-timeout` (5 s) per device; a slow device costs its own round (WA absent, `walab_nvme_read_timeouts_total`) and never the others; the read goes on in the background and serves the next call | `wa: TestFromPollersHungDevice`, `collector: TestNVMeHungDeviceDoesNotBlockTheScrape` |
//	| mutation endpoints open to cross-origin form posts and floods | off unless `--web.enable-mutations`; POST needs `X-Walab-Request: 1` (a form cannot send it), `Sec-Fetch-Site: cross-site` refused, 1/s token bucket with burst 10 (429 + Retry-After); the web config's auth covers every endpoint | `apiguard` tests (real HTTP), `exporter: TestEndToEndReplayFleet` (POST refused by default), `TestDefaultsToSimulatedDrive` (form refused, header accepted) |
//	| a SIGHUP that changed placement and another `sim:` key left placement unchanged | placement always follows the file; the other keys wait for a restart (logged) | `sim: TestReload` |
//	| `windows: [100000h]` ran the process out of memory | refused at start: at most 100,000 samples per device | `wa` config tests |
//	| an unreadable controller folder was fatal at start but only took the device down mid-run | both take the device down (`walab_nvme_up` 0, identity still exported, the others served); only an unreadable replay root stops the start | `exporter: TestUnreadableReplayFolderAtStart`, `TestDeviceRemovedMidRun` |
//	| a missing `--path.sysfs` silently served the simulated drive | an error naming the flag | `exporter: TestMissingSysfsIsAnError` |
//	| under a burst of scrapes the InnoDB target was reported down falsely | concurrent scrapes of one target share one read | `collector: innodb` (256 concurrent scrapers on MariaDB) |
//	| every restart of the exporter on its simulated drive (`make run` then, `make exporter` now) built a new simulated drive whose counters started lower: WA history and run marks reset (20 restarts, 19 resets) | `sim: state_file` keeps the lifetime counters (bytes, commands, power-on time) as a real drive keeps them across a power cycle; the file is written before any reader sees new counters, so even a kill -9 never makes them go back; a file that is not the simulator's is refused, never overwritten; `walab lab` keeps it and `wa.state_file` in its work directory, the compose stack on the `exporter-state` volume | `sim: TestStateFileKeepsLifetimeCounters`, `TestStateFileNotOurs`; the lab's exporter and the compose configuration killed with -9 mid-run keep the run mark, the samples and the drive's counters: `lab: TestExporterRestartKeepsHistory`, `deploy: TestComposeExporterRestart` |
//	| my.cnf parsing accepted garbage and kept an inline `# comment` inside the password | the mysql client's option-file rules: `#` comments anywhere outside quotes, quoted values, escapes (`\s`, `\t`, ...), boolean options, `!include`/`!includedir` from the file's folder (10 levels at most), a line that is no option is an error naming its line; FIFOs refused without blocking | `mycnf: TestParse`, `TestParseFileIncludes`, `FuzzParse` |
//	| `walab compare --csv/--json/--png` overwrote any file | an existing path is refused before any query; files are created `O_EXCL|O_NOFOLLOW` | `walab: TestCompareCommand` |
//
// Listen address: the exporter's default stays `:10131` (all interfaces), the
// Prometheus exporter convention, so a Prometheus on another host can scrape
// it; the state-changing endpoints are what is guarded. `make exporter` binds
// 127.0.0.1 and enables them for the README's curl lines.
//
// # The chaos script
//
// `bash test/chaos/chaos.sh [KILLS]` (loopback only, everything in a temporary
// folder; `TestChaosScript` runs it with 5 kills in `make test`) builds the
// exporter and, on the simulated drive with both state files: kills it with
// `kill -9` at random moments KILLS times, restarting it each time; puts a
// foreign file, a FIFO and a symlink at the WA state path; captures the drive,
// serves the capture and removes its NAND page mid-run, then restores it;
// sends a cross-origin form post and a flood of run-starts. A run on this
// machine (`bash test/chaos/chaos.sh 20`):
//
//	restarts: 20, failed starts: 0, run marks lost: 0, host counter went back: 0, walab_nvme_wa_resets_total: 0
//	foreign file: refused: err="wa: state file .../wa-state.bin is not walab's (no walab header ...); refusing to use or replace ...
//	foreign file: unchanged
//	FIFO: refused: ... is a FIFO: not a regular file
//	symlink: refused: ... is a symlink: not a regular file
//	source_up before: 1
//	source_up while the page fails: 0, up: 1, NAND counter series: 0, WA series: 0
//	source_up after: 1
//	cross-origin form post: 403
//	flood of 50 run-starts: 11 accepted, 39 refused with 429
//
// # Exporter and loadgen
//
// Issue 33 attacked them again (300 cases on f4e93c1). What is promised now
// for the exporter and loadgen, and the test that fails without it:
//
//	| promise | how | test |
//	|---|---|---|
//	| a counter that reads low once does not corrupt WA; a run mark never moves | a reading below the last sample is a glitch: not recorded, WA absent that round, `walab_nvme_wa_glitches_total`; only 3 consecutive, consistent, non-zero readings below it are a reset (swapped drive): windows restart from the first of them; a reset or source change keeps the run mark's time and makes the run window absent (`"lost": true`) until the next run-start; a run-start taken during a glitch is pending | `wa: TestCounterGlitchIsNotANewBaseline`, `TestCounterReset`, `TestInconsistentDropsStayGlitches`, `TestRunStartDuringGlitchIsPending` |
//	| an emptied or truncated log page is the source down, not counters at zero | the replay backend refuses a log page file shorter than the transfer | `wa: TestFromPollersEmptiedPage`, `replay: TestExec`; `reload.sh` (emptied and half-written page mid-run) |
//	| a zero-filled log page is not a counter reset in Prometheus | while a reading is below what the WA sampler last recorded from the same source (what it calls a glitch), `walab_nvme_host_written_bytes_total`, `walab_nvme_media_written_bytes_total` and `walab_nvme_gc_written_bytes_total` are absent from the scrape, also between the sampler's rounds; SMART's counter (another page) stays; they return with the page | `collector: TestNVMeZeroFilledPageCountersAbsent` (replay of seed 000's drive, page zero-filled) |
//	| a loadgen run against a server that died says so and does not exit 0 | failed connection attempts counted (`conn-fail/s`, `failed connection attempts`, `walab_loadgen_connection_failures_total`); time unreachable (no terminal connected and attempts failing) in the summary and `--result-json`; more than `--max-unreachable` (default 5 %) of the run: exit 3 with a line on stderr | `loadgen cli: TestServerDiesMidRun` (private mariadbd killed 1 s into an 8 s run, back 3 s later: exit 3), `TestJudgeRun`, `runner: TestReach` |
//	| a SIGHUP reload is applied whole or refused whole, never blocks, and says what it cannot apply | regular file only (stat, non-blocking open, fstat; 1 MiB cap), empty / comment-only / lost-section files refused, sim, nvme and wa sections validated before anything applies; changed restart-only sections named in a warning; "running" is the file the exporter started with, so a section a reload added (which does not run) is not required of later files | `exporterapp: TestReloadRefusesAndKeepsTheRunningConfig`, `TestReloadSaysWhatCannotReload`, `TestReloadAfterRestartOnlySection`; `reload.sh` (back to the file without innodb: placement applied) |
//	| one hung device costs its own series, not everyone's time | once a device's read outlasted a deadline, later callers get it down at once (`ErrHung`, counted in `walab_nvme_read_timeouts_total`) until that read ends; scrapes honour `X-Prometheus-Scrape-Timeout-Seconds` less 0.5 s; a run-start for one device reads that device only; a run-start for all answers for every device, a hung one as pending with the reason | `probe: TestHungDeviceIsDownAtOnce`, `exporterapp: TestScrapeTimeout`, `wa: TestRunStartPerDevice` |
//	| a hung mount under a data directory costs its own host facts, not threads or time | one `stat`/`statfs` out per path, shared by `GET /api/v1/host` and the host collector; a path given up on is skipped without a new call until its call returns; at most 80 calls out in all; the collector stops at the scrape's deadline; the endpoint runs one read at a time (5 s bound), caches it for 1 s and answers 503 beyond 16 waiting requests; the stuck path's facts are absent and named in `errors` | `hostfacts: TestHungStatBounded`, `TestProberBoundsAllCalls`; `exporterapp: TestHostEndpointBounded`; `test/chaos: TestHungMountBoundsThreads` (real FUSE mount that never answers) |
//	| a DNS-rebinding page cannot mark a run or switch placement, nor read an exporter that listens on loopback only | mutations need a loopback Host, a `--web.listen-address` host or a `--web.mutations-host`; with loopback listen addresses only, reads (`/metrics`, `/api/v1/host`, `/`) need the same | `apiguard: TestDNSRebindingRefused`, `TestCheckHostOnReads`; `exporterapp: TestReadsCheckHostOnLoopback`; `reload.sh` (`Host: evil.example` → 403) |
//	| any local user of the host could POST a precondition, a placement switch or a run mark (the guard stops browsers only) | `--web.mutations-token-file`: a new 0600 token at each start, required in `X-Walab-Token`; the file replaces only its own kind; another user (`nobody`) reads no token and gets 403. `walab lab` starts its exporter with it (the token in its output directory) and seed000-sim.yml's steps present it from `WALAB_EXPORTER_TOKEN_FILE`; elsewhere (`make exporter`, a database host's unit) it is the operator's flag, so on a shared host give it (a run disturbed anyway FAILS, see "Experiment and compare") | `apiguard: TestTokenRequired` (as `nobody` through `setpriv`), `TestTokenFileNotOurs`; `exporterapp: TestMutationsNeedTheToken`; `lab: TestExporterRestartKeepsHistory`, walab `TestLab` (403 without the lab's token) |
//	| the package's udev rule gave group `walab` the NVMe controllers (0640): since Linux 6.2 an unprivileged opener may send I/O reads, so the group could read the namespaces' blocks; `/etc/walab/exporter.yml`, where a DSN's password goes, was 0644 | the controllers are owner `walab` (the service's user alone), group root, 0400; the configuration 0640 root:walab (docs/install.md says why this privilege) | `release: TestUdevRuleServiceOnly`; `TestDebianChecks` (the .deb installed: the file read as `walab`, refused to `nobody`; the .rpm's header 0640 root:walab) |
//	| removing either package left the exporter running without its binary | the .deb's prerm and the .rpm's `%preun` stop and disable the unit; an upgrade restarts it | `release: TestMaintainerScriptsStopTheService` (each script under a recording systemctl in a mount namespace with `/run/systemd/system`) |
//	| the packaged exporter on a host without NVMe served an invented `nvmesim0` with WA series, in the fleet rules | no `sim:` section, no drive: a log line and `walab_nvme_controllers 0`; simulated drives are out of the fleet rules and dashboard | `exporterapp: TestNoSimSectionServesNoDrive`; `alerts/tests/fleet_test.yml` (a simulated drive in the input, in no fleet rule) |
//	| a flood from one client does not refuse another's run-start | one token bucket per client (at most 1024 kept): its remote address, all of loopback as one, an IPv6 address by its /64 | `apiguard: TestRateLimitIsPerClient`, `TestRotatingLoopbackIsOneClient` |
//	| `loadgen fileio --device` never writes a device in use through an alias | holders, mounts, swap and open file descriptors (`/proc/PID/fd`) are checked for the device, its partitions, the disk a partition is on and every loop device over the same backing file; a backing file open by another process is refused too | `fileio: TestDeviceGuardAliases` (real loop devices) |
//	| tpcc cleanup leaves no copy behind | `cleanup` looks the tables up once in `information_schema` and drops every `bmsql_*` table of the one schema and of each copy (suffix 1..1000), whatever `--tables` it is given, and no other table | `tpcc: TestCleanupDropsEveryCopy` |
//	| the profile never claims a process it does not sample | more processes of the sampled names than the pid map holds (1,024): the lowest pids are sampled and counted in `walab_profile_processes`, the rest in `walab_profile_unsampled_processes`, with a warning | `cpuprof: TestMoreProcessesThanThePIDMap` (1,100 processes of a /proc made by the test); `collector: TestProfileSeriesBounded` |
//	| flags that mean nothing are refused | negative `--nvme.cache-max-age`, `--scrape.timeout`, `--nvme.read-timeout`, `--web.max-requests` refused at start, naming the flag; a zero `--nvme.read-timeout` (a hung device waited for for ever); `--collector.profile.frequency` and `--collector.profile.top` outside 1 to 1000 and 1 to 100, 0 included (not taken as the default); a `--web.mutations-host` no Host can match (empty, with a port, a scheme or spaces); a `--nvme.replay` directory whose folders hold no capture (`/etc`), or a stray folder among captures, named; loadgen `--rate` at most 10^7/s, `--max-unreachable` in [0, 1], `--time` at most 100 years (`1e10` wrapped to a negative run time) | `exporterapp: TestOptionsValidate`; `exporter: TestFlagsThatMeanNothing`; `replay: TestControllersRefusesWhatIsNotACapture`; `loadgen cli: TestBadFlags` |
//	| `--no-version` and `--version=false` mean no version | the shared `buildinfo.VersionFlag` reads the flag's value (kingpin runs its action whatever the value) and `buildinfo.VersionArgs` turns `--version=false` into `--no-version`, in the exporter, walab and loadgen | `buildinfo: TestVersionFlagValue`; `TestNoVersion` in `exporter`, `walab`, `loadgen cli` |
//	| a replay identity file never leaks a file and never takes a device down | a hard link (more than one name) is refused as a label like a symlink out of the folder; a refused model/serial/firmware_rev file (FIFO, symlink, 13 MB) costs its label with a warning, the device is served | `replay: TestReadTextRefusesWhatIsNotAFileOfTheFolder`, `fleet: TestOpenReplayDir`, `exporter: TestCosmeticIdentityFileAtStart` |
//	| a my.cnf never leaks its password and never logs in as someone it does not name | a malformed line is named by number (and its first word when that is an option name), never echoed; a file without `[client]` is refused instead of logging in as `”@` | `mycnf: TestParse` |
//	| `loadgen fileio prepare` does not fill a filesystem, and a half-prepared device is not measured | free space of `--file-dir` checked before a byte is written; a raw device's prepare leaves an incomplete marker in the host's `/var/lib/walab/fileio` until it ends, and `run` from any `--file-dir` refuses it | `fileio: TestPrepareChecksFreeSpace`, `TestInterruptedPrepareOnDevice` |
//	| a throw-away exporter does not adopt another instance's WA history | no default state file: persistence needs `wa.state_file` (memory only otherwise, said at start) | `wa: TestConfigSection` |
//
// `bash test/chaos/reload.sh` (run by `TestReloadScript`, about 20 s) builds
// the exporter, starts it on the simulated drive with placement on, and puts
// an empty file, a file truncated mid-write and a FIFO at the config path,
// each followed by SIGHUP; then a good file with placement off; then a changed
// `innodb:` section. It posts a run-start with `Host: evil.example`, and on a
// replay of the drive empties and half-writes the NAND page mid-run. A run on
// this machine:
//
//	== reload attacks (placement starts: true)
//	empty file: placement true, refusals 1
//	truncated mid-write: placement true, refusals 2
//	FIFO: placement true, refusals 3
//	good file after the attacks: placement false
//	changed innodb section: 1 restart-only line
//	== DNS rebinding
//	run-start with Host evil.example: 403
//	run-start with Host 127.0.0.1: 200
//	== the NAND page is emptied, then half-written, mid-run (replay of a capture)
//	emptied page: source_up 0, WA series 0
//	half-written page: source_up 0
//	page back: source_up 1, resets 0, run mark moved: no
//
//	## Experiment and compare
//
//	Issue 33 attacked `walab experiment` and `walab compare` as a hostile user
//	and an unlucky operator would. What they promise now, and the test that
//	fails without it:
//
//	| promise | how | test |
//	|---|---|---|
//	| killing the runner (`kill -9`, a crash) stops its step: nothing of a destructive step (`mariadb < dump.sql`, `mkfs`) runs on as an orphan beside a resumed copy | every step runs in its own process group led by a `/bin/sh` guard; the runner is a child subreaper; `PR_SET_PDEATHSIG` sends the guard SIGUSR1 when the runner dies, and the guard kills its whole group (PDEATHSIG with SIGKILL reached only `sh`, whose forked commands lived on); a guard killed on its own makes the runner end its group | `experiment: TestRunnerKillEndsStepGroup`, `TestKilledGuardEndsGroup`, `TestInterruptEndsWholeGroup` (SIGTERM ignored: SIGKILL after the grace) |
//	| `resume` (with or without `--skip`/`--redo`) first ends what an interrupted step left running | the group (pgid, the leader's start time from `/proc`, the boot id, a token every process of the step inherits) is in the state file before the command starts; resume kills it only when it is verifiably the step's (leader with that start time, or a member with the token; never after a reboot), waits until it is gone, and refuses to go on otherwise | `experiment: TestResumeEndsSurvivingGroup` (guard killed, guard stopped), `TestResumeLeavesForeignGroup` (a reused pgid survives) |
//	| a precondition posted, or a run mark moved, in the middle of a run does not pass for the workload's WA | each run's start and end fingerprints record the simulated drive's `precondition_written_bytes` (GET `/api/v1/sim/placement`) and the exporter's run mark (`walab_nvme_run_start_timestamp_seconds`); when either moved (or the precondition counter went back, so none can be ruled out) the run FAILS naming it, is not counted, and resume runs it again | `fingerprint: TestDisturbed`, `experiment: TestRunDisturbedFails` |
//	| a password given through the environment reaches no file | `plan.yml` keeps the plan as written (`${NAME}` unexpanded, mode 0600) and resume expands it again, refusing an environment that changes more than a secret; one redactor (DSN passwords, `--mysql-password`/`--password`, values of secret-named `${NAME}`) for step logs, state errors, fingerprints, report and dry-run; files 0640 | `experiment: TestNoSecretInOutput` (greps every file of a finished, a failed and a resumed experiment), `TestRedact` |
//	| a plan's problems come in one report | a value that is not a duration or a size is a type error the decoder records and goes past, so the other keys' type errors and the runs' validation (fio lines, loadgen flags) are reported beside it | `plan: TestPlanErrorsInOneRound`; `experiment: TestParseErrorsGolden` |
//	| a `--web.listen-address` in use leaves nothing behind | `walab experiment run` and `resume` take the address before they make or open the output directory: exit 2, no directory | `walab: TestExperimentTakenListenAddress` |
//	| a misspelt workload, phase or loadgen flag fails validation, before the destructive reset runs | plans are checked against loadgen's workload registry (`internal/allworkloads`) and its flags (`experiment.LoadgenFlags`, kept equal to loadgen's parser by a test) | `experiment: TestPlanLoadgenArgs`, `loadgen/internal/cli: TestExperimentKnowsLoadgenFlags` |
//	| a destructive command is not taken for a harmless one | the guard list knows `mke2fs`, `mkfs.*`, `wipefs`, `blkdiscard`, `dd of=/dev`, redirects and `fio` to devices, `rm -f -r` in any spelling, `shred`, `nvme format/write`, `sg_format`, partitioners, `mdadm --create`, `truncate`, `DROP`, restores into `mysql`/`mariadb`, loadgen `prepare`/`cleanup` and `fileio --device` | `experiment: TestDestructiveSpellings` (41 destructive spellings, 13 harmless commands) |
//	| `report.md` cannot be rewritten by a label, and shows no reduction compare does not stand behind | compare's text and the plan are fenced with more backticks than any run in them; the whole-run WA reduction appears only under a VALID verdict | `experiment: TestReportUnderNotValid` |
//	| `walab compare` never says VALID on non-finite data | a round whose increase or sample count is `+Inf`/`NaN` is missing, with the reason, so the verdict is NOT VALID; a `NaN` host round is not idle; a run whose every round is missing is refused with the first round's reason, not as idle; output files are rendered first and published whole (temporary file, `link(2)`) | `compare: TestCompareNonFiniteRounds`, `TestCompareAllNANDNonFinite` (real Prometheus), `walab: TestCompareNonFiniteCommand` (exit 3), `TestPublish` |
//	| a partial answer or another host's drive does not enter a verdict | an answer with `warnings` fails the check `complete answers`; a device name with series from several hosts is refused, naming them (`--instance` picks one); a query that should give one series and gives several is an error | `compare: TestComparePartialResponse` (a proxy adds the warning to a real Prometheus's answers), `TestCompareDeviceOnTwoHosts` |
//	| labels from the store cannot attack the terminal or a spreadsheet; a huge answer cannot exhaust memory | control characters but newline and tab are dropped from the text output; CSV text cells starting with `= + - @` get an apostrophe; answers are capped at 64 MiB | `compare: TestLabelsCannotAttack`, `TestCappedTransport` |
//	| nonsense input is refused with the flag or line | `--last-hours < 1`, `--round < 1s`, `--lookback <= 0`, `--timeout <= 0`; plan durations over 30 days; a plan that is not a regular file of at most 1 MiB (`/dev/zero`, a FIFO) | `walab: TestCompareFlagLimits`, `TestExperimentRefusesDevZero`; `experiment: TestPlanDurationBounds`, `TestReadPlanRefusesNonFiles` |
//
//	### Remote steps and fio runs
//
//	Issue 42 attacked the two-host transport and fio runs. What they promise now:
//
//	| promise | how | test |
//	|---|---|---|
//	| a command on the database host dies with its step: `kill -9` of the runner, a step timeout or Ctrl-C end it, so `resume --redo` never runs a second restore beside the first | a remote-shell prefix (ssh) runs the command under a guard on the database host (`setsid` for its own session, a watcher on its standard input); walab holds ssh's standard input open for the step's life and never writes to it; when the runner dies or ends the step, ssh ends or reads end of file, the remote channel closes and the guard kills the command's session | `test/chaos: TestRemoteStepDiesWithRunner` (a real sshd on a loopback port, keys made for the test: kill -9 and a step timeout, the remote `sleep` is gone) |
//	| a remote command the guard could not end (guard stopped or killed, a cut it did not see) is ended by resume before it redoes anything | the guard reports the command's session (id, leader start time, boot id) on its standard error; the runner records it in the step's state; resume kills it through the same prefix when it is verifiably the same session, and stops if the host cannot be reached | `test/chaos: TestResumeKillsRemoteSession` (real sshd; guard frozen with SIGSTOP, runner and ssh SIGKILLed), `experiment: TestResumeEndsRemoteSession` (a reused pid is left alone), `TestRemoteGuardReportsSession` |
//	| a prefix that reaches ssh through a wrapper keeps the command's quoting | walab reads the prefix word by word (`env`, `timeout`, `sshpass`, `nice`, `sudo`, … then `ssh`/`autossh`: remote shell; `ip netns exec`, `nsenter`, `chroot`: argv); a program it does not know is refused unless `remote_shell: true|false` says which; the dry-run and the step log show the exact line the remote shell runs | `experiment: TestPrefixReachingSSH`; `test/chaos: TestRemoteQuotingThroughWrapper` (`timeout 60 ssh …`: `cd DIR && touch ./x` lands in DIR) |
//	| a step cannot wait forever on a prompt | steps run in their own session with no controlling terminal and standard input from /dev/null (a remote step's from the held pipe); a prompt fails instead of stopping the step on SIGTTIN | (the session is asserted through the kill tests above) |
//	| fio cannot reach a raw device, another file or a command without `destructive: true`, and this is known before anything runs | at validation, walab resolves fio's targets as fio does: `filename` (`:` lists), `filename_format`, each under every `directory`, cleaned (`//dev/x`), from the command line and the job files; a path under /dev (outside a file system of its own there, such as `/dev/shm`) or a device, an existing regular file, `unlink`, `write_*_log`/`write_iolog`, `exec_prerun`/`exec_postrun`, `trigger`, `ioengine=exec`, `replay_redirect`, `ioscheduler`, `cgroup`/`cgroup_weight`/`cgroup_nodelete`, `verify_state_save`/`verify_state_load`, a `size` above the free space, and what it cannot resolve (`${VAR}`, `$ncpus`, `include`, `opendir`) need `destructive: true` | `experiment: TestFioGuardResolvesTargets` |
//	| fio talks to no other host, however its options are spelt | fio takes unique prefixes of its options (getopt_long_only); walab refuses an option that abbreviates one of fio 3.33's (the list read from fio's source, `internal/experiment/plan/fio-3.33-options.txt`) and `client`, `server`, `daemonize`, `remote-config`, `trigger-remote` by their resolved names; an `ioengine` not on the list of local engines (`net`, `nbd`, `http`, `rdma`, `rados`, `libcufile`, `external:PATH`, any name fio would load as a library) is refused, destructive or not | `experiment: TestFioGuardResolvesTargets`, `TestFioGuardEngines`, `TestFioOptionsFixture` (the list holds every option the installed fio prints) |
//	| a run whose database host (its exporter) or a target was lost before its end is not counted as a success | the run fails when its end fingerprint could not read what its start read (the drive's counters, a target, the host's facts): `FAILED` with what is missing and why, exit 1, resume runs it again | `experiment: TestExporterLostMidRun`; `walab: TestExperimentExporterLostExits1` |
//	| a run's figures are true sums or the run fails, and its step never stays `started` | fio's report is refused when its jobs' IOPS, bandwidth, I/O or error counts overflow a 64-bit number when summed, a command's result when its targets' TPS or counts do; a step whose result the state file cannot hold ends failed with the reason; a job that went on after I/O errors (`continue_on_error`, `total_err` > 0) counts among the report's job errors | `fio: TestParseRefusesOverflowingSums`, `TestTotalCountsIOErrors`, `FuzzParse`; `experiment: TestUnrecordableRunFailsStep`, `TestFioReportIOErrors` |
//	| a retried run starts from its set-up | a run resumed after a kill or failure gets its reset, precondition, between and checks again first | `experiment: TestResumeAfterSIGKILL`, `TestResumeAfterSIGKILLCycles` |
//
//	Not covered for remote steps: a network that drops without closing the
//	connection leaves the remote command running until sshd notices the dead
//	connection (set `ClientAliveInterval` on the database host); a prefix that
//	runs ssh with `-n` or `-f` is refused, since it takes away the standard
//	input the guard watches. A process the remote command moves out of its
//	session (`setsid`, a daemon) is not followed.
//
//	Not covered: a process that leaves its step's group on purpose (`setsid`, a
//	daemon a step starts) is not followed; such daemons, started by a step that
//	ends normally, keep running by design. What a step's command prints itself
//	goes to its log unfiltered. An md/dm array comparison (`--array`) is not yet
//	tied to one host.
//
//	`bash test/chaos/experiment.sh [KILLS]` (`TestExperimentChaosScript` runs it
//	with 2 kills, about 15 s) builds walab and, with a plan whose destructive
//	reset forks a `sleep` and passes a password from the environment: kills the
//	runner with `kill -9` KILLS times during that step and resumes with
//	`--redo`; kills the step's guard together with the (stopped) runner and
//	resumes; greps every output file for the password and for modes readable by
//	others; gives `/dev/zero` as the plan. A run on this machine
//	(`bash test/chaos/experiment.sh 10`):
//
// runner kills: 10, step processes left running: 0, failed resumes: 0, wrong step counts: 0
// before resume: the step's sleep runs on (the attack)
// resume: killed 2 process(es) left running in its process group 22752
// after resume: the step's sleep is gone
// resume without --redo: refused, names the step
// files holding the password: 0, files readable by others: 0
// plan /dev/zero: walab experiment: /dev/zero is not a regular file (a device): a plan is a YAML file
//
//	## walab lab, and the comparison's edges
//
//	Issue 42 attacked `walab lab` (make run) and the last edges of `walab
//	compare` and loadgen's flags. What they promise now:
//
//	| promise | how | test |
//	|---|---|---|
//	| a lab drives only its own exporter and Prometheus | before a service starts nothing may listen on its address (a `0.0.0.0`/`::` listener on the port counts); once it answers, every TCP socket listening for the address (`/proc/net/tcp{,6}`) must be open in the process the lab started (`/proc/PID/fd`): a foreign service is refused by name, never taken for the lab's | `lab: TestStartServiceForeignListener`, `TestStartServiceWildcardListener`, `TestOwnsListener` |
//	| two labs never share databases | each database is locked for the lab's life: `GET_LOCK('walab_lab:<db>')` on a dedicated connection (released by MariaDB when a killed lab's connection drops), and `lab.lock` (flock) in the work directory; a database another lab holds is refused before anything starts | `lab: TestRunRefusesLockedDatabase` |
//	| a restore cut short is never used | the seed 000 plan's restore creates `walab_restore_incomplete` before loading the backup and drops it after; a lab finding it drops the database, and the plan's prepare loads it again | `lab: TestPlanRestoreMarksDirty`, `TestRunReloadsDirtyDatabase` |
//	| a host with many mounts runs the lab | the exporter watches MariaDB's `@@datadir`, not `/` | `lab: TestRunWatchesTheDatadir` (100 extra mounts) |
//	| `--plan=/dev/zero` or a FIFO is refused unread | the experiment's bounded plan reader, before anything starts or connects | `lab: TestRunRefusesPlanNotAFile` |
//	| an exporter restarted mid-run keeps the WA history and the run window | `walab lab` keeps `wa.state_file` and the simulated drive's `state_file` in its work directory, the compose stack on the `exporter-state` volume | `lab: TestExporterRestartKeepsHistory`, `deploy: TestComposeExporterRestart` |
//	| a number flag is a finite number in its range | one flag type (`internal/cliflag`) for loadgen's and walab compare's floats and compare's `--batch`: NaN, infinities and values out of range are usage errors naming the flag (exit 2) | `loadgen cli: TestBadFlags`, `walab: TestCompareFlagsRefuseNonFinite` |
//	| `--json` never fails on a figure, nor prints half an output | a figure that is not finite is `null` and named in `non_finite`; the text and every file are rendered before anything is printed | `compare: TestWriteJSONNonFinite` |
//	| the store's text cannot reach a terminal raw | its error text and the CSV's text cells lose control characters like the text output | `walab: TestCompareStoreErrorIsPlain`, `compare: TestCSVDropsControls` |
//	| `same drive` means one drive | one identity (`walab_nvme_info`) per device and run; more fail the check | `compare: TestSameDriveOneIdentity` |
//
//	## The simulated drive's filesystem
//
//	Issue 54 found that the FUSE mount under the lab's MariaDB (`sim.fs`, docs/simfs.md) handed root
//	to any local user. What it promises now:
//
//	| promise | how | test |
//	|---|---|---|
//	| the mount grants nothing a local filesystem would not | `default_permissions` (the kernel checks modes and ownership on the inodes it knows), files created owned by the caller, `nosuid,nodev`; `allow_other` only with `sim.fs.allow_other: true` | `simfs: TestFSGrantsNothingARealFilesystemWouldNot` (real mount with `allow_other`, as uid 65534 without groups: a 0600 root file, a 0700 and a 0755 root directory, `chmod`, `rm` in a sticky directory, a hard link to root's file, `chown 0:0` and the backing files are refused; a setuid-root `id` on the mount prints euid 65534; a write clears root's setuid bit), `TestFSOtherUserGetsNothingWithoutAllowOther` |
//	| a caller cannot make the filesystem's process act for it elsewhere | every operation that resolves a path in the backing directory runs on a thread with the caller's fsuid, fsgid and supplementary groups (from `/proc/<pid>/status`, matched against the request; unreadable: `EACCES`), from a descriptor of the backing directory; reads and writes use the descriptor the caller's open gave; only uid 0 or the exporter's own uid and gid, the kernel's setuid-bit clearing after a write (on the inode the kernel named) and the exporter's own work run as root | `simfs: TestFSRaceLandsNothingOutside` (as uid 65534: `RENAME_EXCHANGE` of its directory with a link to a root-only directory beside the backing one, against creates, unlinks and mkdirs in it; acting as root, the filesystem made nobody's directory and unlinked root's file there), `TestFSCallerKeepsItsRights`, `TestFSServiceUserMountWorks` (as uid 65534 with `CAP_SYS_ADMIN` only), `TestAsCallerTakesAndGivesBackTheCallersIdentity`, `TestAsCallerRefusesAnUnknownCaller`, `FuzzParseStatus` |
//	| the backing files are out of other users' reach | the mount is refused unless the backing directory or one above it is the exporter user's and 0700; `walab lab` keeps mount, backing and mariadbd's run directory in `<out>/simfs`, 0700, without `allow_other` (its mariadbd runs as root) | `simfs: TestMountRefusesBadDirectories`; `lab: TestSimFSDirsArePrivate` |
//	| the mount never hides files nor lands elsewhere | a mountpoint that holds files, or is a symbolic link, is refused | `simfs: TestMountRefusesBadDirectories` |
//	| a killed exporter or lab leaves no dead mount for long | a killed lab's exporter gets SIGTERM and unmounts; the next mount detaches every `fuse.walabsim` mount whose server is gone | `lab: TestKilledLabStopsTheExporterGently`; `simfs: TestMountDetachesDeadMounts` |
//	| a failed write counts nothing | a write the backing filesystem refuses counts no byte, call or page and gives back its pages (it counted 4,294,967,295 bytes); a short write counts what landed; a refused `fallocate` reserves nothing | `simfs: TestFSFailedWriteCountsNothing` (EFBIG on a loop-mounted ext4), `TestFSBackingFullCountsWhatLanded` (tmpfs smaller than the drive) |
//	| TRIM counts what was on the drive | pages `fallocate` reserved and nothing wrote are freed without a TRIM | `simfs: TestFSTrimCountsWrittenPagesOnly`; `alloc: TestAllocatorProperties` |
//	| free space is the drive's | `statfs` on the mount gives the drive's pages and the pages no file holds, bounded by the backing filesystem's | `simfs: TestFSStatfsIsTheDrive`; `exporterapp: TestHostFactsSeeTheSimulatedDrive` |
//
//	## Not done yet
package chaos

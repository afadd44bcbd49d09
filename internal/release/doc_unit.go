// Package release: why the systemd unit holds each setting, and who may read what the packages install (docs/install.md lists the settings).
//
// # Who reads what the packages install
//
// **The user.** The .deb's postinst creates the system user and group `walab`
// (`adduser --system`, home `/var/lib/walab`, no shell); the .rpm's `%pre`
// does the same with `useradd -r`. `dpkg -r` leaves `/etc/walab`, the options
// file, `/var/lib/walab` and the user; `dpkg -P` deletes the configuration and
// `/var/lib/walab` (the WA history) and keeps the user, as Debian keeps system
// users (a later user given the same uid would own the files it left);
// `deluser --system walab` removes it. `rpm -e` keeps `/var/lib/walab` and the
// user (rpm has no purge) and saves an edited `exporter.yml` as `.rpmsave`.
// Removal stops and disables the unit first (the .deb's prerm, the .rpm's
// `%preun`), so no exporter keeps running without its binary; an upgrade
// restarts a running one on the new binary (`systemctl try-restart`).
//
// **Who reads what.** `/etc/walab/exporter.yml` is 0640 root:walab: the
// service and root read it, other local users do not. The .rpm's `%pre`
// creates the group before rpm lays the file down; dpkg unpacks the .deb's
// copy root:root 0640 before its postinst creates the group, and the
// postinst then gives it to group `walab` (an administrator's
// `dpkg-statoverride` for the file wins). Add a person to group `walab` to
// let them read the configuration and the WA history: that grants nothing on
// the drives (below). `TestDebianChecks` reads the file as `walab` and as
// `nobody` (`setpriv`).
//
// # Why the unit holds each setting
//
//	| setting | why |
//	|---|---|
//	| `AmbientCapabilities=CAP_SYS_ADMIN CAP_SYSLOG CAP_SYS_PTRACE`, `CapabilityBoundingSet=` the same, `NoNewPrivileges=yes` | `CAP_SYS_ADMIN`: the NVMe admin passthrough (Get Log Page, Get Features, Directive Receive; Identify before Linux 6.2); the exporter sends only read-only admin commands (docs/exporter.md). The same capability loads the BPF programs and opens the perf events of the `profile`, `placement_trace` and `io_size` collectors (it stands for CAP_BPF and CAP_PERFMON) and mounts tracefs for the tracers where it is not mounted. `CAP_SYSLOG`: `/proc/kallsyms` shows a process without it only zeros (kernel.kptr_restrict 1, or 0 with perf_event_paranoid 2, Debian's), so the CPU profile could not name a kernel frame; seed 003's finding is a kernel one, `queued_spin_lock_slowpath` on top. It grants nothing else the exporter uses: the kernel log it would open is closed by the next two settings. `CAP_SYS_PTRACE`: read access to mysqld's `/proc/PID/numa_maps`, its memory policy (`mysqld_cpus` with `policy:`), which no other file gives (below, "What each fact needs"); `CAP_SYS_ADMIN` already lets the service read any memory through BPF, so it adds little, and the calls that attach to or read another process are filtered out |
//	| `SystemCallFilter=~syslog ptrace process_vm_readv process_vm_writev`, `InaccessiblePaths=-/dev/kmsg -/proc/kmsg` | what `ProtectKernelLogs=yes` does, less the capability: `ProtectKernelLogs` also drops `CAP_SYSLOG` from the bounding set, so it is spelled out instead; `CAP_SYS_PTRACE` is for reading `/proc`, so `ptrace` and `process_vm_*` are refused |
//	| udev rule, `DevicePolicy=closed`, `DeviceAllow=char-nvme r` | `CAP_SYS_ADMIN` does not open a file: `/dev/nvmeN` is 0600 root, so the rule makes the user `walab` its owner with mode 0400 (no group, no other), and the exporter opens the controllers read-only; the cgroup lets it open no other device node. Why the user and not a group: since Linux 6.2 whoever opens a controller without `CAP_SYS_ADMIN` may still send it I/O read commands (`nvme_cmd_allowed`), so any member of a group with read access could read the namespaces' blocks; the user `walab` is the service alone (no shell, no password), which has `CAP_SYS_ADMIN` anyway. Rejected: `CAP_DAC_READ_SEARCH` on the unit with the node left 0600 root, which would let the service read every file on the host (and `open_by_handle_at` past the unit's mount sandbox) to open one device. What the ownership costs: the owner may `chmod` the node, which only a compromised exporter, already holding `CAP_SYS_ADMIN`, would do |
//	| `StateDirectory=walab`, `ReadWritePaths=/var/lib/walab`, `ProtectSystem=strict` | the state file (`wa.state_file`) is the only thing it writes, so a restart keeps the WA history and run marks |
//	| `ProtectHome=yes`, `PrivateTmp=yes` | nothing it reads lives there (but see below) |
//	| `ProtectKernelTunables`, `ProtectKernelModules`, `ProtectControlGroups`, `ProtectClock`, `ProtectHostname`, `RestrictNamespaces`, `RestrictRealtime`, `RestrictSUIDSGID`, `LockPersonality`, `MemoryDenyWriteExecute`, `RemoveIPC`, `SystemCallArchitectures=native`, `RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6` | the usual hardening; `/sys` and `/proc` stay readable |
package release

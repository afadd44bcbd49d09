// Package release: how the packages are checked (moved from docs/install.md).
//
// # How the packages are checked
//
// `go test ./internal/release/` (`TestDebianChecks`, as root; under `CI=true` a
// missing `lintian`, `rpm`, `dpkg`, `setpriv` or `systemd-analyze` fails it):
//
//   - lintian on both .debs: no error, no warning; what is overridden, and why,
//     is in `internal/release/files/lintian-*`;
//   - `systemd-analyze verify` on the installed unit (works without systemd as
//     PID 1);
//   - `rpm -qip` shows name, version, release, URL, summary and build host, and
//     each .rpm has the .deb's files (less the .deb's changelog and lintian
//     overrides);
//   - the .deb installed on the machine: the unit's `ExecStart` (with `$ARGS` from
//     the options file) run with `setpriv` as `walab`, with the unit's
//     capabilities as its only ones, scraped, and the state file read under
//     `/var/lib/walab`; then `dpkg -r` and `dpkg -P` and what each leaves. The
//     systemd sandbox itself (`ProtectSystem` and the rest) is not exercised
//     there: systemd is not PID 1. The seed000-nvme rehearsal (e2e
//     `TestSeed000NVMeQEMU`, docs/qemu.md) exercises it: its database host
//     guest boots systemd, installs the .deb with dpkg and starts the unit.. The test refuses to run where walab is already installed or a
//     user `walab` exists, and removes what it installed, also on failure.
//
// `TestArm64ExporterServesReplay` runs the arm64 exporter under
// `qemu-aarch64-static` on `exporter/testdata/replay` and requires the same
// NVMe series as the native build; `scripts/test.sh` also runs the parsers'
// and collectors' unit tests built for arm64 through qemu-user.
package release

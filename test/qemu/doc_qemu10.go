// Package qemu: why QEMU 10 and TCG, boot retries, and the proof that the tests can fail (moved from docs/qemu.md).
//
// # Why QEMU 10 and TCG
//
// Why QEMU 10 for every test, not only the FDP one: backports' QEMU has the
// same package name as bookworm's 7.2, so it replaces it; the two cannot be
// installed side by side by APT. All four tests pass on 10.0.2 with the 6.12
// guest (the 6.1 kernel stays installed; `FindKernel` boots the newest).
// The trace test's committed format file is 6.12's, so booting 6.1 with
// `WALAB_QEMU_KERNEL_VERSION` fails that one check by design.
//
// No KVM by default: QEMU runs with `-accel tcg` (software emulation).
// `WALAB_QEMU_ACCEL=kvm:tcg` asks for KVM first (each name becomes one
// `-accel`; QEMU takes the first that initialises). On the build machines
// `/dev/kvm` opens and KVM initialises, but the guest does not run: QEMU 10
// with the 6.12 kernel stops in the kernel's decompressor with `KVM internal
// error. Suberror: 1` (emulation failure) whether `-cpu` is the default,
// `host` or `max`, and with the 6.1 kernel (QEMU 7.2 or 10) the console
// stays empty for 40 s. QEMU's fallback never triggers, as KVM did
// initialise, and the boot hangs until its timeout, so TCG is the default. No network (`-nic none`), no display.
//
// # Boot retries and proof of failure
//
// If a boot fails before the guest's `/init` printed anything, the test boots
// once more (that failure says nothing about walab); any failure after
// `/init` started fails the test at once.
//
// The kernel command line carries `no_timer_check`: without it one boot in a
// handful hung right after "MP-BIOS bug: 8254 timer not connected to
// IO-APIC" under TCG on the loaded box (the IO-APIC timer check is
// unreliable when the emulated CPU is starved).
package qemu

// Package qemu proves walab's NVMe admin path against the real Linux nvme
// driver: the test boots Debian's kernel under QEMU (TCG, no KVM) with an
// emulated NVMe controller and a tiny initramfs of its own making, runs
// walab's ioctl code inside the guest, and checks the answers on the host.
//
// The helpers here build that initramfs (a cpio "newc" writer, a
// modules.dep resolver) and run QEMU bounded in time. See docs/qemu.md.
package qemu

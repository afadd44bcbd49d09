// Package irq reads the kernel's interrupt accounting and topology:
// /proc/interrupts, /proc/softirqs, /proc/irq/N/*affinity_list and the
// NUMA layout in sysfs. The parsers are strict: a truncated or malformed
// file is an error, never a panic and never silently short data.
//
// prometheus/procfs also parses /proc/interrupts and /proc/softirqs, but its
// interrupts parser indexes fields without checking their count (a truncated
// line panics) and both parsers drop the CPU ids of the header, which are
// not column indexes once a CPU is offline. So walab keeps its own.
package irq

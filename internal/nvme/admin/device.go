package admin

import (
	"context"
	"fmt"
	"sync"
)

// Backend executes admin commands that already passed the guard. The ioctl,
// replay and simulator backends implement it; only Device calls it.
type Backend interface {
	Exec(ctx context.Context, cmd Command) (Result, error)
	Close() error
}

// Device is a guarded handle on one controller. It is safe for concurrent use.
type Device struct {
	name    string
	backend Backend

	mu       sync.Mutex
	sent     map[CommandKey]uint64
	failures map[ErrorKey]uint64
	refused  uint64
}

// CommandKey labels admin-command counters (bounded: 4 opcodes x 256 log ids).
type CommandKey struct {
	Opcode uint8
	LogID  uint8 // 0 unless Get Log Page
}

// ErrorKey labels admin-command error counters.
type ErrorKey struct {
	Opcode uint8
	Status uint16 // NVMe status, or 0 for errors that are not a status (errno, I/O)
}

// New wraps a backend. name is the controller's name (e.g. "nvme0").
func New(name string, b Backend) *Device {
	return &Device{name: name, backend: b, sent: map[CommandKey]uint64{}, failures: map[ErrorKey]uint64{}}
}

// Name returns the controller name the device was created with.
func (d *Device) Name() string { return d.name }

// Submit sends one command. Opcodes outside the read-only allowlist are refused
// here, before any backend (and so any syscall) sees them.
func (d *Device) Submit(ctx context.Context, cmd Command) (Result, error) {
	if !Allowed(cmd.Opcode) {
		d.mu.Lock()
		d.refused++
		d.mu.Unlock()
		return Result{}, &RefusedError{Opcode: cmd.Opcode}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	key := CommandKey{Opcode: cmd.Opcode}
	if lid, ok := cmd.LogID(); ok {
		key.LogID = lid
	}
	res, err := d.backend.Exec(ctx, cmd)
	d.mu.Lock()
	d.sent[key]++
	if err != nil {
		ek := ErrorKey{Opcode: cmd.Opcode}
		if se, ok := err.(*StatusError); ok {
			ek.Status = se.Status
		}
		d.failures[ek]++
	}
	d.mu.Unlock()
	if err != nil {
		return Result{}, err
	}
	if uint32(len(res.Data)) != cmd.DataLen {
		return Result{}, fmt.Errorf("%s: %s: backend returned %d bytes, want %d", d.name, cmd, len(res.Data), cmd.DataLen)
	}
	return res, nil
}

// Stats is a copy of the device's own command accounting.
type Stats struct {
	Sent     map[CommandKey]uint64
	Failures map[ErrorKey]uint64
	Refused  uint64
}

// Stats returns what this device has sent to its backend so far.
func (d *Device) Stats() Stats {
	d.mu.Lock()
	defer d.mu.Unlock()
	s := Stats{Sent: make(map[CommandKey]uint64, len(d.sent)), Failures: make(map[ErrorKey]uint64, len(d.failures)), Refused: d.refused}
	for k, v := range d.sent {
		s.Sent[k] = v
	}
	for k, v := range d.failures {
		s.Failures[k] = v
	}
	return s
}

// Close releases the backend.
func (d *Device) Close() error { return d.backend.Close() }

package device

import (
	"errors"

	"github.com/walab/walab/internal/simfs"
	"github.com/walab/walab/internal/simfs/fileclass"
)

// Tee feeds the model drive and the device the same writes and frees, in
// the filesystem's order (it calls its Drive under its lock).
type Tee struct {
	Model  simfs.Drive
	Device *Device
}

// HostWrite writes to both; an error of either is returned (the
// filesystem keeps the first and the backing file's write stands).
func (t Tee) HostWrite(name string, class fileclass.Class, lpn, pages uint32) error {
	return errors.Join(t.Model.HostWrite(name, class, lpn, pages), t.Device.Write(name, class, lpn, pages))
}

// HostTrim frees on both: TRIM on the model, deallocate on the device.
func (t Tee) HostTrim(lpn, pages uint32) error {
	return errors.Join(t.Model.HostTrim(lpn, pages), t.Device.Deallocate(lpn, pages))
}

// FeedFailed tells the model; the device keeps what it was sent.
func (t Tee) FeedFailed(err error) { t.Model.FeedFailed(err) }

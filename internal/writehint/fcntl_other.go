//go:build !linux

package writehint

import "os"

// Get is unsupported off Linux.
func Get(*os.File) (Hint, error) { return 0, ErrUnsupported }

// Set is unsupported off Linux.
func Set(*os.File, Hint) error { return ErrUnsupported }

//go:build !unix

package wa

import "os"

// lockState is a no-op where flock does not exist.
func lockState(path string, warn func(msg string, args ...any)) (*os.File, error) { return nil, nil }

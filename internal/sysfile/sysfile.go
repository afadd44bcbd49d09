// Package sysfile reads the small text files of procfs, sysfs and the
// like, where a missing file is an answer rather than a failure.
package sysfile

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// ReadOptional reads a small text file and returns its content without
// surrounding white space. ok is false, with no error, when the file does
// not exist (a kernel without the parameter, a device or process gone);
// other errors are os.ReadFile's, naming the path.
func ReadOptional(path string) (s string, ok bool, err error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return strings.TrimSpace(string(b)), true, nil
}

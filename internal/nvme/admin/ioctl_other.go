//go:build !linux

package admin

import "errors"

// OpenIoctl is only available on Linux, where NVME_IOCTL_ADMIN_CMD exists.
func OpenIoctl(name, path string) (*Device, error) {
	return nil, errors.New("nvme admin passthrough is only supported on linux")
}

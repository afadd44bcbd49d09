package replay

import "strings"

// trimText drops the padding sysfs and NVMe identify strings carry (spaces,
// newlines, NULs), and replaces invalid UTF-8, which would be an invalid label value.
func trimText(b []byte) string {
	return strings.ToValidUTF8(strings.Trim(string(b), " \t\r\n\x00"), "?")
}

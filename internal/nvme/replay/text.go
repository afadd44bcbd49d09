package replay

import "strings"

// trimText drops the padding sysfs and NVMe identify strings carry (spaces,
// newlines, NULs).
func trimText(b []byte) string { return strings.Trim(string(b), " \t\r\n\x00") }

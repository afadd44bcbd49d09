package hostfacts

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// mountEntry is one line of /proc/self/mountinfo.
type mountEntry struct {
	device, mountPoint, options, fsType, source, superOptions string
}

// maxMountinfoLines bounds the file's parse (a container host can have
// tens of thousands of mounts).
const maxMountinfoLines = 1 << 16

// parseMountinfo reads mountinfo lines:
// id parent maj:min root mountpoint options [optional...] - fstype source superoptions.
// A malformed line is skipped; the count of skipped lines is returned.
func parseMountinfo(r io.Reader) ([]mountEntry, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var out []mountEntry
	bad := 0
	for n := 0; sc.Scan(); n++ {
		if n >= maxMountinfoLines {
			return out, bad, fmt.Errorf("mountinfo has more than %d lines", maxMountinfoLines)
		}
		fields := strings.Fields(sc.Text())
		sep := -1
		for i, x := range fields {
			if x == "-" && i >= 6 {
				sep = i
				break
			}
		}
		if sep < 0 || sep+3 > len(fields) {
			bad++
			continue
		}
		e := mountEntry{device: fields[2], mountPoint: unescapeMount(fields[4]), options: fields[5],
			fsType: fields[sep+1], source: unescapeMount(fields[sep+2])}
		if sep+3 < len(fields) {
			e.superOptions = fields[sep+3]
		}
		out = append(out, e)
	}
	return out, bad, sc.Err()
}

func unescapeMount(s string) string {
	r := strings.NewReplacer(`\040`, " ", `\011`, "\t", `\012`, "\n", `\134`, `\`)
	return r.Replace(s)
}

// within: path is dir or below it (both clean and absolute).
func within(path, dir string) bool {
	return dir == "/" || path == dir || strings.HasPrefix(path, dir+"/")
}

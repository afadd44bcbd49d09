package workload

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseSize reads sysbench's sizes: a number of bytes with an optional
// b, K, M, G or T suffix (powers of 1024, either case).
func ParseSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	if t != "" {
		switch t[len(t)-1] {
		case 'b', 'B':
			t = t[:len(t)-1]
		case 'k', 'K':
			mult, t = 1<<10, t[:len(t)-1]
		case 'm', 'M':
			mult, t = 1<<20, t[:len(t)-1]
		case 'g', 'G':
			mult, t = 1<<30, t[:len(t)-1]
		case 't', 'T':
			mult, t = 1<<40, t[:len(t)-1]
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("size %q: want a number of bytes with an optional K, M, G or T suffix", s)
	}
	if n > math.MaxInt64/mult {
		return 0, fmt.Errorf("size %q: too large", s)
	}
	return n * mult, nil
}

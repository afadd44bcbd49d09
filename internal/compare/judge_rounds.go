package compare

import (
	"strconv"
	"strings"
	"time"
)

// meanPerSecond is the mean of the rounds' figures that are set, per second
// of a round of secs; nil when none is.
func meanPerSecond(xs []*float64, secs float64) (mean *float64, n int) {
	var s float64
	for _, x := range xs {
		if x != nil {
			s += *x
			n++
		}
	}
	if n == 0 {
		return nil, 0
	}
	v := s / float64(n) / secs
	return &v, n
}

// withoutFigure is how many of xs have no figure.
func withoutFigure(xs []*float64) (n int) {
	for _, x := range xs {
		if x == nil {
			n++
		}
	}
	return n
}

func anySet(xs []*float64) bool {
	for _, x := range xs {
		if x != nil {
			return true
		}
	}
	return false
}

func roundName(d time.Duration) string {
	if d == time.Hour {
		return "hour"
	}
	return "round"
}

// roundLength names a round that is not an hour: ", rounds of 10s".
func roundLength(d time.Duration) string {
	if roundName(d) == "hour" {
		return ""
	}
	return ", rounds of " + d.String()
}

func hourList(hs []Hour) string {
	var b strings.Builder
	for i, h := range hs {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(h.Hour))
	}
	return b.String()
}

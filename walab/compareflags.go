package main

import (
	"fmt"
	"time"
)

// checkCompareFlags refuses counts and durations of `walab compare` that
// cannot mean anything (a zero timeout is an instant deadline, a negative
// lookback searches the future), naming the flag.
func checkCompareFlags(last int, round, lookback, timeout time.Duration) error {
	switch {
	case last < 1:
		return fmt.Errorf("--last-hours %d: want at least 1", last)
	case round < time.Second:
		return fmt.Errorf("--round %s: want at least 1s", round)
	case lookback <= 0:
		return fmt.Errorf("--lookback %s: want a positive duration", lookback)
	case timeout <= 0:
		return fmt.Errorf("--timeout %s: want a positive duration", timeout)
	}
	return nil
}

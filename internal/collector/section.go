package collector

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
)

// The checks a collector's own YAML section makes of its values, each
// message naming the section and the key, and the logger a factory uses.

// orDefault sets a section's unset (0) value to def and refuses a
// negative one.
func orDefault[T ~int | ~int64](v *T, def T, section, key string) error {
	if *v < 0 {
		return fmt.Errorf("%s: %s %v: must be positive", section, key, *v)
	}
	if *v == 0 {
		*v = def
	}
	return nil
}

// checkList refuses an item of a section's list that valid refuses, or
// one listed twice.
func checkList(section, key string, items []string, valid func(string) error) error {
	seen := make(map[string]bool, len(items))
	for _, s := range items {
		if err := valid(s); err != nil {
			return fmt.Errorf("%s: %s %q: %w", section, key, s, err)
		}
		if seen[s] {
			return fmt.Errorf("%s: %s %q is listed twice", section, key, s)
		}
		seen[s] = true
	}
	return nil
}

// cleanAbsolute refuses a path that is not absolute, or not clean (a
// trailing slash, "." or "..").
func cleanAbsolute(p string) error {
	if !filepath.IsAbs(p) || filepath.Clean(p) != p {
		return errors.New("must be a clean absolute path")
	}
	return nil
}

// log is the collector's logger: New's, or one that discards for a
// factory called without New.
func (e Env) log() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

package collector

import (
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"github.com/walab/walab/internal/config"
)

// A collector's own YAML section, the checks it makes of its values (each
// message naming the section and the key), and the logger a factory uses.

// section is a collector's own YAML section, declared in its file:
// complete sets its defaults and refuses values that mean nothing.
type section interface{ complete() error }

// decodeSection reads the section name of the configuration into s and
// completes it.
func decodeSection(cfg *config.File, name string, s section) error {
	if err := cfg.Decode(name, s); err != nil {
		return err
	}
	return s.complete()
}

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

package innodb

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// EngineStatus is what walab reads from SHOW ENGINE INNODB STATUS: the redo
// position and checkpoint (checkpoint age is what throttles a write-heavy
// run), purge lag, and pending I/O. Each field is valid only if its Has bit is set:
// the output differs between MySQL 5.7, 8.0 and MariaDB 10.x, and a missing
// line must read as "unknown", never as 0.
type EngineStatus struct {
	LSN                uint64 // Log sequence number
	LogFlushedLSN      uint64 // Log flushed up to
	PagesFlushedLSN    uint64 // Pages flushed up to
	LastCheckpointLSN  uint64 // Last checkpoint at
	HistoryListLength  uint64
	PendingAIOReads    uint64 // Pending normal aio reads (summed over threads)
	PendingAIOWrites   uint64
	PendingLogFsyncs   uint64 // Pending flushes (fsync) log
	PendingPoolFsyncs  uint64 // Pending flushes (fsync) buffer pool (MariaDB 10.11: the only fsync count)
	PendingLogFlushes  uint64 // "N pending log flushes"
	PendingCheckpoints uint64 // "M pending chkp writes"
	PendingReads       uint64 // buffer pool "Pending reads"
	PendingWritesLRU   uint64
	PendingWritesFlush uint64
	Has                Fields
}

// Fields is a bit set of the EngineStatus fields found in the output.
type Fields uint32

const (
	HasLSN Fields = 1 << iota
	HasLogFlushed
	HasPagesFlushed
	HasCheckpoint
	HasHistoryList
	HasPendingAIO
	HasPendingFsyncs
	HasPendingLogFlushes
	HasPendingReads
	HasPendingWrites
)

// CheckpointAge is LSN minus the last checkpoint, in bytes of redo.
func (s EngineStatus) CheckpointAge() (uint64, bool) {
	if s.Has&(HasLSN|HasCheckpoint) != HasLSN|HasCheckpoint || s.LastCheckpointLSN > s.LSN {
		return 0, false
	}
	return s.LSN - s.LastCheckpointLSN, true
}

// ErrNotMonitorOutput means the text is not an InnoDB monitor output at all.
var ErrNotMonitorOutput = errors.New("innodb status: not an InnoDB monitor output (no LOG section)")

// ParseEngineStatus parses the Status column of SHOW ENGINE INNODB STATUS.
// Unknown lines are ignored; a known line with a malformed number is an error
// naming the line, because a silently wrong checkpoint age would mislead.
func ParseEngineStatus(text string) (EngineStatus, error) {
	var s EngineStatus
	inIndividualPools := false
	for n, raw := range strings.Split(text, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" {
			continue
		}
		// Per-pool sections repeat the global buffer pool lines; keep the totals.
		if strings.HasPrefix(line, "INDIVIDUAL BUFFER POOL INFO") {
			inIndividualPools = true
		}
		if strings.HasPrefix(line, "ROW OPERATIONS") {
			inIndividualPools = false
		}
		var err error
		lsn := lsnLineOf(line)
		switch {
		case lsn != nil:
			*lsn.field(&s), err = lsnValue(line[len(lsn.prefix):])
			s.Has |= lsn.has
		case strings.HasPrefix(line, "History list length"):
			s.HistoryListLength, err = lastUint(line)
			s.Has |= HasHistoryList
		case strings.HasPrefix(line, "Pending normal aio reads:"):
			s.PendingAIOReads, s.PendingAIOWrites, err = parsePendingAIO(line)
			s.Has |= HasPendingAIO
		case strings.HasPrefix(line, "Pending flushes (fsync)"):
			s.PendingLogFsyncs, s.PendingPoolFsyncs, err = parsePendingFsyncs(line)
			s.Has |= HasPendingFsyncs
		case strings.HasSuffix(line, "pending chkp writes"):
			// "0 pending log flushes, 0 pending chkp writes"
			var a, b uint64
			a, b, err = twoLeadingUints(line, ",")
			s.PendingLogFlushes, s.PendingCheckpoints = a, b
			s.Has |= HasPendingLogFlushes
		case !inIndividualPools && strings.HasPrefix(line, "Pending reads"):
			s.PendingReads, err = lastUint(line)
			s.Has |= HasPendingReads
		case !inIndividualPools && strings.HasPrefix(line, "Pending writes: LRU"):
			s.PendingWritesLRU, s.PendingWritesFlush, err = parsePendingWrites(line)
			s.Has |= HasPendingWrites
		}
		if err != nil {
			return EngineStatus{}, fmt.Errorf("innodb status line %d %q: %w", n+1, clip(line), err)
		}
	}
	if s.Has&HasLSN == 0 {
		return EngineStatus{}, ErrNotMonitorOutput
	}
	return s, nil
}

// An lsnLine is a monitor line that gives one redo position: its
// prefix, the field it sets and that field's Has bit.
type lsnLine struct {
	prefix string
	field  func(*EngineStatus) *uint64
	has    Fields
}

var lsnLines = []lsnLine{
	{"Log sequence number", func(s *EngineStatus) *uint64 { return &s.LSN }, HasLSN},
	{"Log flushed up to", func(s *EngineStatus) *uint64 { return &s.LogFlushedLSN }, HasLogFlushed},
	{"Pages flushed up to", func(s *EngineStatus) *uint64 { return &s.PagesFlushedLSN }, HasPagesFlushed},
	{"Last checkpoint at", func(s *EngineStatus) *uint64 { return &s.LastCheckpointLSN }, HasCheckpoint},
}

// lsnLineOf is the lsnLines entry line starts with, nil for none.
func lsnLineOf(line string) *lsnLine {
	for i := range lsnLines {
		if strings.HasPrefix(line, lsnLines[i].prefix) {
			return &lsnLines[i]
		}
	}
	return nil
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// lsnValue reads an LSN: one number, or the two words MySQL <= 5.1 and
// InnoDB plugins of that age print ("208 1379356250" = 208·2³² +
// 1379356250). Anything else is an error: a misread LSN would publish a
// wrong checkpoint age.
func lsnValue(rest string) (uint64, error) {
	f := strings.Fields(rest)
	switch len(f) {
	case 1:
		return strconv.ParseUint(f[0], 10, 64)
	case 2:
		hi, err := strconv.ParseUint(f[0], 10, 32)
		if err != nil {
			return 0, fmt.Errorf("two-word LSN: high word %q: %w", f[0], err)
		}
		lo, err := strconv.ParseUint(f[1], 10, 32)
		if err != nil {
			return 0, fmt.Errorf("two-word LSN: low word %q: %w", f[1], err)
		}
		return hi<<32 | lo, nil
	}
	return 0, fmt.Errorf("LSN %q: want one number or two words", strings.TrimSpace(rest))
}

func lastUint(line string) (uint64, error) {
	f := strings.Fields(line)
	return strconv.ParseUint(strings.TrimSuffix(f[len(f)-1], ";"), 10, 64)
}

// parsePendingAIO reads the three known forms:
//
//	5.7:     Pending normal aio reads: 0 [0, 0, 0, 0] , aio writes: 0 [0, 0, 0, 0] ,
//	8.0:     Pending normal aio reads: [0, 0, 0, 0] , aio writes: [0, 0, 0, 0] ,
//	older:   Pending normal aio reads: 0, aio writes: 0,
func parsePendingAIO(line string) (reads, writes uint64, err error) {
	rest := strings.TrimPrefix(line, "Pending normal aio reads:")
	i := strings.Index(rest, "aio writes:")
	if i < 0 {
		return 0, 0, errors.New("no aio writes field")
	}
	if reads, err = sumField(rest[:i]); err != nil {
		return 0, 0, err
	}
	writes, err = sumField(rest[i+len("aio writes:"):])
	return reads, writes, err
}

// sumField returns the leading total if present ("0 [..]"), else the sum of
// the bracketed per-thread list, else the single number.
func sumField(s string) (uint64, error) {
	s = strings.Trim(strings.TrimSpace(s), ",")
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	if b := strings.IndexByte(s, '['); b >= 0 {
		if lead := strings.TrimSpace(s[:b]); lead != "" {
			return strconv.ParseUint(lead, 10, 64)
		}
		e := strings.IndexByte(s, ']')
		if e < b {
			return 0, errors.New("unclosed [")
		}
		var sum uint64
		for _, p := range strings.Split(s[b+1:e], ",") {
			p = strings.TrimSpace(p)
			if p == "" {
				continue
			}
			v, err := strconv.ParseUint(p, 10, 64)
			if err != nil {
				return 0, err
			}
			sum += v
		}
		return sum, nil
	}
	return strconv.ParseUint(strings.TrimSpace(strings.Trim(s, ",")), 10, 64)
}

// parsePendingFsyncs reads "Pending flushes (fsync) log: 0; buffer pool: 0"
// (MySQL, MariaDB < 10.5) or "Pending flushes (fsync): 0" (MariaDB 10.11).
func parsePendingFsyncs(line string) (log, pool uint64, err error) {
	rest := strings.TrimPrefix(line, "Pending flushes (fsync)")
	if strings.HasPrefix(rest, ":") {
		pool, err = strconv.ParseUint(strings.TrimSpace(rest[1:]), 10, 64)
		return 0, pool, err
	}
	for _, part := range strings.Split(rest, ";") {
		k, v, ok := strings.Cut(part, ":")
		if !ok {
			return 0, 0, errors.New("expected key: value")
		}
		n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return 0, 0, err
		}
		switch strings.TrimSpace(k) {
		case "log":
			log = n
		case "buffer pool":
			pool = n
		}
	}
	return log, pool, nil
}

// parsePendingWrites reads "Pending writes: LRU 0, flush list 0[, single page 0]".
func parsePendingWrites(line string) (lru, flush uint64, err error) {
	rest := strings.TrimPrefix(line, "Pending writes:")
	for _, part := range strings.Split(rest, ",") {
		f := strings.Fields(part)
		if len(f) < 2 {
			continue
		}
		n, err := strconv.ParseUint(f[len(f)-1], 10, 64)
		if err != nil {
			return 0, 0, err
		}
		switch strings.Join(f[:len(f)-1], " ") {
		case "LRU":
			lru = n
		case "flush list":
			flush = n
		}
	}
	return lru, flush, nil
}

func twoLeadingUints(line, sep string) (uint64, uint64, error) {
	a, b, ok := strings.Cut(line, sep)
	if !ok {
		return 0, 0, errors.New("expected two fields")
	}
	fa, fb := strings.Fields(a), strings.Fields(b)
	if len(fa) == 0 || len(fb) == 0 {
		return 0, 0, errors.New("expected two numbers")
	}
	x, err := strconv.ParseUint(fa[0], 10, 64)
	if err != nil {
		return 0, 0, err
	}
	y, err := strconv.ParseUint(fb[0], 10, 64)
	return x, y, err
}

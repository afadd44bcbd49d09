package replay

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/walab/walab/internal/nvme/admin"
)

// Recorder collects successful command results and writes them in the
// replay format. Chunked log reads are stitched back into one file at their
// offsets, so capture(replay(X)) reproduces X for every file that was read.
type Recorder struct {
	mu    sync.Mutex
	files map[string][]byte
	text  map[string]string
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{files: map[string][]byte{}, text: map[string]string{}}
}

// Record stores one completed command. Commands the format has no file for
// are ignored.
func (r *Recorder) Record(cmd admin.Command, res admin.Result) {
	name, ok := FileName(cmd)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch cmd.Opcode {
	case admin.OpGetLogPage:
		off := cmd.LogOffset()
		buf := r.files[name]
		if end := off + uint64(len(res.Data)); uint64(len(buf)) < end {
			buf = append(buf, make([]byte, end-uint64(len(buf)))...)
		}
		copy(buf[off:], res.Data)
		r.files[name] = buf
	case admin.OpGetFeatures:
		buf := make([]byte, 4+len(res.Data))
		binary.LittleEndian.PutUint32(buf, res.DW0)
		copy(buf[4:], res.Data)
		r.files[name] = buf
	default:
		r.files[name] = append([]byte(nil), res.Data...)
	}
}

// SetText stores an optional text file (model, serial, firmware_rev); empty values are skipped.
func (r *Recorder) SetText(name, value string) {
	if value == "" {
		return
	}
	r.mu.Lock()
	r.text[name] = value
	r.mu.Unlock()
}

// Files lists the file names recorded so far, sorted.
func (r *Recorder) Files() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.files)+len(r.text))
	for n := range r.files {
		out = append(out, n)
	}
	for n := range r.text {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// WriteDir writes everything recorded into dir (created if needed).
func (r *Recorder) WriteDir(dir string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("capture: %w", err)
	}
	for name, b := range r.files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return fmt.Errorf("capture: %w", err)
		}
	}
	for name, s := range r.text {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s+"\n"), 0o644); err != nil {
			return fmt.Errorf("capture: %w", err)
		}
	}
	return nil
}

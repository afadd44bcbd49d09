package device

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Label opens the namespace's first page once the device backend owns it:
// a namespace that starts with it holds only what the backend wrote.
const Label = "walab simfs device v1\n"

// ProbeBytes is how much of the namespace's start and of its end Check
// reads: where partition tables, filesystem, RAID, LVM, LUKS and swap
// signatures live (GPT's backup and md's 1.0 superblock are at the end).
const ProbeBytes = 1 << 20

// signature is a byte string at an offset from the start that names what
// holds the namespace.
type signature struct {
	off  int64
	want string
	what string
}

// signatures: offset, the bytes (Go-quoted), what they name; one a line.
const signatureTable = `1080 "\x53\xef" an ext2/ext3/ext4 filesystem
0 "XFSB" an XFS filesystem
65600 "_BHRfS_M" a btrfs filesystem
4086 "SWAPSPACE2" swap
512 "LABELONE" an LVM physical volume
512 "EFI PART" a GPT partition table
0 "LUKS\xba\xbe" a LUKS volume
4096 "\xfc\x4e\x2b\xa9" an md RAID member (1.1/1.2 superblock)
0 "\xfc\x4e\x2b\xa9" an md RAID member (1.1 superblock)
3 "NTFS    " an NTFS filesystem
82 "FAT32   " a FAT32 filesystem
510 "\x55\xaa" a DOS partition table or boot sector`

var signatures = parseSignatures(signatureTable)

func parseSignatures(table string) []signature {
	var out []signature
	for _, line := range strings.Split(table, "\n") {
		off, rest, _ := strings.Cut(line, " ")
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			panic("device: signature table: " + line)
		}
		want, _ := strconv.Unquote(q)
		n, err := strconv.ParseInt(off, 10, 64)
		if err != nil {
			panic("device: signature table: " + line)
		}
		out = append(out, signature{n, want, strings.TrimSpace(rest[len(q):])})
	}
	return out
}

// ErrForeign is the error of a namespace the backend must not write.
var ErrForeign = errors.New("refused")

// Check decides whether the device backend may write a namespace of size
// bytes read through r: no known signature in its first ProbeBytes, and
// either walab's Label at its start (the backend wrote it before) or
// nothing but zeros in its first and last ProbeBytes (a new or
// deallocated namespace). It reports whether the label is there already.
func Check(r io.ReaderAt, size int64) (labelled bool, err error) {
	head, err := readAt(r, 0, min(size, ProbeBytes))
	if err != nil {
		return false, err
	}
	for _, s := range signatures {
		if s.off+int64(len(s.want)) <= int64(len(head)) && string(head[s.off:s.off+int64(len(s.want))]) == s.want {
			return false, fmt.Errorf("%w: the namespace holds %s (signature at byte %d); the device backend writes only a namespace it owns: a new or deallocated one (blkdiscard, nvme format) or one it wrote before", ErrForeign, s.what, s.off)
		}
	}
	if bytes.HasPrefix(head, []byte(Label)) {
		return true, nil
	}
	tailOff := max(0, size-ProbeBytes)
	tail, err := readAt(r, tailOff, size-tailOff)
	if err != nil {
		return false, err
	}
	for _, part := range []struct {
		b   []byte
		off int64
	}{{head, 0}, {tail, tailOff}} {
		if i := slices0(part.b); i >= 0 {
			return false, fmt.Errorf("%w: the namespace holds data walab did not write (a non-zero byte at %d, and no walab label at its start); the device backend writes only a new or deallocated namespace (blkdiscard, nvme format) or one it wrote before", ErrForeign, part.off+int64(i))
		}
	}
	return false, nil
}

// slices0 is the index of b's first non-zero byte, or -1.
func slices0(b []byte) int {
	for i, c := range b {
		if c != 0 {
			return i
		}
	}
	return -1
}

func readAt(r io.ReaderAt, off, n int64) ([]byte, error) {
	b := make([]byte, n)
	if _, err := r.ReadAt(b, off); err != nil && !(errors.Is(err, io.EOF) && n == 0) {
		return nil, fmt.Errorf("device: reading %d bytes at %d: %w", n, off, err)
	}
	return b, nil
}

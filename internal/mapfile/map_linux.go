//go:build linux

package mapfile

import (
	"os"
	"syscall"
)

// Map maps size bytes of the regular file f into memory, read-only, its
// pages populated up front (from the page cache: nothing is copied); nil
// when it cannot.
func Map(f *os.File, size int64) []byte {
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|syscall.MAP_POPULATE)
	if err != nil {
		return nil
	}
	return b
}

// Unmap undoes Map.
func Unmap(b []byte) { syscall.Munmap(b) }

//go:build linux

package mapfile

import (
	"os"
	"syscall"
)

// Map maps size bytes of the regular file f into memory, read-only, its
// pages populated up front (from the page cache: nothing is copied); nil
// when it cannot.
func Map(f *os.File, size int64) []byte { return mmap(f, size, syscall.MAP_POPULATE) }

// MapLazy is Map without populating the pages: each is mapped when it is
// first read, so that a file larger than memory can be mapped, and read
// in bounded memory with Release.
func MapLazy(f *os.File, size int64) []byte { return mmap(f, size, 0) }

func mmap(f *os.File, size int64, flags int) []byte {
	if size <= 0 || int64(int(size)) != size {
		return nil
	}
	b, err := syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED|flags)
	if err != nil {
		return nil
	}
	return b
}

// Release lets go of the pages of the mapping b that have been read: they
// no longer count in the process's memory, and are read again (from the
// page cache, or the file) if they are read again.
func Release(b []byte) {
	if len(b) > 0 {
		syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}

// Unmap undoes Map.
func Unmap(b []byte) { syscall.Munmap(b) }

// changeTime is the file's change time (ctime), in nanoseconds.
func changeTime(fi os.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Ctim.Nano()
	}
	return 0
}

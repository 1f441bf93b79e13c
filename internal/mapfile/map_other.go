//go:build !linux

package mapfile

import "os"

// Map maps files into memory on Linux only; elsewhere they are read.
func Map(f *os.File, size int64) []byte { return nil }

// MapLazy maps files into memory on Linux only; elsewhere they are read.
func MapLazy(f *os.File, size int64) []byte { return nil }

// Release lets go of the pages of a mapping that have been read.
func Release(b []byte) {}

// Unmap undoes Map.
func Unmap(b []byte) {}

func changeTime(fi os.FileInfo) int64 { return 0 }

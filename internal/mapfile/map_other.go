//go:build !linux

package mapfile

import "os"

// Map maps files into memory on Linux only; elsewhere they are read.
func Map(f *os.File, size int64) []byte { return nil }

// Unmap undoes Map.
func Unmap(b []byte) {}

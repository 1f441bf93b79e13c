//go:build !linux

package cmd

import "os"

// mapFile maps files into memory on Linux only; elsewhere they are read.
func mapFile(f *os.File, size int64) []byte { return nil }

func unmapFile(b []byte) {}

// Package mapfile maps regular files into memory, read-only (on Linux;
// elsewhere Map gives nil and files are read), and turns the fault of
// reading a page that a mapped file no longer has, because it was cut
// short meanwhile, into an error (Guard).
package mapfile

import (
	"errors"
	"os"
	"runtime/debug"
	"unsafe"
)

// ErrCutShort is Guard's error: the mapped file was cut short while it
// was read.
var ErrCutShort = errors.New("it was cut short while it was read")

// Guard runs f, which reads the mapped file m, and turns the fault of
// reading a page that the file no longer has into ErrCutShort. Other
// panics pass.
func Guard(m []byte, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok && len(m) > 0 {
			if a, base := fault.Addr(), uintptr(unsafe.Pointer(&m[0])); a >= base && a-base < uintptr(len(m)) {
				err = ErrCutShort
				return
			}
		}
		panic(r)
	}()
	return f()
}

// Same reports whether two looks at a mapped file's state (os.File.Stat)
// find it unchanged: its size, modification time and, where the system
// keeps it, its change time, which no one can set back.
func Same(a, b os.FileInfo) bool {
	return a.Size() == b.Size() && a.ModTime().Equal(b.ModTime()) && changeTime(a) == changeTime(b)
}

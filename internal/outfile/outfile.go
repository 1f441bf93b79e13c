// Package outfile writes a command's output so that a failed run leaves
// none behind.
//
// File writes a named output atomically: a regular file (or a new one) is
// written to a temporary file in the same folder and renamed over the
// target by Commit, keeping the target's permissions, so that a failed run
// leaves no partial or truncated output and the output may name an input;
// a symlink is followed to its target first. Anything else that exists (a
// device such as /dev/null, a FIFO, a terminal) is written in place.
//
// Spool is a temporary file that holds output until the run knows it may
// write it (a table refused when it would be lossy), and Held holds output
// bound for a stream (standard output) in memory, then in a Spool, until
// the run has succeeded (Output.HoldAll; /dev/null is not held).
//
// Every temporary file in progress is tracked from the moment it is made:
// RemoveTemps, called from a signal's handler, deletes them all.
package outfile

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
)

// ErrIsDir says that an output names a directory.
var ErrIsDir = errors.New("it is a directory")

// File is an output file being written (Open), put in place by Commit or
// discarded by Abort.
type File struct {
	target  string // the path, symlinks resolved
	tmp     *os.File
	direct  *os.File // a non-regular file written in place
	mode    fs.FileMode
	replace bool // the target exists: keep its mode
}

// Open starts the output to path: a temporary file beside it, or, when
// path is something other than a regular file, path itself. A directory is
// ErrIsDir.
func Open(path string) (*File, error) {
	f := &File{target: path}
	if t, err := filepath.EvalSymlinks(path); err == nil {
		f.target = t
	}
	st, err := os.Stat(f.target)
	switch {
	case err == nil && st.IsDir():
		return nil, ErrIsDir
	case err == nil && !st.Mode().IsRegular():
		if f.direct, err = os.OpenFile(f.target, os.O_WRONLY, 0); err != nil {
			return nil, err
		}
		return f, nil
	case err == nil:
		f.replace, f.mode = true, st.Mode().Perm()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, err
	}
	if f.tmp, err = Track(func() (*os.File, error) { return CreateBeside(f.target) }); err != nil {
		return nil, err
	}
	return f, nil
}

// Writer is where the output is written.
func (f *File) Writer() io.Writer {
	if f.direct != nil {
		return f.direct
	}
	return f.tmp
}

// InPlace says that the output is written in place, not to a temporary
// file: a device, a FIFO, a terminal.
func (f *File) InPlace() bool { return f.direct != nil }

// Commit puts the output in place: it closes the file and renames the
// temporary file over the target (with the target's permissions, when it
// existed). When that fails, the temporary file is removed.
func (f *File) Commit() error {
	if f.direct != nil {
		err := f.direct.Close()
		f.direct = nil
		return err
	}
	if f.tmp == nil {
		return nil
	}
	name := f.tmp.Name()
	var err error
	if f.replace {
		err = f.tmp.Chmod(f.mode)
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	f.tmp = nil
	if err == nil {
		err = os.Rename(name, f.target)
	}
	Untrack(name)
	if err != nil {
		os.Remove(name)
	}
	return err
}

// Abort discards the output: the temporary file is removed; a file written
// in place is closed.
func (f *File) Abort() {
	if f.tmp != nil {
		name := f.tmp.Name()
		f.tmp.Close()
		os.Remove(name)
		Untrack(name)
		f.tmp = nil
	}
	if f.direct != nil {
		f.direct.Close()
		f.direct = nil
	}
}

// CreateBeside creates a new file beside target, with the permissions a
// new file gets from the umask.
func CreateBeside(target string) (*os.File, error) {
	dir, base := filepath.Split(target)
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.tmp-%d-%d", base, os.Getpid(), rand.Uint32()))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil || !errors.Is(err, fs.ErrExist) || i == 100 {
			return f, err
		}
	}
}

// Temporary files in progress, removed by RemoveTemps when a signal ends
// the run.
var temps struct {
	sync.Mutex
	names map[string]bool
}

// Track creates a temporary file and tracks it, with no moment between
// the two at which a signal's RemoveTemps would miss it.
func Track(create func() (*os.File, error)) (*os.File, error) {
	temps.Lock()
	defer temps.Unlock()
	f, err := create()
	if err == nil {
		if temps.names == nil {
			temps.names = map[string]bool{}
		}
		temps.names[f.Name()] = true
	}
	return f, err
}

// Untrack stops tracking a temporary file: it is removed or in place.
func Untrack(name string) {
	temps.Lock()
	defer temps.Unlock()
	delete(temps.names, name)
}

// RemoveTemps deletes every temporary file still in progress.
func RemoveTemps() {
	temps.Lock()
	defer temps.Unlock()
	for name := range temps.names {
		os.Remove(name)
		delete(temps.names, name)
	}
}

// TempError is an error of a temporary file: it could not be made (Name
// is ""), written or read back.
type TempError struct {
	Name string
	Err  error
}

func (e *TempError) Error() string {
	msg := reason(e.Err)
	if e.Name == "" {
		return "cannot make a temporary file: " + msg
	}
	return fmt.Sprintf("cannot write the temporary file %s: %s", e.Name, msg)
}

func (e *TempError) Unwrap() error { return e.Err }

// Spool is a temporary file, in the system's folder for them, that holds
// output until the run knows it may write it. Write to W; Reader reads it
// back from its start; Remove deletes it.
type Spool struct {
	f *os.File
	W *bufio.Writer
}

// NewSpool makes a spool, what naming its file (toonkit-WHAT-*).
func NewSpool(what string) (*Spool, error) {
	f, err := Track(func() (*os.File, error) { return os.CreateTemp("", "toonkit-"+what+"-*") })
	if err != nil {
		return nil, &TempError{Err: err}
	}
	return &Spool{f: f, W: bufio.NewWriterSize(f, 256<<10)}, nil
}

// Fail is err, an error of a write to the spool, as a *TempError.
func (s *Spool) Fail(err error) error {
	return &TempError{Name: s.f.Name(), Err: err}
}

// Reader flushes the spool and reads it from its start.
func (s *Spool) Reader() (io.Reader, error) {
	if err := s.W.Flush(); err != nil {
		return nil, s.Fail(err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return nil, s.Fail(err)
	}
	return s.f, nil
}

// Remove deletes the spool.
func (s *Spool) Remove() {
	name := s.f.Name()
	s.f.Close()
	os.Remove(name)
	Untrack(name)
}

// HeldInMemory is how much output a Held keeps in memory before it goes
// to a Spool.
const HeldInMemory = 4 << 20

// Held is output kept back until the run succeeds (PassOn) or fails
// (Drop): in memory up to HeldInMemory bytes, then in a Spool. Its errors
// are *TempError.
type Held struct {
	mem   []byte
	spool *Spool
}

func (h *Held) Write(p []byte) (int, error) {
	if h.mem == nil && h.spool == nil {
		// Once, at its full size: growing it by doubling would copy it
		// and leave the old buffers for the collector.
		h.mem = make([]byte, 0, HeldInMemory)
	}
	if h.spool == nil && len(h.mem)+len(p) <= HeldInMemory {
		h.mem = append(h.mem, p...)
		return len(p), nil
	}
	if h.spool == nil {
		s, err := NewSpool("output")
		if err != nil {
			return 0, err
		}
		h.spool = s
		if _, err := s.W.Write(h.mem); err != nil {
			return 0, s.Fail(err)
		}
		h.mem = nil
	}
	if _, err := h.spool.W.Write(p); err != nil {
		return 0, h.spool.Fail(err)
	}
	return len(p), nil
}

// PassOn writes what is held to w: an error of w's is returned as it is.
func (h *Held) PassOn(w io.Writer) error {
	if h.spool == nil {
		_, err := w.Write(h.mem)
		return err
	}
	rd, err := h.spool.Reader()
	if err != nil {
		return err
	}
	_, err = io.Copy(w, rd)
	return err
}

// Drop lets go of what is held.
func (h *Held) Drop() {
	h.mem = nil
	if h.spool != nil {
		h.spool.Remove()
		h.spool = nil
	}
}

// File flushes the spool and gives its file, for the caller to read (or
// map) in place; Remove still deletes it.
func (s *Spool) File() (*os.File, error) {
	if err := s.W.Flush(); err != nil {
		return nil, s.Fail(err)
	}
	return s.f, nil
}

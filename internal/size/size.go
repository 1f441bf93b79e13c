// Package size reads byte sizes such as 1048576, 64KiB, 64k, 64MB or 1GiB
// (all units powers of 1024), and holds them as command-line flags.
package size

import (
	"fmt"
	"strconv"
	"strings"
)

// Parse reads a positive size of at most max bytes (written maxText in
// the error).
func Parse(s string, max int64, maxText string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	var mult int64 = 1
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"kib", 1 << 10}, {"mib", 1 << 20}, {"gib", 1 << 30}, {"kb", 1 << 10}, {"mb", 1 << 20}, {"gb", 1 << 30}, {"k", 1 << 10}, {"m", 1 << 20}, {"g", 1 << 30}, {"b", 1}} {
		if strings.HasSuffix(t, u.suffix) {
			t, mult = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.mult
			break
		}
	}
	var n int64
	if _, err := fmt.Sscanf(t, "%d", &n); err != nil || fmt.Sprint(n) != t || n <= 0 {
		return 0, fmt.Errorf("invalid size %q (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)", s)
	}
	if n > max/mult {
		return 0, fmt.Errorf("size %q is too large (at most %s)", s, maxText)
	}
	return n * mult, nil
}

// Flag is a size flag (a pflag.Value) of less than 2 GiB (at most
// 2147483647 bytes, the size a frame header can state). A value that does
// not parse is no error of the command line's: Set keeps it for Err, so
// that the command reports it, as "--NAME: reason", in its own order
// among its other checks.
type Flag struct {
	name    string
	n       int
	text    string
	err     error
	max     int64
	maxText string
	typ     string
}

// NewFlag is the size flag --name, whose default is def, a valid size.
func NewFlag(name, def string) *Flag {
	f := &Flag{name: name, max: 1<<31 - 1, maxText: "2147483647 bytes, 2GiB less one byte", typ: "string"}
	if f.Set(def); f.err != nil {
		panic(f.err)
	}
	return f
}

// Set reads s; an error is kept for Err.
func (f *Flag) Set(s string) error {
	n, err := Parse(s, f.max, f.maxText)
	f.n, f.text, f.err = int(n), s, nil
	if err != nil {
		f.err = fmt.Errorf("--%s: %w", f.name, err)
	}
	return nil
}

func (f *Flag) String() string { return f.text }

// Type is "string", as a flag of the text of a size was, or "bytes" for
// a Bytes flag.
func (f *Flag) Type() string { return f.typ }

// NewBytesFlag is NewFlag for a flag that was a number of bytes: its
// default, def bytes, is shown as a number, and its values go up to the
// largest int.
func NewBytesFlag(name string, def int) *Flag {
	f := &Flag{name: name, max: int64(^uint(0) >> 1), maxText: fmt.Sprint(int64(^uint(0) >> 1)), typ: "bytes"}
	if f.Set(fmt.Sprint(def)); f.err != nil {
		panic(f.err)
	}
	return f
}

// N is the size in bytes; 0 when Err is not nil.
func (f *Flag) N() int { return f.n }

// Err is the error of the value given, if it does not parse:
// "--NAME: reason".
func (f *Flag) Err() error { return f.err }

// ParseOffset reads a byte count or offset: decimal, 0x hex, or a size
// with a unit (64KiB, as Parse reads it, up to 2 GiB); zero is allowed.
func ParseOffset(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "0" {
		return 0, nil
	}
	if strings.HasPrefix(t, "-") {
		return 0, fmt.Errorf("want a number of bytes from 0, found %q", s)
	}
	if h, ok := strings.CutPrefix(strings.ToLower(t), "0x"); ok {
		n, err := strconv.ParseInt(h, 16, 64)
		if err != nil {
			return 0, fmt.Errorf("invalid hex number %q", s)
		}
		return n, nil
	}
	if n, err := strconv.ParseInt(t, 10, 64); err == nil {
		return n, nil
	}
	n, err := Parse(t, 1<<31-1, "2GiB")
	if err != nil {
		return 0, fmt.Errorf("invalid number of bytes %q (want decimal such as 1024, hex such as 0x400, or a size such as 4KiB)", s)
	}
	return int64(n), nil
}

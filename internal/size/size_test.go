package size

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]int64{"1": 1, "1024": 1024, "64mib": 64 << 20, "1048576": 1 << 20, "64KiB": 64 << 10, "64k": 64 << 10, " 64 MB ": 64 << 20, "1GiB": 1 << 30, "2g": 2 << 30, "7b": 7} {
		if n, err := Parse(in, 1<<40, "1TiB"); err != nil || n != want {
			t.Errorf("Parse(%q) = %d, %v; want %d", in, n, err, want)
		}
	}
	for _, in := range []string{"", "abc", "64 XB", "4GiB"} {
		if n, err := Parse(in, 1<<31-1, "2GiB"); err == nil {
			t.Errorf("Parse(%q) = %d, want an error", in, n)
		}
	}
	for in, msg := range map[string]string{
		"0":     `invalid size "0" (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)`,
		"-1k":   `invalid size "-1k" (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)`,
		"1.5M":  `invalid size "1.5M" (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)`,
		"0x10":  `invalid size "0x10" (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)`,
		"3GiB":  `size "3GiB" is too large (at most 2GiB)`,
		"2049m": `size "2049m" is too large (at most 2GiB)`,
	} {
		if _, err := Parse(in, 2<<30, "2GiB"); err == nil || err.Error() != msg {
			t.Errorf("Parse(%q): %v, want %s", in, err, msg)
		}
	}
}

func TestFlagKeepsItsErrorForTheCommand(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	f := NewFlag("max-frame-size", "64MiB")
	// 2GiB itself is one byte too many; the message said "at most 2GiB".
	for in, ok := range map[string]bool{"2GiB": false, "2147483647": true, "2047MiB": true} {
		f.Set(in)
		if (f.Err() == nil) != ok {
			t.Errorf("--max-frame-size %s: %v", in, f.Err())
		}
	}
	f.Set("2GiB")
	if want := `--max-frame-size: size "2GiB" is too large (at most 2147483647 bytes, 2GiB less one byte)`; f.Err() == nil || f.Err().Error() != want {
		t.Errorf("--max-frame-size 2GiB: %v, want %s", f.Err(), want)
	}
	f.Set("64MiB")
	fs.Var(f, "max-frame-size", "largest")
	if f.N() != 64<<20 || fs.Lookup("max-frame-size").DefValue != "64MiB" {
		t.Fatalf("default: %d, %q", f.N(), fs.Lookup("max-frame-size").DefValue)
	}
	if err := fs.Parse([]string{"--max-frame-size", "lots"}); err != nil {
		t.Fatalf("a bad size failed the parse: %v", err)
	}
	if f.Err() == nil || f.String() != "lots" || f.Err().Error() != `--max-frame-size: invalid size "lots" (want a positive number of bytes, such as 1048576, 64KiB or 64MiB)` {
		t.Fatalf("bad size: %v, %q", f.Err(), f.String())
	}
	if err := fs.Parse([]string{"--max-frame-size", "3GiB", "--max-frame-size", "1k"}); err != nil || f.Err() != nil || f.N() != 1024 {
		t.Fatalf("the last value does not win: %d, %v", f.N(), f.Err())
	}
}

func TestParseOffset(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"17", 17, true}, {" 17 ", 17, true}, {"0x40", 64, true}, {"0XfF", 255, true},
		{"4KiB", 4096, true}, {"1m", 1 << 20, true}, {"9000000000", 9000000000, true},
		{"-1", 0, false}, {"0x", 0, false}, {"0xg", 0, false}, {"1.5", 0, false}, {"", 0, false}, {"k", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseOffset(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseOffset(%q) = %d, %v; want %d, ok %v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

// A flag that was a number of bytes keeps its help (a default shown as a
// number) and its range, and takes sizes too.
func TestBytesFlag(t *testing.T) {
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	fs.Var(NewBytesFlag("max-size", 1<<30), "max-size", "the largest value, in `BYTES`")
	if got := fs.FlagUsages(); !strings.Contains(got, "--max-size BYTES   the largest value, in BYTES (default 1073741824)") {
		t.Fatalf("help: %q", got)
	}
	f := fs.Lookup("max-size").Value.(*Flag)
	for in, want := range map[string]int{"64KiB": 64 << 10, "3221225472": 3 << 30, "10": 10} {
		if f.Set(in); f.Err() != nil || f.N() != want {
			t.Errorf("--max-size %s: %d, %v; want %d", in, f.N(), f.Err(), want)
		}
	}
	if f.Set("0"); f.Err() == nil || !strings.HasPrefix(f.Err().Error(), `--max-size: invalid size "0"`) {
		t.Errorf("--max-size 0: %v", f.Err())
	}
}

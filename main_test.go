package main

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/toonkit/toonkit/cmd"
	"github.com/toonkit/toonkit/internal/capturetest"
)

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"toonkit": func() { os.Exit(cmd.Main()) },
	})
}

// TestScripts runs the CLI scripts in testdata/script: exact stdout, stderr
// and exit codes of the real binary, for good and bad input.
func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			// A clean environment: no color variables leak in from the caller.
			env.Setenv("NO_COLOR", "")
			env.Setenv("CLICOLOR", "")
			env.Setenv("CLICOLOR_FORCE", "")
			// TOONKIT_SCRIPT_BIN runs the scripts' toonkit from another
			// binary (the base of a change, to compare outputs): a link to
			// it comes first in $PATH, before the test binary's own.
			if bin := os.Getenv("TOONKIT_SCRIPT_BIN"); bin != "" {
				dir, err := os.MkdirTemp("", "toonkit-bin")
				if err != nil {
					return err
				}
				env.Defer(func() { os.RemoveAll(dir) })
				if err := os.Symlink(bin, filepath.Join(dir, "toonkit")); err != nil {
					return err
				}
				env.Setenv("PATH", dir+string(os.PathListSeparator)+env.Getenv("PATH"))
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"unhex":   cmdUnhex,
			"hexof":   cmdHexof,
			"chomp":   cmdChomp,
			"capture": cmdCapture,
		},
		RequireExplicitExec: false,
	})
}

// cmdUnhex writes the bytes of a hex file: "unhex IN OUT". White space and
// anything after '#' on a line are ignored; "NxHH" repeats byte HH N times.
func cmdUnhex(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: unhex IN.hex OUT")
	}
	src := ts.ReadFile(args[0])
	var out []byte
	for _, line := range strings.Split(src, "\n") {
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = line[:i]
		}
		for _, word := range strings.Fields(line) {
			count := 1
			if n, b, ok := strings.Cut(word, "x"); ok {
				var err error
				if count, err = atoi(n); err != nil {
					ts.Fatalf("unhex: bad repeat %q", word)
				}
				word = b
			}
			b, err := hex.DecodeString(word)
			if err != nil {
				ts.Fatalf("unhex: %v", err)
			}
			for ; count > 0; count-- {
				out = append(out, b...)
			}
		}
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
}

// cmdHexof prints a file's bytes as lowercase hex, 16 bytes a line: "hexof FILE".
func cmdHexof(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: hexof FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	var sb strings.Builder
	for i := 0; i < len(b); i += 16 {
		sb.WriteString(hex.EncodeToString(b[i:min(i+16, len(b))]))
		sb.WriteByte('\n')
	}
	ts.Stdout().Write([]byte(sb.String()))
}

// cmdChomp removes the final newline of each file ("chomp FILE..."): txtar
// files always end in one, and some inputs under test must not.
func cmdChomp(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: chomp FILE...")
	}
	for _, name := range args {
		b := ts.ReadFile(name)
		ts.Check(os.WriteFile(ts.MkAbs(name), []byte(strings.TrimSuffix(b, "\n")), 0o644))
	}
}

// cmdCapture writes a sample packet capture of internal/capturetest:
// "capture NAME OUT" (session.pcapng, lost.pcap, mixed.pcap).
func cmdCapture(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: capture NAME OUT")
	}
	data, ok := capturetest.Sample(args[0])
	if !ok {
		ts.Fatalf("capture: no sample %q (there are %s)", args[0], strings.Join(capturetest.SampleNames(), ", "))
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
}

func atoi(s string) (int, error) {
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, os.ErrInvalid
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}

package cmd

import (
	"bytes"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/inspect"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/kado"
)

func TestInspectFlagParsing(t *testing.T) {
	tests := []struct {
		args []string
		want InspectOptions
	}{
		{nil, InspectOptions{Command: inspect.Command{Inputs: []string{"-"}, Frame: -1, MaxFrameSize: kado.DefaultMaxFrameSize}}},
		{[]string{"a.bin", "-", "b.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin", "-", "b.bin"}, Frame: -1, MaxFrameSize: 64 << 20}}},
		{[]string{"--frame", "0", "a.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin"}, Frame: 0, MaxFrameSize: 64 << 20}}},
		{[]string{"--frame=12", "--json", "a.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin"}, Frame: 12, JSON: true, MaxFrameSize: 64 << 20}}},
		{[]string{"--skip", "0x400", "--length", "256", "a.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin"}, Frame: -1, Skip: 1024, Length: 256, MaxFrameSize: 64 << 20}}},
		{[]string{"-s", "4KiB", "-n", "0X10", "a.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin"}, Frame: -1, Skip: 4096, Length: 16, MaxFrameSize: 64 << 20}}},
		{[]string{"--max-frame-size", "1k", "a.bin"}, InspectOptions{Command: inspect.Command{Inputs: []string{"a.bin"}, Frame: -1, MaxFrameSize: 1024}}},
	}
	for _, tt := range tests {
		ios, _, _, _ := Test()
		var got *InspectOptions
		c := newInspectCmd(ios, func(o *InspectOptions) error { got = o; return nil })
		c.SetArgs(tt.args)
		if err := c.Execute(); err != nil {
			t.Errorf("%v: %v", tt.args, err)
			continue
		}
		tt.want.IO = ios
		if got.IO != ios || strings.Join(got.Inputs, ",") != strings.Join(tt.want.Inputs, ",") ||
			got.Frame != tt.want.Frame || got.Skip != tt.want.Skip || got.Length != tt.want.Length ||
			got.JSON != tt.want.JSON || got.MaxFrameSize != tt.want.MaxFrameSize {
			t.Errorf("%v: got %+v, want %+v", tt.args, *got, tt.want)
		}
	}
}

func TestInspectUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--frame", "-1", "a.bin"},
		{"--frame", "x", "a.bin"},
		{"--skip", "-1", "a.bin"},
		{"--skip", "0x", "a.bin"},
		{"--length", "0", "a.bin"},
		{"--length", "1.5", "a.bin"},
		{"--max-frame-size", "0", "a.bin"},
	} {
		ios, _, out, errOut := Test()
		called := false
		c := newInspectCmd(ios, func(*InspectOptions) error { called = true; return nil })
		c.SilenceErrors, c.SilenceUsage = true, true
		c.SetArgs(args)
		err := c.Execute()
		if called || err == nil {
			t.Errorf("%v: accepted", args)
			continue
		}
		if code := cli.ExitCode(err, true); code != cli.ExitUsage {
			t.Errorf("%v: exit code %d, want %d (%v)", args, code, cli.ExitUsage, err)
		}
		if out.Len() > 0 || errOut.Len() > 0 {
			t.Errorf("%v: wrote %q %q", args, out, errOut)
		}
	}

	// Through the root command, flag syntax errors are usage errors too.
	ios, _, _, _ := Test()
	if code := Run(ios, []string{"inspect", "--json=maybe", "a.bin"}); code != cli.ExitUsage {
		t.Errorf("--json=maybe: exit code %d", code)
	}

	// No FILE and a terminal on stdin is a usage error too.
	ios, _, _, errOut := Test()
	ios.SetStdinTTY(true)
	if code := Run(ios, []string{"inspect"}); code != cli.ExitUsage {
		t.Errorf("inspect on a terminal: exit code %d", code)
	}
	if !strings.Contains(errOut.String(), "no input: standard input is a terminal") {
		t.Errorf("stderr: %s", errOut)
	}
}

// The palette colors every role but numbers, true and false (plain, as in
// jq), and only where the stream gets color.
func TestPalette(t *testing.T) {
	ios, _, _, _ := Test()
	if ios.StdoutPaint() != nil || ios.StderrPaint() != nil {
		t.Errorf("a pipe got colors")
	}
	ios.ColorMode = "always"
	st := ios.StdoutPaint()
	if st == nil {
		t.Fatal("--color always gave no colors")
	}
	for _, r := range paint.Roles() {
		_, ok := palette[r]
		if plain := r == paint.JSONNumber || r == paint.JSONLiteral; ok == plain {
			t.Errorf("role %v: in the palette %v", r, ok)
		}
	}
	if got := st(paint.Invalid, "02"); got != "\x1b[7;31m02\x1b[27;0m" {
		t.Errorf("Invalid: %q", got)
	}
	if got := st(paint.JSONNumber, "1"); got != "1" {
		t.Errorf("numbers are plain, as in jq: %q", got)
	}
}

func TestInspectRun(t *testing.T) {
	frame, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Heartbeat, Timestamp: 1735689600123, SequenceID: 1}, []byte(`{}`), kado.CompressNever)
	if err != nil {
		t.Fatal(err)
	}
	ios, in, out, errOut := Test()
	in.Write(frame)
	if code := Run(ios, []string{"inspect"}); code != cli.ExitOK {
		t.Fatalf("exit code %d: %s", code, errOut)
	}
	if !strings.HasPrefix(out.String(), "==> <stdin> <==\n\nframe 0 at byte 0 (0x0): HEARTBEAT, seq 1, 20 bytes\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if bytes.ContainsRune(out.Bytes(), 0x1b) {
		t.Errorf("escape codes on a pipe")
	}

	// A bad frame: the view in full on stdout, exit 1.
	ios, in, out, errOut = Test()
	in.Write(append([]byte{2}, frame[1:]...))
	if code := Run(ios, []string{"inspect", "-"}); code != cli.ExitInvalid {
		t.Fatalf("exit code %d", code)
	}
	if !strings.Contains(out.String(), "^^  INVALID: version") || !strings.Contains(out.String(), "\nsummary\n") {
		t.Errorf("stdout:\n%s", out)
	}
	if errOut.String() != "toonkit: error: <stdin>: frame 0 at byte 0: version: expected 1, found 2 (0x02)\n" {
		t.Errorf("stderr: %q", errOut)
	}
}

package cmd

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/convert"
	"github.com/toonkit/toonkit/internal/keys"
	"github.com/toonkit/toonkit/internal/validate"
	"github.com/toonkit/toonkit/internal/version"
	"github.com/toonkit/toonkit/kado"
	"github.com/toonkit/toonkit/toon"
)

func TestColorDecisions(t *testing.T) {
	cases := []struct {
		mode string
		env  map[string]string
		tty  bool
		want bool
	}{
		{"auto", nil, true, true},
		{"auto", nil, false, false},
		{"auto", map[string]string{"NO_COLOR": "1"}, true, false},
		{"auto", map[string]string{"CLICOLOR": "0"}, true, false},
		{"auto", map[string]string{"CLICOLOR": "1"}, true, true},
		{"auto", map[string]string{"CLICOLOR_FORCE": "1"}, false, true},
		{"auto", map[string]string{"CLICOLOR_FORCE": "0"}, false, false},
		{"auto", map[string]string{"CLICOLOR_FORCE": "1", "NO_COLOR": "1"}, false, false},
		{"always", map[string]string{"NO_COLOR": "1"}, false, true},
		{"never", map[string]string{"CLICOLOR_FORCE": "1"}, true, false},
	}
	for _, c := range cases {
		ios, _, _, _ := Test()
		ios.ColorMode = c.mode
		ios.Getenv = func(k string) string { return c.env[k] }
		ios.SetStdoutTTY(c.tty)
		ios.SetStderrTTY(!c.tty)
		if got := ios.ColorStdout(); got != c.want {
			t.Errorf("mode %s env %v tty %v: ColorStdout = %v", c.mode, c.env, c.tty, got)
		}
		// Decisions are per stream: stderr has the opposite TTY.
		if c.mode == "auto" && len(c.env) == 0 && ios.ColorStderr() == c.want {
			t.Errorf("stderr followed stdout's terminal")
		}
	}
}

func run(t *testing.T, ios *cli.IOStreams, args ...string) int {
	t.Helper()
	return Run(ios, args)
}

func TestEncodeFlagParsing(t *testing.T) {
	ios, _, _, _ := Test()
	var got *convert.EncodeOptions
	c := newEncodeCmd(ios, func(o *convert.EncodeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--to", "kado", "--type", "Tool-Call", "--seq", "7", "--timestamp", "2025-01-01T00:00:00.123Z", "--compress", "never", "-o", "x.bin", "a.json", "-"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.To != "binary" || got.Type != kado.ToolCall || got.Seq != 7 || *got.Timestamp != 1735689600123 ||
		got.Compress != kado.CompressNever || got.Output != "x.bin" || got.MaxFrameSize != 64<<20 {
		t.Fatalf("options %+v", got)
	}
	if diff := cmp.Diff([]string{"a.json", "-"}, got.Inputs); diff != "" {
		t.Fatal(diff)
	}
	// Defaults: type inferred, seq 1, timestamp now, compress auto, stdin.
	c = newEncodeCmd(ios, func(o *convert.EncodeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--to", "binary"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Type != 0 || got.Seq != 1 || got.Timestamp != nil || got.Compress != kado.CompressAuto || got.Inputs[0] != "-" {
		t.Fatalf("defaults %+v", got)
	}
}

func TestDecodeFlagParsing(t *testing.T) {
	ios, _, _, _ := Test()
	var got *convert.DecodeOptions
	c := newDecodeCmd(ios, func(o *convert.DecodeOptions) error { got = o; return nil })
	c.SetArgs([]string{"--from", "FRAME", "--payload", "--keep-going", "--max-frame-size", "1MiB", "a.bin", "b.bin"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.From != "binary" || !got.Payload || !got.KeepGoing || got.MaxFrameSize != 1<<20 || len(got.Inputs) != 2 {
		t.Fatalf("options %+v", got)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "m.json")
	os.WriteFile(good, []byte(`{"instruction":"x"}`), 0o644)
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"instruction":`), 0o644)
	cases := []struct {
		args []string
		code int
	}{
		{[]string{"encode", "--to", "binary", "--timestamp", "1", good}, cli.ExitOK},
		{[]string{"encode", "--to", "binary", bad}, cli.ExitInvalid},
		{[]string{"encode", "--to", "binary", "--bogus"}, cli.ExitUsage},
		{[]string{"encode", "--to", "binary", filepath.Join(dir, "missing")}, cli.ExitIO},
		{[]string{"frobnicate"}, cli.ExitUsage},
		{[]string{"--color", "sometimes", "decode", good}, cli.ExitUsage},
		{[]string{"decode", good}, cli.ExitInvalid},
		{[]string{"decode", dir}, cli.ExitIO},
	}
	for _, c := range cases {
		ios, _, _, _ := Test()
		if got := run(t, ios, c.args...); got != c.code {
			t.Errorf("toonkit %s: exit %d, want %d", strings.Join(c.args, " "), got, c.code)
		}
	}
}

// Binary output is refused on a terminal unless -o - says so.
func TestBinaryRefusedOnTerminal(t *testing.T) {
	ios, in, out, errOut := Test()
	ios.SetStdoutTTY(true)
	in.WriteString(`{"instruction":"x"}`)
	if code := run(t, ios, "encode", "--to", "binary"); code != cli.ExitUsage {
		t.Fatalf("exit %d, want 2", code)
	}
	if out.Len() != 0 {
		t.Fatalf("wrote %d bytes to the terminal", out.Len())
	}
	want := "toonkit: error: refusing to write binary frames to a terminal\n" +
		"toonkit: hint: redirect or pipe the output, name a file with -o FILE, or force it with -o -\n"
	if errOut.String() != want {
		t.Fatalf("stderr %q", errOut.String())
	}
	ios, in, out, _ = Test()
	ios.SetStdoutTTY(true)
	in.WriteString(`{"instruction":"x"}`)
	if code := run(t, ios, "encode", "--to", "binary", "--timestamp", "1", "-o", "-"); code != cli.ExitOK || out.Len() != 37 {
		t.Fatalf("-o -: exit %d, %d bytes", code, out.Len())
	}
}

// Reading a terminal with no FILE is a usage error, not a silent wait.
func TestNoInputFromTerminal(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetStdinTTY(true)
	if code := run(t, ios, "decode"); code != cli.ExitUsage {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errOut.String(), "no input: standard input is a terminal") {
		t.Fatalf("stderr %q", errOut.String())
	}
}

// Errors are colored on a terminal stderr only, and -q drops hints.
func TestErrorColorAndQuiet(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetStderrTTY(true)
	run(t, ios, "encode", "--to", "xml")
	if !strings.Contains(errOut.String(), "\x1b[31;1merror\x1b[0;22m") {
		t.Fatalf("no color on a terminal: %q", errOut.String())
	}
	ios, _, _, errOut = Test()
	run(t, ios, "-q", "encode", "--to", "xml")
	if errOut.String() != "toonkit: error: --to: unknown format \"xml\" (supported: binary, tabular, toon)\n" {
		t.Fatalf("quiet stderr %q", errOut.String())
	}
}

func TestVersion(t *testing.T) {
	ios, _, out, _ := Test()
	old := version.Stamped
	version.Stamped = "v1.2.3"
	defer func() { version.Stamped = old }()
	if code := run(t, ios, "--version"); code != 0 || out.String() != "toonkit v1.2.3 (TOON spec v"+toon.SpecVersion+")\n" {
		t.Fatalf("exit %d, %q", code, out.String())
	}
}

// -o writes through a temporary file: a failure leaves the target as it was.
func TestOutputAtomic(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "out.bin")
	os.WriteFile(target, []byte("precious"), 0o600)
	in := filepath.Join(dir, "in.ndjson")
	os.WriteFile(in, []byte("{\"instruction\":\"a\"}\n{\"oops\n"), 0o644)
	ios, _, _, _ := Test()
	if code := run(t, ios, "encode", "--to", "binary", in, "-o", target); code != cli.ExitInvalid {
		t.Fatalf("exit %d", code)
	}
	if b, _ := os.ReadFile(target); string(b) != "precious" {
		t.Fatalf("target changed to %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Fatalf("left behind: %v", entries)
	}
	// Success replaces it and keeps its mode.
	os.WriteFile(in, []byte(`{"instruction":"a"}`), 0o644)
	if code := run(t, ios, "encode", "--to", "binary", "--timestamp", "1", in, "-o", target); code != cli.ExitOK {
		t.Fatalf("exit %d", code)
	}
	st, _ := os.Stat(target)
	b, _ := os.ReadFile(target)
	if st.Mode().Perm() != 0o600 || !bytes.HasPrefix(b, []byte{1, 1}) {
		t.Fatalf("mode %v, content % x", st.Mode().Perm(), b[:2])
	}
}

// The key flags, repeatable, are one list in the order given, across
// kinds; --allow-short-key is sign's and seal's.
func TestKeyFlagsOrder(t *testing.T) {
	ios, _, _, _ := Test()
	var got *VerifyOptions
	c := newVerifyCmd(ios, func(o *VerifyOptions) error { got = o; return nil })
	c.SetArgs([]string{"--key-env", "NEW", "--keyring", "ring", "--key-file", "old.key", "--key-env", "OLDEST", "log.ndjson"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	want := []keys.Source{{Kind: keys.Env, Name: "NEW"}, {Kind: keys.Keyring, Name: "ring"}, {Kind: keys.File, Name: "old.key"}, {Kind: keys.Env, Name: "OLDEST"}}
	if !reflect.DeepEqual(got.Key.Sources, want) || got.Key.Signing {
		t.Fatalf("%+v", got.Key)
	}
	var sg *SignOptions
	s := newSignCmd(ios, func(o *SignOptions) error { sg = o; return nil })
	s.SetArgs([]string{"--keyring", "ring", "--allow-short-key"})
	if err := s.Execute(); err != nil {
		t.Fatal(err)
	}
	if !sg.Key.AllowShort || !sg.Key.Signing || len(sg.Key.Sources) != 1 {
		t.Fatalf("%+v", sg.Key)
	}
	if c.Flags().Lookup("allow-short-key") != nil || newSealCmd(ios, nil).Flags().Lookup("allow-short-key") == nil {
		t.Fatal("--allow-short-key is sign's and seal's")
	}
}

func TestVerifyFlagParsing(t *testing.T) {
	ios, _, _, _ := Test()
	ios.Getenv = func(k string) string { return map[string]string{"K": "key"}[k] }
	for _, c := range []struct {
		args []string
		want bool
	}{
		{[]string{"--key-env", "K", "log.ndjson"}, false},
		{[]string{"--key-env", "K", "--require-both", "log.ndjson"}, true},
	} {
		var got *VerifyOptions
		cmd := newVerifyCmd(ios, func(o *VerifyOptions) error { got = o; return nil })
		cmd.SetArgs(c.args)
		if err := cmd.Execute(); err != nil {
			t.Fatal(err)
		}
		if got.RequireBoth != c.want || got.Report != "text" || len(got.Inputs) != 1 || got.Inputs[0] != "log.ndjson" {
			t.Fatalf("%v: options %+v", c.args, got)
		}
	}
}

// The root help's table of formats says what the code does: each name is a
// format convert reads and writes, or one toonkit only reads (YAML, CSV),
// and a row that names encode, decode or validate names a format that
// command takes (encode reads JSON, YAML and CSV and writes the rest;
// decode reads the rest and writes JSON).
func TestRootHelpFormatTable(t *testing.T) {
	root := NewRootCmd(func() *cli.IOStreams { ios, _, _, _ := Test(); return ios }())
	_, table, ok := strings.Cut(root.Long, "  format                  name        commands\n")
	if !ok {
		t.Fatal("the root help has no table of formats")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		rows++
		names, commands := strings.Fields(line[26:38]), strings.Split(line[38:], ", ")
		for _, name := range names {
			read := []codec.Format{codec.YAML, codec.CSV, codec.TSV}
			f, err := codec.Parse(name, append(slices.Clone(convertFormats), read...)...)
			if err != nil {
				t.Errorf("%q: %v", line, err)
				continue
			}
			for _, c := range commands {
				var takes []codec.Format
				switch c {
				case "encode":
					takes = append([]codec.Format{codec.TOON, codec.Binary, codec.Tabular, codec.JSON, codec.NDJSON}, read...)
				case "decode":
					takes = []codec.Format{codec.TOON, codec.Binary, codec.Tabular, codec.JSON, codec.NDJSON}
				case "query": // every format read
					takes = append(slices.Clone(convertFormats), read...)
				case "validate":
					takes = validate.Formats(false)
				case "inspect":
					takes = []codec.Format{codec.Binary}
				case "sign", "verify":
					takes = []codec.Format{codec.Trace}
				case "exec":
					takes = []codec.Format{codec.Narratoria}
				case "convert":
					takes = append(slices.Clone(convertFormats), read...)
				case "stats":
					takes = convert.StatsFormats
				default:
					t.Errorf("%q: unknown command %q", line, c)
				}
				if !slices.Contains(takes, f) {
					t.Errorf("%q: %s does not take %s", line, c, f)
				}
			}
		}
	}
	if rows != 8 {
		t.Errorf("%d rows, want one for each of the 7 formats and protocols, and one for the formats only read", rows)
	}
}

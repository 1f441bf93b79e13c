package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
)

// Every text toonkit writes, on stdout, on stderr or to -o, ends with a
// newline, as a Unix filter's does: a shell prompt never lands on its last
// line, and `cat a b` never joins two outputs on one line. The commands
// cover every command and output format, help, version, completions, the
// statistics, the reports, and errors.
func TestTextOutputEndsWithNewline(t *testing.T) {
	demo, err := filepath.Abs("../testdata/demo")
	if err != nil {
		t.Fatal(err)
	}
	d := func(name string) string { return filepath.Join(demo, name) }
	key, err := os.ReadFile(d("audit.key"))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TOONKIT_NEWLINE_KEY", strings.TrimSpace(string(key)))
	dir := t.TempDir()

	type tc struct {
		args  []string
		stdin string
		py    string // a Python program whose stdout is the stdin (with audit.ndjson as argv[1])
		end   string // what stdout must end with, when not a plain "\n"
		file  string // -o FILE to check as well
	}
	cases := []tc{
		// help, version, completions
		{args: []string{"--help"}},
		{args: []string{"help"}},
		{args: []string{"-h"}},
		{args: []string{"--version"}},
		{args: []string{"help", "nosuch"}},
		{args: []string{"completion", "--help"}},
		{args: []string{"completion", "bash"}},
		{args: []string{"completion", "zsh"}},
		{args: []string{"completion", "fish"}},
		{args: []string{"completion", "powershell"}},
		{args: []string{"__complete", "convert", "--to", ""}},
		{args: []string{"dissector"}},
		{args: []string{"dissector", "--port", "0"}},

		// TOON text, to stdout and to a file, empty documents included
		{args: []string{"encode", "--to", "toon", d("orders.json")}},
		{args: []string{"encode", "--to", "toon", "--delimiter", "tab", d("users.json")}},
		{args: []string{"encode", "--to", "toon"}, stdin: `{"a":1}`},
		{args: []string{"encode", "--to", "toon"}, stdin: `{}`},
		{args: []string{"encode", "--to", "toon", "-o", filepath.Join(dir, "o.toon"), d("orders.json")}, file: filepath.Join(dir, "o.toon")},
		{args: []string{"convert", "--to", "toon", d("users.json")}},
		{args: []string{"convert", "--to", "toon", d("messages.ndjson")}},
		{args: []string{"convert", "--to", "toon"}, stdin: `[]`},
		{args: []string{"convert", "--to", "toon", "-o", filepath.Join(dir, "c.toon"), d("orders.json")}, file: filepath.Join(dir, "c.toon")},
		{args: []string{"encode", "--to", "toon", "--stats", d("orders.json")}},

		// the other encodings and protocols
		{args: []string{"encode", "--to", "tabular", "--stats", d("users.json")}},
		{args: []string{"convert", "--to", "json", d("users.json")}},
		{args: []string{"convert", "--to", "json", "-c", d("users.json")}},
		{args: []string{"convert", "--to", "json"}, stdin: `{"a":1}`},
		{args: []string{"convert", "--to", "json", "-c"}, stdin: `{"a":1}`},
		{args: []string{"convert", "--to", "json"}, stdin: ``},
		{args: []string{"convert", "--to", "ndjson", d("orders.toon")}},
		{args: []string{"convert", "--to", "tabular", d("capture.bin")}},
		{args: []string{"convert", "--to", "auto", "--verbose", d("users.json")}},
		{args: []string{"convert", "--to", "auto"}, stdin: `{"a":1}`},
		{args: []string{"convert", "--to", "trace", d("chiffon.ndjson")}},
		{args: []string{"convert", "--to", "chiffon", d("capture.bin")}},
		{args: []string{"convert", "--to", "trace", d("tool-events.ndjson")}},
		{args: []string{"decode", d("capture.bin")}},
		{args: []string{"decode", "--payload", d("capture.bin")}},
		{args: []string{"decode", d("orders.toon")}},
		{args: []string{"decode", d("users.toon")}},
		{args: []string{"inspect", d("capture.bin")}},
		{args: []string{"inspect", "--color", "always", "--frame", "0", d("capture.bin")}},
		{args: []string{"inspect", "--json", d("damaged.bin")}},
		{args: []string{"validate", d("capture.bin")}},
		{args: []string{"validate", "--report", "json", d("damaged.bin")}},
		{args: []string{"validate", "--report", "github", d("damaged.bin")}},
		{args: []string{"validate", "--print-schema", "chiffon"}},
		{args: []string{"validate", "--print-schema", "binary-status"}},
		{args: []string{"sign", "--key-env", "TOONKIT_NEWLINE_KEY", d("audit.ndjson")}},
		// what Python writes without a final newline: json.dump(indent=2),
		// NDJSON joined by newlines, an empty array
		{args: []string{"sign", "--key-env", "TOONKIT_NEWLINE_KEY"},
			py: `json.dump([json.loads(l) for l in open(sys.argv[1])], sys.stdout, indent=2)`},
		{args: []string{"sign", "--key-env", "TOONKIT_NEWLINE_KEY"},
			py: `sys.stdout.write("\n".join(json.dumps(json.loads(l)) for l in open(sys.argv[1])))`},
		{args: []string{"sign", "--key-env", "TOONKIT_NEWLINE_KEY"}, py: `json.dump([], sys.stdout)`},
		{args: []string{"sign", "--key-env", "TOONKIT_NEWLINE_KEY"}, end: "}\r\n",
			py: `sys.stdout.buffer.write(b"\r\n".join(json.dumps(json.loads(l)).encode() for l in open(sys.argv[1])))`},
		{args: []string{"verify", "--key-env", "TOONKIT_NEWLINE_KEY", d("audit.ndjson")}},
		{args: []string{"verify", "--report", "json", "--key-env", "TOONKIT_NEWLINE_KEY", d("tampered.ndjson")}},
		{args: []string{"exec", "--", d("tool.sh")}},
		{args: []string{"exec", "--report", "json", "--", d("tool.sh")}},

		// in color
		{args: []string{"--color", "always", "validate", d("damaged.bin")}},
		{args: []string{"--color", "always", "exec", "--", d("tool.sh")}},
		{args: []string{"--color", "always", "convert"}},

		// errors and usage errors
		{args: []string{"nosuch"}},
		{args: []string{"convert"}},
		{args: []string{"convert", "--to", "toon", "--bogus"}},
		{args: []string{"decode", d("damaged.bin")}},
		{args: []string{"decode", "--keep-going", d("damaged.bin")}},
		{args: []string{"encode", "--to", "toon"}, stdin: `{"a":`},
		{args: []string{"decode"}, stdin: "a[2]: 1"},
		{args: []string{"validate", "--print-schema", "nosuch"}},
		{args: []string{"verify", "--key-env", "TOONKIT_NEWLINE_KEY"}, stdin: `{"seq":1}`},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			ios, in, out, errOut := Test()
			in.WriteString(c.stdin)
			if c.py != "" {
				py := needs.Program(t, "python3", "the input Python writes cannot be made")
				b, err := exec.Command(py, "-c", "import json, sys\n"+c.py, d("audit.ndjson")).Output()
				if err != nil || len(b) == 0 || b[len(b)-1] == '\n' {
					t.Fatalf("python3: %v: %q (want output without a final newline)", err, b)
				}
				in.Write(b)
			}
			code := Run(ios, c.args)
			if out.Len() == 0 && errOut.Len() == 0 && c.file == "" {
				t.Fatalf("exit %d and no output at all: the case checks nothing", code)
			}
			for _, s := range []struct{ name, text string }{{"stdout", out.String()}, {"stderr", errOut.String()}} {
				if s.text != "" && !strings.HasSuffix(s.text, "\n") || strings.HasSuffix(s.text, "\n\n") {
					t.Errorf("exit %d: %s does not end with exactly one newline: ...%q", code, s.name, s.text[max(0, len(s.text)-40):])
				}
				if s.name == "stdout" && c.end != "" && !strings.HasSuffix(s.text, c.end) {
					t.Errorf("exit %d: stdout does not end with %q: ...%q", code, c.end, s.text[max(0, len(s.text)-40):])
				}
			}
			if c.file != "" {
				b, err := os.ReadFile(c.file)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.HasSuffix(string(b), "\n") || strings.HasSuffix(string(b), "\n\n") {
					t.Errorf("%s does not end with exactly one newline: ...%q", c.file, b[max(0, len(b)-40):])
				}
			}
		})
	}
}

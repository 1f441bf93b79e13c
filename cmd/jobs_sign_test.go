package cmd

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/internal/raceflag"
)

// signInputs are trace event logs, good and bad, over several batches of
// sign -j: compact NDJSON, as python3's json.dumps writes it (its defaults,
// indent=2 with CR LF, one array), with CR LF, without a final line
// break, with bad events and broken JSON late in the stream; each with the
// exit status -j 1 and -j 4 must both give.
func signInputs(t *testing.T) map[string]struct {
	data []byte
	code int
} {
	rng := rand.New(rand.NewPCG(17, 4))
	var b bytes.Buffer
	for i := range 2400 {
		fmt.Fprintf(&b, `{"seq":%d,"t":"2025-12-05T10:30:%02dZ","actor":"agent","type":"reasoning","payload":{"goal":%q,"steps":[{"n":%d,"ok":true}],"score":%d.50},"meta":{"run_id":"run-%d"}}`+"\n",
			i%800, i%60, strings.Repeat("é✓", rng.IntN(60)), i, rng.IntN(9), i/800)
	}
	good := b.Bytes()
	late := len(good) * 3 / 4
	late += bytes.IndexByte(good[late:], '\n') + 1
	insert := func(line string) []byte {
		return append(append(bytes.Clone(good[:late]), line+"\n"...), good[late:]...)
	}
	array := append(append([]byte("["), bytes.ReplaceAll(bytes.TrimSpace(good), []byte("\n"), []byte(","))...), "]\n"...)
	in := map[string]struct {
		data []byte
		code int
	}{
		"compact":   {good, 0},
		"crlf":      {bytes.ReplaceAll(good, []byte("\n"), []byte("\r\n")), 0},
		"no-final":  {bytes.TrimRight(good, "\n"), 0},
		"bom":       {append([]byte("\xEF\xBB\xBF"), good...), 0},
		"bad-event": {insert(`{"seq":"x","t":"","actor":"","type":"","payload":{},"meta":{"run_id":"r"}}`), cli.ExitInvalid},
		"bad-first": {append([]byte(`{"seq":1}`+"\n"), good...), cli.ExitInvalid},
		"syntax":    {insert(`{"seq":1, "t":}`), cli.ExitInvalid},
		"truncated": {good[:len(good)-37], cli.ExitInvalid},
		"array":     {array, 0},
	}
	for _, style := range pyjson.Styles {
		in["python-"+style.Name] = struct {
			data []byte
			code int
		}{pyjson.Dumps(t, good, style.Flags...), 0}
	}
	in["python-array-indent2-crlf"] = struct {
		data []byte
		code int
	}{pyjson.Dumps(t, array, "--indent", "2", "--crlf"), 0}
	in["python-bad"] = struct {
		data []byte
		code int
	}{pyjson.Dumps(t, insert(`{"seq":2.5,"t":"","actor":"","type":"","payload":{},"meta":{"run_id":"r"}}`), "--indent", "2"), cli.ExitInvalid}
	return in
}

// sign -j 4 writes what -j 1 writes, byte for byte: stdout, stderr,
// -o FILE, exit status; from files and from standard input.
func TestSignJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs sign -j 1 and -j 4 over every input")
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	if err := os.WriteFile(key, []byte("test-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, c := range signInputs(t) {
		path := filepath.Join(dir, name+".ndjson")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out.ndjson")
		flagSets := [][]string{nil, {"-o", out}, {"--scheme", "payload-compact"}, {"--max-frame-size", "1KiB"}}
		if raceflag.Enabled {
			flagSets = flagSets[:2] // the race detector is slow; the others change no concurrency
		}
		for _, flags := range flagSets {
			for _, src := range []string{path, "-"} {
				args := append(append([]string{"sign", "--key-file", key}, flags...), src)
				one := runJobs(t, c.data, dir, append(args, "-j", "1")...)
				four := runJobs(t, c.data, dir, append(args, "--jobs", "4")...)
				if one != four {
					t.Errorf("%s %v: -j 4 differs from -j 1:\n-j 1: %d %d bytes %.300q\n-j 4: %d %d bytes %.300q", name, flags,
						one.code, len(one.out), one.err, four.code, len(four.out), four.err)
				}
				if flags == nil && one.code != c.code {
					t.Errorf("%s: exit %d, want %d: %.300q", name, one.code, c.code, one.err)
				}
				if one.code != 0 && one.oFile != "" {
					t.Errorf("%s %v: -o written on failure", name, flags)
				}
			}
		}
	}
}

// The signed output verifies, and keeps the input's layout: -j 4 on the
// python3-written, indented and CR LF log gives back the same bytes once
// the signatures are taken out.
func TestSignJobsVerifies(t *testing.T) {
	needs.Slow(t, "signs and verifies many streams at -j 4")
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	os.WriteFile(key, []byte("test-key\n"), 0o600)
	in := signInputs(t)["python-indent2-crlf"].data
	signed := runJobs(t, in, dir, "sign", "--key-file", key, "-j", "4", "-")
	if signed.code != 0 {
		t.Fatalf("sign: %d %q", signed.code, signed.err)
	}
	if v := runJobs(t, []byte(signed.out), dir, "verify", "--key-file", key, "-"); v.code != 0 {
		t.Fatalf("verify: %d %.300q %.300q", v.code, v.err, v.out)
	}
	sig := strings.NewReplacer(",\r\n    \"signature\": \"", "\x00", ",\r\n  \"signature\": \"", "\x00")
	stripped := sig.Replace(signed.out)
	for strings.Contains(stripped, "\x00") {
		i := strings.IndexByte(stripped, '\x00')
		stripped = stripped[:i] + stripped[i+1+64+1:]
	}
	if stripped != string(in) {
		t.Fatalf("the layout changed: %.300q", stripped)
	}
}

// sign on a live pipe passes each event on while the input stays open,
// one-line events and indented ones arriving in pieces, on one worker and
// on four; broken JSON ends the run at once.
func TestSignJobsLive(t *testing.T) {
	key := filepath.Join(t.TempDir(), "k.key")
	os.WriteFile(key, []byte("test-key\n"), 0o600)
	event := func(i int) string {
		return fmt.Sprintf(`{"seq":%d,"t":"","actor":"a","type":"b","payload":{},"meta":{"run_id":"r"}}`, i)
	}
	pieces := []string{event(0) + "\n", event(1) + "\n", "{\n  \"seq\": 2,\n" + `  "t": "", "actor": "a", "type": "b", "payload": {}, "meta": {"run_id": "r"}` + "\n", "}\n"}
	// The third piece is half an event: it and the rest of the event make
	// one step. The line break after an event is written with the next one
	// (it is not written before a bad event): each step reads up to its
	// event's signatures ("signature" twice in each event signed so far).
	steps := [][][]byte{{[]byte(pieces[0])}, {[]byte(pieces[1])}, {[]byte(pieces[2]), []byte(pieces[3])}}
	for _, jobs := range []string{"1", "4"} {
		seen := ""
		checkLive(t, []string{"sign", "--key-file", key, "-j", jobs}, steps, func(r *bufio.Reader, i int) error {
			for strings.Count(seen, `"signature"`) < 2*(i+1) {
				b, err := r.ReadByte()
				if err != nil {
					return err
				}
				seen += string(b)
			}
			return nil
		})
	}
	for _, jobs := range []string{"1", "4"} {
		inR, inW := io.Pipe()
		ios, _, _, _ := Test()
		ios.In = inR
		done := make(chan int)
		go func() { done <- Run(ios, []string{"sign", "--key-file", key, "-j", jobs}) }()
		go inW.Write([]byte(event(0) + "\n{\"seq\": nope}\n{"))
		expectEnd(t, "sign -j "+jobs, inW, done)
	}
}

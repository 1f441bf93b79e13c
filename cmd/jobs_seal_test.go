package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/needs"
)

// sign --seal writes the same seal at -j 1 and -j 4, from files and from
// standard input, and none when an event does not sign; the seal of the
// compact log satisfies scripts/checkseal.py.
func TestSignSealJobsIdentical(t *testing.T) {
	needs.Slow(t, "runs sign --seal -j 1 and -j 4 over every input")
	t.Setenv("SOURCE_DATE_EPOCH", "1767323045")
	dir := t.TempDir()
	key := filepath.Join(dir, "k.key")
	if err := os.WriteFile(key, []byte("test-key\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	sealFile := filepath.Join(dir, "seal.json")
	run := func(data []byte, args ...string) (runResult, string) {
		os.Remove(sealFile)
		r := runJobs(t, data, dir, args...)
		b, err := os.ReadFile(sealFile)
		if err != nil {
			return r, "<none>"
		}
		return r, string(b)
	}
	for name, c := range signInputs(t) {
		path := filepath.Join(dir, name+".ndjson")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, src := range []string{path, "-"} {
			args := []string{"sign", "--key-file", key, "--seal", sealFile, src}
			one, sealOne := run(c.data, append(args, "-j", "1")...)
			four, sealFour := run(c.data, append(args, "-j", "4")...)
			if one != four || sealOne != sealFour {
				t.Errorf("%s: -j 4 differs from -j 1: %d %.200q %.300q\nvs %d %.200q %.300q", name, one.code, one.err, sealOne, four.code, four.err, sealFour)
			}
			if (one.code == 0) != (sealOne != "<none>") {
				t.Errorf("%s: exit %d, seal %.100q", name, one.code, sealOne)
			}
			if one.code == 0 && !strings.Contains(sealOne, `"sealed_at":"2026-01-02T03:04:05Z"`) {
				t.Errorf("%s: seal %.300q", name, sealOne)
			}
		}
	}
	// scripts/checkseal.py agrees.
	signed := filepath.Join(dir, "signed.ndjson")
	r, _ := run(nil, "sign", "--key-file", key, "--seal", sealFile, "-o", signed, filepath.Join(dir, "crlf.ndjson"))
	if r.code != 0 {
		t.Fatalf("sign: %d %q", r.code, r.err)
	}
	os.WriteFile(signed, []byte(r.oFile), 0o600)
	out, err := exec.Command("python3", "../scripts/checkseal.py", key, sealFile, signed).CombinedOutput()
	if err != nil || string(out) != "ok\n" {
		t.Fatalf("checkseal.py: %v %s", err, out)
	}
}

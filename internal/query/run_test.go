package query

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// runAll runs filter over the NDJSON text in on workers, as jq's command
// line would, and returns what was written, the errors given to Fail (with
// their place), stderr and the outcome.
func runAll(t *testing.T, filter, in string, workers int, mod func(*RunOptions)) (out []string, fails []string, stderr string, res Outcome, err error) {
	t.Helper()
	qi := NewInputs(InputOptions{Names: []string{"in.ndjson"}, Open: func(name string) (*Opened, error) {
		return &Opened{R: strings.NewReader(in), Name: name, Regular: true, Close: func() {}}, nil
	}})
	defer qi.Close()
	q, err := Compile(filter, Options{Inputs: qi})
	if err != nil {
		t.Fatal(err)
	}
	var errOut bytes.Buffer
	opts := RunOptions{Workers: workers, Stderr: &errOut,
		Encode: func(e *Encoder, dst []byte, v any) []byte { return append(e.Append(dst, v), '\n') },
		Write:  func(b []byte) error { out = append(out, string(b)); return nil },
		Fail: func(err error, where func() string) error {
			fails = append(fails, where()+": "+Message(err))
			return nil
		}}
	if mod != nil {
		mod(&opts)
	}
	res, err = q.RunInputs(context.Background(), qi, opts)
	return out, fails, errOut.String(), res, err
}

func lines(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "{\"n\": %d, \"k\": \"v\"}\n", i)
	}
	return b.String()
}

// A runtime error goes to Fail with its place and the run goes on; the
// output, the errors and the outcome are the same on one worker and on
// several.
func TestRunInputsErrorsGoOn(t *testing.T) {
	in := lines(20000)
	filter := `if .n % 7000 == 3 then error("bad \(.n)") else select(.n % 5000 == 0) end`
	out1, fails1, _, res1, err := runAll(t, filter, in, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"n":0,"k":"v"}` + "\n", `{"n":5000,"k":"v"}` + "\n", `{"n":10000,"k":"v"}` + "\n", `{"n":15000,"k":"v"}` + "\n"}
	if diff := cmp.Diff(want, out1); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
	wantFails := []string{"in.ndjson:4:1: bad 3", "in.ndjson:7004:1: bad 7003", "in.ndjson:14004:1: bad 14003"}
	if diff := cmp.Diff(wantFails, fails1); diff != "" {
		t.Errorf("fails (-want +got):\n%s", diff)
	}
	if !res1.Failed || res1.Outputs != 4 || res1.LastFalse || res1.Halted {
		t.Errorf("outcome %+v", res1)
	}
	out4, fails4, _, res4, err := runAll(t, filter, in, 4, func(o *RunOptions) { o.MaxSize = 1 << 20 })
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(out1, out4) || !cmp.Equal(fails1, fails4) || res1 != res4 {
		t.Errorf("4 workers: %v %v %+v, want as one: %v %v %+v", out4, fails4, res4, out1, fails1, res1)
	}
}

// halt_error ends the run, its message on stderr; halt ends it silently.
func TestRunInputsHalt(t *testing.T) {
	out, _, stderr, res, err := runAll(t, `if .n == 2 then "stop\n" | halt_error(4) else .n end`, lines(5), 1, nil)
	if err != nil || !res.Halted || res.HaltCode != 4 || stderr != "stop\n" || len(out) != 2 {
		t.Errorf("halt_error: %v %+v stderr %q out %q", err, res, stderr, out)
	}
	_, _, stderr, res, err = runAll(t, `if .n == 2 then halt else .n end`, lines(5), 1, nil)
	if err != nil || !res.Halted || res.HaltCode != 0 || stderr != "" {
		t.Errorf("halt: %v %+v stderr %q", err, res, stderr)
	}
}

// -n runs the filter once on null, input reading the inputs; -s once on
// them all; the last output's falseness is kept for -e.
func TestRunInputsNullAndSlurp(t *testing.T) {
	out, _, _, res, err := runAll(t, `[input.n, input.n]`, lines(3), 1, func(o *RunOptions) { o.NullInput = true })
	if err != nil || !cmp.Equal(out, []string{"[0,1]\n"}) || res.Outputs != 1 {
		t.Errorf("-n: %v %q %+v", err, out, res)
	}
	out, _, _, res, err = runAll(t, `length, false`, lines(3), 1, func(o *RunOptions) { o.Slurp = true })
	if err != nil || !cmp.Equal(out, []string{"3\n", "false\n"}) || !res.LastFalse {
		t.Errorf("-s: %v %q %+v", err, out, res)
	}
}

// A write error, a malformed input and the context's end stop the run
// with their error.
func TestRunInputsStops(t *testing.T) {
	boom := errors.New("boom")
	_, _, _, _, err := runAll(t, `.`, lines(3), 1, func(o *RunOptions) { o.Write = func([]byte) error { return boom } })
	if err != boom {
		t.Errorf("write error: %v", err)
	}
	out, _, _, _, err := runAll(t, `.n`, "{\"n\":1}\n{\"n\":\n", 1, nil)
	if err == nil || len(out) != 1 {
		t.Errorf("malformed input: %v, output %q", err, out)
	}
	qi := NewInputs(InputOptions{Names: []string{"-"}, Open: func(name string) (*Opened, error) {
		return &Opened{R: strings.NewReader("1\n"), Name: name, Close: func() {}}, nil
	}})
	q, _ := Compile(`repeat(1) | empty`, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = q.RunInputs(ctx, qi, RunOptions{Encode: func(_ *Encoder, d []byte, _ any) []byte { return d }})
	if err != ctx.Err() {
		t.Errorf("the context's end: %v", err)
	}
}

// The exit status of a run is jq's: halt and halt_error stand, a runtime
// error is 5, and with -e no result is 4 and a last false or null is 1.
func TestOutcomeExitStatus(t *testing.T) {
	cases := []struct {
		o      Outcome
		e      bool
		status int
	}{
		{Outcome{Outputs: 1}, false, 0},
		{Outcome{}, false, 0},
		{Outcome{}, true, ExitNoOutput},
		{Outcome{Outputs: 2, LastFalse: true}, false, 0},
		{Outcome{Outputs: 2, LastFalse: true}, true, ExitFalse},
		{Outcome{Outputs: 2}, true, 0},
		{Outcome{Failed: true, Outputs: 2}, true, ExitRuntime},
		{Outcome{Halted: true, Failed: true}, true, 0},
		{Outcome{Halted: true, HaltCode: 7, LastFalse: true}, true, 7},
	}
	for _, c := range cases {
		if got := c.o.ExitStatus(c.e); got != c.status {
			t.Errorf("%+v, -e %v: exit status %d, want %d", c.o, c.e, got, c.status)
		}
	}
}

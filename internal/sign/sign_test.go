package sign

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"testing"
)

func mustSigner(t testing.TB, key string, s Scheme) *Signer {
	t.Helper()
	sg, err := NewSigner([]byte(key), s)
	if err != nil {
		t.Fatal(err)
	}
	return sg
}

// TestSchemes checks each scheme's message, written out by hand from the
// issue's definitions, and its HMAC as Python's hmac module gives it.
func TestSchemes(t *testing.T) {
	const raw = `{"seq":7,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"reasoning","payload":{"b":[1,2.50,"é"],"a":{"z":null,"y":true}},"meta":{"run_id":"r-1","agent_id":1}}`
	cases := []struct {
		scheme Scheme
		msg    string
		hmac   string
	}{
		{SchemeSpec, `r-172025-12-05T10:30:00.000Zagentreasoning{"a": {"y": true, "z": null}, "b": [1, 2.5, "\u00e9"]}`,
			"e937950c5fe1925aebb0f399ddb377206d813d9a8e9ce9cd7b837095a997f8db"},
		{SchemePayload, `r-17{"b": [1, 2.5, "\u00e9"], "a": {"z": null, "y": true}}`,
			"6efd9cc732924b0ff5e5076abc9fe42754646e08e4d39c63d9dc58c5604ad3c7"},
		{SchemePayloadCompact, `r-17{"a":{"y":true,"z":null},"b":[1,2.5,"\u00e9"]}`,
			"da7474840b794b30494594587064ce7b2fc2c53a8f63f0f1760b5d5ac9c8b6d6"},
		{SchemeEventCompact, `r-17{"actor":"agent","payload":{"a":{"y":true,"z":null},"b":[1,2.5,"\u00e9"]},"seq":7,"t":"2025-12-05T10:30:00.000Z","type":"reasoning"}`,
			"908914be051da0f4c5ec356735c5150c13360ace99e92e7dc6921389ff97939e"},
	}
	for _, c := range cases {
		t.Run(c.scheme.String(), func(t *testing.T) {
			sg := mustSigner(t, "test-key", c.scheme)
			ev, err := sg.Parse([]byte(raw))
			if err != nil {
				t.Fatal(err)
			}
			if got := string(sg.Message(ev)); got != c.msg {
				t.Fatalf("message\ngot  %s\nwant %s", got, c.msg)
			}
			if got := string(sg.Sign(ev)); got != c.hmac {
				t.Fatalf("signature %s, want %s", got, c.hmac)
			}
			if !sg.Valid(ev, []byte(c.hmac)) || sg.Valid(ev, []byte(strings.ToUpper(c.hmac))) {
				t.Fatal("Valid disagrees with Sign")
			}
		})
	}
	// The event-compact scheme leaves out meta and the top-level signature
	// only: another member changes the message.
	sg := mustSigner(t, "test-key", SchemeEventCompact)
	ev, err := sg.Parse([]byte(`{"seq":1,"t":"","actor":"","type":"","payload":{},"meta":{"run_id":"r","signature":"x"},"signature":"y","z":[]}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(sg.Message(ev)); got != `r1{"actor":"","payload":{},"seq":1,"t":"","type":"","z":[]}` {
		t.Fatalf("event-compact message %s", got)
	}
}

// TestPythonSignedLogs verifies logs that Python signed with each scheme
// (scripts/gen-sign-vectors.py, with the spec's generate_signature), and
// checks that each fails under every other scheme.
func TestPythonSignedLogs(t *testing.T) {
	for i, name := range Schemes {
		raw, err := os.ReadFile("../../testdata/sign/python-" + name + ".ndjson")
		if err != nil {
			t.Fatal(err)
		}
		for j := range Schemes {
			problems, events := verifyBytes(t, "test-key", Scheme(j), raw)
			if events != 20 {
				t.Fatalf("%s: %d events read, want 20", name, events)
			}
			// Under another scheme, every event fails but those whose
			// messages the two schemes make alike (an empty payload is
			// {} in both payload forms).
			want := 0
			if i != j {
				want = events - sameMessages(t, raw, Scheme(i), Scheme(j))
			}
			if len(problems) != want {
				t.Errorf("python %s log under %s: %d problems, want %d: %v", name, Schemes[j], len(problems), want, problems)
			}
		}
	}
}

// sameMessages counts the events of a log for which two schemes sign the
// same message.
func sameMessages(t testing.TB, raw []byte, a, b Scheme) int {
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(raw), []byte("\n")) {
		sa, sb := mustSigner(t, "k", a), mustSigner(t, "k", b)
		ea, err := sa.Parse(line)
		if err != nil {
			t.Fatal(err)
		}
		eb, _ := sb.Parse(line)
		if bytes.Equal(sa.Message(ea), sb.Message(eb)) {
			n++
		}
	}
	return n
}

// verifyBytes verifies a log and returns its problems as "line: code msg".
func verifyBytes(t testing.TB, key string, s Scheme, raw []byte) (problems []string, events int) {
	t.Helper()
	problems, l := verifyLog(t, &Log{Signer: mustSigner(t, key, s)}, raw)
	return problems, l.Events
}

// verifyLog verifies a log with l, and returns its problems as "line:
// code msg", a warning's code followed by " (warning)".
func verifyLog(t testing.TB, l *Log, raw []byte) (problems []string, _ *Log) {
	t.Helper()
	l.Emit = func(p Problem) {
		code := p.Code
		if p.Warning {
			code += " (warning)"
		}
		problems = append(problems, fmt.Sprintf("%d: %s %s", p.Line, code, p.Msg))
	}
	eachRecord(t, raw, func(rec *Record) {
		w := Where{File: "log", Line: rec.Pos.Line, Index: rec.Index}
		ev, err := l.Signer.Event(rec)
		if err != nil {
			l.Bad(w, "", err.Error())
			return
		}
		l.Check(ev, w)
	})
	l.Finish()
	return problems, l
}

// eachRecord reads the events of a log, and returns what follows the
// last.
func eachRecord(t testing.TB, raw []byte, f func(*Record)) (tail []byte) {
	t.Helper()
	rd := NewReader(bytes.NewReader(raw), 0)
	for {
		rec, err := rd.Next()
		if err == io.EOF {
			return rd.Tail()
		}
		if err != nil {
			t.Fatal(err)
		}
		f(rec)
	}
}

// signBytes signs a log as `toonkit sign` does: the bytes between events
// kept, each event patched.
func signBytes(t testing.TB, key string, s Scheme, raw []byte) []byte {
	t.Helper()
	sg := mustSigner(t, key, s)
	var out []byte
	tail := eachRecord(t, raw, func(rec *Record) {
		ev, err := sg.Event(rec)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, rec.Gap...)
		out = AppendSigned(out, ev, sg.Sign(ev))
	})
	return append(out, tail...)
}

const unsignedLog = `{"seq":1,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"reasoning","payload":{"goal":"g","steps":[],"safety_checks":[],"uncertainty":"low"},"meta":{"run_id":"run-a","agent_id":1}}
{"seq":1,"t":"2025-12-05T10:30:00.500Z","actor":"user","type":"action_request","payload":{"action":"x","params":{}},"meta":{"run_id":"run-b","agent_id":2}}
{"seq":2,"t":"2025-12-05T10:30:01.000Z","actor":"tool","type":"action_request","payload":{"action":"create_ticket","params":{"amount":99.99}},"meta":{"run_id":"run-a","agent_id":1}}
{"seq":3,"t":"2025-12-05T10:30:02.000Z","actor":"tool","type":"action_response","payload":{"status":"ok","data":{"ticket_id":"T-999"}},"meta":{"run_id":"run-a","agent_id":1}}
{"seq":4,"t":"2025-12-05T10:30:03.000Z","actor":"agent","type":"final_output","payload":{"text":"done"},"meta":{"run_id":"run-a","agent_id":1}}
{"seq":5,"t":"2025-12-05T10:30:04.000Z","actor":"agent","type":"final_output","payload":{"text":"really done"},"meta":{"run_id":"run-a","agent_id":1}}
`

// prettyArray is the same log as an indented JSON array.
const prettyArray = `[
  {
    "seq": 1,
    "t": "2025-12-05T10:30:00.000Z",
    "actor": "agent",
    "type": "reasoning",
    "payload": {"goal": "g", "steps": [], "safety_checks": [], "uncertainty": "low"},
    "meta": {
      "run_id": "run-a",
      "agent_id": 1
    }
  },
  {"seq": 2, "t": "2025-12-05T10:30:01.000Z", "actor": "tool", "type": "action_request", "payload": {"action": "x", "params": {"n": 1.50}}, "meta": {"run_id": "run-a"}}
]
`

// TestSignThenVerify signs logs in both shapes and verifies them; the
// signed bytes are the input with only the signature members added.
func TestSignThenVerify(t *testing.T) {
	const bom = "\uFEFF" // a UTF-8 byte order mark, kept as it is
	for name, log := range map[string]string{"ndjson": unsignedLog, "array": prettyArray, "bom ndjson": bom + unsignedLog, "bom array": bom + prettyArray} {
		for i := range Schemes {
			signed := signBytes(t, "k", Scheme(i), []byte(log))
			if strings.HasPrefix(log, bom) != strings.HasPrefix(string(signed), bom) {
				t.Fatalf("%s %s: the byte order mark was not kept: %.20q", name, Schemes[i], signed)
			}
			if problems, n := verifyBytes(t, "k", Scheme(i), signed); len(problems) != 0 || n == 0 {
				t.Fatalf("%s %s: %d events, problems %v", name, Schemes[i], n, problems)
			}
			if problems, _ := verifyBytes(t, "other key", Scheme(i), signed); len(problems) == 0 {
				t.Fatalf("%s %s: verified with the wrong key", name, Schemes[i])
			}
			// Signing again gives the same bytes: the values are replaced in place.
			if again := signBytes(t, "k", Scheme(i), signed); !bytes.Equal(again, signed) {
				t.Fatalf("%s: signing a signed log changed it:\n%s", name, again)
			}
		}
	}
	signed := string(signBytes(t, "k", SchemeSpec, []byte(prettyArray)))
	stripped := sigMember.ReplaceAllString(signed, "")
	if stripped != prettyArray {
		t.Fatalf("signing changed more than the signatures:\n%s", signed)
	}
	// The signature follows each object's own style.
	for _, want := range []string{
		"\"agent_id\": 1,\n      \"signature\": \"",       // indented meta
		"\"run_id\": \"run-a\", \"signature\": \"",        // one-member meta, spaced
		"\n    },\n    \"signature\": \"",                 // indented event
		"\"meta\": {\"run_id\": \"run-a\", \"signature\"", // one line
	} {
		if !strings.Contains(signed, want) {
			t.Errorf("signed array lacks %q:\n%s", want, signed)
		}
	}
}

// TestTampering changes a signed log in each way the issue lists and
// checks that verify names what happened.
func TestTampering(t *testing.T) {
	signed := string(signBytes(t, "k", SchemeSpec, []byte(unsignedLog)))
	lines := strings.SplitAfter(signed, "\n")
	lines = lines[:len(lines)-1]
	edit := func(i int, old, new string) []string {
		out := append([]string(nil), lines...)
		if !strings.Contains(out[i], old) {
			t.Fatalf("line %d lacks %q", i+1, old)
		}
		out[i] = strings.Replace(out[i], old, new, 1)
		return out
	}
	editLast := func(i int, old, new string) []string {
		out := append([]string(nil), lines...)
		k := strings.LastIndex(out[i], old)
		if k < 0 {
			t.Fatalf("line %d lacks %q", i+1, old)
		}
		out[i] = out[i][:k] + new + out[i][k+len(old):]
		return out
	}
	cases := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"payload byte", edit(2, "99.99", "99.98"), []string{"3: SIG001 signature mismatch"}},
		// 3 becomes 7: 4 and 5 come late, 3 and 6 are missing.
		{"seq", edit(3, `"seq":3`, `"seq":7`), []string{"4: SIG001 signature mismatch",
			"4: SIG010 an event is missing between seq 2 and 4", "4: SIG010 an event is missing between seq 5 and 7",
			"5: SIG012 out of order: it comes after seq 7 at log:4", "6: SIG012 out of order: it comes after seq 7 at log:4"}},
		{"seq, several missing", edit(5, `"seq":5`, `"seq":9`), []string{"6: SIG001 signature mismatch",
			"6: SIG010 events missing between seq 4 and 9 (4 events)"}},
		{"t", edit(0, "10:30:00.000Z", "10:30:00.001Z"), []string{"1: SIG001 signature mismatch"}},
		{"actor", edit(2, `"actor":"tool"`, `"actor":"user"`), []string{"3: SIG001 signature mismatch"}},
		{"type", edit(4, `"final_output"`, `"error"`), []string{"5: SIG001 signature mismatch"}},
		{"run_id", edit(4, `"run-a"`, `"run-c"`), []string{"5: SIG001 signature mismatch",
			"5: SIG013 (warning) the run starts at seq 4: the events before it may be missing",
			"6: SIG010 an event is missing between seq 3 and 5"}},
		{"removed", append(append([]string(nil), lines[:3]...), lines[4:]...), []string{"4: SIG010 an event is missing between seq 2 and 4"}},
		{"duplicated", append(append([]string(nil), lines[:4]...), lines[3:]...), []string{"5: SIG011 repeated: seq 3 is at log:4 too"}},
		{"swapped", []string{lines[0], lines[1], lines[3], lines[2], lines[4], lines[5]}, []string{"4: SIG012 out of order: it comes after seq 3 at log:3"}},
		{"stripped", []string{lines[0], lines[1], lines[2], sigMember.ReplaceAllString(lines[3], ""), lines[4], lines[5]},
			[]string{"4: SIG002 unsigned: no meta.signature and no top-level signature"}},
		{"top-level differs", editLast(1, `,"signature":"`+topSig(lines[1])+`"}`, `,"signature":"`+topSig(lines[0])+`"}`),
			[]string{"2: SIG003 the top-level signature differs from meta.signature"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := verifyBytes(t, "k", SchemeSpec, []byte(strings.Join(c.lines, "")))
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Fatalf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

// TestSignatureCopies checks each way an event may hold its signature: in
// meta.signature, at the top level, in both, in neither; by default and
// with RequireBoth.
func TestSignatureCopies(t *testing.T) {
	signed := string(signBytes(t, "k", SchemeSpec, []byte(unsignedLog)))
	lines := strings.SplitAfter(signed, "\n")
	lines = lines[:len(lines)-1]
	// Line 3 is edited: its two copies, and a member of its payload.
	sig := topSig(lines[2])
	other := topSig(lines[0])
	top := `,"signature":"` + sig + `"}` + "\n"
	meta := `,"signature":"` + sig + `"},"signature"`
	if strings.Count(lines[2], top) != 1 || strings.Count(lines[2], meta) != 1 || !strings.Contains(lines[2], "99.99") {
		t.Fatalf("line 3 is not as signed: %s", lines[2])
	}
	edit := func(old, new string, more ...string) string {
		l := strings.Replace(lines[2], old, new, 1)
		for i := 0; i < len(more); i += 2 {
			l = strings.Replace(l, more[i], more[i+1], 1)
		}
		out := append([]string(nil), lines...)
		out[2] = l
		return strings.Join(out, "")
	}
	const (
		oneTop  = "3: SIG004 no top-level signature: the spec stores the signature in both signature and meta.signature"
		oneMeta = "3: SIG004 no meta.signature: the spec stores the signature in both signature and meta.signature"
	)
	noTop := func(line int) string { return fmt.Sprint(line) + oneTop[1:] }
	cases := []struct {
		name          string
		log           string
		want, strict  []string
		metaOnly, top int
	}{
		{"both", signed, nil, nil, 0, 0},
		{"meta only", edit(top, "}\n"), nil, []string{oneTop}, 1, 0},
		{"meta only, every event", sigTop.ReplaceAllString(signed, "}\n"), nil,
			[]string{noTop(1), noTop(2), noTop(3), noTop(4), noTop(5), noTop(6)}, 6, 0},
		{"meta only, payload changed", edit(top, "}\n", "99.99", "99.98"),
			[]string{"3: SIG001 signature mismatch"}, []string{"3: SIG001 signature mismatch", oneTop}, 1, 0},
		{"meta only, another event's signature", edit(top, "}\n", sig, other),
			[]string{"3: SIG001 signature mismatch"}, []string{"3: SIG001 signature mismatch", oneTop}, 1, 0},
		{"top only", edit(meta, `},"signature"`),
			[]string{"3: SIG004 (warning) no meta.signature: checked against the top-level signature (the spec requires meta.signature)"},
			[]string{oneMeta}, 0, 1},
		// The top-level copy is what is checked: a wrong one fails.
		{"top only, another event's signature", edit(meta, `},"signature"`, top, `,"signature":"`+other+"\"}\n"),
			[]string{"3: SIG001 signature mismatch", "3: SIG004 (warning) no meta.signature: checked against the top-level signature (the spec requires meta.signature)"},
			[]string{"3: SIG001 signature mismatch", oneMeta}, 0, 1},
		{"both, differing", edit(top, `,"signature":"`+other+"\"}\n"),
			[]string{"3: SIG003 the top-level signature differs from meta.signature"},
			[]string{"3: SIG003 the top-level signature differs from meta.signature"}, 0, 0},
		{"neither", edit(meta, `},"signature"`, top, "}\n"),
			[]string{"3: SIG002 unsigned: no meta.signature and no top-level signature"},
			[]string{"3: SIG002 unsigned: no meta.signature and no top-level signature"}, 0, 0},
		// A null signature is no signature: as if the member were absent.
		{"meta null, top valid", edit(meta, `,"signature":null},"signature"`),
			[]string{"3: SIG004 (warning) no meta.signature: checked against the top-level signature (the spec requires meta.signature)"},
			[]string{oneMeta}, 0, 1},
		{"top null, meta valid", edit(top, `,"signature":null}`+"\n"), nil, []string{oneTop}, 1, 0},
		{"both null", edit(meta, `,"signature":null},"signature"`, top, `,"signature":null}`+"\n"),
			[]string{"3: SIG002 unsigned: no meta.signature and no top-level signature"},
			[]string{"3: SIG002 unsigned: no meta.signature and no top-level signature"}, 0, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, strict := range []bool{false, true} {
				want := c.want
				if strict {
					want = c.strict
				}
				got, l := verifyLog(t, &Log{Signer: mustSigner(t, "k", SchemeSpec), RequireBoth: strict}, []byte(c.log))
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("RequireBoth %t: problems:\n%s\nwant:\n%s", strict, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
				if l.MetaOnly != c.metaOnly || l.TopOnly != c.top || l.Events != 6 {
					t.Errorf("RequireBoth %t: %d events, MetaOnly %d, TopOnly %d; want 6, %d, %d", strict, l.Events, l.MetaOnly, l.TopOnly, c.metaOnly, c.top)
				}
				if l.OK() != (len(want) == 0 || !strict && (c.name == "top only" || c.name == "meta null, top valid")) {
					t.Errorf("RequireBoth %t: OK() %t with %d errors, %d warnings", strict, l.OK(), l.Errors, l.Warnings)
				}
			}
		})
	}
}

// TestSignWritesBoth: sign stores the signature in both places, as the
// spec's generator does, whichever one the event had: the signed log
// verifies with RequireBoth, and Python (with --verify, which compares the
// two copies) agrees.
func TestSignWritesBoth(t *testing.T) {
	for _, name := range Schemes {
		raw, err := os.ReadFile("../../testdata/sign/python-meta-only-" + name + ".ndjson")
		if err != nil {
			t.Fatal(err)
		}
		topOnly := regexp.MustCompile(`, "signature": "[0-9a-f]{64}"\}, "signature"`)
		for what, log := range map[string][]byte{
			"meta only": raw,
			"top only":  topOnly.ReplaceAll(signBytes(t, "test-key", SchemeSpec, raw), []byte(`}, "signature"`)),
			"neither":   sigMember.ReplaceAll(raw, nil),
		} {
			scheme, _ := ParseScheme(name)
			signed := signBytes(t, "test-key", scheme, log)
			n := 0
			eachRecord(t, signed, func(rec *Record) {
				ev, err := mustSigner(t, "test-key", scheme).Event(rec)
				if err != nil {
					t.Fatal(err)
				}
				if !ev.HasSig || !ev.HasTop || !bytes.Equal(ev.Signature, ev.TopSignature) || len(ev.Signature) != 64 {
					t.Fatalf("%s, %s: event %d signed %q at the top, %q in meta", name, what, rec.Index+1, ev.TopSignature, ev.Signature)
				}
				n++
			})
			problems, l := verifyLog(t, &Log{Signer: mustSigner(t, "test-key", scheme), RequireBoth: true}, signed)
			if n != 20 || len(problems) != 0 || l.MetaOnly != 0 || l.TopOnly != 0 {
				t.Errorf("%s, %s: %d events, problems %v", name, what, n, problems)
			}
		}
	}
}

func topSig(line string) string {
	i := strings.LastIndex(line, `"signature":"`)
	return line[i+13 : i+13+64]
}

// sigMember matches a signature member as sign adds it, with what comes
// before it.
var sigMember = regexp.MustCompile(`,\s*"signature":\s*"[0-9a-f]{64}"`)

// sigTop matches a compact event's top-level signature member, with the
// comma before it and the closing brace after.
var sigTop = regexp.MustCompile(`,"signature":"[0-9a-f]{64}"\}\n`)

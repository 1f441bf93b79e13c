package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// rwc is an io.ReadWriteCloser reading r, its writes discarded.
type rwc struct{ io.Reader }

func (rwc) Write(p []byte) (int, error) { return len(p), nil }
func (rwc) Close() error                { return nil }

func frame(body string, headers ...string) string {
	return strings.Join(headers, "\r\n") + "Content-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body
}

// readAll reads messages from s until an error, as JSON.
func readAll(s jsonrpc2.Stream) (msgs []string, total int64, err error) {
	for {
		m, n, err := s.Read(context.Background())
		total += n
		if err != nil {
			return msgs, total, err
		}
		b, _ := json.Marshal(m)
		msgs = append(msgs, string(b))
	}
}

// The messages a client frames as the base protocol says are read as
// jsonrpc2's own stream reads them: back to back, with CRLF or LF, with a
// Content-Type header before or after.
func TestStreamReadsAsJSONRPC2(t *testing.T) {
	req := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}`
	note := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.toon","text":"a: 1\n😀: é"}}}`
	resp := `{"jsonrpc":"2.0","id":"x","result":null}`
	inputs := []string{
		frame(req) + frame(note) + frame(resp),
		"Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" + frame(req) + frame(note, "Content-Type: x\r\n"),
		strings.ReplaceAll(frame(req)+frame(resp), "\r\n", "\n"),
	}
	for _, in := range inputs {
		want, wantN, wantErr := readAll(jsonrpc2.NewStream(rwc{strings.NewReader(in)}))
		got, gotN, gotErr := readAll(newStream(rwc{strings.NewReader(in)}, 0))
		if strings.Join(got, "\n") != strings.Join(want, "\n") || gotN != wantN || len(got) < 2 {
			t.Errorf("%q:\n got %d bytes %q\nwant %d bytes %q", in, gotN, got, wantN, want)
		}
		if !errors.Is(gotErr, io.EOF) || !errors.Is(wantErr, io.EOF) {
			t.Errorf("%q: at the end %v (jsonrpc2: %v), want EOF", in, gotErr, wantErr)
		}
	}
}

// A Content-Length the client does not send the bytes of allocates
// nothing near it; one over the limit, or a header line over its bound,
// is a *LimitError; a short body, or a broken header, an error.
func TestStreamBounds(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := newStream(rwc{strings.NewReader("Content-Length: 200000000\r\n\r\n{}")}, 0).Read(context.Background())
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "200000000") {
		t.Errorf("a body cut short: %v", err)
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 1<<20 {
		t.Errorf("a claim of 200 MB with 2 bytes sent allocated %d bytes", grew)
	}

	var le *LimitError
	_, _, err = newStream(rwc{strings.NewReader("Content-Length: 2000000000\r\n\r\n")}, 0).Read(context.Background())
	if !errors.As(err, &le) || le.What != "message" || le.Size != 2000000000 || le.Limit != defaultMaxMessage {
		t.Errorf("a message over the default limit: %v", err)
	}
	if want := "the client sent a message of 2000000000 bytes, over the limit of 268435456 bytes"; err == nil || err.Error() != want {
		t.Errorf("its message: %v, want %q", err, want)
	}
	_, _, err = newStream(rwc{strings.NewReader(frame(`{"jsonrpc":"2.0","method":"x"}`))}, 10).Read(context.Background())
	if !errors.As(err, &le) || le.Limit != 10 {
		t.Errorf("a message over MaxMessage 10: %v", err)
	}
	_, _, err = newStream(rwc{strings.NewReader("X-Pad: " + strings.Repeat("a", 10000) + "\r\n")}, 0).Read(context.Background())
	if !errors.As(err, &le) || le.What != "header line" {
		t.Errorf("a header line of 10 KB: %v", err)
	}
	for in, want := range map[string]string{
		"Content-Length: -5\r\n\r\n":  `invalid Content-Length: "-5"`,
		"Content-Length: x\r\n\r\n":   `invalid Content-Length: "x"`,
		"Content-Type: a\r\n\r\n":     "missing Content-Length header",
		"no colon\r\n\r\n":            `invalid header line "no colon"`,
		"Content-Length: 5\r\n":       "reading a header line: unexpected EOF",
		"Content-Length: 2\r\n\r\n{}": "invalid request",
		"Content-Length: 1\r\n\r\n{":  "unmarshaling jsonrpc message",
	} {
		if _, _, err := newStream(rwc{strings.NewReader(in)}, 0).Read(context.Background()); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", in, err, want)
		}
	}
}

// A client that sends a message over the limit ends the session: Serve
// returns the *LimitError.
func TestServeEndsAtLimit(t *testing.T) {
	a, b := net.Pipe()
	done := make(chan error, 1)
	go func() { done <- Serve(context.Background(), a, Options{MaxMessage: 1 << 10}) }()
	go io.Copy(io.Discard, b)
	b.Write([]byte(frame(`{"jsonrpc":"2.0","method":"x","params":"` + strings.Repeat("y", 2000) + `"}`)))
	err := <-done
	b.Close()
	var le *LimitError
	if !errors.As(err, &le) || le.Limit != 1<<10 {
		t.Fatalf("Serve: %v", err)
	}
}

// FuzzStream: whatever the client sends, Read neither panics nor reads
// past it, and what it reads is what jsonrpc2's own stream reads.
func FuzzStream(f *testing.F) {
	f.Add([]byte(frame(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`)))
	f.Add([]byte("Content-Length: 3\n\n[1]Content-Length: 99999999999\r\n\r\n"))
	f.Add([]byte("content-length: 2\r\n\r\n{}"))
	f.Fuzz(func(t *testing.T, in []byte) {
		got, n, _ := readAll(newStream(rwc{bytes.NewReader(in)}, 1<<16))
		if n > int64(len(in)) {
			t.Fatalf("read %d bytes of %d", n, len(in))
		}
		want, _, _ := readAll(jsonrpc2.NewStream(rwc{bytes.NewReader(in)}))
		// jsonrpc2 reads Content-Length only in its own case, and larger
		// messages: what both read is the same, message by message.
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("message %d: %q, jsonrpc2 read %q", i, got[i], want[i])
			}
		}
	})
}

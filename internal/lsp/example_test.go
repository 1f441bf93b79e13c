package lsp_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"strconv"

	"github.com/toonkit/toonkit/internal/lsp"
	_ "github.com/toonkit/toonkit/toon" // the codec
)

// session is an editor's side of a connection, recorded: its messages
// to send, and what the server writes back.
type session struct {
	in  io.Reader
	out bytes.Buffer
}

func (s *session) Read(p []byte) (int, error)  { return s.in.Read(p) }
func (s *session) Write(p []byte) (int, error) { return s.out.Write(p) }
func (s *session) Close() error                { return nil }

func frame(msgs ...string) io.Reader {
	var b bytes.Buffer
	for _, m := range msgs {
		fmt.Fprintf(&b, "Content-Length: %d\r\n\r\n%s", len(m), m)
	}
	return &b
}

// An editor opens a document whose table declares two rows and holds
// three: the server publishes one diagnostic, with its code and range.
func ExampleServe() {
	s := &session{in: frame(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:a.toon","languageId":"toon","version":1,"text":"users[2]{id,name}:\n  1,Ann\n  2,Bob\n  3,Cy\n"}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","method":"exit"}`,
	)}
	if err := lsp.Serve(context.Background(), s, lsp.Options{}); err != nil {
		fmt.Println(err)
		return
	}
	// The server's messages, each after its Content-Length header.
	r := bufio.NewReader(&s.out)
	for {
		h, err := textproto.NewReader(r).ReadMIMEHeader()
		if err != nil {
			break
		}
		n, _ := strconv.Atoi(h.Get("Content-Length"))
		body := make([]byte, n)
		io.ReadFull(r, body)
		var m struct {
			Method string
			Params struct {
				Diagnostics []struct {
					Range   struct{ Start, End struct{ Line, Character int } }
					Code    string
					Message string
				}
			}
		}
		json.Unmarshal(body, &m)
		for _, d := range m.Params.Diagnostics {
			fmt.Printf("%d:%d-%d:%d %s %s\n", d.Range.Start.Line, d.Range.Start.Character, d.Range.End.Line, d.Range.End.Character, d.Code, d.Message)
		}
	}
	// Output:
	// 3:2-3:6 TOON002 array declares 2 rows, found a 3rd
}

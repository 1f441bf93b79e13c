package mcpproxy

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"testing"
)

// result100KB is a tools/call answer of about 100 KB: an indented JSON
// text of records, as Python's json.dumps(indent=2) and JavaScript's
// JSON.stringify(v, null, 2) write tool results.
func result100KB(id string) string {
	var b strings.Builder
	b.WriteString("{\n  \"items\": [\n")
	for i := 0; b.Len() < 100<<10; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, "    {\n      \"id\": %d,\n      \"name\": \"item %d\",\n      \"price\": %d.5,\n      \"in_stock\": %t\n    }", i, i, i%97, i%3 == 0)
	}
	b.WriteString("\n  ]\n}")
	return result(id, b.String(), "")
}

// BenchmarkCall is what the proxy adds to one call with a 100 KB result:
// a client and a server on pipes, a call answered per iteration, with the
// proxy between them and without. The difference of the two is the cost;
// /rewrite alone is the work on the messages (the tokenizer warm, as in a
// session: the pieces a tool repeats are counted once), /rewrite-cold
// with a new Rewriter each call.
func BenchmarkCall(b *testing.B) {
	req := callLine("1", "items")
	resp := result100KB("1")
	b.Run("direct", func(b *testing.B) { roundTrips(b, req, resp, false) })
	b.Run("proxy", func(b *testing.B) { roundTrips(b, req, resp, true) })
	b.Run("rewrite", func(b *testing.B) {
		p, _ := New(Options{}, nil)
		b.SetBytes(int64(len(resp)))
		for b.Loop() {
			p.fromClient([]byte(req))
			if out := p.fromServer([]byte(resp)); len(out) >= len(resp) {
				b.Fatal("not rewritten")
			}
		}
	})
	b.Run("rewrite-cold", func(b *testing.B) {
		b.SetBytes(int64(len(resp)))
		for b.Loop() {
			p, _ := New(Options{}, nil)
			p.fromClient([]byte(req))
			p.fromServer([]byte(resp))
		}
	})
}

// roundTrips sends req and reads the answer b.N times, through a Proxy
// when proxied; the server answers each line with resp.
func roundTrips(b *testing.B, req, resp string, proxied bool) {
	cR, cW := io.Pipe() // client -> (proxy ->) server
	sR, sW := io.Pipe() // server -> (proxy ->) client
	serverIn, clientIn := io.Reader(cR), io.Reader(sR)
	if proxied {
		upR, upW := io.Pipe()
		downR, downW := io.Pipe()
		p, _ := New(Options{}, nil)
		go p.Run(cR, upW, downR, sW)
		serverIn = upR
		go server(upR, downW, resp)
	} else {
		go server(serverIn, sW, resp)
	}
	br := bufio.NewReaderSize(clientIn, 256<<10)
	b.SetBytes(int64(len(resp)))
	for b.Loop() {
		io.WriteString(cW, req)
		if _, err := br.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
	cW.Close()
}

func server(in io.Reader, out io.WriteCloser, resp string) {
	br := bufio.NewReader(in)
	for {
		if _, err := br.ReadSlice('\n'); err != nil {
			out.Close()
			return
		}
		io.WriteString(out, resp)
	}
}

package tap_test

import (
	"context"
	"fmt"
	"io"
	"net"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/tap"
	"github.com/toonkit/toonkit/kado"
)

// Put a tap between a client and a server (here an echo server) and show
// the frames of both directions as they go through.
func Example() {
	server, _ := net.Listen("tcp", "127.0.0.1:0")
	go func() {
		for {
			c, err := server.Accept()
			if err != nil {
				return
			}
			go func() { io.Copy(c, c); c.Close() }()
		}
	}()
	defer server.Close()

	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan tap.Stats)
	go func() {
		st, _ := tap.Serve(ctx, ln, tap.Options{
			Upstream: server.Addr().String(),
			Record: func(r *capture.Record) error {
				if r.Kind == capture.Frame {
					fmt.Println(r.Dir, r.Frame.Header.Type, r.Frame.Header.SequenceID, string(r.JSON))
				}
				return nil
			},
		})
		done <- st
	}()

	c, _ := net.Dial("tcp", ln.Addr().String())
	f, _, _ := kado.AppendFrame(nil, kado.Header{Version: 1, Type: kado.Instruction, SequenceID: 7}, []byte(`{"task": "sum", "args": [1, 2]}`), kado.CompressNever)
	c.Write(f)
	io.ReadFull(c, make([]byte, len(f))) // the echo
	c.Close()
	stop()
	st := <-done
	fmt.Println(st.Conns, "connection,", st.Forwarded[0], "bytes each way")
	// Output:
	// c2s INSTRUCTION 7 {"task":"sum","args":[1,2]}
	// s2c INSTRUCTION 7 {"task":"sum","args":[1,2]}
	// 1 connection, 49 bytes each way
}

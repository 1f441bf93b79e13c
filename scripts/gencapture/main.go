// Command gencapture writes the sample packet captures of
// internal/capturetest (built with gopacket's writers) into a folder, all
// of them or those named:
//
//	go run ./scripts/gencapture testdata/demo session.pcapng
//
// With -bench it writes instead a pcapng of about MB megabytes of frame
// traffic over -conns connections (Ethernet, IPv4, 1448-byte segments, the
// connections' requests and responses interleaved), streamed to the file,
// for scripts/bench.sh:
//
//	go run ./scripts/gencapture -bench 200 -conns 100 -o bench-out/capture.pcapng
//
// -small makes its frames small (payloads of about 40 to 220 bytes, as
// status traffic is) in place of 200 B to 8 KB.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"time"

	"github.com/gopacket/gopacket"
	"github.com/gopacket/gopacket/layers"
	"github.com/gopacket/gopacket/pcapgo"
	"github.com/toonkit/toonkit/kado"
	"os"
	"path/filepath"

	"github.com/toonkit/toonkit/internal/capturetest"
)

func main() {
	mb := flag.Float64("bench", 0, "write a bench capture of about `MB` megabytes (10^6 bytes) to -o instead")
	conns := flag.Int("conns", 100, "connections of the bench capture")
	out := flag.String("o", "capture.pcapng", "the bench capture's `FILE`")
	small := flag.Bool("small", false, "bench capture: small frames (payloads of about 40-220 bytes) in place of 200 B-8 KB")
	flag.Parse()
	if *mb > 0 {
		if err := bench(*out, int64(*mb*1e6), *conns, *small); err != nil {
			fmt.Fprintln(os.Stderr, "gencapture:", err)
			os.Exit(1)
		}
		return
	}
	if flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: gencapture DIR [NAME...] | gencapture -bench MB [-conns N] -o FILE")
		os.Exit(2)
	}
	names := flag.Args()[1:]
	if len(names) == 0 {
		names = capturetest.SampleNames()
	}
	for _, name := range names {
		data, ok := capturetest.Sample(name)
		if !ok {
			fmt.Fprintf(os.Stderr, "gencapture: no sample %q\n", name)
			os.Exit(2)
		}
		if err := os.WriteFile(filepath.Join(flag.Arg(0), name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// bench writes about size bytes of capture: rounds in which every
// connection sends a request and gets a response, frames of 200 B to 8 KB,
// cut in 1448-byte segments.
func bench(path string, size int64, conns int, small bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := pcapgo.NewNgWriter(bw, layers.LinkTypeEthernet)
	if err != nil {
		return err
	}
	var written int64
	var werr error
	b := &capturetest.Builder{Emit: func(t time.Time, data []byte) {
		written += int64(len(data)) + 32
		if werr == nil {
			werr = w.WritePacket(gopacket.CaptureInfo{Timestamp: t, CaptureLength: len(data), Length: len(data)}, data)
		}
	}}
	cs := make([]*capturetest.Conn, conns)
	off := make([][2]int, conns)
	for i := range cs {
		cs[i] = b.Conn(fmt.Sprintf("10.0.%d.%d:%d", i/250, i%250+1, 40000+i), "10.1.0.1:7000")
		cs[i].Handshake()
	}
	seq := 0
	for written < size && werr == nil {
		for i, c := range cs {
			for dir := range 2 {
				seq++
				n := 200 + (seq*7919)%8000
				if small {
					n = (seq * 7919) % 180
				}
				payload := fmt.Sprintf(`{"conn":%d,"seq":%d,"role":%q,"text":"%s"}`, i, seq, []string{"orchestrator", "subagent"}[dir], filler(n))
				typ := kado.Instruction
				if dir == 1 {
					typ = kado.ToolResult
				}
				fr := capturetest.Frame(typ, seq, payload)
				for len(fr) > 0 {
					k := min(len(fr), 1448)
					c.Send(dir, off[i][dir], fr[:k])
					off[i][dir] += k
					fr = fr[k:]
				}
			}
		}
	}
	for i, c := range cs {
		c.Fin(0, off[i][0])
		c.Fin(1, off[i][1])
	}
	if werr != nil {
		return werr
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}

func filler(n int) string {
	const words = "the orchestrator asks the subagent to read the report and sum the figures of the third quarter "
	s := make([]byte, n)
	for i := range s {
		s[i] = words[i%len(words)]
	}
	return string(s)
}

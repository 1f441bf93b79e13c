// Command gencapture writes the sample packet captures of
// internal/capturetest (built with gopacket's writers) into a folder, all
// of them or those named:
//
//	go run ./scripts/gencapture testdata/demo session.pcapng
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/toonkit/toonkit/internal/capturetest"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: gencapture DIR [NAME...]")
		os.Exit(2)
	}
	names := os.Args[2:]
	if len(names) == 0 {
		names = capturetest.SampleNames()
	}
	for _, name := range names {
		data, ok := capturetest.Sample(name)
		if !ok {
			fmt.Fprintf(os.Stderr, "gencapture: no sample %q\n", name)
			os.Exit(2)
		}
		if err := os.WriteFile(filepath.Join(os.Args[1], name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

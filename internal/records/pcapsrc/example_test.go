package pcapsrc_test

import (
	"fmt"
	"log"
	"os"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/records/pcapsrc"
)

// A records.Source reads a packet capture through pcapsrc.Reader: the
// frames of its connections, as decode writes them.
func ExampleReader() {
	f, err := os.Open("../../../testdata/demo/session.pcapng")
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	src, err := records.NewSource(f, "session.pcapng", records.SourceOptions{
		Capture: pcapsrc.Reader(capture.Options{Ports: []int{7000}}),
	})
	if err != nil {
		log.Fatal(err)
	}
	src.Flat = true
	n := 0
	err = src.Each(func(rec []byte) error {
		if n == 0 {
			fmt.Println(src.Where())
		}
		n++
		return nil
	})
	fmt.Println(n, "frames", err)
	// Output:
	// session.pcapng: frame 0 of the capture
	// 4 frames <nil>
}

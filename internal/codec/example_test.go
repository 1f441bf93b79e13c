package codec_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/codec"
)

// The output format that a file name such as -o's names, when no --to does.
func ExampleFormatForExt() {
	for _, name := range []string{"data.toon", "events.jsonl", "capture.bin", "notes.txt"} {
		f, ok := codec.FormatForExt(name)
		fmt.Printf("%s: %q %v\n", name, f, ok)
	}
	// Output:
	// data.toon: "toon" true
	// events.jsonl: "ndjson" true
	// capture.bin: "binary" true
	// notes.txt: "" false
}

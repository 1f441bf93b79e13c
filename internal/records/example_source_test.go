package records_test

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/records"
)

// The records of an input whose format is detected (here a TOON table),
// each with its place, written as NDJSON.
func ExampleSource() {
	in := strings.NewReader("[2]{id,name}:\n  1,ann\n  2,bob\n")
	src, err := records.NewSource(in, "people.toon", records.SourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("format:", src.Format())
	snk := &records.NDJSONSink{W: os.Stdout}
	err = src.Each(func(rec []byte) error {
		fmt.Print(src.Where(), ": ")
		return snk.Write(rec)
	})
	fmt.Println(err)
	// Output:
	// format: toon
	// people.toon: record 1: {"id":1,"name":"ann"}
	// people.toon: record 2: {"id":2,"name":"bob"}
	// <nil>
}

// Python-formatted JSON records written as one indented JSON array; the
// record that is not valid JSON ends the run with a *records.Error that
// tells where.
func ExampleJSONSink() {
	in := strings.NewReader("{\"id\": 1, \"ok\": true}\n{\"id\": 2, \"ok\": tru}\n")
	src, err := records.NewSource(in, "log.ndjson", records.SourceOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	snk := &records.JSONSink{W: os.Stdout}
	err = src.Each(snk.Write)
	var e *records.Error
	if errors.As(err, &e) && e.Kind == records.BadJSON {
		fmt.Println()
		fmt.Println("error:", err)
		return
	}
	snk.End()
	// Output:
	// [
	//   {
	//     "id": 1,
	//     "ok": true
	//   }
	// error: log.ndjson:2:20: invalid character '}' in literal true (expecting 'e') (at /ok)
}

package host_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/narratoria/host"
)

// A Printer shows a run as it goes: the host calls it back for each event
// and violation, and it writes the summary at the end. With JSON, the
// report is NDJSON, for CI.
func ExamplePrinter() {
	tool := strings.NewReader(`{"version":"0","type":"log","level":"info","message":"Starting"}
{"version":"0","type":"done","ok":true,"summary":"Torch lit."}
`)
	p := host.NewPrinter(os.Stdout, os.Stderr, host.PrinterOptions{JSON: true})
	h := host.New(host.Options{}, nil)
	h.OnEvent, h.OnViolation = p.Event, p.Violation
	if _, err := h.Read(p.Reader(tool)); err != nil {
		fmt.Println(err)
	}
	p.Summary(h.Result(host.Exit{Status: 0}))
	if err := p.Close(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"kind":"event","line":1,"event":{"version":"0","type":"log","level":"info","message":"Starting"}}
	// {"kind":"event","line":2,"event":{"version":"0","type":"done","ok":true,"summary":"Torch lit."}}
	// {"kind":"summary","ok":true,"exitCode":0,"reasons":[],"tool":{"exitStatus":0,"signal":null,"timedOut":false,"interrupted":null},"done":{"line":2,"ok":true,"valid":true,"summary":"Torch lit."},"lines":2,"stopped":null,"errors":0,"warnings":0,"state":{},"assets":[],"violations":[],"omitted":0}
}

// StdinObject is what a host sends the tool on its stdin; the input is
// one JSON object (ParseObject).
func ExampleStdinObject() {
	input, err := host.ParseObject([]byte(`{"room": "cellar"}`+"\n"), 1<<20)
	if err != nil {
		fmt.Println(err)
		return
	}
	obj, id := host.StdinObject("req-1", "torch", "run", input)
	os.Stdout.Write(obj)
	fmt.Println(id)
	// Output:
	// {"requestId":"req-1","tool":"torch","operation":"run","input":{"room":"cellar"}}
	// req-1
}

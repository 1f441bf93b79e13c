package cmd

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestExecFlagParsing(t *testing.T) {
	ios, _, _, _ := Test()
	var got *ExecOptions
	c := newExecCmd(ios, func(o *ExecOptions) error { got = o; return nil })
	c.SetArgs([]string{"--input", `{"a":1}`, "--request-id", "r-1", "--operation", "light", "--tool", "torch", "--timeout", "2s",
		"--kill-after", "100ms", "--state", "s.json", "--report", "json", "--max-frame-size", "1MiB", "--", "./tool", "--report", "text", "-v"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Input != `{"a":1}` || got.RequestID != "r-1" || got.Operation != "light" || got.ToolName != "torch" || got.Timeout != 2*time.Second ||
		got.KillAfter != 100*time.Millisecond || got.StateFile != "s.json" || got.Report != "json" || got.MaxLineSize != 1<<20 || got.Tool != "./tool" {
		t.Fatalf("options %+v", got)
	}
	if diff := cmp.Diff([]string{"--report", "text", "-v"}, got.Args); diff != "" {
		t.Fatal(diff)
	}
	// Defaults; and flags after TOOL are the tool's, with or without "--".
	c = newExecCmd(ios, func(o *ExecOptions) error { got = o; return nil })
	c.SetArgs([]string{"./tool", "--timeout", "1s"})
	if err := c.Execute(); err != nil {
		t.Fatal(err)
	}
	if got.Input != "" || got.Operation != "run" || got.Timeout != 30*time.Second || got.KillAfter != 5*time.Second ||
		got.Report != "text" || got.MaxLineSize != 64<<20 || !cmp.Equal(got.Args, []string{"--timeout", "1s"}) {
		t.Fatalf("defaults %+v", got)
	}
}

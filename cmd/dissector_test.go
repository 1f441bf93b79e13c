package cmd

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/toonkit/toonkit/internal/cli"
)

func TestDissectorFlagParsing(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		ports []int
		max   int
	}{
		{nil, nil, 64 << 20},
		{[]string{"--port", "7443", "--port", "7000,7001", "--max-frame-size", "1MiB", "-o", "kado.lua"}, []int{7443, 7000, 7001}, 1 << 20},
	} {
		ios, _, _, _ := Test()
		var got *DissectorOptions
		c := newDissectorCmd(ios, func(o *DissectorOptions) error { got = o; return nil })
		c.SetArgs(tc.args)
		if err := c.Execute(); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.ports, got.Ports); diff != "" {
			t.Errorf("%v: ports (-want +got):\n%s", tc.args, diff)
		}
		if got.MaxFrameSize != tc.max {
			t.Errorf("%v: max frame size %d, want %d", tc.args, got.MaxFrameSize, tc.max)
		}
	}
	ios, _, _, _ := Test()
	c := newDissectorCmd(ios, func(*DissectorOptions) error { t.Error("ran with a bad --max-frame-size"); return nil })
	c.SetArgs([]string{"--max-frame-size", "lots"})
	if err := c.Execute(); cli.ExitCode(err, true) != cli.ExitUsage {
		t.Errorf("--max-frame-size lots: %v (exit %d), want a usage error", err, cli.ExitCode(err, true))
	}
}

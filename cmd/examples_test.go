package cmd

import (
	"github.com/spf13/cobra"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/needs"

	"github.com/toonkit/toonkit/internal/testbin"
)

// Every example in every command's --help runs, in a folder holding the
// files the examples name (copied from testdata/demo), with the exit status
// its comment announces (0 unless the comment says "exit status N").
func TestHelpExamples(t *testing.T) {
	needs.Slow(t, "runs every --help example through a shell")
	bin := testbin.Build(t, "..")
	root := NewRootCmd(func() *cli.IOStreams { ios, _, _, _ := Test(); return ios }())
	status := regexp.MustCompile(`exit status (\d+)`)
	ran := 0
	var all []*cobra.Command // every command, subcommands (mcp proxy) too
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		all = append(all, c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for _, c := range all {
		want := 0
		for _, line := range strings.Split(c.Example, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				continue
			}
			if strings.HasPrefix(line, "#") {
				want = 0
				if m := status.FindStringSubmatch(line); m != nil {
					want, _ = strconv.Atoi(m[1])
				}
				continue
			}
			t.Run(strings.ReplaceAll(c.CommandPath(), " ", "_")+"/"+line, func(t *testing.T) {
				dir := testbin.Demo(t, "../testdata/demo")
				if c.Name() == "tap" {
					tapExampleTraffic(t) // an upstream on :7000 and a client of :7001
				}
				// pipefail: a failure anywhere in a pipeline counts.
				sh := exec.Command("bash", "-o", "pipefail", "-c", line)
				sh.Dir = dir
				sh.Env = testbin.Env(bin)
				out, err := sh.CombinedOutput()
				got := 0
				if ee, ok := err.(*exec.ExitError); ok {
					got = ee.ExitCode()
				} else if err != nil {
					t.Fatal(err)
				}
				if got != want {
					t.Fatalf("exit status %d, want %d\n%s", got, want, out)
				}
			})
			ran++
		}
	}
	if ran < 8 {
		t.Fatalf("only %d examples found", ran)
	}
}

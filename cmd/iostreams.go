package cmd

import (
	"bytes"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/toonkit/toonkit/internal/cli"
)

// System returns the process's streams.
func System() *cli.IOStreams {
	ios := &cli.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ColorMode: "auto", Getenv: os.Getenv, Labels: labels}
	ios.SetStdinTTY(isTerminal(os.Stdin))
	ios.SetStdoutTTY(isTerminal(os.Stdout))
	ios.SetStderrTTY(isTerminal(os.Stderr))
	return ios
}

// labels are the colors of the reporter's labels.
var labels = cli.Labels{Error: paint(true, color.FgRed, color.Bold), Warning: paint(true, color.FgYellow, color.Bold), Hint: paint(true, color.FgCyan)}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams backed by buffers, none of them a terminal, with an
// empty environment.
func Test() (ios *cli.IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &cli.IOStreams{In: in, Out: out, ErrOut: errOut, ColorMode: "auto",
		Getenv: func(string) string { return "" }, Labels: labels}, in, out, errOut
}

// paint returns a function that wraps text in the given attributes when
// enabled, and returns it unchanged otherwise.
func paint(enabled bool, attrs ...color.Attribute) func(string) string {
	if !enabled || len(attrs) == 0 {
		return func(s string) string { return s }
	}
	c := color.New(attrs...)
	c.EnableColor()
	return func(s string) string { return c.Sprint(s) }
}

package cmd

import (
	"bytes"
	"io"
	"os"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
)

// IOStreams holds the standard streams and decides, per stream, whether it
// is a terminal and whether it gets color.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	inTTY, outTTY, errTTY bool

	// ColorMode is the --color flag: auto, always or never.
	ColorMode string
	// Quiet is the -q flag: no warnings, notes or hints on stderr.
	Quiet bool
	// Getenv reads the environment (NO_COLOR, CLICOLOR, CLICOLOR_FORCE).
	Getenv func(string) string
}

// System returns the process's streams.
func System() *IOStreams {
	return &IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		inTTY:     isTerminal(os.Stdin),
		outTTY:    isTerminal(os.Stdout),
		errTTY:    isTerminal(os.Stderr),
		ColorMode: "auto",
		Getenv:    os.Getenv,
	}
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams backed by buffers, none of them a terminal, with an
// empty environment.
func Test() (ios *IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &IOStreams{In: in, Out: out, ErrOut: errOut, ColorMode: "auto",
		Getenv: func(string) string { return "" }}, in, out, errOut
}

// SetStdinTTY, SetStdoutTTY and SetStderrTTY override terminal detection.
func (s *IOStreams) SetStdinTTY(v bool)  { s.inTTY = v }
func (s *IOStreams) SetStdoutTTY(v bool) { s.outTTY = v }
func (s *IOStreams) SetStderrTTY(v bool) { s.errTTY = v }

// IsStdinTTY, IsStdoutTTY and IsStderrTTY report terminal detection.
func (s *IOStreams) IsStdinTTY() bool  { return s.inTTY }
func (s *IOStreams) IsStdoutTTY() bool { return s.outTTY }
func (s *IOStreams) IsStderrTTY() bool { return s.errTTY }

// colorFor decides color for a stream that is (or is not) a terminal:
// --color always/never win; in auto, NO_COLOR (any value) and CLICOLOR=0
// switch it off, CLICOLOR_FORCE (not "0") switches it on, otherwise a
// terminal gets color.
func (s *IOStreams) colorFor(tty bool) bool {
	switch s.ColorMode {
	case "always":
		return true
	case "never":
		return false
	}
	if s.Getenv("NO_COLOR") != "" || s.Getenv("CLICOLOR") == "0" {
		return false
	}
	if f := s.Getenv("CLICOLOR_FORCE"); f != "" && f != "0" {
		return true
	}
	return tty
}

// ColorStdout and ColorStderr report whether each stream gets color.
func (s *IOStreams) ColorStdout() bool { return s.colorFor(s.outTTY) }
func (s *IOStreams) ColorStderr() bool { return s.colorFor(s.errTTY) }

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

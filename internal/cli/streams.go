package cli

import (
	"io"

	"github.com/toonkit/toonkit/internal/paint"
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
	// Given, when set, gets the bytes of every input OpenInput opens, as
	// they are read: --stats counts the input as it was given
	// (Stats.CountGiven).
	Given io.Writer
	// Palette colors each role of paint (the terminal's layer sets it);
	// StdoutPaint and StderrPaint give it where a stream gets color.
	Palette paint.Func
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

// StdoutPaint and StderrPaint are the Palette when the stream gets color,
// and nil (plain text) otherwise.
func (s *IOStreams) StdoutPaint() paint.Func { return s.paintIf(s.ColorStdout()) }
func (s *IOStreams) StderrPaint() paint.Func { return s.paintIf(s.ColorStderr()) }

func (s *IOStreams) paintIf(color bool) paint.Func {
	if !color {
		return nil
	}
	return s.Palette
}

package cmd

import (
	"bytes"
	"os"
	"sync"

	"github.com/fatih/color"
	"github.com/mattn/go-isatty"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/paint"
)

// System returns the process's streams.
func System() *cli.IOStreams {
	ios := &cli.IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, ColorMode: "auto", Getenv: os.Getenv, Palette: palettePaint}
	ios.SetStdinTTY(isTerminal(os.Stdin))
	ios.SetStdoutTTY(isTerminal(os.Stdout))
	ios.SetStderrTTY(isTerminal(os.Stderr))
	return ios
}

func isTerminal(f *os.File) bool {
	return isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd())
}

// Test returns streams backed by buffers, none of them a terminal, with an
// empty environment.
func Test() (ios *cli.IOStreams, in, out, errOut *bytes.Buffer) {
	in, out, errOut = &bytes.Buffer{}, &bytes.Buffer{}, &bytes.Buffer{}
	return &cli.IOStreams{In: in, Out: out, ErrOut: errOut, ColorMode: "auto",
		Getenv: func(string) string { return "" }, Palette: palettePaint}, in, out, errOut
}

// palette maps each role of internal/paint to its terminal attributes:
// findings as validate prints them, inspect's header fields each in their
// own color, bytes by category as hexyl colors them, JSON as jq colors it.
var palette = map[paint.Role][]color.Attribute{
	paint.Where:           {color.Bold},
	paint.Error:           {color.FgRed, color.Bold},
	paint.Warning:         {color.FgYellow, color.Bold},
	paint.Hint:            {color.FgCyan},
	paint.Pointer:         {color.FgCyan},
	paint.Info:            {color.FgCyan},
	paint.Failure:         {color.FgRed},
	paint.OK:              {color.FgGreen},
	paint.Success:         {color.FgGreen, color.Bold},
	paint.Caution:         {color.FgYellow},
	paint.Title:           {color.Bold},
	paint.Label:           {color.Bold, color.Underline},
	paint.Dim:             {color.Faint},
	paint.Broken:          {color.Bold, color.FgRed},
	paint.Invalid:         {color.ReverseVideo, color.FgRed},
	paint.HeaderVersion:   {color.Bold, color.FgMagenta},
	paint.HeaderType:      {color.Bold, color.FgCyan},
	paint.HeaderLength:    {color.Bold, color.FgYellow},
	paint.HeaderTimestamp: {color.Bold, color.FgBlue},
	paint.HeaderSequence:  {color.Bold, color.FgGreen},
	paint.ByteNull:        {color.FgHiBlack},
	paint.BytePrintable:   {color.FgCyan},
	paint.ByteWhitespace:  {color.FgGreen},
	paint.ByteOther:       {color.FgMagenta},
	paint.ByteNonASCII:    {color.FgYellow},
	paint.JSONKey:         {color.FgBlue, color.Bold},
	paint.JSONString:      {color.FgGreen},
	paint.JSONNull:        {color.FgHiBlack},
	paint.JSONPunct:       {color.Bold},
}

// palettePaint is the palette as a paint.Func: each role's attributes
// wrap its text; a role without any (JSON numbers, true and false) stays
// plain.
func palettePaint(r paint.Role, s string) string {
	if f := paletteFuncs()[r]; f != nil {
		return f(s)
	}
	return s
}

var paletteFuncs = sync.OnceValue(func() map[paint.Role]func(string) string {
	fns := map[paint.Role]func(string) string{}
	for r, attrs := range palette {
		c := color.New(attrs...)
		c.EnableColor()
		fns[r] = func(s string) string { return c.Sprint(s) }
	}
	return fns
})

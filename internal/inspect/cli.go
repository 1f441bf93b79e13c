package inspect

import (
	"bufio"
	"errors"
	"fmt"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/validate"
	"github.com/toonkit/toonkit/kado"
)

// Command are the options of `toonkit inspect`, checked.
type Command struct {
	IO           *cli.IOStreams
	Inputs       []string
	Frame        int   // the only frame to show (0-based); -1: every frame
	Skip         int64 // bytes to pass over first
	Length       int64 // bytes to read from there; 0: to the end
	JSON         bool
	OneLine      bool // one line per frame
	Summary      bool // only the summary
	MaxFrameSize int
	Jobs         int // workers for --json; the view is single-worker
	// Capture selects the connections of a capture (--port, --conn);
	// its MaxFrameSize is that of the command.
	Capture capture.Options
	// Style colors the view on stdout; nil: plain text.
	Style paint.Func
}

// RunCommand shows the frames of every input, then reports what was wrong
// in each, in order.
func RunCommand(opts *Command) error {
	ios := opts.IO
	out := bufio.NewWriterSize(ios.Out, 64<<10)
	iopts := Options{
		Style:        opts.Style,
		MaxFrameSize: opts.MaxFrameSize,
		Skip:         opts.Skip,
		Length:       opts.Length,
		OnlyFrame:    opts.Frame >= 0,
		Frame:        opts.Frame,
		Workers:      opts.Jobs,
		Flush:        out.Flush, // a live capture is shown frame by frame
		SummaryOnly:  opts.Summary,
	}
	if opts.JSON {
		iopts.Format = JSON
		iopts.Style = nil
	}
	if opts.OneLine {
		iopts.Format = OneLine
	}
	ins := New(out, iopts)
	writeErr := func(err error) error {
		return cli.IOErrorf("cannot write <stdout>: %s", cli.PathErrText(err))
	}

	// What went wrong, per input in order, reported after the view.
	var problems []error
	salvage := false // some input has good frames and bad ones
	tooLarge := false
	code := cli.ExitOK
	for _, name := range opts.Inputs {
		in, err := cli.OpenInput(ios, name)
		if err != nil {
			problems = append(problems, err)
			code = cli.ExitIO
			continue
		}
		br := bufio.NewReaderSize(in.R, 64<<10)
		var s Summary
		if p, _ := br.Peek(4); len(p) > 0 && codec.Detect(p).Format == codec.Pcap { // a packet capture
			if err := captureWindow(opts, in.Name); err != nil {
				in.Close()
				return err
			}
			copts := opts.capture(opts.MaxFrameSize)
			copts.Reopen = capture.ReopenFile(in.File) // a file: the workers may check more frames
			s, err = ins.InspectCapture(in.Name, br, copts)
		} else {
			s, err = ins.Inspect(in.Name, br)
		}
		in.Close()
		var we *WriteError
		var re *ReadError
		var fe *capture.FormatError
		switch {
		case errors.As(err, &we):
			return writeErr(we.Err)
		case errors.As(err, &re):
			if cerr, ok := cli.NoConnError(in.Name, re.Err); ok {
				problems = append(problems, cerr)
				code = max(code, cli.ExitInvalid)
				continue
			}
			problems = append(problems, cli.ReadError(in.Name, re.Err))
			code = cli.ExitIO
		case errors.As(err, &fe):
			problems = append(problems, cli.InvalidError(fmt.Errorf("%s: %w", in.Name, err), ""))
			code = max(code, cli.ExitInvalid)
			continue
		case err != nil:
			return err
		}
		salvage = salvage || s.Valid > 0 && s.Invalid > 0
		for _, p := range s.Problems {
			tooLarge = tooLarge || p.Kind == kado.TooLarge
		}
		if p := frameProblem(in.Name, opts, s); p != nil {
			problems = append(problems, p)
			if code == cli.ExitOK {
				code = cli.ExitInvalid
			}
		}
	}
	if opts.Summary {
		summaryCounts(opts, ins)
	}
	if _, err := ins.Close(); err != nil {
		var we *WriteError
		if errors.As(err, &we) {
			return writeErr(we.Err)
		}
		return err
	}
	if err := out.Flush(); err != nil {
		return writeErr(err)
	}
	rep := cli.NewReporter(ios)
	for _, p := range problems {
		rep.Report(p, true)
	}
	if tooLarge {
		rep.Hint("raise --max-frame-size if such frames are expected")
	}
	if salvage && opts.Frame < 0 {
		rep.Hint("'toonkit decode --keep-going' skips the bad frames and decodes the others")
	}
	if code != cli.ExitOK {
		return cli.Reported(code)
	}
	return nil
}

// capture is opts.Capture with the largest frame.
func (opts *Command) capture(maxFrameSize int) capture.Options {
	o := opts.Capture
	o.MaxFrameSize = maxFrameSize
	return o
}

// summaryCounts gives the summary validate's counts and checks (its rule
// codes) over the same inputs, so that inspect --summary and validate
// agree: one set of checks, one count. An input that cannot be read again
// (standard input, a pipe) leaves the inspector's own.
func summaryCounts(opts *Command, ins *Inspector) {
	errs, warns := 0, 0
	checks, warned := map[string]int{}, map[string]bool{}
	for _, name := range opts.Inputs {
		in, err := cli.OpenInput(opts.IO, name)
		if err != nil || !in.Regular() {
			if in != nil {
				in.Close()
			}
			return
		}
		run := validate.Run{As: codec.Binary, Options: validate.Options{MaxFrameSize: opts.MaxFrameSize, Workers: 1}, Capture: opts.capture(0)}
		br := bufio.NewReaderSize(in.R, 64<<10)
		if p, _ := br.Peek(4); len(p) > 0 && codec.Detect(p).Format == codec.Pcap {
			run.As = codec.Pcap
		}
		_, err = run.File(validate.Input{Name: in.Name, R: br}, func(f validate.Finding) bool {
			checks[f.Code]++
			if f.Severity == validate.Warning {
				warns++
				warned[f.Code] = true
			} else {
				errs++
			}
			return true
		})
		in.Close()
		if err != nil {
			return // inspect reports the input's problem
		}
	}
	ins.Counted(errs, warns, checks, warned)
}

// frameProblem says what was wrong in one input, or nil.
func frameProblem(name string, opts *Command, s Summary) error {
	switch {
	case opts.Frame >= 0 && !s.FrameFound:
		return &cli.ExitError{Code: cli.ExitInvalid, Err: fmt.Errorf("%s: %s", name, NoFrame(opts.Frame, s.Indices))}
	case s.Invalid == 1 && s.Faults == 0 && len(s.Problems) > 0,
		s.Invalid == 0 && s.Faults == 1 && len(s.Problems) > 0:
		return &cli.ExitError{Code: cli.ExitInvalid, Err: fmt.Errorf("%s: %s", name, s.Problems[0])}
	case s.Invalid > 1 && s.Faults == 0 && len(s.Problems) > 0:
		return &cli.ExitError{Code: cli.ExitInvalid, Err: fmt.Errorf("%s: %d bad frames; the first: %s", name, s.Invalid, s.Problems[0])}
	case s.Invalid+s.Faults > 1 && len(s.Problems) > 0:
		return &cli.ExitError{Code: cli.ExitInvalid, Err: fmt.Errorf("%s: %d problems; the first: %s", name, s.Invalid+s.Faults, s.Problems[0])}
	}
	return nil
}

// captureWindow refuses --skip, --length and --frame on a capture: they
// count the bytes and frames of a frame file.
func captureWindow(opts *Command, name string) error {
	var flag string
	switch {
	case opts.Skip > 0:
		flag = "--skip"
	case opts.Length > 0:
		flag = "--length"
	case opts.Frame >= 0:
		flag = "--frame"
	default:
		return nil
	}
	return cli.UsageErrorf("'toonkit convert --to binary "+name+" -o frames.bin' writes its frames to a frame file, which takes "+flag,
		"%s is a packet capture: %s counts the bytes and frames of a frame file", name, flag)
}

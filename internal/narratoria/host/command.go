package host

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/paint"
	"github.com/toonkit/toonkit/internal/toolproc"
)

// Exec is the options of `toonkit exec`, checked: the tool to run, its
// stdin object, its time limits and the report.
type Exec struct {
	Tool        string
	Args        []string
	Input       string // the --input value: JSON, or @FILE (@- is stdin); "": no stdin object
	RequestID   string // "": a random UUID
	Operation   string
	ToolName    string // the stdin object's "tool"; "": TOOL's base name
	Timeout     time.Duration
	KillAfter   time.Duration
	StateFile   string
	Report      string // text or json
	MaxLineSize int
	// Interrupt sets the hook that is given the signals that end a run
	// before they do, and returns the function that removes it; nil: none.
	Interrupt func(func(os.Signal) bool) (restore func())
}

// RunExec runs toonkit exec: it starts the tool, hosts it (Host), writes
// the report on ios's streams as the run goes, and returns the run's exit
// status as a *cli.ExitError (nil: 0).
func RunExec(ios *cli.IOStreams, opts *Exec) error {
	rep := cli.NewReporter(ios)
	state, err := execState(ios, opts)
	if err != nil {
		return err
	}
	stdin, requestID, err := execStdin(ios, opts)
	if err != nil {
		return err
	}
	// The text report is painted where stdout gets color, the tool's
	// stderr dimmed where stderr does.
	popts := PrinterOptions{JSON: opts.Report == "json", Paint: ios.StdoutPaint()}
	if popts.JSON {
		popts.Paint = nil
	}
	if errPaint := ios.StderrPaint(); errPaint != nil {
		popts.Dim = func(s string) string { return errPaint(paint.Dim, s) }
	}
	pr := NewPrinter(ios.Out, ios.ErrOut, popts)
	h := New(Options{MaxLineSize: opts.MaxLineSize, RequestID: requestID}, state)
	h.OnEvent, h.OnViolation = pr.Event, pr.Violation

	p := toolproc.New(opts.Tool, opts.Args, toolproc.Options{KillAfter: opts.KillAfter, TimeLimit: opts.Timeout, Stderr: pr.Stderr})
	if opts.Interrupt != nil {
		restore := opts.Interrupt(p.Interrupt)
		defer restore()
	}
	if err = p.Start(stdin); err != nil {
		var ie *toolproc.InterruptedError
		var pe *toolproc.PipeError
		if opts.Report == "json" && !errors.As(err, &ie) && !errors.As(err, &pe) {
			pr.Summary(h.Result(Exit{StartError: toolproc.StartFailure(err)}))
			pr.Close()
		}
		return cli.StartError(opts.Tool, "toonkit exec --", err)
	}
	if opts.Timeout > 0 {
		t := time.AfterFunc(opts.Timeout, p.Timeout)
		defer t.Stop()
	}

	end, readErr := h.Read(pr.Reader(p.Stdout()))
	p.DoneReading()
	if !end || readErr != nil {
		// The protocol stopped the reading (or it failed): the tool is
		// ended, and what it still writes is not read.
		p.Stdout().Close()
		p.Abort()
	}
	exit := p.Wait()
	switch {
	case errors.Is(readErr, os.ErrClosed):
		// closeAfter closed it: the group was killed, yet the pipe held.
		pr.Flush()
		rep.Warnf("stopped reading the tool's stdout: a process outside its process group still held it open")
	case readErr != nil:
		pr.Flush()
		rep.Errorf("cannot read the tool's stdout: %s", cli.PathErrText(readErr))
	}
	res := h.Result(exit)
	pr.Summary(res)
	if err := pr.Close(); err != nil {
		return cli.ReportWriteError(err)
	}
	if res.ExitCode != 0 {
		return cli.Reported(res.ExitCode)
	}
	return nil
}

// execState reads --state: the session state to start from.
func execState(ios *cli.IOStreams, opts *Exec) (*State, error) {
	if opts.StateFile == "" {
		return nil, nil
	}
	b, name, err := readArgFile(ios, opts, opts.StateFile, "--state")
	if err != nil {
		return nil, err
	}
	obj, err := jsonObject("--state "+name, b, opts.MaxLineSize)
	if err != nil {
		return nil, err
	}
	return NewState(obj)
}

// execStdin is the stdin object --input asks for, and its requestId; nil
// without --input.
func execStdin(ios *cli.IOStreams, opts *Exec) ([]byte, string, error) {
	if opts.Input == "" {
		return nil, "", nil
	}
	b, what := []byte(opts.Input), "--input"
	if name, ok := strings.CutPrefix(opts.Input, "@"); ok {
		var err error
		if b, name, err = readArgFile(ios, opts, name, "--input"); err != nil {
			return nil, "", err
		}
		what = "--input " + name
	}
	input, err := jsonObject(what, b, opts.MaxLineSize)
	if err != nil {
		return nil, "", err
	}
	tool := opts.ToolName
	if tool == "" {
		tool = filepath.Base(opts.Tool)
	}
	obj, id := StdinObject(opts.RequestID, tool, opts.Operation, input)
	return obj, id, nil
}

// readArgFile reads the file a flag names ("-": stdin), up to the line
// limit.
func readArgFile(ios *cli.IOStreams, opts *Exec, name, flag string) ([]byte, string, error) {
	in, err := cli.OpenInput(ios, name)
	if err != nil {
		return nil, "", err
	}
	defer in.Close()
	b, err := io.ReadAll(io.LimitReader(in.R, int64(opts.MaxLineSize)+1))
	if err != nil {
		return nil, "", cli.ReadError(in.Name, err)
	}
	if len(b) > opts.MaxLineSize {
		return nil, "", cli.UsageErrorf("", "%s %s: larger than --max-frame-size (%d bytes)", flag, in.Name, opts.MaxLineSize)
	}
	return b, in.Name, nil
}

// jsonObject is the one JSON object of b, compact; anything else is a usage
// error, with its place.
func jsonObject(what string, b []byte, max int) ([]byte, error) {
	hint := "--input takes one JSON object, such as '{\"room\":\"cellar\"}', or @FILE"
	if strings.HasPrefix(what, "--state") {
		hint = `a state is one JSON object, such as {"flags":{"torchLit":false}}`
	}
	obj, err := ParseObject(b, max)
	var se *jsonv.SyntaxError
	switch {
	case errors.As(err, &se):
		return nil, &cli.ExitError{Code: cli.ExitUsage, Err: fmt.Errorf("%s:%w", what, se), Excerpt: se, Hint: hint}
	case err != nil:
		return nil, cli.UsageErrorf(hint, "%s: %v", what, err)
	}
	return obj, nil
}

package query

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// RunOptions configure RunInputs.
type RunOptions struct {
	// Vars are the values of Options.Variables.
	Vars []any
	// NullInput runs the filter once, on null (jq's -n: input and inputs
	// read the inputs); Slurp once, on the array of all the inputs (-s).
	NullInput, Slurp bool
	// Workers run the filter on the values of JSON and NDJSON inputs
	// (RunJobs) when more than 1; the caller sees to it that the filter
	// is Parallel and that the run is neither NullInput, Slurp nor over
	// raw inputs. MaxSize bounds a value on the workers.
	Workers int
	MaxSize int
	// Format and Encode make what a result is written as (with an
	// Encoder of Format that keeps the input's key order), Write writes
	// it: JobsOptions.Format and Encode.
	Format Format
	Encode func(e *Encoder, dst []byte, v any) []byte
	Write  func(b []byte) error
	// WriteFrame, when set (with InputOptions.KeepFrames), is given the
	// bytes of a binary frame, as read, in place of a result that is its
	// record passed through untouched (., select(...)): Encode and Write
	// are not called for it.
	WriteFrame func(frame []byte) error
	// Idle is called when the input has nothing more buffered (a live
	// stream): the output so far is to be passed on.
	Idle func() error
	// Fail is given a runtime error of the filter on one input (neither a
	// halt nor the context's end) and where names that input's place; the
	// run goes on with the next input, as jq's does, unless Fail returns
	// an error.
	Fail func(err error, where func() string) error
	// Stderr takes halt_error's message.
	Stderr io.Writer
}

// Outcome is how a run of RunInputs ended, for jq's exit status.
type Outcome struct {
	Outputs   int  // the results written
	LastFalse bool // the last of them was false or null
	Failed    bool // a runtime error was given to Fail
	// Halted: halt or halt_error ended the run, with HaltCode as its
	// exit status.
	Halted   bool
	HaltCode int
}

// jq's exit statuses (jq 1.7's, which gojq's command line shares).
const (
	ExitFalse    = 1 // with -e: the last result was false or null
	ExitUsage    = 2 // a usage error, or an input that cannot be read
	ExitCompile  = 3 // the filter does not compile
	ExitNoOutput = 4 // with -e: there was no result
	ExitRuntime  = 5 // a runtime error (the run went on with the next input)
)

// ExitStatus is jq's exit status for the run's outcome: halt's 0,
// halt_error's own, ExitRuntime after a runtime error; with exitStatus
// (jq's -e), ExitNoOutput when there was no result and ExitFalse when the
// last was false or null; 0 otherwise.
func (o Outcome) ExitStatus(exitStatus bool) int {
	switch {
	case o.Halted:
		return o.HaltCode
	case o.Failed:
		return ExitRuntime
	case exitStatus && o.Outputs == 0:
		return ExitNoOutput
	case exitStatus && o.LastFalse:
		return ExitFalse
	}
	return 0
}

// RunInputs runs the filter over qi's inputs as jq's command line does:
// on each input value in turn (on opts.Workers for JSON and NDJSON
// inputs, in input order), on null, or on them all slurped, writing each
// result as it comes. A runtime error goes to opts.Fail and the run goes
// on with the next input; halt and halt_error end it (Outcome.Halted). The
// error returned is Write's, Idle's or Fail's, the inputs' (qi.Err: a
// *records.Error for a malformed input), or ctx.Err() when the context
// ended the filter's run.
func (q *Query) RunInputs(ctx context.Context, qi *Inputs, opts RunOptions) (Outcome, error) {
	var out Outcome
	order := q.NewOrder()
	qi.SetOrder(order)
	if !opts.NullInput && !opts.Slurp {
		qi.SetNeed(q.need) // with -s the input is the array of them all
	}
	enc := Encoder{Format: opts.Format, Order: order}
	var buf []byte
	// fail handles an error of the filter's run on one input; false
	// stops the run.
	fail := func(err error, where func() string) (bool, error) {
		if code, value, message, ok := Halted(err); ok {
			if message {
				if s, ok := value.(string); ok {
					io.WriteString(opts.Stderr, s)
				} else {
					var e Encoder
					opts.Stderr.Write(append(e.Append(nil, value), '\n'))
				}
			}
			out.Halted, out.HaltCode = true, code
			return false, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		out.Failed = true
		if err := opts.Fail(err, where); err != nil {
			return false, err
		}
		return true, nil
	}
	// run runs the filter on one input; false stops the run.
	run := func(v any) (bool, error) {
		it := q.Run(ctx, v, opts.Vars...)
		for {
			r, ok := it.Next()
			if !ok {
				return true, nil
			}
			if err, ok := r.(error); ok {
				if err := qi.Err(); err != nil {
					return false, err
				}
				return fail(err, qi.Where)
			}
			out.Outputs++
			out.LastFalse = r == nil || r == false
			if opts.WriteFrame != nil {
				if frame, ok := qi.Frame(r); ok {
					if err := opts.WriteFrame(frame); err != nil {
						return false, err
					}
					continue
				}
			}
			buf = opts.Encode(&enc, buf[:0], r)
			if err := opts.Write(buf); err != nil {
				return false, err
			}
		}
	}
	// runJobs runs the filter over the JSON or NDJSON input qi has just
	// opened on the workers; false stops the run. Where the workers stop
	// short, qi reads on from there.
	runJobs := func() (bool, error) {
		src := qi.Source()
		more := true
		rest, err := q.RunJobs(ctx, src.Reader(), JobsOptions{
			Workers: opts.Workers, MaxSize: opts.MaxSize, Vars: opts.Vars, Format: opts.Format,
			Encode: opts.Encode, Decoder: qi.StreamDecoder(), Live: !qi.Regular(), Idle: opts.Idle,
		}, func(r *Result) error {
			start := 0
			for _, end := range r.Ends {
				out.Outputs++
				if err := opts.Write(r.Out[start:end]); err != nil {
					return err
				}
				start = end
			}
			if len(r.Ends) > 0 {
				out.LastFalse = r.LastFalse
			}
			if r.Err != nil {
				pos := r.Pos
				ok, err := fail(r.Err, func() string { return fmt.Sprintf("%s:%s", src.Name(), pos) })
				more = ok
				return err
			}
			return nil
		})
		if rest != nil {
			qi.ReadOn(rest)
			return true, nil
		}
		qi.Finish()
		return more && err == nil, err
	}
	switch {
	case opts.NullInput:
		_, err := run(nil)
		return out, err
	case opts.Slurp:
		all, err := qi.Slurp()
		if err == nil {
			_, err = run(all)
		}
		return out, err
	}
	for {
		if opts.Workers > 1 && qi.Pending() {
			stream, err := qi.OpenNext()
			if err != nil {
				return out, err
			}
			if stream { // JSON, NDJSON
				if more, err := runJobs(); err != nil || !more {
					return out, err
				}
			}
			continue
		}
		v, err := qi.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		more, err := run(v)
		order.Forget()
		qi.ForgetFrames()
		if err != nil || !more {
			return out, err
		}
		if qi.Idle() && opts.Idle != nil {
			if err := opts.Idle(); err != nil {
				return out, err
			}
		}
	}
}

// Message is the message of a runtime error: the string error() was
// given, as jq prints it, or gojq's message.
func Message(err error) string {
	var ve interface{ Value() any }
	if errors.As(err, &ve) {
		if s, ok := ve.Value().(string); ok {
			return s
		}
		var e Encoder
		return "(not a string): " + string(e.Append(nil, ve.Value()))
	}
	return err.Error()
}

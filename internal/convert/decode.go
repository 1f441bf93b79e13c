package convert

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
)

// RunDecode runs decode: binary frames, captures, tables and TOON text
// as JSON or NDJSON, each input of the format named or detected; with
// --keep-going a bad frame is reported and skipped (exit status 1 at the
// end).
func RunDecode(opts *DecodeOptions) error {
	d := &decodeRun{opts: opts, rep: cli.NewReporter(opts.IO), out: cli.NewOutput(opts.IO, opts.Output)}
	if opts.Stats {
		var err error
		if d.stats, err = cli.NewStats(opts.Tokenizer); err != nil {
			return err
		}
		d.stats.CountGiven(opts.IO)
	}
	if opts.As == codec.JSON {
		d.array = &records.JSONSink{W: d.out, Compact: opts.Compact} // -o FILE.json: frames and rows as one array
	}
	for _, name := range opts.Inputs {
		if err := d.input(name); err != nil {
			d.out.Abort()
			return err
		}
	}
	if d.arrayUsed {
		d.array.End() // a failure is Commit's to report
	}
	if err := d.out.Commit(); err != nil {
		return err
	}
	if d.stats != nil {
		to := codec.JSON
		if opts.As == codec.NDJSON {
			to = codec.NDJSON
		}
		if err := d.stats.PrintDecoded(opts.IO, to); err != nil {
			return err
		}
	}
	if d.bad > 0 {
		d.rep.Errorf("%d bad %s skipped, %d decoded", d.bad, cli.Plural(d.bad, "frame", "frames"), d.frames)
		return cli.Reported(cli.ExitInvalid)
	}
	return nil
}

// decodeRun is a run of decode over its inputs.
type decodeRun struct {
	opts        *DecodeOptions
	rep         *cli.Reporter
	out         *cli.Output
	array       *records.JSONSink // -o FILE.json: frames and rows as one array
	arrayUsed   bool              // an input has given the array records
	frames, bad int
	stats       *cli.Stats // --stats
}

// input decodes one input, of the format named or detected.
func (d *decodeRun) input(name string) error {
	opts := d.opts
	in, err := cli.OpenInput(opts.IO, name)
	if err != nil {
		return err
	}
	defer in.Close()
	br := bufio.NewReaderSize(in.R, 64<<10)
	detected := codec.Detection{Format: codec.Format(opts.From)}
	if opts.From == "" {
		if detected, err = records.Sniff(br); err != nil {
			return cli.ReadError(in.Name, err)
		}
	}
	d.arrayUsed = d.arrayUsed || d.array != nil && detected.Format != codec.TOON
	switch {
	case detected.Format == codec.TOON && (opts.Payload || opts.KeepGoing):
		return cli.UsageErrorf("", "%s: --payload and --keep-going apply to binary frames; this is TOON text", in.Name)
	case detected.Format == codec.TOON:
		return decodeTOON(in, br, d.out, &opts.TOON, opts.MaxFrameSize, opts.As == codec.NDJSON, opts.Compact, d.stats)
	case d.stats != nil:
		return cli.UsageErrorf(fmt.Sprintf("for the tokens of its records in each format: toonkit stats %s", cli.ShellArg(in.Name)),
			"%s: --stats applies to TOON text; this is %s", in.Name, detected.Format)
	case detected.Format == codec.Pcap:
		return d.capture(in, br)
	case detected.Format == codec.Tabular && opts.Payload:
		return cli.UsageErrorf("", "%s: --payload applies to binary frames; this is a table", in.Name)
	case detected.Format == codec.Tabular:
		n, err := decodeTable(in, br, d.out, d.array, opts.Jobs)
		d.frames += n
		return err
	case opts.From == "" && detected.Format != codec.Binary:
		return requireBinary(in.Name, br, detected)
	}
	return d.binary(in, br)
}

// problem counts a bad frame, or a capture's problem, ferr as the user
// sees it: with --keep-going it is reported, with how far the reader
// moved on (moved, when known), and the run goes on; otherwise it is the
// error that ends the run.
func (d *decodeRun) problem(ferr, err error, moved *kado.Moved) error {
	d.bad++
	if !d.opts.KeepGoing {
		return ferr
	}
	d.rep.Report(ferr, true)
	if moved != nil {
		cli.MoveNotes(d.rep.Notef, err, *moved)
	}
	return nil
}

// binary decodes the frames of one input as convert --to ndjson does,
// through the record engine (records.Copy, on opts.Jobs workers): each
// good frame's record, or its payload alone with --payload, to the output
// (or to array); a bad frame ends the run or, with --keep-going, is
// reported, with how the reader moved on past it, and skipped.
func (d *decodeRun) binary(in *cli.Input, br *bufio.Reader) error {
	opts := d.opts
	src, err := records.NewSource(br, in.Name, records.SourceOptions{Format: codec.Binary, MaxSize: opts.MaxFrameSize, Regular: in.Regular(), NoReadAhead: true})
	if err != nil {
		return cli.SourceError(err)
	}
	src.Payload = opts.Payload
	if opts.KeepGoing {
		src.Skip = func(e *records.Error, moved *kado.Moved) {
			d.problem(cli.FrameError(in.Name, e.Err, true), e.Err, moved)
		}
	}
	var snk records.Sink = &records.NDJSONSink{W: d.out}
	if d.array != nil {
		snk = d.array
	}
	n, err := records.Copy(context.Background(), src, snk, records.CopyOptions{Workers: opts.Jobs, Idle: d.out.Flush})
	d.frames += n
	var e *records.Error
	switch {
	case errors.As(err, &e) && e.Kind == records.BadFrame:
		return d.problem(cli.FrameError(in.Name, e.Err, false), e.Err, nil)
	case errors.As(err, &e):
		return cli.ReadError(in.Name, e.Err)
	}
	return err // nil, or the output's
}

// requireBinary checks that an input sniff detected as d holds binary
// frames. An empty input holds zero frames.
func requireBinary(name string, br *bufio.Reader, d codec.Detection) error {
	if d.Format == codec.Binary {
		return nil
	}
	if _, err := br.Peek(1); err == io.EOF {
		return nil
	}
	hint := "if it is binary all the same, say so with --from binary"
	if d.Format == codec.JSON {
		hint = "to encode JSON: " + cli.EncodeCommands(name)
	}
	return cli.InvalidError(fmt.Errorf("%s: not binary TOON frames: %s (a frame starts with version byte 0x01 and a type byte 0x01-0x08)", name, d.Why), hint)
}

// decodeTable writes the rows of a table as NDJSON, or to array, as
// convert --to ndjson (convertStream) does, and says how many.
func decodeTable(in *cli.Input, br *bufio.Reader, out *cli.Output, array *records.JSONSink, jobs int) (int, error) {
	rs, err := records.NewSource(br, in.Name, records.SourceOptions{Format: codec.Tabular, Regular: in.Regular()})
	if err != nil {
		return 0, cli.SourceError(err)
	}
	src := &cli.Source{Source: rs, In: in}
	var snk cli.Sink = &records.NDJSONSink{W: out}
	if array != nil {
		snk = array
	}
	return src.Copy(snk, jobs, out, nil)
}

// decodeTOON writes one TOON document as JSON, indented as JSON.stringify
// does (on one line when compact), or as NDJSON records (the elements of a
// root array, or the root value), all or nothing. With st (--stats) the
// document is read into memory, within maxLine (--max-frame-size), and
// decoded twice: as compact JSON into st's count of the value, and as the
// output, which st counts too.
func decodeTOON(in *cli.Input, br *bufio.Reader, out *cli.Output, t *TOONOptions, maxLine int, asRecords, compact bool, st *cli.Stats) error {
	out.HoldAll()
	opts := t.DecoderOptions(maxLine)
	if opts.Elements = asRecords; !asRecords && !compact {
		opts.JSONIndent = "  "
	}
	var src io.Reader = br
	var w io.Writer = out
	if st != nil {
		doc, err := records.ReadAll(br, in.Name, maxLine)
		if re := (*records.Error)(nil); errors.As(err, &re) && re.Kind == records.TooLarge {
			return cli.InvalidError(fmt.Errorf("%s: %w", in.Name, re.Err),
				"--stats reads the TOON document into memory; raise --max-frame-size if that is expected")
		}
		if err != nil {
			return cli.SourceError(err)
		}
		value := &withoutFinalNewline{w: st.DocumentWriter()} // the value alone, as encode --stats counts it
		if err := toonx.ToJSON(value, bytes.NewReader(doc), t.DecoderOptions(maxLine)); err != nil {
			return cli.TOONError(in.Name, out, err)
		}
		src, w = bytes.NewReader(doc), io.MultiWriter(out, st.Out)
	}
	if err := toonx.ToJSON(w, src, opts); err != nil {
		return cli.TOONError(in.Name, out, err)
	}
	return out.Err()
}

// withoutFinalNewline writes to w what is written to it but a line feed at
// the end.
type withoutFinalNewline struct {
	w  io.Writer
	nl bool // a line feed held back
}

func (x *withoutFinalNewline) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if x.nl {
		if _, err := x.w.Write([]byte{'\n'}); err != nil {
			return 0, err
		}
	}
	body := p
	if x.nl = p[len(p)-1] == '\n'; x.nl {
		body = p[:len(p)-1]
	}
	if _, err := x.w.Write(body); err != nil {
		return 0, err
	}
	return len(p), nil
}

// writeBatch writes a batch of records made by a worker pipeline (b, each
// record ending at one of ends) to out, or, for a JSON array, to array
// one record at a time.
func writeBatch(out *cli.Output, array *records.JSONSink, b []byte, ends []int) error {
	if array == nil {
		out.Write(b)
		return out.Err()
	}
	start := 0
	for _, end := range ends {
		array.Write(b[start:end])
		start = end
	}
	return out.Err()
}

// decodeCapture writes the frames of a packet capture (pcap or pcapng) as
// decode's records with their capture source, or to array; WebSocket text
// messages get a record of their own (not with --payload). Problems stop
// the run unless --keep-going; notes go to stderr. With -j N the payloads
// are checked and formatted on N workers (capture.Stream), the output the
// same.
func (d *decodeRun) capture(in *cli.Input, br *bufio.Reader) error {
	opts, rep, out, array := d.opts, d.rep, d.out, d.array
	sopts := capture.StreamOptions{
		Options: opts.CaptureFlags.Options(opts.MaxFrameSize),
		Workers: opts.Jobs,
		// A pipe (tcpdump -w - | toonkit decode): records go out as they come.
		Live:      !in.Regular(),
		LeaveRead: true,
		Append: func(dst []byte, r *capture.Record) []byte {
			switch {
			case opts.Payload && r.Kind == capture.Text:
				return dst
			case opts.Payload:
				dst = append(dst, r.JSON...)
			default:
				dst = capture.AppendRecord(dst, r)
			}
			if array == nil {
				dst = append(dst, '\n')
			}
			return dst
		},
	}
	// A file can be read again: the workers may check the frames that end
	// their segments too (capture.StreamOptions.Reopen).
	sopts.Reopen = capture.ReopenFile(in.File)
	h := capture.StreamHandler{
		Records: func(b []byte, ends []int, n int) error {
			d.frames += n
			return writeBatch(out, array, b, ends)
		},
		Other: func(r *capture.Record) error {
			if r.Kind == capture.Note {
				rep.Notef("%s: %v", in.Name, r.Err)
				return nil
			}
			return d.problem(cli.CaptureError(in.Name, r.Err, opts.KeepGoing), r.Err, r.Moved)
		},
		Idle: out.Flush,
	}
	err := capture.Stream(context.Background(), br, sopts, h)
	var fe *capture.FormatError
	if cerr, ok := cli.NoConnError(in.Name, err); ok {
		return cerr
	}
	switch {
	case err == nil:
	case errors.As(err, &fe):
		err = cli.InvalidError(fmt.Errorf("%s: %w", in.Name, err), "")
	case cli.IsExitError(err): // a problem, or the output failing
	default:
		err = cli.ReadError(in.Name, err)
	}
	return err
}

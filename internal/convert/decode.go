package convert

import (
	"bufio"
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
	line        []byte
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
		return decodeTOON(in, br, d.out, &opts.TOON, opts.MaxFrameSize, opts.As == codec.NDJSON, opts.Compact)
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
	case opts.Jobs > 1:
		return d.framesJobs(in, br)
	}
	return d.frameLoop(in, br)
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

// frameLoop decodes the frames of one input on one worker.
func (d *decodeRun) frameLoop(in *cli.Input, br *bufio.Reader) error {
	opts, out := d.opts, d.out
	rd := kado.NewReader(br, kado.ReaderOptions{MaxFrameSize: opts.MaxFrameSize})
	var stop error // the bad frame that ends the run
	err := rd.Each(opts.KeepGoing, kado.FrameHandler{
		Good: func(f *kado.Frame, js []byte) error {
			d.frames++
			d.line = writeFrame(out, d.array, opts.Payload, d.line, f, js)
			if out.Err() == nil && len(rd.Buffered()) == 0 && br.Buffered() == 0 {
				out.Flush()
			}
			return out.Err()
		},
		Bad: func(err error) error {
			stop = d.problem(cli.FrameError(in.Name, err, opts.KeepGoing), err, nil)
			return stop
		},
		Moved: func(err error, m kado.Moved) { cli.MoveNotes(d.rep.Notef, err, m) },
	})
	if err != nil && err != stop && err != out.Err() {
		err = cli.ReadError(in.Name, err) // not a frame's
	}
	return err
}

var newline, recordEnd = []byte("\n"), []byte("}\n")

// writeFrame writes a good frame's record (its payload alone with
// payloadOnly) to array or, as a line, to out, the payload not copied into
// a line; line is a buffer to reuse, returned.
func writeFrame(out *cli.Output, array *records.JSONSink, payloadOnly bool, line []byte, f *kado.Frame, js []byte) []byte {
	switch {
	case array != nil:
		line = appendOutput(line[:0], f, js, payloadOnly, false)
		array.Write(line)
	case payloadOnly:
		out.Write(js)
		out.Write(newline)
	default:
		line = kado.AppendRecord(line[:0], f.Header, f.Compressed(), nil)
		out.Write(line[:len(line)-1]) // the record up to its payload
		out.Write(js)
		out.Write(recordEnd)
	}
	return line
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
// root array, or the root value), all or nothing.
func decodeTOON(in *cli.Input, br *bufio.Reader, out *cli.Output, t *TOONOptions, maxLine int, records, compact bool) error {
	out.HoldAll()
	opts := t.DecoderOptions(maxLine)
	if opts.Elements = records; !records && !compact {
		opts.JSONIndent = "  "
	}
	if err := toonx.ToJSON(out, br, opts); err != nil {
		return cli.TOONError(in.Name, out, err)
	}
	return out.Err()
}

// framesJobs decodes the frames of one input on opts.Jobs workers
// (kado.DecodeStream) with the output and the messages of the
// single-worker loop (frameLoop).
func (d *decodeRun) framesJobs(in *cli.Input, br *bufio.Reader) error {
	opts, out, array := d.opts, d.out, d.array
	h := kado.StreamHandler{
		Records: func(b []byte, ends []int) error {
			d.frames += len(ends)
			return writeBatch(out, array, b, ends)
		},
		Large: func(f *kado.Frame, js []byte) error {
			// Written as the single-worker loop writes it: no copy.
			d.frames++
			writeFrame(out, array, opts.Payload, nil, f, js)
			return out.Err()
		},
		Bad: func(err error, moved kado.Moved) error {
			return d.problem(cli.FrameError(in.Name, err, opts.KeepGoing), err, &moved)
		},
		Idle: out.Flush,
	}
	err := kado.DecodeStream(context.Background(), br, kado.StreamOptions{MaxFrameSize: opts.MaxFrameSize,
		Workers: opts.Jobs, KeepGoing: opts.KeepGoing, Append: func(dst []byte, f *kado.Frame, js []byte) []byte {
			return appendOutput(dst, f, js, opts.Payload, array == nil)
		}, LeaveRead: true, Live: !in.Regular()}, h)
	if err != nil && !kado.IsFrameError(err) && err != out.Err() {
		if _, ok := err.(*cli.ExitError); !ok {
			err = cli.ReadError(in.Name, err)
		}
	}
	return err
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

// appendOutput appends what `toonkit decode` writes for the frame f whose
// payload is js (compact JSON, see Reader.JSON): its record
// (kado.AppendRecord), or with payloadOnly the payload alone; with line, a line
// end after it (NDJSON).
func appendOutput(dst []byte, f *kado.Frame, js []byte, payloadOnly, line bool) []byte {
	if payloadOnly {
		dst = append(dst, js...)
	} else {
		dst = kado.AppendRecord(dst, f.Header, f.Compressed(), js)
	}
	if line {
		dst = append(dst, '\n')
	}
	return dst
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

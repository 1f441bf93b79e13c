package cmd

import (
	"bufio"
	"fmt"
	"io"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/size"

	"github.com/spf13/cobra"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/kado"
)

// DecodeOptions are the options of `toonkit decode`.
type DecodeOptions struct {
	IO           *cli.IOStreams
	Inputs       []string
	From         string
	Payload      bool
	Output       string
	KeepGoing    bool
	Compact      bool // -c: JSON on one line (TOON text, -o FILE.json), as convert --to json -c
	MaxFrameSize int
	Jobs         int // workers for binary frames; 1 is the single-worker path
	CaptureFlags     // --port, --conn
	TOON         toonFlags
	// As is the JSON that -o FILE's extension asks for: codec.JSON (a
	// TOON document as itself, frames and rows as one array), codec.NDJSON
	// (one record per line, a TOON root array's elements too), or "" (no
	// such extension: a TOON document as itself, frames and rows NDJSON).
	As codec.Format
}

func newDecodeCmd(ios *cli.IOStreams, runF func(*DecodeOptions) error) *cobra.Command {
	opts := &DecodeOptions{IO: ios}
	maxSize := size.NewFlag("max-frame-size", "64MiB")
	c := &cobra.Command{
		Use:   "decode [FILE...|-]",
		Short: "Decode TOON text, binary TOON frames or a tabular TOON table to JSON",
		Long: `Decode reads Kado binary TOON frames, packet captures of them (pcap, pcapng),
Genesis A2A tables and TOON text, and writes JSON: one NDJSON line per frame
or row, and a TOON document as its JSON value. The format is detected, or
named with --from.

EXIT STATUS
  0  every frame decoded
  1  a frame broke a rule or its payload is not JSON; a TOON document is
     malformed
  2  usage error
  3  an input could not be read or the output could not be written

The full reference: docs/commands/decode.md, or man toonkit-decode.`,
		Example: `  # one NDJSON line per frame
  toonkit decode capture.bin

  # only the payloads, one JSON document per line
  toonkit decode --payload capture.bin > payloads.ndjson

  # the frames of a tcpdump capture, with their connection and time
  toonkit decode --port 7000 session.pcapng

  # the rows of a table, one object per line
  toonkit decode users.toon

  # TOON text back to indented JSON
  toonkit decode orders.toon -o orders.json

  # salvage what can be read from a damaged capture (exit status 1: it has bad frames)
  toonkit decode --keep-going damaged.bin -o frames.ndjson`,
		Args: cobra.ArbitraryArgs,
		RunE: func(c *cobra.Command, args []string) error {
			var err error
			if opts.Inputs, err = cli.InputNames(ios, args, c.CommandPath()); err != nil {
				return err
			}
			if opts.From != "" {
				f, err := codec.Parse(opts.From, codec.Binary, codec.Tabular, codec.TOON, codec.Pcap)
				if err != nil {
					return cli.UsageErrorf("decode reads binary frames, tables, TOON text and packet captures: --from binary, tabular, toon or pcap", "--from: %v", err)
				}
				opts.From = string(f)
			}
			if err := opts.TOON.check(c, false, opts.From == "" || opts.From == string(codec.TOON)); err != nil {
				return err
			}
			if opts.Jobs, err = cli.Workers(opts.Jobs); err != nil {
				return err
			}
			if err := opts.CaptureFlags.check(); err != nil {
				return err
			}
			if err := cli.SizeOf(maxSize, &opts.MaxFrameSize); err != nil {
				return err
			}
			if opts.As, err = decodeOutputFormat(opts.Output, opts.Inputs); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return runDecode(opts)
		},
	}
	f := c.Flags()
	f.StringVar(&opts.From, "from", "", "input format: binary (aliases kado, frame), tabular (alias a2a), toon or pcap (alias pcapng); detected when absent")
	opts.CaptureFlags.add(f)
	opts.TOON.add(f, false, true)
	f.BoolVar(&opts.Payload, "payload", false, "write only the payloads, one per line")
	f.StringVarP(&opts.Output, "output", "o", "", "write to `FILE` (replaced only when the run succeeds); - is stdout")
	f.BoolVarP(&opts.Compact, "compact", "c", false, "JSON on one line: TOON text's value, -o FILE.json's array (frames and rows are one a line already)")
	f.BoolVar(&opts.KeepGoing, "keep-going", false, "report bad frames, skip to the next plausible header and go on")
	f.Var(maxSize, "max-frame-size", "largest payload accepted, on the wire and decompressed")
	addJobsFlag(f, &opts.Jobs, "binary frames, packet captures and table rows")
	_ = c.RegisterFlagCompletionFunc("from", cobra.FixedCompletions(codec.Names(codec.Binary, codec.Tabular, codec.TOON, codec.Pcap), cobra.ShellCompDirectiveNoFileComp))
	return c
}

func runDecode(opts *DecodeOptions) error {
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

// decodeOutputFormat is the JSON that -o FILE's extension asks decode for
// (see DecodeOptions.As); an extension of a format decode does not write
// is a usage error, whose hint is the convert command that writes it.
func decodeOutputFormat(output string, inputs []string) (codec.Format, error) {
	f, _ := codec.FormatForExt(output)
	if f != codec.TOON && f != codec.Binary {
		return f, nil
	}
	args := ""
	for _, in := range inputs {
		args += " " + cli.ShellArg(in)
	}
	return "", cli.UsageErrorf(fmt.Sprintf("to write %s: toonkit convert --to %s%s -o %s", f, f, args, cli.ShellArg(output)),
		"-o %s names %s, which decode does not write: it writes JSON (.json, .ndjson or .jsonl)", output, f)
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

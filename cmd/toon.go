package cmd

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strings"
	"unsafe"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/toonkit/toonkit/pkg/codec"
	"github.com/toonkit/toonkit/pkg/codec/jsonv"
	"github.com/toonkit/toonkit/pkg/codec/toon"
	measure "github.com/toonkit/toonkit/pkg/stats"
)

// toonFlags are the flags of the official TOON encoding that encode,
// decode and convert share.
type toonFlags struct {
	delimiter string
	Delimiter toon.Delimiter
	Indent    int
	NoStrict  bool
	// Auto is --delimiter auto: the delimiter with the fewest tokens by
	// Tokenizer, said on stderr when Verbose.
	Auto      bool
	Tokenizer string
	Verbose   bool
}

// add adds --delimiter (when the command writes TOON), --indent, and
// --no-strict (when it reads TOON).
func (t *toonFlags) add(f *pflag.FlagSet, writes, reads bool) {
	if writes {
		f.StringVar(&t.delimiter, "delimiter", "comma", "TOON: delimiter of inline arrays and table rows: comma, tab, pipe, or auto (the fewest tokens by --tokenizer)")
	}
	f.IntVar(&t.Indent, "indent", toon.DefaultIndentSize, "TOON: spaces per indentation level")
	if reads {
		f.BoolVar(&t.NoStrict, "no-strict", false, "TOON input: skip the strict checks (counts, indentation: a tab is one level, duplicate keys: the last wins); no line is skipped")
	}
}

// check parses the flags and refuses them where no TOON is written
// (--delimiter) or read (--no-strict), or neither (--indent). reads is
// true when the input format is not known yet.
func (t *toonFlags) check(c *cobra.Command, writes, reads bool) error {
	set := func(name string) bool { return c.Flags().Changed(name) }
	var err error
	switch {
	case set("delimiter") && !writes:
		return usageErrorf("", "--delimiter applies to --to toon only")
	case set("no-strict") && !reads:
		return usageErrorf("", "--no-strict applies to TOON input (--from toon) only")
	case set("indent") && !writes && !reads:
		return usageErrorf("", "--indent applies to TOON input or output only")
	case t.Indent < 1 || t.Indent > 16:
		return usageErrorf("", "--indent: %d is out of range (1 to 16 spaces)", t.Indent)
	}
	if writes && t.auto() {
		t.Auto, t.Delimiter = true, toon.Comma
	} else if writes {
		if t.Delimiter, err = toon.ParseDelimiter(t.delimiter); err != nil {
			return usageErrorf("", "--delimiter: %v", err)
		}
	}
	return nil
}

// auto reports whether --delimiter is auto.
func (t *toonFlags) auto() bool { return strings.EqualFold(t.delimiter, "auto") }

func (t *toonFlags) encodeOptions() toon.EncodeOptions {
	return toon.EncodeOptions{IndentSize: t.Indent, Delimiter: t.Delimiter}
}

// encodeOptionsFor is encodeOptions, with the delimiter of --delimiter
// auto chosen for doc (pkg/stats.CheapestDelimiter), and said on stderr
// with --verbose. A document that is no JSON value keeps the comma: the
// encoder says what is wrong with it.
func (t *toonFlags) encodeOptionsFor(ios *IOStreams, doc *document) toon.EncodeOptions {
	opts := t.encodeOptions()
	if !t.Auto {
		return opts
	}
	value := doc.value
	if !doc.many && !jsonv.Valid(value) {
		if values, err := jsonValues(doc.name, value, len(value)+1); err == nil && len(values) > 1 {
			value = joinArray(values) // several values make an array
		}
	}
	d, rep, err := measure.CheapestDelimiter(value, t.Tokenizer, t.Indent, 1)
	if err != nil {
		return opts
	}
	opts.Delimiter = d
	if t.Verbose {
		var all []string
		for _, row := range rep.Rows {
			all = append(all, fmt.Sprintf("%s %d", strings.TrimPrefix(row.Format, "toon-"), row.Tokens[0]))
		}
		newReporter(ios).notef("delimiter auto: %s: the fewest tokens by %s (%s)", d, t.Tokenizer, strings.Join(all, ", "))
	}
	return opts
}

func (t *toonFlags) decodeOptions(maxLine int) toon.DecodeOptions {
	return toon.DecodeOptions{IndentSize: t.Indent, NonStrict: t.NoStrict, MaxLineSize: maxLine}
}

// runEncodeTOON writes the inputs as one TOON document: the one JSON value
// of a single input, or an array of every value read (NDJSON, several
// files). The document is held in memory, since TOON declares every
// array's length before its items.
func runEncodeTOON(opts *EncodeOptions) error {
	var st *stats
	if opts.Stats {
		var err error
		if st, err = newStats(opts.Tokenizer); err != nil {
			return err
		}
	}
	doc, err := readDocument(opts.IO, opts.Inputs, opts.MaxFrameSize, st == nil && !opts.TOON.Auto)
	if err != nil {
		return err
	}
	out := newOutput(opts.IO, opts.Output)
	return writeTOON(opts.IO, out, st, doc, opts.TOON.encodeOptionsFor(opts.IO, doc))
}

// document is the JSON value to encode as TOON and where it came from.
type document struct {
	name    string // the input, for messages
	value   []byte
	many    bool // value is checked JSON, or an array made of several values
	counted bool // the statistics have counted the input already
	// mapped is the file, mapped in memory, when value is yet to be read
	// from it (encodeMapped); file is the file itself, open, and limit the
	// most it may be read of it.
	mapped []byte
	file   *input
	limit  int
}

// utf8BOM is the UTF-8 byte order mark, which JSON and TOON readers skip.
var utf8BOM = []byte("\xEF\xBB\xBF")

// mapThreshold is the size from which a single input file may be mapped
// into memory rather than read: reading a file costs a page fault per 4 KiB
// of a new buffer, besides the copy.
const mapThreshold = 1 << 20

// readDocument reads the inputs as one JSON value. A single input holding
// one value is taken as it is and checked by the encoder itself (the fast
// path); several values make an array. With mapOK, a single regular file
// of mapThreshold bytes or more is mapped into memory instead of read.
func readDocument(ios *IOStreams, names []string, limit int, mapOK bool) (*document, error) {
	var values [][]byte
	var name string
	for _, n := range names {
		in, err := openInput(ios, n)
		if err != nil {
			return nil, err
		}
		name = in.Name
		if mapOK && len(names) == 1 && in.f != nil {
			if st, err := in.f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() >= mapThreshold && st.Size() <= int64(limit) {
				if m := mapFile(in.f, st.Size()); m != nil {
					return &document{name: name, mapped: m, file: in, limit: limit}, nil
				}
			}
		}
		data, err := readAllLimited(in, limit)
		in.Close()
		if err != nil {
			return nil, err
		}
		if len(names) == 1 {
			// Without its byte order mark, which the statistics' compact
			// JSON has no place for (toon.Encode skips one too).
			return &document{name: name, value: bytes.TrimPrefix(data, utf8BOM)}, nil
		}
		vs, err := jsonValues(in.Name, data, limit)
		if err != nil {
			return nil, err
		}
		values = append(values, vs...)
	}
	return &document{name: name, value: joinArray(values), many: true}, nil
}

// readAllLimited reads an input whole, refusing more than limit bytes.
func readAllLimited(in *input, limit int) ([]byte, error) {
	size := bytes.MinRead
	if in.f != nil {
		if st, err := in.f.Stat(); err == nil && st.Mode().IsRegular() && st.Size() < int64(limit) {
			// Room for the whole file and the read that sees its end, so
			// that the buffer is never grown (and copied) on the way.
			size = int(st.Size()) + bytes.MinRead
		}
	}
	buf := bytes.NewBuffer(make([]byte, 0, size))
	n, err := buf.ReadFrom(io.LimitReader(in.R, int64(limit)+1))
	if err != nil {
		return nil, readError(in.Name, err)
	}
	if n > int64(limit) {
		return nil, invalidError(fmt.Errorf("%s: the input passes the limit of %d bytes", in.Name, limit),
			"TOON output needs the whole document in memory; raise --max-frame-size if that is expected")
	}
	return buf.Bytes(), nil
}

// jsonValues splits a text into its JSON values, with positioned errors.
func jsonValues(name string, data []byte, limit int) ([][]byte, error) {
	jr := jsonv.NewReader(bytes.NewReader(data), jsonv.Options{MaxValueSize: int64(limit)})
	var out [][]byte
	for {
		v, _, err := jr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, jsonReadError(name, err)
		}
		out = append(out, bytes.Clone(v))
	}
}

func joinArray(values [][]byte) []byte {
	n := 2
	for _, v := range values {
		n += len(v) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '[')
	for i, v := range values {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, v...)
	}
	return append(b, ']')
}

// writeTOON encodes a document to out and commits it; nothing is written
// on failure. The document gets one final newline, as the reference CLI
// writes it (toon.Encode's text has none); the statistics count the
// document without it.
func writeTOON(ios *IOStreams, out *output, st *stats, doc *document, opts toon.EncodeOptions) error {
	err := encodeTOON(out, st, doc, opts)
	var ee *ExitError
	if err != nil && !doc.many && !errors.As(err, &ee) {
		// The fast path failed: find out why with the JSON reader, which
		// gives positions; several values make an array.
		values, verr := jsonValues(doc.name, doc.value, len(doc.value)+1)
		switch {
		case verr != nil:
			err = verr
		case len(values) != 1:
			out.Abort()
			out = newOutput(ios, out.path)
			err = encodeTOON(out, st, &document{name: doc.name, value: joinArray(values), many: true}, opts)
		}
	}
	if err != nil {
		out.Abort()
		if errors.As(err, &ee) {
			return err
		}
		return invalidError(fmt.Errorf("%s: %w", doc.name, err), "")
	}
	out.Write(newline) // a failure is Commit's to report
	if err := out.Commit(); err != nil {
		return err
	}
	if st != nil {
		return st.print(ios, codec.TOON)
	}
	return nil
}

func encodeTOON(out *output, st *stats, doc *document, opts toon.EncodeOptions) error {
	var w io.Writer = out
	if st != nil {
		w = io.MultiWriter(out, st.out)
	}
	if doc.mapped != nil {
		took, err := encodeMapped(w, doc, opts)
		if out.failed != nil {
			return out.failed
		}
		if took || err != nil {
			return err
		}
	}
	if err := toon.Encode(w, doc.value, opts); err != nil {
		if out.failed != nil {
			return out.failed
		}
		return err
	}
	if st != nil && !doc.counted {
		compact, err := jsonv.AppendCompact(nil, doc.value)
		if err != nil {
			return err
		}
		st.document(compact)
	}
	return out.failed
}

// encodeMapped encodes a document mapped in memory when it is a table
// (toon.EncodeTable reads a value that may change or be cut short while it
// reads it); otherwise it reads the file into the document's value, for
// toon.Encode. Either way the mapping and the file are closed on return.
func encodeMapped(w io.Writer, doc *document, opts toon.EncodeOptions) (took bool, err error) {
	m, in := doc.mapped, doc.file
	doc.mapped, doc.file = nil, nil
	defer in.Close()
	err = readMapped(doc.name, m, func() error {
		var err error
		took, err = toon.EncodeTable(w, m, opts)
		return err
	})
	unmapFile(m)
	if took || err != nil {
		return took, err
	}
	// Read rather than copied from the mapping, which would hold the file
	// twice for a while.
	doc.value, err = readAllLimited(in, doc.limit)
	return false, err
}

// readMapped runs f, which reads the mapped file m, and turns the fault of
// reading a page that the file no longer has (it was cut short meanwhile)
// into an error.
func readMapped(name string, m []byte, f func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok && len(m) > 0 {
			if a, base := fault.Addr(), uintptr(unsafe.Pointer(&m[0])); a >= base && a-base < uintptr(len(m)) {
				err = ioErrorf("cannot read %s: it was cut short while it was read", name)
				return
			}
		}
		panic(r)
	}()
	return f()
}

// decodeTOON writes one TOON document as JSON, indented as JSON.stringify
// does, or as NDJSON records (the elements of a root array, or the root
// value), all or nothing.
func decodeTOON(in *input, br *bufio.Reader, out *output, t *toonFlags, maxLine int, records bool) error {
	out.holdAll()
	opts := t.decodeOptions(maxLine)
	if records {
		opts.Elements = true
	} else {
		opts.JSONIndent = "  "
	}
	if err := toon.Decode(out, br, opts); err != nil {
		return toonError(in.Name, out, err)
	}
	return out.failed
}

// toonError makes a TOON decoding error a user-facing one: a syntax error
// with its line, column and excerpt, or a failed read or write.
func toonError(name string, out *output, err error) error {
	var se *jsonv.SyntaxError
	switch {
	case out != nil && out.failed != nil:
		return out.failed
	case errors.As(err, &se):
		return &ExitError{Code: ExitInvalid, Err: fmt.Errorf("%s:%w", name, se), Excerpt: se}
	}
	return readError(name, err)
}

// peekRootArray reports whether an input's document is an array: JSON
// starting with "[", or TOON whose first line that is not blank or a
// comment starts with "[". Other encodings hold records, an array. It
// peeks no further than the byte or line that decides, so that a live
// stream is not held back.
func peekRootArray(s *source) bool {
	if s.Format() != codec.JSON && s.Format() != codec.TOON {
		return true
	}
	br := s.Reader()
	for n := 1; ; {
		n = max(n, br.Buffered())
		p, err := br.Peek(n)
		array, decided := rootArray(s.Format(), p, err != nil)
		if decided || err != nil {
			return array
		}
		n = len(p) + 1
	}
}

// rootArray decides from the start p of a JSON or TOON document whether
// its root is an array; whole says p is all there is.
func rootArray(format codec.Format, p []byte, whole bool) (array, decided bool) {
	p = bytes.TrimPrefix(p, utf8BOM)
	if format == codec.JSON {
		t := jsonv.TrimSpace(p)
		return len(t) > 0 && t[0] == '[', len(t) > 0 || whole
	}
	for len(p) > 0 {
		line, rest, complete := bytes.Cut(p, []byte("\n"))
		t := bytes.TrimLeft(line, " ")
		switch {
		case len(bytes.TrimSpace(t)) == 0 || t[0] == '#':
			if !complete && !whole {
				return false, false // a blank or comment line, or not yet
			}
		default:
			return t[0] == '[', true
		}
		p = rest
	}
	return false, whole
}

// oneValue reports whether convert's input is one value that is not an
// array: the only input, JSON or TOON, whose root is not an array. Such a
// value is written as itself (--to json, toon, auto), not as an array of
// one record. An NDJSON stream is records, even of one line: --from ndjson
// or, detected, a file named .ndjson or .jsonl. (One line on standard input
// without --from is one value.)
func oneValue(opts *ConvertOptions, src *source) bool {
	if f, ok := codec.FormatForExt(src.Name()); ok && f == codec.NDJSON && opts.From == "" {
		return false
	}
	return len(opts.Inputs) == 1 && !peekRootArray(src)
}

// openConvertSource opens one of convert's inputs, a TOON one read with
// --indent and --no-strict whatever the output format.
func openConvertSource(opts *ConvertOptions, name string) (*source, error) {
	src, err := openSource(opts.IO, name, opts.From, opts.MaxFrameSize)
	if err != nil {
		return nil, err
	}
	src.TOON = opts.TOON.decodeOptions(opts.MaxFrameSize)
	return src, nil
}

// gatherTOON reads the records of convert's inputs as one document for
// TOON: the value itself when the only input is one JSON or TOON value that
// is not an array, an array of the records otherwise.
func gatherTOON(opts *ConvertOptions, st *stats) (*document, error) {
	var records [][]byte
	single := false
	doc := &document{many: true, counted: true}
	for _, n := range opts.Inputs {
		src, err := openConvertSource(opts, n)
		if err != nil {
			return nil, err
		}
		doc.name = src.Name()
		single = oneValue(opts, src)
		err = src.each(func(rec []byte) error {
			st.record(rec)
			records = append(records, bytes.Clone(rec))
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	if single && len(records) == 1 {
		doc.value = records[0]
	} else {
		doc.value = joinArray(records)
	}
	return doc, nil
}

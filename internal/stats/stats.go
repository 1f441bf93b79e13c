// Package stats measures what one JSON document costs in each format that
// toonkit writes: its bytes, characters and LLM tokens (internal/tokens) as
// compact JSON, as JSON indented by two spaces, as TOON with each
// delimiter, and as a Genesis tabular table when it converts to one
// without loss. It answers "which format is cheapest for this data, on
// this tokenizer".
//
// An array of records is measured record by record (a Meter, which
// Measure uses for a root array): in batches, on several workers, in
// memory bounded whatever the number of records, the counts of the
// batches joined exactly (tokens.Cuts). One value that is not an array is
// measured whole, each format written straight into the counters.
//
// The counts are those of the text that toonkit writes: compact JSON as
// `encode --stats` counts the input, TOON as `encode --to toon` writes it
// (without the final newline, as --stats counts it), the table and the
// indented JSON as `convert --to tabular` and `convert --to json` write
// them.
package stats

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/records"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/toon"
)

// The formats measured, in the order of a Report's rows.
const (
	JSON       = "json"
	JSONIndent = "json-indent"
	TOONComma  = "toon-comma"
	TOONTab    = "toon-tab"
	TOONPipe   = "toon-pipe"
	Tabular    = "tabular"
)

// Formats are the formats measured, in order.
var Formats = []string{JSON, JSONIndent, TOONComma, TOONTab, TOONPipe, Tabular}

// Options configure Measure.
type Options struct {
	// Tokenizers are the tokenizers counted with (tokens.Encodings when
	// empty).
	Tokenizers []string
	// Formats are the formats measured, a subset of Formats in any order
	// (all of them when empty); the rows keep the order of Formats.
	Formats []string
	// IndentSize is TOON's indentation (toon.MarshalOptions); 0 means 2.
	IndentSize int
	// Single: the document is one value to write as itself, not an array
	// of records, in the table (a table of one row) and the indented JSON
	// (records.JSONSink.Single). A document that is not an array is
	// always single.
	Single bool
	// Workers measure batches of records at once (internal/pipeline), or the
	// formats of a single value; 0 or 1 measures one at a time.
	Workers int
	// Progress, when set, is called as the records are measured (a
	// Meter's), in order, with the bytes of the records (compact JSON)
	// measured so far, on a goroutine of the Meter's; not for a document
	// measured whole (Single).
	Progress func(done int64)
}

// Row is one format's counts.
type Row struct {
	Format string `json:"format"`
	Bytes  int64  `json:"bytes"`
	Chars  int64  `json:"chars"`
	// Tokens are the token counts, one per tokenizer of the Report.
	Tokens []int64 `json:"tokens"`
	// Unavailable says why the data has no such form (a table that would
	// not read back as written); the counts are then zero.
	Unavailable string `json:"unavailable,omitempty"`
	// Note is what else is worth knowing of the form: a table whose cells
	// nest deeper than the A2A spec allows.
	Note string `json:"note,omitempty"`
}

// Report holds the counts of every format measured.
type Report struct {
	Tokenizers []string `json:"tokenizers"`
	Rows       []Row    `json:"formats"`
}

// Row returns the row of a format, or nil.
func (r *Report) Row(format string) *Row {
	for i := range r.Rows {
		if r.Rows[i].Format == format {
			return &r.Rows[i]
		}
	}
	return nil
}

// Cheapest returns the index of the row with the fewest tokens by
// tokenizer t (an index in Tokenizers), among the rows that have counts;
// the first such row wins a tie. It is -1 when no row has counts.
func (r *Report) Cheapest(t int) int {
	best := -1
	for i, row := range r.Rows {
		if row.Unavailable == "" && (best < 0 || row.Tokens[t] < r.Rows[best].Tokens[t]) {
			best = i
		}
	}
	return best
}

// WhyCheapest says in words why the row Cheapest(t) was chosen: its
// tokens by tokenizer t, the fewest, the tokens of the other rows, and the
// rows that have no counts, with why ("toon-tab: 120 tokens by o200k_base,
// the fewest (json 150, ...); not tabular: ..."). It is "" when no row has
// counts.
func (r *Report) WhyCheapest(t int) string {
	c := r.Cheapest(t)
	if c < 0 {
		return ""
	}
	var others, not []string
	for i, row := range r.Rows {
		switch {
		case row.Unavailable != "":
			not = append(not, fmt.Sprintf("%s: %s", row.Format, row.Unavailable))
		case i != c:
			others = append(others, fmt.Sprintf("%s %d", row.Format, row.Tokens[t]))
		}
	}
	best := r.Rows[c]
	why := fmt.Sprintf("%s: %d tokens by %s, the fewest (%s)", best.Format, best.Tokens[t], r.Tokenizers[t], strings.Join(others, ", "))
	if len(not) > 0 {
		why += "; not " + strings.Join(not, "; ")
	}
	return why
}

// Share returns the tokens of row i by tokenizer t as a share of those of
// compact JSON (1 is as many), and false when there is no compact JSON row
// or it has no tokens.
func (r *Report) Share(i, t int) (float64, bool) {
	base := r.Row(JSON)
	if base == nil || base.Tokens[t] == 0 || r.Rows[i].Unavailable != "" {
		return 0, false
	}
	return float64(r.Rows[i].Tokens[t]) / float64(base.Tokens[t]), true
}

// ErrNotJSON is returned by Measure for a document that is not valid JSON.
var ErrNotJSON = errors.New("the document is not valid JSON")

// Measure counts doc, one valid JSON value (in any formatting), in each
// format. It fails when a tokenizer is unknown or fails, or doc is not
// valid JSON. A root array (unless opts.Single) is measured record by
// record, as a Meter measures it.
func Measure(doc []byte, opts Options) (*Report, error) {
	if _, err := newReport(&opts); err != nil {
		return nil, err
	}
	if err := jsonv.Check(doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	doc = bytes.TrimPrefix(jsonv.TrimSpace(doc), []byte("\xEF\xBB\xBF"))
	if len(doc) == 0 || doc[0] != '[' || opts.Single {
		opts.Single = true
		return measureWhole(doc, opts)
	}
	m, err := NewMeter(opts)
	if err != nil {
		return nil, err
	}
	err = eachRecord(doc, false, m.Record)
	rep, cerr := m.Close()
	if err != nil {
		return nil, err
	}
	return rep, cerr
}

// measureWhole measures doc, one checked JSON value, as itself: each
// format a batch of the pipeline.
func measureWhole(doc []byte, opts Options) (*Report, error) {
	rep, err := newReport(&opts)
	if err != nil {
		return nil, err
	}
	next := 0
	read := func() (int, error) {
		if next == len(rep.Rows) {
			return 0, io.EOF
		}
		next++
		return next - 1, nil
	}
	work := func(i int) (int, error) { return i, measure(&rep.Rows[i], doc, opts) }
	write := func(int) error { return nil }
	if err := pipeline.Run(context.Background(), pipeline.Options{Workers: opts.Workers}, read, work, write); err != nil {
		return nil, err
	}
	return rep, nil
}

// counters counts one text with every tokenizer.
type counters []*tokens.Counter

func (cs counters) Write(p []byte) (int, error) {
	for _, c := range cs {
		if _, err := c.Write(p); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// measure fills row with the counts of doc in its format.
func measure(row *Row, doc []byte, opts Options) error {
	cs := make(counters, len(opts.Tokenizers))
	for i, t := range opts.Tokenizers {
		cs[i], _ = tokens.NewCounter(t)
	}
	row.Tokens = make([]int64, len(cs))
	why, err := encode(cs, doc, row.Format, opts, &row.Note)
	if why != "" {
		row.Unavailable = why
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", row.Format, err)
	}
	for i, c := range cs {
		n, err := c.Counts()
		if err != nil {
			return fmt.Errorf("counting tokens: %w", err)
		}
		row.Bytes, row.Chars, row.Tokens[i] = n.Bytes, n.Chars, n.Tokens
	}
	return nil
}

// Encode writes doc, one valid JSON value, in one of Formats, the text
// that Measure counts (opts.IndentSize and opts.Single apply): TOON and
// compact JSON without a final newline, the indented JSON and the table
// with one. For a table that would not read back as written, it writes
// nothing and unavailable says why.
func Encode(w io.Writer, doc []byte, format string, opts Options) (unavailable string, err error) {
	if err := jsonv.Check(doc); err != nil {
		return "", fmt.Errorf("%w: %v", ErrNotJSON, err)
	}
	doc = jsonv.TrimSpace(doc)
	if len(doc) == 0 || doc[0] != '[' {
		opts.Single = true
	}
	return encode(w, doc, format, opts, nil)
}

// encode writes doc in format; note, when not nil, is set to the
// format's Row.Note.
func encode(w io.Writer, doc []byte, format string, opts Options, note *string) (unavailable string, err error) {
	switch format {
	case JSON:
		return "", writeCompact(w, doc, opts.Single)
	case JSONIndent:
		return "", writeIndented(w, doc, opts.Single)
	case TOONComma, TOONTab, TOONPipe:
		return "", toon.FromJSON(w, doc, toon.MarshalOptions{IndentSize: opts.IndentSize, Delimiter: delimiters[format]})
	case Tabular:
		return writeTable(w, doc, opts.Single, note)
	}
	return "", fmt.Errorf("unknown format %q (supported: %v)", format, Formats)
}

// delimiters are the TOON formats' delimiters.
var delimiters = map[string]toon.Delimiter{TOONComma: toon.Comma, TOONTab: toon.Tab, TOONPipe: toon.Pipe}

// eachRecord calls f with the records of doc, compact: the elements of a
// root array, or doc itself when single.
func eachRecord(doc []byte, single bool, f func(rec []byte) error) error {
	var buf []byte
	if single {
		buf, _ = jsonv.AppendCompact(buf, doc)
		return f(buf)
	}
	for i := jsonv.SkipSpace(doc, 1); i < len(doc) && doc[i] != ']'; {
		end := jsonv.SkipValue(doc, i)
		if end <= i {
			return ErrNotJSON
		}
		buf, _ = jsonv.AppendCompact(buf[:0], doc[i:end])
		if err := f(buf); err != nil {
			return err
		}
		i = jsonv.SkipSpace(doc, end)
		if i < len(doc) && doc[i] == ',' {
			i = jsonv.SkipSpace(doc, i+1)
		}
	}
	return nil
}

// writeCompact writes doc as compact JSON, a record at a time.
func writeCompact(w io.Writer, doc []byte, single bool) error {
	if single {
		return eachRecord(doc, true, func(rec []byte) error { _, err := w.Write(rec); return err })
	}
	sep := []byte{'['}
	err := eachRecord(doc, false, func(rec []byte) error {
		if _, err := w.Write(sep); err != nil {
			return err
		}
		sep[0] = ','
		_, err := w.Write(rec)
		return err
	})
	if err != nil {
		return err
	}
	if sep[0] == '[' {
		_, err = w.Write([]byte("[]"))
	} else {
		_, err = w.Write([]byte{']'})
	}
	return err
}

// writeIndented writes doc as convert --to json does.
func writeIndented(w io.Writer, doc []byte, single bool) error {
	s := &records.JSONSink{W: w, Single: single}
	if err := eachRecord(doc, single, s.Write); err != nil {
		return err
	}
	return s.End()
}

// writeTable writes doc as convert --to tabular does, or says why it does
// not convert without loss.
func writeTable(w io.Writer, doc []byte, single bool, note *string) (why string, err error) {
	var tw tabular.RowWriter
	var rows, line []byte
	losses := tabular.Losses{Max: 1}
	lossy := func(l tabular.Lossy) { losses.Add("", l) }
	notObject := ""
	err = eachRecord(doc, single, func(rec []byte) error {
		var err error
		line, err = tw.AppendRow(line[:0], rec, lossy)
		if errors.Is(err, tabular.ErrNotObject) {
			notObject = fmt.Sprintf("record %d: %v", tw.Report().Rows+1, err)
			return err
		}
		rows = append(rows, line...)
		return err
	})
	if notObject != "" {
		return notObject, nil
	}
	if err != nil {
		return "", err
	}
	r := tw.Report()
	if r.Lossy > 0 {
		return lossyWhy(r, &losses), nil
	}
	if note != nil {
		*note = deepNote(r)
	}
	return "", tw.Finish(w, bytes.NewReader(rows), nil)
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// AppendJSON appends the report as a JSON document indented by two
// spaces, with a final newline: the tokenizers, a member per format with
// its bytes, chars and tokens (by tokenizer) or why it is unavailable, and
// the cheapest format by each tokenizer.
func (r *Report) AppendJSON(dst []byte) []byte {
	var b []byte
	str := func(s string) { b, _ = jsontext.AppendQuote(b, s) }
	b = append(b, `{"tokenizers":[`...)
	for i, t := range r.Tokenizers {
		if i > 0 {
			b = append(b, ',')
		}
		str(t)
	}
	b = append(b, `],"formats":[`...)
	for i, row := range r.Rows {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"format":`...)
		str(row.Format)
		if row.Unavailable != "" {
			b = append(b, `,"unavailable":`...)
			str(row.Unavailable)
			b = append(b, '}')
			continue
		}
		b = fmt.Appendf(b, `,"bytes":%d,"chars":%d,`, row.Bytes, row.Chars)
		if row.Note != "" {
			b = append(b, `"note":`...)
			str(row.Note)
			b = append(b, ',')
		}
		b = append(b, `"tokens":{`...)
		for t, name := range r.Tokenizers {
			if t > 0 {
				b = append(b, ',')
			}
			str(name)
			b = fmt.Appendf(b, ":%d", row.Tokens[t])
		}
		b = append(b, "}}"...)
	}
	b = append(b, `],"cheapest":{`...)
	for t, name := range r.Tokenizers {
		if t > 0 {
			b = append(b, ',')
		}
		str(name)
		b = append(b, ':')
		if i := r.Cheapest(t); i >= 0 {
			str(r.Rows[i].Format)
		} else {
			b = append(b, "null"...)
		}
	}
	b = append(b, "}}"...)
	return append(jsonv.AppendIndent(dst, b, "", "  "), '\n')
}

// Bar draws a bar of frac (0 to 1) of width cells with Unicode block
// characters, in eighths of a cell: a share above 0 shows at least an
// eighth.
func Bar(frac float64, width int) string {
	eighths := int(frac*float64(width*8) + 0.5)
	eighths = min(max(eighths, 0), width*8)
	if eighths == 0 && frac > 0 {
		eighths = 1
	}
	var b strings.Builder
	b.WriteString(strings.Repeat("█", eighths/8))
	if r := eighths % 8; r > 0 {
		b.WriteRune([]rune("▏▎▍▌▋▊▉")[r-1])
	}
	return b.String()
}

// CheapestDelimiter returns the TOON delimiter with which doc, one JSON
// value, costs the fewest tokens by the tokenizer (comma on a tie, then
// tab), and the report of the three TOON rows it chose from. indentSize is
// TOON's indentation (0 means 2).
func CheapestDelimiter(doc []byte, tokenizer string, indentSize, workers int) (toon.Delimiter, *Report, error) {
	rep, err := Measure(doc, Options{Tokenizers: []string{tokenizer}, Formats: []string{TOONComma, TOONTab, TOONPipe},
		IndentSize: indentSize, Workers: workers})
	if err != nil {
		return toon.Comma, nil, err
	}
	return delimiters[rep.Rows[rep.Cheapest(0)].Format], rep, nil
}

// Default are the formats measured, and chosen from, unless others are
// asked for: every one but the Genesis table, which is no TOON (the
// reference TOON tools reject it) and is measured only when it is asked
// for, or when the input is a table already (Among).
var Default = []string{JSON, JSONIndent, TOONComma, TOONTab, TOONPipe}

// Among returns the formats to measure: those asked for (ParseAmong's),
// or Default and, when the input is a Genesis table (table), the table.
func Among(asked []string, table bool) []string {
	switch {
	case len(asked) > 0:
		return asked
	case table:
		return Formats
	}
	return Default
}

// ParseAmong parses a list of formats, each one of Formats, "toon" (the
// three delimiters of TOON) or "all" (every format), as --among gives
// them (comma-separated, or one per flag): the formats named, in the order
// of Formats.
func ParseAmong(list []string) ([]string, error) {
	want := map[string]bool{}
	for _, item := range list {
		for _, name := range strings.Split(item, ",") {
			name = strings.ToLower(strings.TrimSpace(name))
			switch {
			case name == "all":
				for _, f := range Formats {
					want[f] = true
				}
			case name == "toon":
				want[TOONComma], want[TOONTab], want[TOONPipe] = true, true, true
			case slices.Contains(Formats, name):
				want[name] = true
			default:
				return nil, fmt.Errorf("unknown format %q (supported: %s, toon, all)", name, strings.Join(Formats, ", "))
			}
		}
	}
	var out []string
	for _, f := range Formats {
		if want[f] {
			out = append(out, f)
		}
	}
	return out, nil
}

package stats

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/codec/tabular"
	"github.com/toonkit/toonkit/internal/pipeline"
	"github.com/toonkit/toonkit/internal/tokens"
	"github.com/toonkit/toonkit/toon"
)

// A Meter measures an array of records given to it one at a time, in
// memory bounded whatever their number: the records are cut into batches
// (of batchBytes), and each batch is written in every format and its text
// counted on the workers (internal/pipeline, Options.Workers), the batches'
// counts joined in input order.
//
// Token counts of texts counted apart add up only where the tokenizer's
// pre-tokenizer cannot match across the join (tokens.Cuts): a batch's text
// is counted from its first such place to its last on a worker, and what
// lies before and after (a few bytes) is counted in order, with the end of
// the batch before, so that the sum is the count of the whole text,
// whatever the tokenizer makes of the joins between records.
//
// Two formats write a header before the records that depends on all of
// them: the table (its keys) and TOON (the number of records, and the form
// of the array). The text before a format's first place to cut is held
// until the end, and counted then after the header. TOON's form (a table
// of rows, a list of items or one line of primitives) is that of the first
// batch; a batch that does not fit it (an object whose keys differ, a
// nested value) turns the array into a list from then on, and the records
// before, kept for that (in memory up to spoolMem, then in a temporary
// file), are counted again as list items at the end.
//
// Memory: the batches in flight (Workers+2 of batchBytes each, or of one
// record when a record is larger, and their texts in each format),
// each tokenizer's tables, and the text of a format from its start to its
// first place to cut (a few bytes, unless the text holds no letter, digit
// or line feed at all, which the tokenizer itself would count whole).
type Meter struct {
	opts  Options
	rep   *Report
	index map[string]int // the row of each format

	// The caller's side: records into batches, and the table's rows.
	cur   *batch
	n     int64 // records so far
	seed  []byte
	table struct {
		w       tabular.RowWriter
		losses  tabular.Losses
		why     string // a record the table refuses (not an object)
		lossy   func(tabular.Lossy)
		lost    int64 // cells reported lossy
		keys    int   // the keys of the first record
		stopped bool  // no more rows are written: the table is not available
		partial bool  // the lossy cells are counted no further
		scratch []byte
	}
	single  []byte
	isDoc   bool
	ch      chan *batch
	done    chan struct{}
	err     error // the pipeline's, once done is closed
	closed  bool
	pool    chan []*tokens.Counter // the workers' counters
	toonAll atomic.Bool            // TOON is a list: batches are encoded as items

	// The writer's side (the pipeline's write, in order).
	streams [][]*stream // by row, by tokenizer
	toon    []toonState // by row (TOON rows)
	spool   spool
	counted int64 // bytes of records counted

	// held is the bytes of records in batches sent and not yet written;
	// maxHeld the most it was (for the tests of the bound).
	held, maxHeld atomic.Int64
}

// maxLossyKeys is the number of keys of a lossy table beyond which its
// lossy cells are no longer counted.
const maxLossyKeys = 4096

// batchBytes is the size of a batch of records (a variable for the tests).
var batchBytes = 128 << 10

// spoolMem is the size up to which the records kept for TOON are held in
// memory, not in a temporary file (a variable for the tests).
var spoolMem = 4 << 20

type batch struct {
	first int64  // the index of the first record
	recs  []byte // the records, compact, each followed by a line feed
	table []byte // the table's rows of the records (nil: none)
	texts [][]byte
	segs  [][]segment // by row, by tokenizer
	forms []string    // TOON rows: the form of the batch's text
	heads []string    // and the header after the count
}

// segment is one tokenizer's count of a text between its first and last
// place to cut; raw says the text has none.
type segment struct {
	first, last int
	mid         tokens.Counts
	raw         bool
}

// stream joins the counts of one format's batches, by one tokenizer.
type stream struct {
	pre     []byte // the text before its first place to cut
	started bool
	seq     *tokens.Counter // the text around the joins
	mid     tokens.Counts
}

// toonState is a TOON row's form and header.
type toonState struct {
	form  string // "" (no batch yet), "inline", "list" or "table"
	head  string // the header after the count, as splitTOON gives it
	broke bool   // a list since a batch after the first: the records before are in the spool
	upto  int64  // and how many they are
}

// NewMeter returns a Meter of the records to come. It fails when a
// tokenizer or a format is unknown.
func NewMeter(opts Options) (*Meter, error) {
	rep, err := newReport(&opts)
	if err != nil {
		return nil, err
	}
	m := &Meter{opts: opts, rep: rep, index: map[string]int{}}
	for i, r := range rep.Rows {
		m.index[r.Format] = i
	}
	m.table.losses.Max = 1
	m.table.lossy = func(l tabular.Lossy) { m.table.lost++; m.table.losses.Add("", l) }
	return m, nil
}

// newReport checks the options and makes the report's rows.
func newReport(opts *Options) (*Report, error) {
	if len(opts.Tokenizers) == 0 {
		opts.Tokenizers = tokens.Encodings
	}
	for _, t := range opts.Tokenizers {
		if _, err := tokens.NewCounter(t); err != nil {
			return nil, err
		}
	}
	want := opts.Formats
	if len(want) == 0 {
		want = Formats
	}
	rep := &Report{Tokenizers: opts.Tokenizers}
	for _, f := range Formats {
		for _, w := range want {
			if w == f {
				rep.Rows = append(rep.Rows, Row{Format: f, Tokens: make([]int64, len(opts.Tokenizers))})
			}
		}
	}
	if len(rep.Rows) != len(want) {
		return nil, fmt.Errorf("unknown format in %q (supported: %v)", want, Formats)
	}
	return rep, nil
}

// Record measures rec, one valid compact JSON value, as the next element
// of the array. It fails when measuring failed (the error Close returns).
//
// With Options.Single, the first record is held: when it is the only
// one, Close measures it as itself (as convert writes the one value of an
// input); a second record makes the data an array of them all.
func (m *Meter) Record(rec []byte) error {
	if m.opts.Single {
		if !m.isDoc {
			m.single, m.isDoc = append(m.single[:0], rec...), true
			return nil
		}
		m.opts.Single, m.isDoc = false, false
		if err := m.Record(m.single); err != nil {
			return err
		}
		m.single = nil
	}
	if m.ch == nil {
		m.start()
	}
	if m.n == 0 {
		m.seed = append(m.seed, rec...)
	}
	if m.cur == nil {
		m.cur = &batch{first: m.n}
	}
	b := m.cur
	b.recs = append(append(b.recs, rec...), '\n')
	m.tableRow(b, rec)
	m.n++
	if len(b.recs) >= batchBytes {
		return m.send()
	}
	return nil
}

// tableRow writes the table's row of rec into b while the table reads
// back without loss: every record an object with the keys of the first,
// and every cell read back as it is.
func (m *Meter) tableRow(b *batch, rec []byte) {
	t := &m.table
	if _, ok := m.index[Tabular]; !ok || t.why != "" || t.partial {
		return
	}
	if t.stopped && len(t.w.Keys()) > maxLossyKeys {
		// A lossy table of ever new keys: its writer's keys would grow
		// with the input. The cells are counted no further.
		t.partial = true
		return
	}
	dst := b.table
	if t.stopped {
		dst = t.scratch[:0]
	}
	row, err := t.w.AppendRow(dst, rec, t.lossy)
	if err != nil {
		// Not an object (or, were it possible, no valid one): no table.
		t.why = fmt.Sprintf("record %d: %v", m.n+1, err)
		t.stopped = true
		return
	}
	if m.n == 0 {
		t.keys = len(t.w.Keys())
	}
	if t.stopped || t.lost > 0 || len(t.w.Keys()) != t.keys {
		t.stopped = true
		t.scratch = row[:0]
		return
	}
	b.table = row
}

func (m *Meter) send() error {
	b := m.cur
	m.cur = nil
	if m.table.stopped || m.table.why != "" {
		b.table = nil
	} else if b.table == nil {
		b.table = []byte{}
	}
	if h := m.held.Add(int64(len(b.recs))); h > m.maxHeld.Load() {
		m.maxHeld.Store(h)
	}
	select {
	case m.ch <- b:
		return nil
	case <-m.done:
		return m.err
	}
}

// start runs the pipeline, fed by Record.
func (m *Meter) start() {
	m.ch = make(chan *batch)
	m.done = make(chan struct{})
	workers := max(m.opts.Workers, 1)
	m.pool = make(chan []*tokens.Counter, workers)
	m.streams = make([][]*stream, len(m.rep.Rows))
	for i := range m.streams {
		m.streams[i] = make([]*stream, len(m.opts.Tokenizers))
		for t, name := range m.opts.Tokenizers {
			c, _ := tokens.NewCounter(name)
			m.streams[i][t] = &stream{seq: c}
		}
	}
	m.toon = make([]toonState, len(m.rep.Rows))
	read := func() (*batch, error) {
		b, ok := <-m.ch
		if !ok {
			return nil, io.EOF
		}
		return b, nil
	}
	go func() {
		m.err = pipeline.Run(context.Background(), pipeline.Options{Workers: m.opts.Workers, InFlight: m.opts.Workers + 2}, read, m.work, m.write)
		close(m.done)
		for range m.ch { // let Record and Close go on
		}
	}()
}

// counters takes a worker's counters, one per tokenizer.
func (m *Meter) counters() []*tokens.Counter {
	select {
	case cs := <-m.pool:
		return cs
	default:
	}
	cs := make([]*tokens.Counter, len(m.opts.Tokenizers))
	for i, name := range m.opts.Tokenizers {
		cs[i], _ = tokens.NewCounter(name)
	}
	return cs
}

// work writes the batch in each format and counts the texts.
func (m *Meter) work(b *batch) (*batch, error) {
	cs := m.counters()
	defer func() {
		select {
		case m.pool <- cs:
		default:
		}
	}()
	b.texts = make([][]byte, len(m.rep.Rows))
	b.segs = make([][]segment, len(m.rep.Rows))
	b.forms = make([]string, len(m.rep.Rows))
	b.heads = make([]string, len(m.rep.Rows))
	for i, row := range m.rep.Rows {
		var text []byte
		switch row.Format {
		case JSON:
			text = m.compactText(b)
		case JSONIndent:
			text = m.indentText(b)
		case TOONComma, TOONTab, TOONPipe:
			var err error
			if text, b.forms[i], b.heads[i], err = m.toonText(b, delimiters[row.Format], m.toonAll.Load()); err != nil {
				return b, fmt.Errorf("%s: %w", row.Format, err)
			}
		case Tabular:
			if b.table == nil {
				continue
			}
			text = b.table
		}
		b.texts[i] = text
		b.segs[i] = countSegments(cs, text)
	}
	return b, nil
}

// countSegments counts text, by each of cs, between its first and last
// place to cut.
func countSegments(cs []*tokens.Counter, text []byte) []segment {
	segs := make([]segment, len(cs))
	first, last := tokens.Cuts(text)
	for t, c := range cs {
		if first < 0 {
			segs[t].raw = true
			continue
		}
		before, _ := c.Counts()
		c.Write(text[first:last])
		after, _ := c.Counts()
		segs[t] = segment{first: first, last: last, mid: tokens.Counts{
			Bytes: after.Bytes - before.Bytes, Chars: after.Chars - before.Chars, Tokens: after.Tokens - before.Tokens}}
	}
	return segs
}

// records calls f with each record of b.
func (b *batch) records(f func(rec []byte)) {
	for r := b.recs; len(r) > 0; {
		i := bytes.IndexByte(r, '\n')
		f(r[:i])
		r = r[i+1:]
	}
}

func (m *Meter) compactText(b *batch) []byte {
	text := make([]byte, 0, len(b.recs)+1)
	g := b.first
	b.records(func(rec []byte) {
		if g == 0 {
			text = append(text, '[')
		} else {
			text = append(text, ',')
		}
		text = append(text, rec...)
		g++
	})
	return text
}

func (m *Meter) indentText(b *batch) []byte {
	text := make([]byte, 0, 2*len(b.recs))
	g := b.first
	b.records(func(rec []byte) {
		if g == 0 {
			text = append(text, "[\n  "...)
		} else {
			text = append(text, ",\n  "...)
		}
		text = jsonv.AppendIndent(text, rec, "  ", "  ")
		g++
	})
	return text
}

// toonText writes the batch as the items of a root TOON array, and says
// in which form, and the array's header after its count (with the
// delimiter, `]: `, `]:` or `]{fields}:`): "inline" (primitives on the
// header's line: the text starts with the delimiter but in the first
// batch), "list" (list items), or "table" (rows). Objects are written as
// rows after the first record of all (so that the rows take its keys'
// order), whose row is dropped again. list says to write list items.
func (m *Meter) toonText(b *batch, d toon.Delimiter, list bool) (text []byte, form, head string, err error) {
	prims, objects := true, true
	b.records(func(rec []byte) {
		prims = prims && rec[0] != '{' && rec[0] != '['
		objects = objects && rec[0] == '{'
	})
	opts := toon.MarshalOptions{IndentSize: m.opts.IndentSize, Delimiter: d}
	switch {
	case !list && prims:
		text, err := encodeArray(nil, b, nil, opts)
		if err != nil {
			return nil, "", "", err
		}
		head, body, err := splitTOON(text)
		if err != nil || !strings.HasSuffix(head, ": ") {
			return nil, "", "", fmt.Errorf("unexpected TOON of primitives: %.60q", text)
		}
		if b.first > 0 {
			body = append([]byte{byte(d)}, body...)
		}
		return body, "inline", head, nil
	case !list && objects:
		var seed []byte
		if b.first > 0 {
			seed = m.seed
		}
		text, err := encodeArray(seed, b, nil, opts)
		if err != nil {
			return nil, "", "", err
		}
		head, body, err := splitTOON(text)
		if err != nil {
			return nil, "", "", err
		}
		if j := strings.IndexByte(head, ']'); j >= 0 && strings.HasPrefix(head[j:], "]{") {
			if seed != nil {
				// Drop the first record's row.
				i := bytes.IndexByte(body[1:], '\n')
				if i < 0 {
					return nil, "", "", fmt.Errorf("unexpected TOON table: %.60q", text)
				}
				body = body[1+i:]
			}
			return body, "table", head, nil
		}
		if seed == nil {
			return body, "list", head, nil
		}
	}
	// A list: the records and an empty object after them, which makes one
	// (no table has an empty object beside others, no line of primitives
	// an object), whose item, a hyphen alone, is dropped.
	ind := m.opts.IndentSize
	if ind == 0 {
		ind = toon.DefaultIndentSize
	}
	last := "\n" + strings.Repeat(" ", ind) + "-"
	text, err = encodeArray(nil, b, []byte("{}"), opts)
	if err != nil {
		return nil, "", "", err
	}
	head, body, err := splitTOON(text)
	if err != nil || !bytes.HasSuffix(body, []byte(last)) {
		return nil, "", "", fmt.Errorf("unexpected TOON list: %.60q", text)
	}
	return body[:len(body)-len(last)], "list", head, nil
}

// encodeArray writes the array of before, b's records and after as TOON.
func encodeArray(before []byte, b *batch, after []byte, opts toon.MarshalOptions) ([]byte, error) {
	arr := make([]byte, 0, len(before)+len(b.recs)+len(after)+2)
	arr = append(arr, '[')
	if before != nil {
		arr = append(append(arr, before...), ',')
	}
	b.records(func(rec []byte) { arr = append(append(arr, rec...), ',') })
	if after != nil {
		arr = append(arr, after...)
	} else {
		arr = arr[:len(arr)-1]
	}
	arr = append(arr, ']')
	var out bytes.Buffer
	if err := toon.FromJSON(&out, arr, opts); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// splitTOON splits the TOON of a non-empty root array into its header
// after the count (`]: ` with primitives, `]:` or `]{fields}:`, with the
// delimiter before the bracket) and what follows.
func splitTOON(text []byte) (head string, body []byte, err error) {
	i := 1
	for i < len(text) && text[i] >= '0' && text[i] <= '9' {
		i++
	}
	if len(text) == 0 || text[0] != '[' || i == 1 {
		return "", nil, fmt.Errorf("unexpected TOON array: %.60q", text)
	}
	end := bytes.IndexByte(text, '\n')
	if end < 0 {
		// Primitives on one line.
		j := bytes.Index(text[i:], []byte("]: "))
		if j < 0 || j > 1 {
			return "", nil, fmt.Errorf("unexpected TOON array: %.60q", text)
		}
		return string(text[i : i+j+3]), text[i+j+3:], nil
	}
	return string(text[i:end]), text[end:], nil
}

// write joins a batch's counts to those before it, in order.
func (m *Meter) write(b *batch) error {
	var cs []*tokens.Counter
	defer func() {
		if cs != nil {
			select {
			case m.pool <- cs:
			default:
			}
		}
	}()
	for i := range m.rep.Rows {
		text, segs := b.texts[i], b.segs[i]
		if segs == nil {
			continue // the table is not available
		}
		if d, ok := delimiters[m.rep.Rows[i].Format]; ok {
			st := &m.toon[i]
			form := b.forms[i]
			switch {
			case st.form == "":
				st.form, st.head = form, b.heads[i]
			case st.form != "list" && (form != st.form || b.heads[i] != st.head):
				// The array is no table (or line) after all: a list, from
				// this batch on; the records before are counted again at
				// the end.
				st.form, st.head, st.broke, st.upto = "list", listHead(d), true, b.first
				for t, s := range m.streams[i] {
					s.seq, _ = tokens.NewCounter(m.opts.Tokenizers[t])
					*s = stream{seq: s.seq}
				}
			}
			if st.form == "list" {
				m.toonAll.Store(true)
				if form != "list" {
					if cs == nil {
						cs = m.counters()
					}
					var err error
					if text, _, _, err = m.toonText(b, d, true); err != nil {
						return fmt.Errorf("%s: %w", m.rep.Rows[i].Format, err)
					}
					segs = countSegments(cs, text)
				}
			}
		}
		for t, s := range m.streams[i] {
			s.add(segs[t], text)
		}
	}
	// The records are kept while TOON's array may yet turn into a list.
	if m.keepForTOON() {
		if err := m.spool.add(b.recs); err != nil {
			return err
		}
	}
	m.counted += int64(len(b.recs))
	m.held.Add(-int64(len(b.recs)))
	if m.opts.Progress != nil {
		m.opts.Progress(m.counted)
	}
	return nil
}

// listHead is the header after the count of a list.
func listHead(d toon.Delimiter) string {
	if d == toon.Comma {
		return "]:"
	}
	return string(d) + "]:"
}

// keepForTOON reports whether a TOON row might yet turn into a list.
func (m *Meter) keepForTOON() bool {
	for i, row := range m.rep.Rows {
		if _, ok := delimiters[row.Format]; ok && m.toon[i].form != "list" {
			return true
		}
	}
	return false
}

// add joins a batch's text and count.
func (s *stream) add(seg segment, text []byte) {
	if seg.raw {
		if s.started {
			s.seq.Write(text)
		} else {
			s.pre = append(s.pre, text...)
		}
		return
	}
	if s.started {
		s.seq.Write(text[:seg.first])
		s.seq.Counts() // counts what is pending: the text is cut there
	} else {
		s.pre = append(s.pre, text[:seg.first]...)
		s.started = true
	}
	s.mid.Bytes += seg.mid.Bytes
	s.mid.Chars += seg.mid.Chars
	s.mid.Tokens += seg.mid.Tokens
	s.seq.Write(text[seg.last:])
}

// total is the count of head, the stream's text and tail, by counter c
// (fresh, of the stream's tokenizer).
func (s *stream) total(c *tokens.Counter, head []byte, front func(w io.Writer) error, tail []byte) (tokens.Counts, error) {
	c.Write(head)
	if front != nil {
		if err := front(c); err != nil {
			return tokens.Counts{}, err
		}
	}
	c.Write(s.pre)
	if s.started {
		s.seq.Write(tail)
	} else {
		c.Write(tail)
	}
	a, err := c.Counts()
	if err != nil {
		return a, err
	}
	b, err := s.seq.Counts()
	if err != nil {
		return a, err
	}
	return tokens.Counts{Bytes: a.Bytes + b.Bytes + s.mid.Bytes, Chars: a.Chars + b.Chars + s.mid.Chars,
		Tokens: a.Tokens + b.Tokens + s.mid.Tokens}, nil
}

// Close measures what is left and returns the report.
func (m *Meter) Close() (*Report, error) {
	if m.closed {
		return nil, errors.New("stats: Meter closed twice")
	}
	m.closed = true
	defer m.spool.close()
	if m.isDoc {
		opts := m.opts
		opts.Single = true
		return measureWhole(m.single, opts)
	}
	if m.ch == nil {
		m.start()
	}
	if m.cur != nil {
		if err := m.send(); err != nil {
			close(m.ch)
			<-m.done
			return nil, err
		}
	}
	close(m.ch)
	<-m.done
	if m.err != nil {
		return nil, m.err
	}
	for i := range m.rep.Rows {
		if err := m.finish(i); err != nil {
			return nil, fmt.Errorf("%s: %w", m.rep.Rows[i].Format, err)
		}
	}
	return m.rep, nil
}

// finish counts a row's header and end with its text.
func (m *Meter) finish(i int) error {
	row := &m.rep.Rows[i]
	var head, tail []byte
	var front func(w io.Writer) error
	switch row.Format {
	case JSON:
		tail = []byte("]")
		if m.n == 0 {
			tail = []byte("[]")
		}
	case JSONIndent:
		tail = []byte("\n]\n")
		if m.n == 0 {
			tail = []byte("[]\n")
		}
	case TOONComma, TOONTab, TOONPipe:
		st := m.toon[i]
		if m.n == 0 {
			tail = []byte("[]")
			break
		}
		d := delimiters[row.Format]
		head = fmt.Appendf(nil, "[%d%s", m.n, st.head)
		if st.broke {
			front = func(w io.Writer) error {
				return m.spool.each(st.upto, func(b *batch) error {
					text, _, _, err := m.toonText(b, d, true)
					if err != nil {
						return err
					}
					_, err = w.Write(text)
					return err
				})
			}
		}
	case Tabular:
		r := m.table.w.Report()
		switch {
		case m.table.why != "":
			row.Unavailable = m.table.why
		case r.Lossy > 0:
			row.Unavailable = lossyWhy(r, &m.table.losses)
			if m.table.partial {
				row.Unavailable = fmt.Sprintf("%s, in the first %d records", row.Unavailable, r.Rows)
			}
		}
		if row.Unavailable != "" {
			row.Tokens = make([]int64, len(m.opts.Tokenizers))
			return nil
		}
		head = tabular.AppendHeader(nil, r.Keys)
		row.Note = deepNote(r)
	}
	for t, s := range m.streams[i] {
		c, _ := tokens.NewCounter(m.opts.Tokenizers[t])
		n, err := s.total(c, head, front, tail)
		if err != nil {
			return err
		}
		row.Bytes, row.Chars, row.Tokens[t] = n.Bytes, n.Chars, n.Tokens
	}
	return nil
}

// lossyWhy says why a table does not read back: how many cells, and the
// first.
func lossyWhy(r tabular.Report, ls *tabular.Losses) string {
	why := fmt.Sprintf("%d %s would not read back as written", r.Lossy, plural(r.Lossy, "cell", "cells"))
	if first := ls.First(r, func(int) string { return "" }); len(first) > 0 {
		why += fmt.Sprintf(" (the first: record %d, %s)", first[0].Row+1, lossText(first[0].Lossy))
	}
	return why
}

// deepNote says that a table's cells nest deeper than the A2A spec
// allows, or "": the table reads back exactly, in toonkit, but a Genesis
// sender would have sent JSON.
func deepNote(r tabular.Report) string {
	if r.Deep == 0 || r.FirstDeep == nil {
		return ""
	}
	return fmt.Sprintf("%d %s nested deeper than the one level the A2A spec allows (the first: record %d, key %q); "+
		"toonkit reads the table back exactly, a Genesis sender would have used JSON",
		r.Deep, plural(r.Deep, "cell is", "cells are"), r.FirstDeep.Row+1, r.FirstDeep.Key)
}

func lossText(l tabular.Lossy) string {
	if l.Value == "" {
		return fmt.Sprintf("key %q %s", l.Key, l.Why)
	}
	return fmt.Sprintf("key %q: %s %s", l.Key, l.Value, l.Why)
}

// TempError is a failure of the temporary file in which a Meter keeps
// records (an I/O error, not one of the data).
type TempError struct{ Err error }

func (e *TempError) Error() string {
	return fmt.Sprintf("cannot keep the records in a temporary file (for TOON's form): %v", e.Err)
}

func (e *TempError) Unwrap() error { return e.Err }

// spool keeps records, in memory up to spoolMem, then in a temporary
// file.
type spool struct {
	mem  []byte
	file *os.File
	w    *bufio.Writer
}

func (s *spool) add(recs []byte) error {
	if s.file == nil && len(s.mem)+len(recs) <= spoolMem {
		s.mem = append(s.mem, recs...)
		return nil
	}
	if s.file == nil {
		f, err := os.CreateTemp("", "toonkit-stats-*")
		if err != nil {
			return &TempError{err}
		}
		s.file, s.w = f, bufio.NewWriterSize(f, 256<<10)
		if _, err := s.w.Write(s.mem); err != nil {
			return &TempError{err}
		}
		s.mem = nil
	}
	if _, err := s.w.Write(recs); err != nil {
		return &TempError{err}
	}
	return nil
}

// each calls f with batches of the first n records kept, in order.
func (s *spool) each(n int64, f func(b *batch) error) error {
	var r io.Reader = bytes.NewReader(s.mem)
	if s.file != nil {
		if err := s.w.Flush(); err != nil {
			return err
		}
		if _, err := s.file.Seek(0, io.SeekStart); err != nil {
			return err
		}
		r = s.file
	}
	br := bufio.NewReaderSize(r, 256<<10)
	b := &batch{}
	for ; ; n-- {
		var line []byte
		err := io.EOF
		if n > 0 {
			line, err = br.ReadBytes('\n')
		}
		if len(line) > 0 {
			b.recs = append(b.recs, line...)
		}
		if len(b.recs) >= batchBytes || err != nil && len(b.recs) > 0 {
			if ferr := f(b); ferr != nil {
				return ferr
			}
			b = &batch{}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (s *spool) close() {
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
		s.file = nil
	}
	s.mem = nil
}

package sign

import (
	"bytes"
	"crypto/sha256"
	"unicode/utf8"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/inbuf"
)

// Events on several workers (SignStream). One reader cuts the input into
// batches of whole lines without parsing them (cutter). A worker parses the
// events of a batch as if the batch began where an event may begin
// (scanner.speculate): that guess holds for NDJSON cut at a line break. An
// event that spans the cut (indented JSON, a long line) makes the guess
// wrong; the writer, which goes over the batches in order and knows the
// true state at each cut, then parses on from the event that was cut
// (scanner.run) until it reaches an event the worker also began with: from
// an event's start, what follows is read the same way whatever came
// before, so the worker's results are taken up from there. Where the worker
// failed (it guessed wrong), it tried again at the next place where an
// event is likely to begin, to give the writer such a meeting point.
//
// Every result depends only on the bytes and on where they were cut, never
// on the number of workers, so that one worker and N give the same bytes.

// Reader states beyond those of Reader: a scan ends in one of these.
const (
	endClean  = iota // buf ran out between events (or the input ended well)
	endShort         // the event at at is cut by the end of buf
	endError         // malformed input or an event over the limit, at at
	endResync        // the writer met the worker's event at at
)

// excerptRoom is more than an error's excerpt shows of its line on either
// side (jsonv.Excerpt).
const excerptRoom = 80

// item is one event of a batch: its bytes buf[start:end], the bytes
// between it and the event before from gap, and its output, out[gapOut:end]
// with the signed event from sigOut; bad when it cannot be signed.
type item struct {
	gap, start, end int
	gapOut, sigOut  int
	outEnd          int
	seg             int
	bad             *FieldError
	// With scanner.seal: the event's run_id, seq and t, one after the
	// other in scanResult.info from info on, and its HMAC-SHA256 (the
	// signature's bytes).
	info, runLen, seqLen, tLen int
	digest                     [sha256.Size]byte
}

// seg is one scan: the items items[from:to], begun at start in state st0;
// how it ended (kind), and where (at); st is the state at its end.
type seg struct {
	from, to int
	start    int
	st0, st  int
	arr      bool // the events are the elements of an array
	kind     int
	at       int
	msg      string // endError: the syntax error; "" for an event over the limit
}

// scanResult is what a scan of a buffer found.
type scanResult struct {
	items []item
	segs  []seg
	out   []byte
	info  []byte // see item.info
}

// grow makes room in r.out for the output of n bytes of events, at once:
// grown by append from nothing, the buffers of the batches in flight would
// allocate about twice their size before they are recycled, and the garbage
// made the collector run during the first batches, when the workers could
// not spare it the time. The signatures add about an eighth to events of
// 1 KB; where more is needed, append grows it as before.
func (r *scanResult) grow(n int) {
	if want := n + n/4 + 4<<10; cap(r.out) < want {
		r.out = make([]byte, 0, want)
	}
}

func (r *scanResult) reset() {
	r.items, r.segs, r.out, r.info = r.items[:0], r.segs[:0], r.out[:0], r.info[:0]
}

// scanner parses and signs events; one per goroutine.
type scanner struct {
	p    parser
	s    *Signer
	max  int
	seal bool // keep what a seal needs of each event (StreamHandler.Signed)
}

// run reads events from buf[i:] in state st, the bytes from gap on being
// the gap before the first, until buf ends (final: the input ends there),
// an event is cut by its end, or an error. Before an event at z, meet(z)
// may end the scan (endResync).
func (sc *scanner) run(r *scanResult, buf []byte, gap, i, st int, final bool, meet func(z int, arr bool) bool) seg {
	sg := seg{from: len(r.items), start: i, st0: st, arr: st != stValues && st != stStart}
	end := func(kind, at int, msg string) seg {
		sg.to, sg.kind, sg.at, sg.msg, sg.st = len(r.items), kind, at, msg, st
		return sg
	}
	// An error close to the end of a buffer that the input goes on after
	// is looked at again with more bytes: its line is shown whole.
	later := func(at int) bool {
		return !final && len(buf)-at < excerptRoom && bytes.IndexByte(buf[at:], '\n') < 0
	}
	for {
		i = jsonv.SkipSpace(buf, i)
		if i >= len(buf) {
			if !final {
				return end(endClean, i, "")
			}
			switch st {
			case stFirst, stElement, stAfter:
				return end(endError, i, "unexpected end of input: the array is not closed")
			}
			return end(endClean, i, "")
		}
		switch c := buf[i]; st {
		case stStart:
			if c == '[' {
				i++
				st = stFirst
				sg.arr = true
			} else {
				st = stValues
			}
			continue
		case stFirst, stElement:
			if c == ']' && st == stFirst {
				i++
				st = stDone
				continue
			}
		case stAfter:
			switch c {
			case ',':
				i++
				st = stElement
				continue
			case ']':
				i++
				st = stDone
				continue
			}
			if later(i) {
				return end(endShort, i, "")
			}
			return end(endError, i, "expecting ',' delimiter")
		case stDone:
			if later(i) {
				return end(endShort, i, "")
			}
			return end(endError, i, "extra data after the array")
		}
		if meet != nil && meet(i, sg.arr) {
			return end(endResync, i, "")
		}
		p := &sc.p
		p.src, p.pos, p.tape, p.final = buf[i:], 0, p.tape[:0], final
		if err := p.value(); err != nil {
			if pe, ok := err.(*parseError); ok {
				if later(i + pe.off) {
					return end(endShort, i, "")
				}
				return end(endError, i+pe.off, pe.msg)
			}
			if len(buf)-i > sc.max {
				return end(endError, i, "")
			}
			return end(endShort, i, "")
		}
		n := p.pos
		if n > sc.max {
			return end(endError, i, "")
		}
		raw := buf[i : i+n]
		it := item{gap: gap, start: i, end: i + n, seg: len(r.segs), gapOut: len(r.out)}
		ev, err := sc.s.event(raw, p.tape)
		if err != nil {
			it.bad = err.(*FieldError)
			it.sigOut, it.outEnd = len(r.out), len(r.out)
		} else {
			r.out = append(r.out, buf[gap:i]...)
			it.sigOut = len(r.out)
			r.out = AppendSigned(r.out, ev, sc.s.Sign(ev))
			it.outEnd = len(r.out)
			if sc.seal {
				it.digest = sc.s.sum
				it.info, it.runLen, it.seqLen, it.tLen = len(r.info), len(ev.RunID), len(ev.Seq), len(ev.T)
				r.info = append(append(append(r.info, ev.RunID...), ev.Seq...), ev.T...)
			}
		}
		r.items = append(r.items, it)
		i += n
		gap = i
		if st != stValues {
			st = stAfter
		}
	}
}

// speculate scans a batch as if it began where an event may begin (in
// state st0, from the byte from on), and again from the next likely start
// of an event after each failure.
func (sc *scanner) speculate(r *scanResult, buf []byte, from, st0 int, final bool) {
	r.reset()
	r.grow(len(buf) - from)
	gap, i, st := 0, from, st0
	for {
		sg := sc.run(r, buf, gap, i, st, final, nil)
		r.segs = append(r.segs, sg)
		if sg.kind != endError {
			return
		}
		i = likelyStart(buf, sg.at+1, sg.arr)
		if i < 0 {
			return
		}
		gap, st = i, stValues
		if sg.arr {
			st = stElement
		}
	}
}

// likelyStart is the first place from i on where an event is likely to
// begin: a '{' at the start of a line for NDJSON, after a ',' or a '['
// (and white space) for the elements of an array; -1 if none.
func likelyStart(buf []byte, i int, arr bool) int {
	for i < len(buf) {
		if !arr {
			k := bytes.Index(buf[i:], []byte("\n{"))
			if k < 0 {
				return -1
			}
			return i + k + 1
		}
		k := bytes.IndexByte(buf[i:], '{')
		if k < 0 {
			return -1
		}
		j := i + k
		b := j - 1
		for b >= 0 && isSpace(buf[b]) {
			b--
		}
		if b >= 0 && (buf[b] == ',' || buf[b] == '[') {
			return j
		}
		i = j + 1
	}
	return -1
}

// guess is the state a batch that does not start the input is scanned in:
// between events for NDJSON; for an array, after an element when a ',' or
// a ']' comes first, else before one.
func guess(buf []byte, arr bool) int {
	if !arr {
		return stValues
	}
	if i := jsonv.SkipSpace(buf, 0); i < len(buf) && (buf[i] == ',' || buf[i] == ']') {
		return stAfter
	}
	return stElement
}

// span is how a run of bytes moves a position: the line breaks in it and
// the characters after the last.
type span struct {
	lines, runes int
}

func spanOf(b []byte) span {
	n := bytes.Count(b, []byte{'\n'})
	if n == 0 {
		return span{0, runes(b)}
	}
	return span{n, runes(b[bytes.LastIndexByte(b, '\n')+1:])}
}

// runes counts the characters that start in b: a character cut by the end
// of a batch counts once, in the batch it starts in. On valid UTF-8 (all
// that comes before a position) it is utf8.RuneCount.
func runes(b []byte) int {
	if utf8.Valid(b) {
		return utf8.RuneCount(b)
	}
	n := 0
	for _, c := range b {
		if c&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// moved is the position after the bytes b that start at p (advance, with
// characters counted by runes).
func moved(p jsonv.Position, b []byte) jsonv.Position {
	return spanOf(b).after(p, len(b))
}

func (s span) after(p jsonv.Position, size int) jsonv.Position {
	p.Offset += int64(size)
	if s.lines > 0 {
		p.Line += s.lines
		p.Column = s.runes + 1
	} else {
		p.Column += s.runes
	}
	return p
}

// cutter cuts the input into batches of whole lines (a line longer than a
// batch is cut where the batch is full), without parsing them.
type cutter struct {
	b     inbuf.Buffer
	size  int
	live  bool
	alias bool // batches point into the read buffer, valid until the next cut
	mode  int  // what the bytes cut so far say: stStart (only white space), stValues, stFirst (an array)
	first bool // the next batch is the first
	done  bool
	// starts: cut, where there is one, before a line that starts an event
	// ('{' or '[' in NDJSON; in an array, '{' at the first element's
	// indentation, indent) rather than after any line, so that indented
	// events are cut between them (verify -j's workers do not meet).
	starts bool
	indent []byte
}

// batch is a piece of the input and, once a worker has been over it, what
// the worker found.
type batch struct {
	raw     []byte
	st0     int // the state the worker scans it in: known while the input has been white space, else guessed
	from    int // where the worker starts: after a byte order mark
	first   bool
	final   bool   // raw ends the input
	idle    bool   // a live input had nothing more after it
	readErr error  // the read error after raw
	own     []byte // the buffer raw is in, when the batch has one of its own

	span span // of raw[from:]
	res  scanResult
}

func newCutter(in interface{ Read([]byte) (int, error) }, size int, live, alias bool) *cutter {
	c := &cutter{size: size, live: live, alias: alias, mode: stStart, first: true}
	room := max(2*size, 64<<10)
	if !alias {
		// Reads of a batch's size at most: what is read past a cut is
		// little, and moved (handOver).
		in = &cappedReader{r: in, max: size}
	}
	c.b = inbuf.Buffer{R: in, First: 64 << 10, Steady: room, Max: room}
	return c
}

// handOver gives the read buffer, which the batch b just cut holds, to b,
// and goes on reading in the buffer b had (which no batch uses any more),
// with the bytes after the cut moved there: a batch's bytes are read
// where they stay, not copied.
func (c *cutter) handOver(b *batch) {
	nb := b.own[:cap(b.own)]
	if len(nb) < len(c.b.Buf) {
		nb = make([]byte, len(c.b.Buf))
	}
	b.own = c.b.Buf
	c.b.End = copy(nb, c.b.Buf[c.b.Pos:c.b.End])
	c.b.Base += int64(c.b.Pos)
	c.b.Buf, c.b.Pos = nb, 0
}

// cappedReader reads at most max bytes at a time.
type cappedReader struct {
	r   interface{ Read([]byte) (int, error) }
	max int
}

func (c *cappedReader) Read(p []byte) (int, error) { return c.r.Read(p[:min(len(p), c.max)]) }

// layout is what the input's first bytes b (from from on) say: stStart
// while they are white space, stValues, or stFirst for an array, with the
// white space before the first element on its line (nil when the element
// does not start a line, or has not been read).
func layout(b []byte, from int) (mode int, indent []byte) {
	i := jsonv.SkipSpace(b, from)
	switch {
	case i == len(b):
		return stStart, nil
	case b[i] != '[':
		return stValues, nil
	}
	if k := jsonv.SkipSpace(b, i+1); k < len(b) && b[k] == '{' {
		if nl := bytes.LastIndexByte(b[i+1:k], '\n'); nl >= 0 {
			return stFirst, b[i+1+nl+1 : k]
		}
	}
	return stFirst, nil
}

// lastStart is the start of the last line in b[:end] that starts an event
// in an input of that mode and indent (see cutter.starts), the byte after
// the line break; 0 for none.
func lastStart(b []byte, end, mode int, indent []byte) int {
	if mode == stStart || mode == stFirst && indent == nil {
		return 0 // the elements do not start lines of their own
	}
	for end > 0 {
		k := bytes.LastIndexByte(b[:end], '\n')
		if k < 0 {
			return 0
		}
		q := k + 1 + len(indent)
		if q < len(b) && bytes.Equal(b[k+1:q], indent) && (b[q] == '{' || mode == stValues && b[q] == '[') {
			return k + 1
		}
		end = k
	}
	return 0
}

// cut fills b with the next batch; false at the end of the input.
func (c *cutter) cut(b *batch) bool {
	if c.done {
		return false
	}
	*b = batch{own: b.own[:0], res: b.res}
	if c.first {
		c.b.Fill(3)
	}
	for {
		avail := c.b.End - c.b.Pos
		if avail >= c.size || c.b.EOF || c.b.ReadErr != nil {
			break
		}
		if c.live && avail > 0 && bytes.IndexByte(c.b.Buf[c.b.Pos:c.b.End], '\n') >= 0 {
			b.idle = true
			break
		}
		if c.live {
			c.b.More()
		} else {
			c.b.Fill(c.size)
		}
	}
	avail := c.b.Buf[c.b.Pos:c.b.End]
	n := len(avail)
	switch {
	case len(avail) <= c.size && c.b.EOF:
		b.final, c.done = true, true
	case len(avail) <= c.size && c.b.ReadErr != nil:
		b.readErr, c.done = c.b.ReadErr, true
	default:
		w := avail[:min(len(avail), c.size)]
		n = len(w)
		if k := bytes.LastIndexByte(w, '\n'); k >= 0 {
			n = k + 1
		}
		if c.starts {
			mode, indent := c.mode, c.indent
			if mode == stStart {
				from := 0
				if c.first && bytes.HasPrefix(avail, []byte("\xEF\xBB\xBF")) {
					from = 3
				}
				mode, indent = layout(avail, from)
			}
			if k := lastStart(avail, len(w), mode, indent); k > 0 {
				n = k
			}
		}
	}
	if c.first && n < 3 && bytes.HasPrefix(avail, []byte("\xEF\xBB\xBF")) {
		n = 3 // a byte order mark stays whole
	}
	raw := avail[:n]
	c.b.Pos += n
	if !c.alias {
		c.handOver(b)
	}
	b.raw, b.first = raw, c.first
	if c.first && bytes.HasPrefix(raw, []byte("\xEF\xBB\xBF")) {
		b.from = 3
	}
	switch c.mode {
	case stFirst:
		b.st0 = guess(raw, true)
	default:
		b.st0 = c.mode
	}
	if c.mode == stStart {
		if mode, indent := layout(raw, b.from); mode != stStart {
			c.mode, c.indent = mode, append([]byte(nil), indent...)
		}
	}
	c.first = false
	return true
}

package report

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// entry is one finding as junit files it.
type entry struct {
	suite  string // the input file
	stream string // the stream the record counts in (a capture's connection and direction)
	record int    // the record's index in its stream; -1: none
	name   string // the test case's name: the record's place
	code   string
	fail   bool   // a <failure> (an error, or a warning with Strict); else a <system-out> line
	msg    string // the failure's message: "/pointer: message"
	text   string // the finding as one line
	// render, when not nil, sets name, msg and text: called only for a
	// finding that is listed (or of no record), so that the findings past
	// MaxCases cost no formatting.
	render func(*entry)
}

// junit writes a JUnit XML report: one <testsuite> per file.
type junit struct {
	w          *writer
	o          Options
	root       string // the <testsuites> name
	one, many  string // what a record is called: "record", "records"
	holdSuites bool   // write the suites at Close (verify: a problem may come after its file ended)
	started    bool
	suites     []*suite
	byName     map[string]*suite
	seen       map[string]*bitset
}

func newJUnit(w io.Writer, o Options, root, one, many string, hold bool) *junit {
	if o.MaxCases == 0 {
		o.MaxCases = DefaultMaxCases
	}
	return &junit{w: newWriter(w), o: o, root: root, one: one, many: many, holdSuites: hold,
		byName: map[string]*suite{}, seen: map[string]*bitset{}}
}

// suite is a <testsuite> being written.
type suite struct {
	name         string
	start        time.Time
	elapsed      time.Duration
	done         bool
	records      int
	ioErr        string
	tests, fails int
	errs, warns  int // findings
	withFindings int // records with findings
	listed       int // test cases of records with findings written
	cur          *jcase
	lastKey      string // of the last finding
	started      bool   // a finding came
	spool        spool
	more         map[string]int // past MaxCases: findings by code
	moreRecords  int
	moreFail     bool
}

// jcase is a <testcase> being filled.
type jcase struct {
	key      string
	name     string
	failures []entry
	outs     []string
}

// begin starts the suite of a file (its clock).
func (j *junit) begin(name string) {
	s := j.suite(name)
	s.start = j.o.now()
}

func (j *junit) suite(name string) *suite {
	if s := j.byName[name]; s != nil {
		return s
	}
	s := &suite{name: name, start: j.o.now(), more: map[string]int{}, spool: spool{dir: j.o.TempDir}}
	j.suites = append(j.suites, s)
	j.byName[name] = s
	return s
}

// add files a finding in its suite's current test case, or starts the next.
func (j *junit) add(e entry) {
	s := j.suite(e.suite)
	// A record's findings are one case, named by the first one's place.
	key := e.stream + "\x00" + strconv.Itoa(e.record)
	if e.record < 0 {
		if e.render != nil {
			e.render(&e)
			e.render = nil
		}
		key = e.stream + "\x00-\x00" + e.name
	}
	if !s.started || s.lastKey != key { // the next record
		s.started, s.lastKey = true, key
		j.flushCase(s)
		if e.record >= 0 {
			b := j.seen[e.suite+"\x00"+e.stream]
			if b == nil {
				b = &bitset{}
				j.seen[e.suite+"\x00"+e.stream] = b
			}
			if b.set(e.record) {
				s.withFindings++
			}
		}
		if j.o.MaxCases > 0 && s.listed >= j.o.MaxCases {
			s.moreRecords++
			s.cur = nil
		} else {
			if e.render != nil {
				e.render(&e)
				e.render = nil
			}
			s.cur = &jcase{key: key, name: e.name}
		}
	}
	if s.cur == nil {
		s.more[e.code]++
		s.moreFail = s.moreFail || e.fail
		return
	}
	if e.render != nil {
		e.render(&e)
	}
	if e.fail {
		s.cur.failures = append(s.cur.failures, e)
	} else {
		s.cur.outs = append(s.cur.outs, e.text)
	}
}

// count counts a finding of a suite: an error or a warning.
func (j *junit) count(file string, warning bool) {
	s := j.suite(file)
	if warning {
		s.warns++
	} else {
		s.errs++
	}
}

// flushCase writes the suite's current test case to its spool.
func (j *junit) flushCase(s *suite) {
	c := s.cur
	if c == nil {
		return
	}
	s.cur = nil
	s.listed++
	j.writeCase(s, c.name, c.failures, c.outs)
}

func (j *junit) writeCase(s *suite, name string, failures []entry, outs []string) {
	s.tests++
	if len(failures) > 0 {
		s.fails++
	}
	b := &s.spool
	fmt.Fprintf(b, "    <testcase name=\"%s\" classname=\"%s\"", attr(name), attr(s.name))
	if len(failures) == 0 && len(outs) == 0 {
		b.WriteString("/>\n")
		return
	}
	b.WriteString(">\n")
	for _, f := range failures {
		fmt.Fprintf(b, "      <failure type=\"%s\" message=\"%s\">%s</failure>\n", attr(f.code), attr(f.msg), text(f.text))
	}
	if len(outs) > 0 {
		fmt.Fprintf(b, "      <system-out>%s</system-out>\n", text(strings.Join(outs, "\n")))
	}
	b.WriteString("    </testcase>\n")
}

// end ends the suite of a file: records were read, ioErr (when not "")
// says why the rest could not be.
func (j *junit) end(name string, records int, ioErr string) {
	s := j.suite(name)
	s.records += records
	s.elapsed += j.o.now().Sub(s.start)
	if ioErr != "" {
		s.ioErr = ioErr
	}
	if !j.holdSuites {
		j.finish(s)
		j.flush(false)
	}
}

// finish writes a suite's last test cases: the records past MaxCases, an
// error that stopped the reading, the records without findings.
func (j *junit) finish(s *suite) {
	if s.done {
		return
	}
	s.done = true
	j.flushCase(s)
	if s.moreRecords > 0 {
		codes := make([]string, 0, len(s.more))
		for c := range s.more {
			codes = append(codes, c)
		}
		sort.Strings(codes)
		var lines []string
		for _, c := range codes {
			lines = append(lines, fmt.Sprintf("%s: %d %s", c, s.more[c], plural(s.more[c], "finding", "findings")))
		}
		name := fmt.Sprintf("%d more %s with findings (not listed past %d)", s.moreRecords, plural(s.moreRecords, j.one, j.many), j.o.MaxCases)
		if s.moreFail {
			j.writeCase(s, name, []entry{{code: "toonkit", msg: strings.Join(lines, ", "), text: strings.Join(lines, "\n")}}, nil)
		} else {
			j.writeCase(s, name, nil, lines)
		}
	}
	if s.ioErr != "" {
		s.tests++
		name := "the rest of the file"
		if s.records == 0 {
			name = "reading the file"
		}
		fmt.Fprintf(&s.spool, "    <testcase name=\"%s\" classname=\"%s\">\n      <error type=\"io\" message=\"%s\"></error>\n    </testcase>\n", attr(name), attr(s.name), attr(s.ioErr))
	}
	if ok := s.records - s.withFindings; ok > 0 {
		j.writeCase(s, fmt.Sprintf("%d %s without findings", ok, plural(ok, j.one, j.many)), nil, nil)
	}
}

// flush writes the suites done, in order, up to the first not done; all
// with final.
func (j *junit) flush(final bool) {
	w := j.w
	if !j.started {
		j.started = true
		w.printf("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"%s\">\n", attr(j.root))
	}
	for len(j.suites) > 0 {
		s := j.suites[0]
		if final {
			j.finish(s)
		}
		if !s.done {
			return
		}
		j.suites = j.suites[1:]
		delete(j.byName, s.name)
		for k := range j.seen {
			if strings.HasPrefix(k, s.name+"\x00") {
				delete(j.seen, k)
			}
		}
		errs := 0
		if s.ioErr != "" {
			errs = 1
		}
		w.printf("  <testsuite name=\"%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"0\" time=\"%s\" timestamp=\"%s\" file=\"%s\">\n",
			attr(s.name), s.tests, s.fails, errs, seconds(s.elapsed), s.start.UTC().Format("2006-01-02T15:04:05Z"), attr(s.name))
		w.printf("    <properties>\n      <property name=\"%s\" value=\"%d\"/>\n      <property name=\"errors found\" value=\"%d\"/>\n      <property name=\"warnings found\" value=\"%d\"/>\n    </properties>\n",
			j.many, s.records, s.errs, s.warns)
		if err := s.spool.copyTo(w); err != nil && w.Err == nil {
			w.Err = err
		}
		w.str("  </testsuite>\n")
	}
}

// close writes every suite left and ends the report.
func (j *junit) close() error {
	j.flush(true)
	j.w.str("</testsuites>\n")
	return j.w.Err
}

// seconds is a duration as JUnit's time: seconds with 3 decimals.
func seconds(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	return strconv.FormatFloat(d.Seconds(), 'f', 3, 64)
}

// attr escapes s for an XML attribute value in double quotes.
func attr(s string) string { return escape(s, true) }

// text escapes s for XML character data.
func text(s string) string { return escape(s, false) }

// escape escapes XML's special characters; what XML 1.0 cannot hold
// (invalid UTF-8, control characters other than tab, LF and CR) becomes
// U+FFFD.
func escape(s string, attr bool) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		switch {
		case r == '&':
			b.WriteString("&amp;")
		case r == '<':
			b.WriteString("&lt;")
		case r == '>':
			b.WriteString("&gt;")
		case r == '"' && attr:
			b.WriteString("&quot;")
		case (r == '\n' || r == '\r' || r == '\t') && attr:
			fmt.Fprintf(&b, "&#%d;", r)
		case r == '\r':
			b.WriteString("&#13;")
		case r == utf8.RuneError && n == 1, r < 0x20 && r != '\n' && r != '\t', r == 0xFFFE, r == 0xFFFF:
			b.WriteRune(utf8.RuneError)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// spool holds a suite's test cases: in memory up to spillAt bytes, then in
// a temporary file.
type spool struct {
	buf bytes.Buffer
	f   *os.File
	dir string
	err error
}

const spillAt = 1 << 20

func (s *spool) Write(p []byte) (int, error) {
	if s.f == nil && s.buf.Len()+len(p) > spillAt && s.err == nil {
		s.f, s.err = os.CreateTemp(s.dir, "toonkit-junit-*")
		if s.err == nil {
			_, s.err = s.f.Write(s.buf.Bytes())
			s.buf = bytes.Buffer{}
		}
	}
	if s.f != nil && s.err == nil {
		_, s.err = s.f.Write(p)
		return len(p), nil
	}
	return s.buf.Write(p)
}

func (s *spool) WriteString(p string) { s.Write([]byte(p)) }

// copyTo writes what the spool holds to w, and removes its file.
func (s *spool) copyTo(w io.Writer) error {
	if s.f == nil {
		_, err := w.Write(s.buf.Bytes())
		return err
	}
	defer func() {
		s.f.Close()
		os.Remove(s.f.Name())
	}()
	if s.err != nil {
		return fmt.Errorf("the junit report's spool: %w", s.err)
	}
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err := io.Copy(w, s.f)
	return err
}

// bitset is a set of record indexes.
type bitset struct{ w []uint64 }

// set adds i and says whether it was new.
func (b *bitset) set(i int) bool {
	k := i / 64
	for len(b.w) <= k {
		b.w = append(b.w, 0)
	}
	m := uint64(1) << (i % 64)
	if b.w[k]&m != 0 {
		return false
	}
	b.w[k] |= m
	return true
}

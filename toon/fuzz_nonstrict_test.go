package toon

import (
	"bytes"
	"io"
	"math/big"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// nonStrictSeeds are damaged documents for FuzzDecodeNonStrictKeepsLines:
// the shapes that lost lines before (issue 16 §5) and their neighbours.
var nonStrictSeeds = []string{
	"  a: 1\nb: 2",
	"a:\n\tb: 1\n",
	"a: 1\n    b: 2\nc: 3",
	"a:\n   b: 1\n     c: 2",
	"a:\n      x: 1\n   y: 2",
	"[2]: 1,2\njunk: 3\n  more",
	"[1]:\n  - a\nb: 2",
	"[1:]{v}:\n  a: 1\nb: 2",
	"m[1:]{v}:\n  x\n  a: 1",
	"l[1]:\n  - a\n  b: 2\nc: 3",
	"u[3]{x,y}:\n  1\n  2,3,4",
	"m[1:]{v}:\n  a: 1,2",
	"a: 1\na: 2\nb:\n  c: 3\n  c: 4",
	"u[1]{a,b,a}:\n  1,2,3",
	"  [2]{x}:\n    1\n  2\n3",
	"a:\n \tb:\n\t  c:\n  \t  d: 1\n\t e: 2",
	"a:\n\t# b: 1\n  # c: 2",
	"\"k\" x: \"v\"\n\"q\": [2]: 1\nr[x]: {y}",
	"t[2\t]{a\tb}:\n\t1\t2\n\t\t3",
	"- a\n- b",
	"x\ny",
}

// FuzzDecodeNonStrictKeepsLines: non-strict decoding loses no input line.
// Every scalar token of the input's content lines (keys, values, cells)
// is found in the output, or Decode fails. Last-write-wins, which the
// spec requires and which drops the earlier value of a duplicate key, is
// turned off for the check (every duplicate is written). Tokens are the
// pieces of a line between the structural characters (: , | tab [ ] { })
// outside quotes; a header's length segment and field list, which need not
// show in the value (an empty table), are left out. A piece is found when
// it is part of an output string or name, or equals an output number
// (numbers are compared by value: 1.50 is 1.5), or is a literal present in
// the output.
func FuzzDecodeNonStrictKeepsLines(f *testing.F) {
	for _, s := range nonStrictSeeds {
		f.Add([]byte(s), uint8(1))
	}
	for _, s := range decSeeds {
		f.Add([]byte(s), uint8(1))
	}
	for _, in := range decFixtureInputs(f) {
		f.Add([]byte(in), uint8(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		checkKeepsLines(t, in, int(size%4)+1)
	})
}

// checkKeepsLines decodes in non-strict mode with indent size, duplicates
// kept, and checks that every token of the input is in the output.
func checkKeepsLines(t *testing.T, in []byte, size int) {
	t.Helper()
	var out bytes.Buffer
	d := newDecoder(&out, bytes.NewReader(in), decodeOptions{NonStrict: true, IndentSize: size, MaxLineSize: 1 << 16})
	d.keepDups = true
	err := d.run()
	if err == nil {
		err = d.flush()
	}
	if err != nil {
		return // failing is allowed; decCheck checks that it is positioned
	}
	got, err := outputScalars(out.Bytes())
	if err != nil {
		t.Fatalf("toJSON(%q, NonStrict, indent %d) = %q: not JSON: %v", in, size, out.Bytes(), err)
	}
	for _, tok := range inputTokens(in) {
		if !tok.found(got) {
			t.Fatalf("toJSON(%q, NonStrict, indent %d) = %s\nloses %q of line %d", in, size, out.Bytes(), tok.text, tok.line)
		}
	}
}

// inputToken is a scalar token of the input and its line: text is the
// piece as written; a piece that is one quoted string is also found as
// its unescaped quoted text (a piece may be part of a longer unquoted
// token, where quotes are data).
type inputToken struct {
	text, quoted string
	isQuoted     bool
	line         int
}

// found reports whether the output holds the token.
func (tok inputToken) found(s *scalars) bool {
	return s.has(tok.text) || tok.isQuoted && s.has(tok.quoted)
}

// lengthSegment matches a header's bracket segment: [N], [N:], with a
// delimiter.
var lengthSegment = regexp.MustCompile(`^\[[0-9]+:?[\t|,]?\]`)

// inputTokens lists the scalar tokens of the content lines of a TOON
// document: not blank lines nor comment lines (spaces, then "#").
func inputTokens(in []byte) []inputToken {
	var toks []inputToken
	in = bytes.TrimPrefix(in, utf8BOM)
	for n, line := range bytes.Split(in, []byte("\n")) {
		line = bytes.TrimSuffix(line, []byte("\r"))
		line = appendValidUTF8(nil, line)
		s := strings.TrimLeft(string(line), " ")
		tabbed := strings.HasPrefix(s, "\t")
		s = strings.TrimLeft(s, " \t")
		if s == "" || s == "-" || !tabbed && s[0] == '#' { // "-" is an empty object
			continue
		}
		for strings.HasPrefix(s, "- ") {
			s = strings.TrimLeft(s[2:], " ")
		}
		for _, p := range splitPieces(s) {
			if p = strings.Trim(p, " "); p != "" {
				q, ok := unquotePiece(p)
				toks = append(toks, inputToken{p, q, ok, n + 1})
			}
		}
	}
	return toks
}

// splitPieces splits line content at the structural characters outside
// quotes, leaving out length segments and the field lists after them.
func splitPieces(s string) []string {
	var pieces []string
	start := 0
	for i := 0; i < len(s); {
		switch c := s[i]; c {
		case '"':
			i = skipQuotedPart([]byte(s), i)
		case '[':
			pieces = append(pieces, s[start:i])
			if m := lengthSegment.FindString(s[i:]); m != "" {
				i += len(m)
				if i < len(s) && s[i] == '{' {
					i = skipBraces(s, i)
				}
			} else {
				i++
			}
			start = i
		case ':', ',', '|', '\t', ']', '{', '}':
			pieces = append(pieces, s[start:i])
			i++
			start = i
		default:
			i++
		}
	}
	return append(pieces, s[start:])
}

// skipBraces returns the index after the "}" that closes the "{" at s[i],
// quotes respected, or len(s).
func skipBraces(s string, i int) int {
	depth := 0
	for i < len(s) {
		switch s[i] {
		case '"':
			i = skipQuotedPart([]byte(s), i)
			continue
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
		i++
	}
	return i
}

// unquotePiece is the text of a piece that is one quoted string, with its
// escapes undone (§7.1); false for another piece.
func unquotePiece(p string) (string, bool) {
	if len(p) < 2 || p[0] != '"' || !closedAtEnd(p) {
		return "", false
	}
	var b strings.Builder
	for i := 1; i < len(p)-1; i++ {
		c := p[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		switch p[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'u':
			var r rune
			for _, h := range p[i+1 : min(i+5, len(p))] {
				r = r<<4 | rune(strings.IndexRune("0123456789abcdef", h|0x20))
			}
			b.WriteRune(r)
			i += 4
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String(), true
}

// closedAtEnd reports whether the quoted part that p starts with ends at
// its last byte.
func closedAtEnd(p string) bool {
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '"':
			return i == len(p)-1
		}
	}
	return false
}

// scalars are the strings (names among them), numbers (by value) and
// literals of a JSON text.
type scalars struct {
	strs     []string
	nums     map[string]bool
	literals map[string]bool
}

// outputScalars reads the scalars of the decoder's output, duplicate names
// allowed.
func outputScalars(b []byte) (*scalars, error) {
	s := &scalars{nums: map[string]bool{}, literals: map[string]bool{}}
	dec := jsontext.NewDecoder(bytes.NewReader(b), jsontext.AllowDuplicateNames(true))
	for {
		tok, err := dec.ReadToken()
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return nil, err
		}
		switch tok.Kind() {
		case '"':
			s.strs = append(s.strs, tok.String())
		case '0':
			s.nums[numberValue(tok.String())] = true
		case 't', 'f', 'n':
			s.literals[tok.String()] = true
		}
	}
}

// has reports whether the input token tok is found in the output.
func (s *scalars) has(tok string) bool {
	for _, str := range s.strs {
		if strings.Contains(str, tok) {
			return true
		}
	}
	if s.literals[tok] {
		return true
	}
	return numberToken.MatchString(tok) && s.nums[numberValue(tok)]
}

// numberToken is the number grammar of §4.
var numberToken = regexp.MustCompile(`^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?$`)

// numberValue is a key for a number's value: its significant digits and
// the exponent of the last one ("0" for zero), exact at any size.
func numberValue(n string) string {
	sign := ""
	if strings.HasPrefix(n, "-") {
		sign, n = "-", n[1:]
	}
	exp := new(big.Int)
	if i := strings.IndexAny(n, "eE"); i >= 0 {
		exp.SetString(strings.TrimPrefix(n[i+1:], "+"), 10)
		n = n[:i]
	}
	if i := strings.IndexByte(n, '.'); i >= 0 {
		exp.Sub(exp, big.NewInt(int64(len(n)-i-1)))
		n = n[:i] + n[i+1:]
	}
	n = strings.TrimLeft(n, "0")
	if n == "" {
		return "0"
	}
	t := strings.TrimRight(n, "0")
	exp.Add(exp, big.NewInt(int64(len(n)-len(t))))
	return sign + t + "e" + exp.String()
}

// The oracle of FuzzDecodeNonStrictKeepsLines on its seeds, and on
// documents whose lines a decoder that drops them would lose.
func TestNonStrictKeepsLinesOracle(t *testing.T) {
	for _, s := range nonStrictSeeds {
		checkKeepsLines(t, []byte(s), 2)
	}
	// The oracle itself: a decode that drops a line is caught.
	got, err := outputScalars([]byte(`{"a":1,"x":"b,c","n":1.5,"t":true}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		in    string
		found bool
	}{
		{"a: 1\nx: b,c\nn: 1.50\nt: true", true},
		{"a: 1\n  lost: 2", false},
		{"[1]{a,zz}:\n  1.5e0,\"b\"", true},
		{"a: 1\n# lost: 2\n\t# kept: 3", false},
		{"\"a\\u0062c\": 1", false},
	} {
		all := true
		for _, tok := range inputTokens([]byte(tc.in)) {
			all = all && tok.found(got)
		}
		if all != tc.found {
			t.Errorf("oracle on %q: found %v, want %v (tokens %v)", tc.in, all, tc.found, inputTokens([]byte(tc.in)))
		}
	}
	if !utf8.ValidString(inputTokens([]byte("a: \xff"))[1].text) {
		t.Error("ill-formed UTF-8 is not replaced as the decoder does")
	}
}

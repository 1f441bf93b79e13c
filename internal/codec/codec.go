// Package codec is toonkit's format registry: the names of the formats,
// their aliases, and detection of a format from the first bytes of an input.
package codec

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/go-json-experiment/json/jsontext"
)

// Format is a canonical format name, as given to --from and --to.
type Format string

// The formats of DESIGN.md.
const (
	JSON       Format = "json"
	NDJSON     Format = "ndjson"
	Binary     Format = "binary"
	Tabular    Format = "tabular"
	TOON       Format = "toon"
	Pcap       Format = "pcap" // packet captures, pcap or pcapng (read by internal/capture)
	Chiffon    Format = "chiffon"
	Trace      Format = "trace"
	Narratoria Format = "narratoria"
	// YAML, CSV and TSV are read, never written (InputOnly): by
	// internal/codec/yamlin and internal/codec/csvin.
	YAML Format = "yaml"
	CSV  Format = "csv"
	TSV  Format = "tsv"
)

// InputOnly reports whether toonkit reads f but writes it nowhere (YAML,
// CSV, TSV). Such a format is named by --from or by a file's extension,
// never detected from the bytes: YAML and CSV are any text.
func InputOnly(f Format) bool { return f == YAML || f == CSV || f == TSV }

var aliases = map[string]Format{
	"json": JSON, "ndjson": NDJSON, "jsonl": NDJSON,
	"binary": Binary, "kado": Binary, "frame": Binary,
	"tabular": Tabular, "a2a": Tabular, "toon": TOON,
	"pcap": Pcap, "pcapng": Pcap,
	"chiffon": Chiffon, "trace": Trace, "aop": Trace,
	"narratoria": Narratoria, "tool": Narratoria,
	"yaml": YAML, "yml": YAML, "csv": CSV, "tsv": TSV,
}

// Names returns every accepted name of the given formats (canonical names
// and aliases), sorted, for help text and completion.
func Names(formats ...Format) []string {
	var out []string
	for name, f := range aliases {
		for _, g := range formats {
			if f == g {
				out = append(out, name)
			}
		}
	}
	sort.Strings(out)
	return out
}

// Parse resolves a format name or alias (any case) among the formats a
// command supports.
func Parse(name string, supported ...Format) (Format, error) {
	f, ok := aliases[strings.ToLower(strings.TrimSpace(name))]
	if ok {
		for _, s := range supported {
			if s == f {
				return f, nil
			}
		}
	}
	var list []string
	for _, s := range supported {
		list = append(list, string(s))
	}
	if ok && InputOnly(f) {
		return "", fmt.Errorf("%s is an input format only: toonkit reads YAML, CSV and TSV, and writes none of them (supported here: %s)", f, strings.Join(list, ", "))
	}
	if ok {
		return "", fmt.Errorf("format %q is not supported here (supported: %s)", name, strings.Join(list, ", "))
	}
	return "", fmt.Errorf("unknown format %q (supported: %s)", name, strings.Join(list, ", "))
}

// extensions are the file name extensions that name a format, as the
// reference TOON CLI reads them from its -o file.
var extensions = []struct {
	ext    string
	format Format
}{{".toon", TOON}, {".json", JSON}, {".ndjson", NDJSON}, {".jsonl", NDJSON}, {".bin", Binary},
	{".yaml", YAML}, {".yml", YAML}, {".csv", CSV}, {".tsv", TSV}}

// FormatForExt returns the format a file name's extension names, in any
// case: .toon is TOON (the official format, not the A2A table), .json JSON,
// .ndjson and .jsonl NDJSON, .bin binary frames; .yaml and .yml YAML,
// .csv CSV, .tsv TSV, which are input formats only (InputOnly). ok is
// false for any other extension, for no extension, and for "-" (standard
// output).
func FormatForExt(name string) (f Format, ok bool) {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range extensions {
		if e.ext == ext {
			return e.format, true
		}
	}
	return "", false
}

// Extensions returns the extensions FormatForExt knows of the formats
// toonkit writes, in the order .toon, .json, .ndjson, .jsonl, .bin, for
// messages and help about -o FILE.
func Extensions() []string {
	var out []string
	for _, e := range extensions {
		if !InputOnly(e.format) {
			out = append(out, e.ext)
		}
	}
	return out
}

// InputFormatForExt is the input-only format (YAML, CSV, TSV) that an
// input's name names by its extension; ok is false for any other name.
// Readers of records take it when no --from is given: these formats are
// never detected from their bytes.
func InputFormatForExt(name string) (f Format, ok bool) {
	f, ok = FormatForExt(name)
	if !ok || !InputOnly(f) {
		return "", false
	}
	return f, true
}

// Detection is the outcome of Detect.
type Detection struct {
	Format Format // "" when nothing fits
	Why    string // what was seen, for messages
}

// bom is the UTF-8 byte order mark, which RFC 8259 lets a JSON parser
// ignore and TOON text may start with too.
var bom = []byte("\xEF\xBB\xBF")

// Detect names the format of an input from its first bytes (give at least
// the first 64 if there are that many). A packet capture starts with the
// magic number of a pcap file (a1b2c3d4 or a1b23c4d, in either byte order)
// or of a pcapng section header block (0a0d0d0a). Binary frames start with version
// byte 0x01 and a type byte 0x01..0x08; tabular text starts with "@toon";
// JSON starts (after a byte order mark and white space) with '{' or '['; a
// TOON root array header ("[3]: a,b,c", "[2]{id}:") is told apart from a
// JSON array; any other UTF-8 text is TOON (as far as its first 64 bytes
// after the white space tell). When the prefix could still
// become several formats (white space so far, a part of a byte order mark,
// of "@toon" or of a TOON header), Format is "" and NeedsMore is true: give
// more bytes, or DetectWhole if there are no more.
func Detect(prefix []byte) Detection {
	if len(prefix) == 0 {
		return Detection{Why: "the input is empty"}
	}
	if len(prefix) < 4 && captureMagicPrefix(prefix) {
		return Detection{Why: tooShort} // a part of a capture's magic number
	}
	if len(prefix) >= 4 {
		switch binary.BigEndian.Uint32(prefix) {
		case 0xa1b2c3d4, 0xd4c3b2a1:
			return Detection{Format: Pcap, Why: fmt.Sprintf("the pcap magic number %X (microseconds)", prefix[:4])}
		case 0xa1b23c4d, 0x4d3cb2a1:
			return Detection{Format: Pcap, Why: fmt.Sprintf("the pcap magic number %X (nanoseconds)", prefix[:4])}
		case 0x0a0d0d0a:
			return Detection{Format: Pcap, Why: "the pcapng magic number 0A0D0D0A"}
		}
	}
	if len(prefix) == 1 && prefix[0] == 0x01 {
		return Detection{Format: Binary, Why: "version byte 0x01 (and nothing after it)"}
	}
	if len(prefix) >= 2 && prefix[0] == 0x01 && prefix[1] >= 0x01 && prefix[1] <= 0x08 {
		return Detection{Format: Binary, Why: fmt.Sprintf("version byte 0x01 and type byte 0x%02X", prefix[1])}
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(prefix, bom), " \t\r\n")
	switch {
	case len(prefix) < len(bom) && bytes.HasPrefix(bom, prefix):
		return Detection{Why: tooShort} // a part of a byte order mark
	case bytes.HasPrefix(t, []byte("@toon")):
		return Detection{Format: Tabular, Why: `it starts with "@toon"`}
	case toonRootHeader(t):
		return Detection{Format: TOON, Why: "it starts with a TOON array header ([N]: or [N]{...}:)"}
	case len(t) < len("@toon") && bytes.HasPrefix([]byte("@toon"), t) && len(t) > 0 || len(t) > 0 && t[0] == '[' && toonHeaderPrefix(t):
		return Detection{Why: tooShort}
	case len(t) > 0 && (t[0] == '{' || t[0] == '['):
		return Detection{Format: JSON, Why: fmt.Sprintf("it starts with %q", t[0])}
	case len(t) == 0:
		return Detection{Why: tooShort} // white space so far
	case isText(prefix[:min(len(prefix), len(prefix)-len(t)+detectText)]):
		return Detection{Format: TOON, Why: "it is text that is neither JSON nor a table"}
	}
	return startsWithByte(prefix)
}

// captureMagics are the magic numbers of pcap (microseconds and
// nanoseconds, both byte orders) and pcapng files.
var captureMagics = []string{"\xa1\xb2\xc3\xd4", "\xd4\xc3\xb2\xa1", "\xa1\xb2\x3c\x4d", "\x4d\x3c\xb2\xa1", "\x0a\x0d\x0d\x0a"}

// captureMagicPrefix reports whether p is the start of a capture's magic
// number.
func captureMagicPrefix(p []byte) bool {
	for _, m := range captureMagics {
		if strings.HasPrefix(m, string(p)) {
			return true
		}
	}
	return false
}

// detectText is how many bytes after the white space Detect checks to be
// text: what comes later is the TOON decoder's to judge, with its position.
const detectText = 64

// startsWithByte is the Detection of a prefix that is no format.
func startsWithByte(prefix []byte) Detection {
	c := prefix[0]
	if c >= 0x20 && c < 0x7F {
		return Detection{Why: fmt.Sprintf("it starts with byte 0x%02X (%q)", c, rune(c))}
	}
	return Detection{Why: fmt.Sprintf("it starts with byte 0x%02X", c)}
}

// NeedsMore reports whether Detect could not tell from the prefix it was
// given, which could still become several formats.
func (d Detection) NeedsMore() bool { return d.Format == "" && d.Why == tooShort }

// toonRootHeader reports whether text starts with a TOON root array or
// keyed header: "[", a length, an optional ":" and delimiter, "]", then
// "{" or ":". ([2] alone is JSON.)
func toonRootHeader(t []byte) bool {
	i := 1
	if len(t) < 2 || t[0] != '[' {
		return false
	}
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 1 {
		return false
	}
	if i < len(t) && t[i] == ':' {
		i++
	}
	if i < len(t) && (t[i] == '\t' || t[i] == '|') {
		i++
	}
	return i+1 < len(t) && t[i] == ']' && (t[i+1] == '{' || t[i+1] == ':')
}

// tooShort is Detect's Why when the prefix could still become several
// formats; DetectWhole decides it.
const tooShort = "too short to tell"

// toonHeaderPrefix reports whether text could still become a TOON root
// header with more bytes: "[", digits, ":", a delimiter, "]", so far.
func toonHeaderPrefix(t []byte) bool {
	i := 1
	for i < len(t) && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i < len(t) && t[i] == ':' {
		i++
	}
	if i < len(t) && (t[i] == '\t' || t[i] == '|') {
		i++
	}
	if i < len(t) && t[i] == ']' {
		i++
	}
	return i == len(t)
}

// DetectWhole is Detect for an input known to be whole: text too short
// for Detect to tell is TOON.
func DetectWhole(p []byte) Detection {
	d := Detect(p)
	if !d.NeedsMore() {
		return d
	}
	t := bytes.TrimLeft(bytes.TrimPrefix(p, bom), " \t\r\n")
	switch {
	case len(p) < len(bom) && bytes.HasPrefix(bom, p):
		return startsWithByte(p) // a byte order mark cut short
	case len(t) == 0:
		return Detection{Why: "the input holds only white space"}
	case !isText(p):
		return startsWithByte(p) // a capture's magic number cut short
	case t[0] == '[':
		return Detection{Format: JSON, Why: "it starts with '['"}
	}
	return Detection{Format: TOON, Why: "it is text that is neither JSON nor a table"}
}

// isText reports whether a prefix is UTF-8 text: no control bytes but tab,
// CR and LF, and no invalid UTF-8 (a sequence cut at the end is allowed).
func isText(p []byte) bool {
	for i := 0; i < len(p); {
		c := p[i]
		if c < 0x20 && c != '\t' && c != '\r' && c != '\n' || c == 0x7F {
			return false
		}
		if c < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && n <= 1 {
			return !utf8.FullRune(p[i:])
		}
		i += n
	}
	return true
}

// DetectionKeys are the members that tell each envelope protocol: a
// message that has all of a protocol's Keys, and a version member of
// value Version when that is set, is of that protocol. They are among its
// Members.
var DetectionKeys = []struct {
	Format  Format
	Version string
	Keys    []string
}{
	{Chiffon, "", []string{"protocol_version", "from_agent"}},
	{Trace, "", []string{"seq", "actor", "meta"}},
	{Narratoria, "0", []string{"type"}},
}

// DetectProtocol names the envelope protocol of JSON messages from the
// start of the input (a message, a JSON array of them, or NDJSON), by the
// member names of the first message: protocol_version and from_agent are
// Chiffon, seq, actor and meta are a trace event, version "0" and type are
// a Narratoria event. When no rule or several fit, Format is "" and Why
// says what was seen.
func DetectProtocol(prefix []byte) Detection {
	d := jsontext.NewDecoder(bytes.NewBuffer(bytes.TrimPrefix(prefix, bom)))
	if d.PeekKind() == '[' {
		d.ReadToken()
	}
	if d.PeekKind() != '{' {
		return Detection{Why: "the first message is not a JSON object"}
	}
	d.ReadToken()
	names := map[string]bool{}
	version := ""
	for d.PeekKind() == '"' {
		tok, err := d.ReadToken()
		if err != nil {
			break
		}
		name := tok.String()
		names[name] = true
		if name == "version" && d.PeekKind() == '"' {
			v, err := d.ReadToken()
			if err != nil {
				break
			}
			version = v.String()
			continue
		}
		if d.SkipValue() != nil {
			break
		}
	}
	var fits []Format
	for _, p := range DetectionKeys {
		has := p.Version == "" || names["version"] && version == p.Version
		for _, k := range p.Keys {
			has = has && names[k]
		}
		if has {
			fits = append(fits, p.Format)
		}
	}
	switch len(fits) {
	case 1:
		return Detection{Format: fits[0], Why: "the first message's fields"}
	case 0:
		var told []string
		for _, p := range DetectionKeys {
			keys := strings.Join(p.Keys, "+")
			if p.Version != "" {
				keys = fmt.Sprintf("version %q+%s", p.Version, keys)
			}
			told = append(told, keys+": "+string(p.Format))
		}
		return Detection{Why: "the first message has none of the fields that tell a protocol (" + strings.Join(told, "; ") + ")"}
	}
	return Detection{Why: fmt.Sprintf("the first message fits %s and %s", fits[0], fits[1])}
}

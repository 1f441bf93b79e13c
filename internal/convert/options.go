package convert

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/toonkit/toonkit/internal/cli"
	"github.com/toonkit/toonkit/internal/codec"
	"github.com/toonkit/toonkit/internal/codec/jsonv"
	measure "github.com/toonkit/toonkit/internal/stats"
	"github.com/toonkit/toonkit/internal/toonx"
	"github.com/toonkit/toonkit/kado"
	"github.com/toonkit/toonkit/toon"
)

// Options are the options of `toonkit convert`.
type Options struct {
	IO               *cli.IOStreams
	Inputs           []string
	From             codec.Format // "": detected per input
	To               codec.Format // or "auto"
	Compact          bool
	Lossy            bool
	Stats            bool
	Tokenizer        string
	Verbose          bool
	Output           string
	MaxFrameSize     int
	Compress         kado.CompressMode
	Now              func() time.Time
	TOON             TOONOptions
	Bridge           BridgeOptions
	Jobs             int  // workers for JSON and NDJSON records; 1 is the single-worker path
	CSVStrings       bool // --csv-strings: every cell of CSV and TSV input a string
	cli.CaptureFlags      // --port, --conn
	// DuplicateKeys is what JSON input's repeated member names make:
	// an error (the default), or one member of each name kept.
	DuplicateKeys jsonv.Duplicates
	// Among are the formats --to cheapest chooses from (internal/stats'
	// names); empty: DefaultAmong, and the table too for a table's input.
	Among []string
}

// Auto is --to auto: the table when the spec's negotiation picks it,
// compact JSON otherwise.
const Auto codec.Format = "auto"

// Cheapest is --to cheapest: the format, of those that read back without
// loss, with the fewest tokens by --tokenizer.
const Cheapest codec.Format = "cheapest"

// DecodeOptions are the options of `toonkit decode`.
type DecodeOptions struct {
	IO               *cli.IOStreams
	Inputs           []string
	From             string
	Payload          bool
	Output           string
	KeepGoing        bool
	Compact          bool   // -c: JSON on one line (TOON text, -o FILE.json), as convert --to json -c
	Stats            bool   // --stats: the tokens of the TOON text and of its JSON, on stderr
	Tokenizer        string // for --stats
	MaxFrameSize     int
	Jobs             int // workers for binary frames; 1 is the single-worker path
	cli.CaptureFlags     // --port, --conn
	TOON             TOONOptions
	// As is the JSON that -o FILE's extension asks for: codec.JSON (a
	// TOON document as itself, frames and rows as one array), codec.NDJSON
	// (one record per line, a TOON root array's elements too), or "" (no
	// such extension: a TOON document as itself, frames and rows NDJSON).
	As codec.Format
}

// EncodeOptions are the options of `toonkit encode`.
type EncodeOptions struct {
	IO           *cli.IOStreams
	Inputs       []string
	To           codec.Format
	Type         kado.MessageType // 0: inferred from the payload
	Seq          uint32
	Timestamp    *uint64 // nil: now, per frame
	Compress     kado.CompressMode
	Output       string
	MaxFrameSize int
	Jobs         int // workers for --to binary; 1 is the single-worker path
	Now          func() time.Time
	Lossy        bool
	Stats        bool
	Tokenizer    string
	TOON         TOONOptions
	SkipText     bool // leave out decode's records of WebSocket text messages
	// From is the inputs' format, "" for JSON, or YAML, CSV or TSV by
	// an input's extension (--from); YAML, CSV and TSV are read as
	// convert reads them.
	From       codec.Format
	CSVStrings bool // --csv-strings
	// DuplicateKeys is as Options.DuplicateKeys (--to toon and tabular).
	DuplicateKeys jsonv.Duplicates
}

// StatsOptions are the options of `toonkit stats`.
type StatsOptions struct {
	IO           *cli.IOStreams
	Inputs       []string
	From         codec.Format // "": detected per input
	Tokenizers   []string
	Report       string // text or json
	MaxFrameSize int
	TOON         TOONOptions
	Jobs         int
	CSVStrings   bool // --csv-strings
	// DuplicateKeys is as Options.DuplicateKeys.
	DuplicateKeys jsonv.Duplicates
	// Among are the formats measured (as Options.Among).
	Among []string
}

// TOONOptions are the flags of the official TOON encoding that encode,
// decode and convert share.
type TOONOptions struct {
	DelimiterName string // --delimiter as given
	Delimiter     toon.Delimiter
	Indent        int
	NoStrict      bool
	// Auto is --delimiter auto: the delimiter with the fewest tokens by
	// Tokenizer, said on stderr when Verbose.
	Auto      bool
	Tokenizer string
	Verbose   bool
}

// DelimiterSpellings are the spellings of --delimiter, as its error lists
// them: the words, and the characters as the reference TOON CLI takes them
// (toon.ParseDelimiter), '\t' being the two characters a shell passes.
const DelimiterSpellings = `comma or ',', tab or '\t' (or a tab character), pipe or '|', auto`

// AutoDelimiter reports whether --delimiter is auto.
func (t *TOONOptions) AutoDelimiter() bool { return strings.EqualFold(t.DelimiterName, "auto") }

// EncoderOptions is the encoder's options, with the delimiter of
// --delimiter auto chosen for doc (internal/stats.CheapestDelimiter), and said
// on stderr with --verbose. A document that is no JSON value keeps the
// comma: the encoder says what is wrong with it.
func (t *TOONOptions) EncoderOptions(ios *cli.IOStreams, doc *cli.Document) toonx.EncodeOptions {
	opts := toonx.EncodeOptions{IndentSize: t.Indent, Delimiter: byte(t.Delimiter)}
	if !t.Auto {
		return opts
	}
	value := doc.Value
	if arr, err := doc.Array(); err == nil && arr != nil {
		value = arr.Value // several values make an array
	}
	d, rep, err := measure.CheapestDelimiter(jsonv.MaskNonFinite(nil, value), t.Tokenizer, t.Indent, 1) // NaN: a number
	if err != nil {
		return opts
	}
	opts.Delimiter = byte(d)
	if t.Verbose {
		var all []string
		for _, row := range rep.Rows {
			all = append(all, fmt.Sprintf("%s %d", strings.TrimPrefix(row.Format, "toon-"), row.Tokens[0]))
		}
		cli.NewReporter(ios).Notef("delimiter auto: %s: the fewest tokens by %s (%s)", d, t.Tokenizer, strings.Join(all, ", "))
	}
	return opts
}

func (t *TOONOptions) DecoderOptions(maxLine int) toonx.DecodeOptions {
	return toonx.DecodeOptions{IndentSize: t.Indent, NonStrict: t.NoStrict, MaxLineSize: maxLine}
}

// BridgeOptions are convert's flags for converting between protocols.
type BridgeOptions struct {
	RunID         string
	AgentID       int64
	Agent         string
	Deterministic bool
	Strict        bool
	NoReassemble  bool
}

var BridgeFlagNames = []string{"run-id", "agent-id", "agent", "deterministic", "strict", "no-reassemble"}

const (
	EncodeChunk    = 256 << 10       // a chunk is cut at the first line end after this many bytes
	EncodeChunkMax = 4 * EncodeChunk // no line end by then: one worker takes over
)

// StatsFormats are the encodings stats reads.
var StatsFormats = []codec.Format{codec.JSON, codec.NDJSON, codec.TOON, codec.Tabular, codec.YAML, codec.CSV, codec.TSV}

// ProgressBytes is the size of data from which stats shows its progress
// on a terminal (a variable for the tests).
var ProgressBytes = 50 << 20

// SuggestTo is the --to that an input of convert most likely wants, for the
// hint of a convert without --to: JSON for TOON, tables, frames and
// captures (the format that reads them back), TOON for JSON and anything
// that cannot be told (TOON is what most users convert JSON to). The
// format is the file's extension's (codec.FormatForExt), or else the
// content's, from the first bytes of a regular file (standard input is
// not read).
func SuggestTo(name string) codec.Format {
	f, ok := codec.FormatForExt(name)
	if !ok && name != "-" && name != "" {
		if file, err := os.Open(name); err == nil {
			head := make([]byte, 4096)
			n, _ := io.ReadFull(file, head)
			file.Close()
			f = codec.DetectWhole(head[:n]).Format
		}
	}
	switch f {
	case codec.TOON, codec.Tabular, codec.Binary, codec.Pcap:
		return codec.JSON
	}
	return codec.TOON
}

// Command genbench writes a deterministic capture of Kado binary TOON frames
// for scripts/bench.sh, and the NDJSON that `toonkit decode` prints for it.
//
//	go run ./scripts/genbench -mb 200 -o bench-out/capture.bin -ndjson bench-out/capture.ndjson
//
// Payloads are compact JSON of 1-64 KB (log-uniform), spread over the eight
// message types and shaped like real traffic: TOOL_RESULT with arrays of
// records or file contents, INSTRUCTION prose with code blocks, STATUS with
// progress bars and logs, ERROR with stack traces, and so on. A share of
// the payloads (-runs, 0.4 by default) carry long runs of one byte (space
// indentation, padding, progress bars, rules, base64 zero fill) so that
// --compress auto compresses them; the others are prose, records and
// tab-indented code, which RLE does not shrink, though the odd 4-byte run in
// a number or an id still makes some of them compress. With the defaults
// about 47% of the frames are compressed. The same seed gives the same bytes.
//
// Memory stays constant: one payload at a time, streamed to the outputs.
// A summary (frames, bytes, compressed share, per type) goes to stderr.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/jsonv"
	"github.com/toonkit/toonkit/internal/gentable"
	"github.com/toonkit/toonkit/kado"
)

func main() {
	mb := flag.Float64("mb", 200, "stop once the capture holds at least this many MB (10^6 bytes) of frames")
	frames := flag.Int("frames", 0, "stop after this many frames instead (0: use -mb)")
	out := flag.String("o", "capture.bin", "capture `FILE` of binary frames")
	nd := flag.String("ndjson", "", "also write the NDJSON that `toonkit decode` prints to `FILE`")
	seed := flag.Uint64("seed", 1, "PRNG seed")
	minSize := flag.Int("min", 1024, "smallest payload target in bytes")
	maxSize := flag.Int("max", 62<<10, "largest payload target in bytes (no payload passes 64 KiB)")
	runShare := flag.Float64("runs", 0.4, "share of payloads built with long runs of one byte")
	quiet := flag.Bool("q", false, "no summary on stderr")
	limitDir := flag.String("limit-dir", "", "instead, write inputs that each hold one value at the size limit to `DIR`: bomb.bin, big.bin, big.json")
	limitSize := flag.Int("limit-size", kado.DefaultMaxFrameSize, "the size limit for -limit-dir, in bytes")
	table := flag.String("table", "", "instead, write a JSON array of flat objects (about -mb MB) to `FILE`, one that converts to a table without loss")
	users := flag.String("users", "", "instead, write a JSON array of -frames user objects (default 100000; id, name, email, active, score, tags), indented as JSON.stringify(v, null, 2) does, to `FILE`")
	noTags := flag.Bool("no-tags", false, "-users without the tags array, so that the array is tabular in TOON")
	messages := flag.String("messages", "", "instead, write valid NDJSON messages of a protocol, chiffon or trace, or unsigned trace events of about 1 KB (audit), to -o (-frames of them, or about -mb MB)")
	doc := flag.String("doc", "", "instead, write one JSON document of about -mb MB of a `SHAPE` to -o: a (an object holding a table of customers), b (an array of mixed objects) or c (a deep configuration)")
	flag.Parse()
	if *doc != "" {
		if err := writeDoc(*out, *doc, int64(*mb*1e6), *seed); err != nil {
			fmt.Fprintln(os.Stderr, "genbench:", err)
			os.Exit(1)
		}
		return
	}
	if *messages != "" {
		if err := writeMessages(*out, *messages, *frames, int64(*mb*1e6)); err != nil {
			fmt.Fprintln(os.Stderr, "genbench:", err)
			os.Exit(1)
		}
		return
	}
	if *users != "" {
		n := *frames
		if n == 0 {
			n = 100000
		}
		if err := writeUsers(*users, n, !*noTags, *seed); err != nil {
			fmt.Fprintln(os.Stderr, "genbench:", err)
			os.Exit(1)
		}
		return
	}
	if *table != "" {
		if err := writeTableInput(*table, int64(*mb*1e6), *seed); err != nil {
			fmt.Fprintln(os.Stderr, "genbench:", err)
			os.Exit(1)
		}
		return
	}
	if *limitDir != "" {
		if err := writeLimitInputs(*limitDir, *limitSize); err != nil {
			fmt.Fprintln(os.Stderr, "genbench:", err)
			os.Exit(1)
		}
		return
	}
	if *minSize < 2 || *maxSize < *minSize || *runShare < 0 || *runShare > 1 {
		fmt.Fprintln(os.Stderr, "genbench: need 2 <= -min <= -max and 0 <= -runs <= 1")
		os.Exit(2)
	}
	g := &gen{
		rng:     rand.New(rand.NewPCG(*seed, 0x70_6f_6f_6e_6b_69_74)),
		min:     *minSize,
		max:     *maxSize,
		runs:    *runShare,
		ts:      1735689600000,
		payload: make([]byte, 0, 80<<10),
	}
	st, err := g.run(*out, *nd, int64(*mb*1e6), *frames)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genbench:", err)
		os.Exit(1)
	}
	if !*quiet {
		st.print()
	}
}

type stats struct {
	frames, compressed        int
	binBytes, ndBytes         int64
	payloadBytes, wireBytes   int64
	minPayload, maxPayload    int
	byType, compByType        [9]int
	withRuns, withRunsComp    int
	withoutRuns, noRunsButCmp int
}

func (s *stats) print() {
	pct := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return 100 * float64(a) / float64(b)
	}
	fmt.Fprintf(os.Stderr, "genbench: %d frames, %d bytes of frames (%.1f MB)", s.frames, s.binBytes, float64(s.binBytes)/1e6)
	if s.ndBytes > 0 {
		fmt.Fprintf(os.Stderr, ", %d bytes of NDJSON (%.1f MB)", s.ndBytes, float64(s.ndBytes)/1e6)
	}
	fmt.Fprintln(os.Stderr)
	fmt.Fprintf(os.Stderr, "genbench: JSON payloads %d-%d bytes, mean %d\n", s.minPayload, s.maxPayload, s.payloadBytes/int64(max(s.frames, 1)))
	fmt.Fprintf(os.Stderr, "genbench: compressed by --compress auto: %d of %d frames (%.1f%%); payload bytes %d -> %d on the wire (%.1f%%)\n",
		s.compressed, s.frames, pct(s.compressed, s.frames), s.payloadBytes, s.wireBytes, 100*float64(s.wireBytes)/float64(max(s.payloadBytes, 1)))
	fmt.Fprintf(os.Stderr, "genbench:   built with runs: %d, compressed %d (%.1f%%); built without: %d, compressed all the same %d (%.1f%%)\n",
		s.withRuns, s.withRunsComp, pct(s.withRunsComp, s.withRuns), s.withoutRuns, s.noRunsButCmp, pct(s.noRunsButCmp, s.withoutRuns))
	for _, t := range kado.MessageTypes() {
		fmt.Fprintf(os.Stderr, "genbench:   %-16s %6d frames, %6d compressed\n", t, s.byType[t], s.compByType[t])
	}
}

type gen struct {
	rng      *rand.Rand
	min, max int
	runs     float64
	ts       uint64
	seq      uint32
	payload  []byte
	compact  []byte
	frame    []byte
	line     []byte
}

func (g *gen) run(binPath, ndPath string, limit int64, maxFrames int) (st stats, err error) {
	bf, err := os.Create(binPath)
	if err != nil {
		return st, err
	}
	defer bf.Close()
	bw := bufio.NewWriterSize(bf, 1<<20)
	var nw *bufio.Writer
	if ndPath != "" {
		nf, err := os.Create(ndPath)
		if err != nil {
			return st, err
		}
		defer nf.Close()
		nw = bufio.NewWriterSize(nf, 1<<20)
	}
	st.minPayload = math.MaxInt
	for {
		if maxFrames > 0 && st.frames >= maxFrames || maxFrames <= 0 && st.binBytes >= limit {
			break
		}
		typ, withRuns := g.next()
		// The payload must be in the compact form toonkit writes, or decode
		// | encode would not give the capture back byte for byte.
		g.compact, err = jsonv.AppendCompact(g.compact[:0], g.payload)
		if err != nil {
			return st, fmt.Errorf("generated payload %d is not JSON: %v", st.frames, err)
		}
		g.seq++
		g.ts += uint64(1 + g.rng.IntN(250))
		h := kado.Header{Version: kado.Version, Type: typ, Timestamp: g.ts, SequenceID: g.seq}
		g.frame, h, err = kado.AppendFrame(g.frame[:0], h, g.compact, kado.CompressAuto)
		if err != nil {
			return st, err
		}
		comp := kado.IsCompressed(g.frame[kado.HeaderSize:])
		if _, err := bw.Write(g.frame); err != nil {
			return st, err
		}
		if nw != nil {
			g.line = kado.AppendRecord(g.line[:0], h, comp, g.compact)
			g.line = append(g.line, '\n')
			if _, err := nw.Write(g.line); err != nil {
				return st, err
			}
			st.ndBytes += int64(len(g.line))
		}
		st.frames++
		st.binBytes += int64(len(g.frame))
		st.payloadBytes += int64(len(g.compact))
		st.wireBytes += int64(h.PayloadLength)
		st.minPayload = min(st.minPayload, len(g.compact))
		st.maxPayload = max(st.maxPayload, len(g.compact))
		st.byType[typ]++
		if withRuns {
			st.withRuns++
		} else {
			st.withoutRuns++
		}
		if comp {
			st.compressed++
			st.compByType[typ]++
			if withRuns {
				st.withRunsComp++
			} else {
				st.noRunsButCmp++
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return st, err
	}
	if nw != nil {
		if err := nw.Flush(); err != nil {
			return st, err
		}
	}
	return st, nil
}

// next builds the next payload in g.payload and returns its type and whether
// it was built with long runs.
func (g *gen) next() (kado.MessageType, bool) {
	// A log-uniform size target: many small frames, some large ones.
	lo, hi := math.Log(float64(g.min)), math.Log(float64(g.max))
	target := int(math.Exp(lo + g.rng.Float64()*(hi-lo)))
	runs := g.rng.Float64() < g.runs
	want := target
	for try := 0; ; try++ {
		t := g.build(target, runs)
		// Escaping and the last item overshoot the target: aim again so that
		// every payload stays within [min, 64 KiB].
		n := len(g.payload)
		if n >= g.min && n <= 64<<10 || try == 8 {
			return t, runs
		}
		target = max(2, target*want/n)
		if n < g.min {
			target += g.min - n
		}
	}
}

func (g *gen) build(target int, runs bool) kado.MessageType {
	b := g.payload[:0]
	// Traffic mix: tool results dominate a real capture.
	var t kado.MessageType
	switch r := g.rng.IntN(100); {
	case r < 35:
		t = kado.ToolResult
	case r < 50:
		t = kado.ToolCall
	case r < 62:
		t = kado.Instruction
	case r < 72:
		t = kado.ContextResponse
	case r < 80:
		t = kado.Status
	case r < 87:
		t = kado.Error
	case r < 94:
		t = kado.ContextRequest
	default:
		t = kado.Heartbeat
	}
	switch t {
	case kado.Instruction:
		b = g.instruction(b, target, runs)
	case kado.ToolCall:
		b = g.toolCall(b, target, runs)
	case kado.ToolResult:
		b = g.toolResult(b, target, runs)
	case kado.Status:
		b = g.status(b, target, runs)
	case kado.Error:
		b = g.errorMsg(b, target, runs)
	case kado.Heartbeat:
		b = g.heartbeat(b, target, runs)
	case kado.ContextRequest:
		b = g.contextRequest(b, target, runs)
	case kado.ContextResponse:
		b = g.contextResponse(b, target, runs)
	}
	g.payload = b
	return t
}

// ---- payloads ----

func (g *gen) instruction(b []byte, target int, runs bool) []byte {
	b = append(b, `{"instruction":`...)
	var text []byte
	text = append(text, "## Task\n\n"...)
	for len(text) < target-200 {
		text = g.paragraph(text)
		text = append(text, "\n\n"...)
		if g.rng.IntN(3) == 0 {
			text = append(text, "```ts\n"...)
			text = g.code(text, 200+g.rng.IntN(800), runs)
			text = append(text, "```\n\n"...)
		}
		if runs && g.rng.IntN(4) == 0 {
			text = append(text, strings.Repeat("-", 40+g.rng.IntN(40))...)
			text = append(text, "\n\n"...)
		}
	}
	b = appendString(b, string(text))
	b = append(b, `,"priority":"`...)
	b = append(b, pick(g.rng, priorities)...)
	b = append(b, `","taskId":"`...)
	b = g.uuid(b)
	b = append(b, `","constraints":{"maxTokens":`...)
	b = strconv.AppendInt(b, int64(1024*(1+g.rng.IntN(16))), 10)
	b = append(b, `,"timeoutMs":`...)
	b = strconv.AppendInt(b, int64(2500+250*g.rng.IntN(100)), 10)
	b = append(b, `,"allowTools":[`...)
	for i, n := 0, 1+g.rng.IntN(5); i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, pick(g.rng, toolNames))
	}
	return append(b, "]}}"...)
}

func (g *gen) toolCall(b []byte, target int, runs bool) []byte {
	tool := pick(g.rng, toolNames)
	b = append(b, `{"toolName":`...)
	b = appendString(b, tool)
	b = append(b, `,"args":{"path":`...)
	b = appendString(b, g.path())
	switch g.rng.IntN(3) {
	case 0: // a file write: code
		b = append(b, `,"content":`...)
		b = appendString(b, string(g.code(nil, target-150, runs)))
		b = append(b, `,"createDirs":true`...)
	case 1: // a patch
		b = append(b, `,"edits":[`...)
		for i := 0; len(b) < target; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"startLine":`...)
			b = strconv.AppendInt(b, int64(1+g.rng.IntN(2000)), 10)
			b = append(b, `,"endLine":`...)
			b = strconv.AppendInt(b, int64(1+g.rng.IntN(2000)), 10)
			b = append(b, `,"newText":`...)
			b = appendString(b, string(g.code(nil, 100+g.rng.IntN(600), runs)))
			b = append(b, '}')
		}
		b = append(b, ']')
	default: // a search with many patterns
		b = append(b, `,"patterns":[`...)
		for i := 0; len(b) < target; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, pick(g.rng, identifiers)+"\\s*\\("+pick(g.rng, words)+".*")
		}
		b = append(b, `],"caseSensitive":false,"maxResults":`...)
		b = strconv.AppendInt(b, int64(50+g.rng.IntN(500)), 10)
	}
	b = append(b, `},"callId":"`...)
	b = g.uuid(b)
	return append(b, `"}`...)
}

func (g *gen) toolResult(b []byte, target int, runs bool) []byte {
	b = append(b, `{"success":`...)
	b = strconv.AppendBool(b, g.rng.IntN(20) != 0)
	b = append(b, `,"data":`...)
	switch k := g.rng.IntN(3); {
	case k == 0 && runs: // a file read: space-indented source
		b = appendString(b, string(g.code(nil, target-80, true)))
	case k == 0: // query rows as a table rendered with tabs
		var s []byte
		for len(s) < target-80 {
			s = append(s, pick(g.rng, identifiers)...)
			s = append(s, '\t')
			s = strconv.AppendInt(s, int64(g.rng.IntN(100000)), 10)
			s = append(s, '\t')
			s = append(s, pick(g.rng, words)...)
			s = append(s, '\n')
		}
		b = appendString(b, string(s))
	default: // an array of records
		b = append(b, '[')
		for i := 0; len(b) < target-60; i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = g.record(b, i, runs)
		}
		b = append(b, ']')
	}
	b = append(b, `,"duration":`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(5000)), 10)
	return append(b, '}')
}

func (g *gen) record(b []byte, i int, runs bool) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, int64(731562+i*7+g.rng.IntN(7)), 10)
	b = append(b, `,"name":`...)
	name := pick(g.rng, names) + " " + pick(g.rng, surnames)
	if runs { // a fixed-width column, padded with spaces
		name += strings.Repeat(" ", max(0, 32-len(name)))
	}
	b = appendString(b, name)
	b = append(b, `,"email":`...)
	b = appendString(b, strings.ToLower(pick(g.rng, names))+"."+strconv.Itoa(g.rng.IntN(1000))+"@"+pick(g.rng, domains))
	b = append(b, `,"active":`...)
	b = strconv.AppendBool(b, g.rng.IntN(4) != 0)
	b = append(b, `,"score":`...)
	b = strconv.AppendFloat(b, math.Round(g.rng.Float64()*10000)/100, 'f', -1, 64)
	b = append(b, `,"tags":[`...)
	for j, n := 0, g.rng.IntN(4); j < n; j++ {
		if j > 0 {
			b = append(b, ',')
		}
		b = appendString(b, pick(g.rng, words))
	}
	b = append(b, `],"city":`...)
	b = appendString(b, pick(g.rng, cities))
	b = append(b, `,"createdAt":"2025-`...)
	b = append(b, fmt.Sprintf("%02d-%02dT%02d:%02d:%02d.%03dZ", 1+g.rng.IntN(12), 1+g.rng.IntN(28), g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60), g.rng.IntN(1000))...)
	b = append(b, `","balance":`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(2000000))-500000, 10)
	if runs && g.rng.IntN(3) == 0 {
		b = append(b, `,"reserved":"`...)
		b = append(b, strings.Repeat("0", 16+g.rng.IntN(48))...)
		b = append(b, '"')
	}
	return append(b, '}')
}

func (g *gen) status(b []byte, target int, runs bool) []byte {
	progress := math.Round(g.rng.Float64()*1000) / 1000
	b = append(b, `{"status":`...)
	b = appendString(b, pick(g.rng, statuses))
	b = append(b, `,"progress":`...)
	b = strconv.AppendFloat(b, progress, 'f', -1, 64)
	if runs {
		w := 60
		done := int(progress * float64(w))
		b = append(b, `,"bar":"[`...)
		b = append(b, strings.Repeat("#", done)...)
		b = append(b, strings.Repeat(" ", w-done)...)
		b = append(b, `]"`...)
	}
	b = append(b, `,"log":[`...)
	for i := 0; len(b) < target-20; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		line := fmt.Sprintf("%s %-5s %s", g.clock(), pick(g.rng, levels), g.sentence())
		if runs && g.rng.IntN(3) == 0 {
			line += strings.Repeat(".", 8+g.rng.IntN(40)) + " ok"
		}
		b = appendString(b, line)
	}
	return append(b, "]}"...)
}

func (g *gen) errorMsg(b []byte, target int, runs bool) []byte {
	b = append(b, `{"code":`...)
	b = appendString(b, pick(g.rng, errorCodes))
	b = append(b, `,"message":`...)
	b = appendString(b, "File not found: "+g.path()+" ("+g.sentence()+")")
	b = append(b, `,"stack":`...)
	var s []byte
	s = append(s, "Error: "...)
	s = append(s, g.sentence()...)
	for len(s) < target-120 {
		s = append(s, '\n')
		if runs {
			s = append(s, "    "...)
		} else {
			s = append(s, '\t')
		}
		s = append(s, "at "...)
		s = append(s, pick(g.rng, identifiers)...)
		s = append(s, '.')
		s = append(s, pick(g.rng, identifiers)...)
		s = append(s, " ("...)
		s = append(s, g.path()...)
		s = fmt.Appendf(s, ":%d:%d)", 1+g.rng.IntN(900), 1+g.rng.IntN(80))
	}
	b = appendString(b, string(s))
	b = append(b, `,"retryable":`...)
	b = strconv.AppendBool(b, g.rng.IntN(2) == 0)
	return append(b, '}')
}

func (g *gen) heartbeat(b []byte, target int, runs bool) []byte {
	b = append(b, `{"agent":"subagent-`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(64)), 10)
	b = append(b, `","uptimeMs":`...)
	b = strconv.AppendInt(b, int64(g.rng.IntN(1<<31)), 10)
	b = append(b, `,"samples":[`...)
	for i := 0; len(b) < target-20; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"t":`...)
		b = strconv.AppendUint(b, g.ts-uint64(i*1000), 10)
		b = append(b, `,"cpu":`...)
		b = strconv.AppendFloat(b, math.Round(g.rng.Float64()*1000)/10, 'f', -1, 64)
		b = append(b, `,"rssKb":`...)
		b = strconv.AppendInt(b, int64(20000+g.rng.IntN(400000)), 10)
		b = append(b, `,"queue":`...)
		b = strconv.AppendInt(b, int64(g.rng.IntN(40)), 10)
		if runs {
			b = append(b, `,"spark":"`...)
			for k := 0; k < 4; k++ {
				b = append(b, strings.Repeat(pick(g.rng, sparks), 2+g.rng.IntN(8))...)
			}
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (g *gen) contextRequest(b []byte, target int, runs bool) []byte {
	b = append(b, `{"type":"file","path":`...)
	b = appendString(b, g.path())
	b = append(b, `,"reason":`...)
	b = appendString(b, g.sentence())
	b = append(b, `,"related":[`...)
	for i := 0; len(b) < target-20; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"path":`...)
		b = appendString(b, g.path())
		b = append(b, `,"lines":[`...)
		from := 1 + g.rng.IntN(3000)
		b = strconv.AppendInt(b, int64(from), 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, int64(from+g.rng.IntN(200)), 10)
		b = append(b, `],"why":`...)
		why := g.sentence()
		if runs && g.rng.IntN(2) == 0 {
			why = strings.Repeat("=", 24) + " " + why + " " + strings.Repeat("=", 24)
		}
		b = appendString(b, why)
		b = append(b, '}')
	}
	return append(b, "]}"...)
}

func (g *gen) contextResponse(b []byte, target int, runs bool) []byte {
	b = append(b, `{"type":"file","path":`...)
	b = appendString(b, g.path())
	if runs && g.rng.IntN(3) == 0 {
		// A binary asset as base64 with long zero-filled stretches ("AAAA...").
		b = append(b, `,"encoding":"base64","content":"`...)
		for len(b) < target-30 {
			if g.rng.IntN(4) == 0 {
				b = append(b, strings.Repeat("A", 40+g.rng.IntN(400))...)
			} else {
				for i := 0; i < 76; i++ {
					b = append(b, base64Chars[g.rng.IntN(64)])
				}
			}
		}
		b = append(b, '"')
	} else {
		b = append(b, `,"encoding":"utf-8","content":`...)
		b = appendString(b, string(g.code(nil, target-80, runs)))
	}
	b = append(b, `,"sha256":"`...)
	for i := 0; i < 64; i++ {
		b = append(b, "0123456789abcdef"[g.rng.IntN(16)])
	}
	return append(b, `"}`...)
}

// ---- text ----

// code appends source text of about n bytes: indented with spaces (runs)
// or with tabs (no runs).
func (g *gen) code(b []byte, n int, spaces bool) []byte {
	end := len(b) + n
	depth := 0
	for len(b) < end {
		ind := depth
		if spaces {
			b = append(b, strings.Repeat("    ", ind)...)
		} else {
			b = append(b, strings.Repeat("\t", ind)...)
		}
		switch r := g.rng.IntN(10); {
		case r < 2 && depth < 6:
			b = fmt.Appendf(b, "%s %s(%s: %s) {", pick(g.rng, keywords), pick(g.rng, identifiers), pick(g.rng, identifiers), pick(g.rng, typeNames))
			depth++
		case r < 4 && depth > 0:
			b = append(b, '}')
			depth--
		case r < 5:
			b = fmt.Appendf(b, "// %s", g.sentence())
		case r < 6:
			b = fmt.Appendf(b, "const %s = %q;", pick(g.rng, identifiers), pick(g.rng, words)+" "+pick(g.rng, unicodeWords))
		default:
			b = fmt.Appendf(b, "%s.%s(%s, %d);", pick(g.rng, identifiers), pick(g.rng, identifiers), pick(g.rng, identifiers), g.rng.IntN(1000))
		}
		b = append(b, '\n')
	}
	return b
}

func (g *gen) paragraph(b []byte) []byte {
	for i, n := 0, 3+g.rng.IntN(6); i < n; i++ {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, g.sentence()...)
	}
	return b
}

func (g *gen) sentence() string {
	var sb strings.Builder
	n := 6 + g.rng.IntN(12)
	for i := 0; i < n; i++ {
		w := pick(g.rng, words)
		if g.rng.IntN(25) == 0 {
			w = pick(g.rng, unicodeWords)
		} else if g.rng.IntN(30) == 0 {
			w = `"` + pick(g.rng, identifiers) + `"`
		}
		if i == 0 && w[0] >= 'a' && w[0] <= 'z' {
			w = string(w[0]-'a'+'A') + w[1:]
		}
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(w)
	}
	sb.WriteByte('.')
	return sb.String()
}

func (g *gen) path() string {
	var sb strings.Builder
	sb.WriteString(pick(g.rng, roots))
	for i, n := 0, 1+g.rng.IntN(3); i < n; i++ {
		sb.WriteByte('/')
		sb.WriteString(pick(g.rng, dirs))
	}
	sb.WriteByte('/')
	sb.WriteString(pick(g.rng, identifiers))
	sb.WriteString(pick(g.rng, exts))
	return sb.String()
}

func (g *gen) clock() string {
	return fmt.Sprintf("%02d:%02d:%02d.%03d", g.rng.IntN(24), g.rng.IntN(60), g.rng.IntN(60), g.rng.IntN(1000))
}

func (g *gen) uuid(b []byte) []byte {
	const hex = "0123456789abcdef"
	for i := 0; i < 36; i++ {
		switch i {
		case 8, 13, 18, 23:
			b = append(b, '-')
		case 14:
			b = append(b, '4')
		default:
			b = append(b, hex[g.rng.IntN(16)])
		}
	}
	return b
}

// appendString appends s as a JSON string with the escaping of JavaScript's
// JSON.stringify (the form toonkit writes).
func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\t':
			b = append(b, '\\', 't')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\b':
			b = append(b, '\\', 'b')
		case c == '\f':
			b = append(b, '\\', 'f')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

func pick(r *rand.Rand, list []string) string { return list[r.IntN(len(list))] }

const base64Chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"

var (
	words = strings.Fields(`the a service user request handler returns cache layer token agent
		orchestrator subagent tool result schema field value stream frame payload header
		parse validate encode decode retry timeout budget context file path module import
		export class function method interface type config option default error warning
		test coverage branch commit merge review deploy build release metric latency
		throughput memory buffer queue worker task plan step update state event log trace
		span signature key record table row column index query filter sort limit offset
		batch page cursor session credential scope permission role policy audit check`)
	unicodeWords = []string{"café", "naïve", "Grüße", "日本語", "données", "über", "façade", "😀", "→", "Ωmega", "snowman ☃", "Ελληνικά", "тест", "中文字符"}
	identifiers  = strings.Fields(`userService fetchUser handleRequest parseFrame encodePayload tokenCache
		retryPolicy buildIndex queryRows validateSchema renderTable loadConfig writeFile readFile
		sessionStore emitEvent traceSpan computeHash mergeBranches listFiles resolvePath
		openStream closeStream flushBuffer nextFrame decodeHeader applyPatch runTests`)
	typeNames  = []string{"string", "number", "boolean", "User", "Frame", "Buffer", "Promise<void>", "Record<string, unknown>", "Options"}
	keywords   = []string{"function", "async function", "export function", "if", "for", "while", "class", "switch"}
	toolNames  = []string{"file_read", "file_write", "file_patch", "grep", "run_tests", "shell", "http_get", "sql_query", "list_dir", "git_diff"}
	priorities = []string{"low", "normal", "high", "urgent"}
	names      = []string{"Alice", "Bob", "Chloé", "Dmitri", "Eve", "Farah", "Gustavo", "Hiroshi", "Ines", "José", "Kwame", "Lena", "Mei", "Noah", "Olga", "Priya"}
	surnames   = []string{"Martin", "Nakamura", "O'Brien", "Schmidt", "García", "Okafor", "Novak", "Rossi", "Kim", "Dubois", "Singh", "Lindqvist"}
	domains    = []string{"example.com", "kado.dev", "mail.test", "corp.example.org"}
	cities     = []string{"Lyon", "Osaka", "Nairobi", "São Paulo", "Kraków", "Montréal", "Zürich", "Austin", "Pune", "Reykjavík"}
	statuses   = []string{"analyzing", "planning", "editing", "testing", "waiting", "summarizing", "indexing"}
	levels     = []string{"INFO", "DEBUG", "WARN", "ERROR"}
	errorCodes = []string{"TOOL_FAILED", "TIMEOUT", "NOT_FOUND", "PERMISSION_DENIED", "INVALID_ARGS", "RATE_LIMITED"}
	sparks     = []string{"▁", "▂", "▃", "▅", "▇", "_", "-", "="}
	roots      = []string{"src", "packages/orchestrator/src", "packages/shared/src", "apps/web", "services/ai-engine", "test"}
	dirs       = []string{"toon", "services", "handlers", "utils", "models", "api", "internal", "lib", "components", "fixtures"}
	exts       = []string{".ts", ".tsx", ".py", ".go", ".json", ".md", ".test.ts"}
)

// writeLimitInputs writes three inputs of one value each, at the size limit:
// bomb.bin, a compressed frame that decompresses to a payload of exactly the
// limit; big.bin, an uncompressed frame of a payload of exactly the limit;
// big.json, a value of exactly the limit with white space to take out.
func writeLimitInputs(dir string, limit int) error {
	const head, foot = `{"instruction":"`, `"}`
	payload := make([]byte, 0, limit)
	payload = append(payload, head...)
	for len(payload) < limit-len(foot) {
		payload = append(payload, "abcdefgh"[len(payload)%8])
	}
	payload = append(payload, foot...)
	h := kado.Header{Version: kado.Version, Type: kado.Instruction, Timestamp: 1735689600000, SequenceID: 1}
	write := func(name string, wire []byte) error {
		h.PayloadLength = uint32(len(wire))
		return os.WriteFile(dir+"/"+name, append(kado.AppendHeader(nil, h), wire...), 0o644)
	}
	if err := write("big.bin", payload); err != nil {
		return err
	}
	runs := append(append([]byte(head), strings.Repeat(" ", limit-len(head)-len(foot))...), foot...)
	if err := write("bomb.bin", kado.AppendRLE([]byte{kado.CompressionMagic}, runs)); err != nil {
		return err
	}
	const spacedHead, spacedFoot = `{ "instruction" : "`, `" }`
	spaced := append([]byte(spacedHead), payload[len(head):len(head)+limit-len(spacedHead)-len(spacedFoot)]...)
	spaced = append(spaced, spacedFoot...)
	return os.WriteFile(dir+"/big.json", spaced, 0o644)
}

// writeTableInput writes the table benchmark's input (gentable.Write) to
// path.
func writeTableInput(path string, size int64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := gentable.Write(f, size, seed); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeUsers writes the TOON benchmark's input: a JSON array of n users
// {id, name, email, active, score, tags}, indented by two spaces as
// JavaScript's JSON.stringify(v, null, 2) writes it, so that TOON decoded
// back to indented JSON must give the file again byte for byte. Scores are
// decimals with at most two places, exact in any float64 reader.
func writeUsers(path string, n int, tags bool, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x746f6f6e))
	first := []string{"Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Grace", "Hiro", "Ines", "José"}
	last := []string{"Martin", "Chen", "Okafor", "Müller", "Schmidt", "Tanaka", "Ruiz", "Novak", "Haddad", "Kowalski"}
	words := []string{"admin", "ops", "dev", "billing", "on-call", "remote", "beta tester", "mentor"}
	var b []byte
	w.WriteString("[")
	for i := 0; i < n; i++ {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		fn, ln := first[rng.IntN(len(first))], last[rng.IntN(len(last))]
		b = fmt.Appendf(b, "\n  {\n    \"id\": %d,\n    \"name\": \"%s %s\",\n    \"email\": \"%s.%s%d@example.com\",\n    \"active\": %t,\n    \"score\": %s",
			i+1, fn, ln, strings.ToLower(fn), strings.ToLower(ln), i+1, rng.IntN(2) == 0,
			strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%d.%02d", rng.IntN(100), rng.IntN(100)), "0"), "."))
		if tags {
			b = append(b, ",\n    \"tags\": ["...)
			for j := 0; j < 3; j++ {
				if j > 0 {
					b = append(b, ',')
				}
				b = fmt.Appendf(b, "\n      \"%s\"", words[rng.IntN(len(words))])
			}
			b = append(b, "\n    ]"...)
		}
		b = append(b, "\n  }"...)
		w.Write(b)
	}
	w.WriteString("\n]\n")
	return w.Flush()
}

// writeMessages writes valid NDJSON messages of a protocol: Chiffon tasks
// (a work_request, two work_status with output chunks, a work_result), or
// AOP trace runs (reasoning, action_request, action_response, final_output).
func writeMessages(path, protocol string, n int, size int64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	var written int64
	// A Chiffon task is four messages: stop between tasks.
	for i := 0; n > 0 && i < n || n <= 0 && (written < size || protocol == "chiffon" && i%4 != 0); i++ {
		var line string
		switch protocol {
		case "chiffon":
			task := i / 4
			env := fmt.Sprintf(`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-%012x","from_agent":"%%s","to_agent":"%%s","timestamp":"2026-01-19T04:21:%02dZ","trace_id":"660e8400-e29b-41d4-a716-%012x","request_id":"770e8400-e29b-41d4-a716-%012x","type":"%%s","payload":%%s}`, i, i%60, task, i)
			tid := fmt.Sprintf("880e8400-e29b-41d4-a716-%012x", task)
			switch i % 4 {
			case 0:
				line = fmt.Sprintf(env, "orchestrator", "infra", "work_request", `{"task_id":"`+tid+`","work_type":"run_playbook","parameters":{"playbook":"deploy_kuma.yml","extra_vars":{"version":"1.4.0"}},"hints":{"max_duration_seconds":300,"max_memory_mb":512}}`)
			case 1, 2:
				// Two chunks of one output, each stating the bytes it holds.
				const out = "Updating config.yaml...\nAdded uptime monitors: 3\n"
				n := len(out)
				chunk := fmt.Sprintf("bytes 0-%d of %d", n, 2*n)
				if i%4 == 2 {
					chunk = fmt.Sprintf("bytes %d-%d of %d", n, 2*n, 2*n)
				}
				line = fmt.Sprintf(env, "infra", "orchestrator", "work_status", `{"task_id":"`+tid+`","status":"running","progress_percent":`+fmt.Sprint(50*(i%4))+`,"step":{"number":5,"name":"Collecting logs","output":`+strconv.Quote(out)+`,"output_chunk":"`+chunk+`"}}`)
			default:
				line = fmt.Sprintf(env, "infra", "orchestrator", "work_result", `{"task_id":"`+tid+`","status":"success","exit_code":0,"output":"Deployment completed successfully.","resources_used":{"duration_seconds":87,"gpu_vram_mb":0,"cpu_time_ms":12450}}`)
			}
		case "trace":
			run := fmt.Sprintf("550e8400-e29b-41d4-a716-%012x", i/1000)
			sig := fmt.Sprintf("%064x", i)
			payloads := []string{
				`{"goal":"Process customer refund request","steps":[{"step_id":"s1","description":"interpret query","decision":"select_tool: create_ticket","confidence":0.82}],"safety_checks":[{"name":"policy_lookup","result":"passed"}],"uncertainty":"low"}`,
				`{"action":"create_ticket","params":{"title":"Refund Request - Order #12345","order_id":"ORD-12345","amount":99.99}}`,
				`{"status":"ok","data":{"ticket_id":"T-999","status":"open"},"meta":{"latency_ms":120,"policy_flags":[],"retries":0}}`,
				`{"text":"Your refund ticket has been created: T-999."}`,
			}
			types := []string{"reasoning", "action_request", "action_response", "final_output"}
			line = fmt.Sprintf(`{"seq":%d,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"%s","payload":%s,"meta":{"seed":42,"run_id":"%s","agent_id":123,"session_id":"sess-abc123","signature":"%s"},"signature":"%s"}`,
				i%1000, types[i%4], payloads[i%4], run, sig, sig)
		case "audit":
			line = auditEvent(i)
		default:
			return fmt.Errorf("unknown protocol %q (chiffon, trace or audit)", protocol)
		}
		w.WriteString(line)
		w.WriteByte('\n')
		written += int64(len(line) + 1)
	}
	return w.Flush()
}

// auditEvent is an unsigned AOP trace event of about 1 KB, for sign and
// verify: runs of 1000 events numbered from 1, payloads with members out
// of order (so that json.dumps(sort_keys=True) has work to do), floats,
// integers, non-ASCII text and escapes.
func auditEvent(i int) string {
	run := fmt.Sprintf("550e8400-e29b-41d4-a716-%012x", i/1000)
	types := []string{"reasoning", "action_request", "action_response", "final_output"}
	actors := []string{"agent", "tool", "tool", "agent"}
	var payload string
	switch i % 4 {
	case 0:
		payload = fmt.Sprintf(`{"goal":"Process customer refund request #%d","steps":[{"step_id":"s1","description":"interpret the query and pick a tool","decision":"select_tool: create_ticket","confidence":0.82},{"step_id":"s2","description":"validate order_id against the order service","decision":"proceed_with_validation","confidence":0.95},{"step_id":"s3","description":"check the refund policy for the customer's region","decision":"policy allows a refund","confidence":0.9}],"safety_checks":[{"name":"policy_lookup","result":"passed"},{"name":"data_validation","result":"passed"},{"name":"pii_scan","result":"passed"}],"uncertainty":"low"}`, i)
	case 1:
		payload = fmt.Sprintf(`{"action":"create_ticket","params":{"title":"Refund Request – Order #%d","order_id":"ORD-%d","amount":%d.99,"reason":"Product defect: the screen stays dark after the update","currency":"EUR","customer":{"name":"Jürgen Müller","city":"München","tier":"gold"}},"context":{"user_id":"U-789","session_id":"sess-abc123","timestamp":"2025-12-05T10:30:00Z","locale":"de-DE","channel":"chat","attempt":1,"tags":["refund","hardware","priority"]}}`, i, i, i%500)
	case 2:
		payload = fmt.Sprintf(`{"status":"ok","data":{"ticket_id":"T-%d","created_at":"2025-12-05T10:30:15Z","status":"open","queue":"refunds-eu","assignee":null,"eta_hours":24,"notes":"Ticket created by the agent on behalf of the customer.\nPriority raised: gold tier.","links":{"self":"https://tickets.example.com/T-%d","order":"https://orders.example.com/ORD-%d"}},"meta":{"latency_ms":%d,"policy_flags":[],"retries":0,"cache":"miss","region":"eu-west-1","cost":0.00042}}`, i, i, i, 100+i%50)
	default:
		payload = fmt.Sprintf(`{"text":"Your refund ticket has been created: T-%d. You will receive an email confirmation shortly, and an answer within 24 hours. Thank you for your patience — we are sorry for the trouble.","structured":{"ticket_id":"T-%d","status":"created","next_steps":["Check email for confirmation","Expect a response within 24 hours","Keep the order number at hand"],"reference_number":"REF-20251205-%d","score":%d.5}}`, i, i, i, i%10)
	}
	// About 330 bytes more of text, with an escape and a non-ASCII letter.
	payload = payload[:len(payload)-1] + fmt.Sprintf(`,"audit":{"trail":"event %d of the refund workflow: the customer asked for a refund through the chat widget; the agent checked the order, the policy and the customer's history before acting.\tNothing unusual was found — the case was handled automatically.","reviewed":false,"reviewer":null,"checksum":%d}}`, i, 1000003*i%99991)
	return fmt.Sprintf(`{"seq":%d,"t":"2025-12-05T10:30:%02d.%03dZ","actor":"%s","type":"%s","payload":%s,"meta":{"seed":42,"run_id":"%s","agent_id":123,"session_id":"sess-abc123"}}`,
		i%1000+1, i%60, i%1000, actors[i%4], types[i%4], payload, run)
}

package dissector_test

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gopacket/gopacket/layers"
	"github.com/toonkit/toonkit/internal/capture"
	"github.com/toonkit/toonkit/internal/capturetest"
	"github.com/toonkit/toonkit/internal/dissector"
	"github.com/toonkit/toonkit/internal/needs"
	"github.com/toonkit/toonkit/internal/pyjson"
	"github.com/toonkit/toonkit/kado"
)

// These tests load the generated Lua into the real tshark and compare what
// it shows of every frame with what toonkit's own capture reader
// (internal/capture, the reader behind `toonkit decode capture.pcapng`) makes
// of the same file.
//
// tshark is installed by .ci/run (apt-get install tshark). Without it the
// tests are skipped, saying so, unless TOONKIT_CI is set: then they fail.
//
// Running as root: tshark prints "Running as user "root" and group "root".
// This could be dangerous." on stderr and still loads -X lua_script: Debian's
// /usr/share/wireshark/init.lua sets run_user_scripts_when_superuser = true.
// A Wireshark whose init.lua sets it false (or disable_lua = true) loads no
// Lua as root; the tests then fail with "no Kado frame at all" below, and
// must be run as another user.
//
// Segments out of order are put in place by tshark only with
// -o tcp.reassemble_out_of_order:TRUE (off by default in Wireshark 4.0).

// tsharkFields are the fields asked of tshark (-T json -e ...), all of them
// per Kado frame, in the order the frames are dissected.
var tsharkFields = []string{"kado.version", "kado.type", "kado.type_name", "kado.payload_length",
	"kado.timestamp", "kado.sequence_id", "kado.compressed", "kado.payload", "kado.decompressed", "kado.json"}

// shown is a frame as tshark shows it (or toonkit reads it), as text.
type shown struct {
	Dir                             string // src>dst
	Version, Type, TypeName, Length string
	Timestamp, Seq, Compressed      string
	Payload, Decompressed, JSON     string
}

func (s shown) String() string {
	j := s.JSON
	if len(j) > 60 {
		j = j[:60] + "..."
	}
	return fmt.Sprintf("%s v%s %s(%s) len=%s ts=%s seq=%s compressed=%s json=%q", s.Dir, s.Version, s.TypeName, s.Type, s.Length, s.Timestamp, s.Seq, s.Compressed, j)
}

// luaFile writes the dissector with opts into a temporary folder.
func luaFile(t *testing.T, opts dissector.Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := dissector.Write(&b, opts); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kado.lua")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// runTshark runs the real tshark with the Lua dissector on a capture, with
// out-of-order segments put in place, and returns its output. A Lua error
// in it fails the test.
func runTshark(t *testing.T, lua string, capFile []byte, args ...string) []byte {
	t.Helper()
	bin := needs.Program(t, "tshark", "the comparison of the Lua dissector with Wireshark's tshark is skipped (apt-get install tshark)")
	p := filepath.Join(t.TempDir(), "capture.pcapng")
	if err := os.WriteFile(p, capFile, 0o644); err != nil {
		t.Fatal(err)
	}
	args = append([]string{"-X", "lua_script:" + lua, "-o", "tcp.reassemble_out_of_order:TRUE", "-r", p}, args...)
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no user preferences or plugins
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshark %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	if s := strings.ReplaceAll(stderr.String(), "Running as user \"root\" and group \"root\". This could be dangerous.\n", ""); s != "" {
		t.Errorf("tshark wrote on stderr:\n%s", s)
	}
	if i := bytes.Index(out, []byte("Lua Error")); i >= 0 {
		t.Errorf("tshark %s: a Lua error:\n%s", strings.Join(args, " "), out[max(0, i-2000):min(len(out), i+300)])
	}
	return out
}

// tshark runs the real tshark with the Lua dissector on a capture and
// returns the frames it shows, in order; extra are more tshark options.
func tshark(t *testing.T, lua string, capFile []byte, extra ...string) []shown {
	t.Helper()
	args := []string{"-Y", "kado", "-T", "json",
		"-e", "ip.src", "-e", "ipv6.src", "-e", "ip.dst", "-e", "ipv6.dst", "-e", "tcp.srcport", "-e", "tcp.dstport"}
	for _, f := range tsharkFields {
		args = append(args, "-e", f)
	}
	out := runTshark(t, lua, capFile, append(args, extra...)...)
	// The whole view, for Lua errors (-T json -e does not show them).
	runTshark(t, lua, capFile, append([]string{"-V"}, extra...)...)
	var pkts []struct {
		Source struct {
			Layers map[string][]string `json:"layers"`
		} `json:"_source"`
	}
	if err := json.Unmarshal(out, &pkts); err != nil {
		t.Fatalf("tshark -T json: %v\n%.2000s", err, out)
	}
	var frames []shown
	for i, pk := range pkts {
		l := pk.Source.Layers
		src, dst := first(l["ip.src"], l["ipv6.src"]), first(l["ip.dst"], l["ipv6.dst"])
		dir := endpoint(t, src, first(l["tcp.srcport"])) + ">" + endpoint(t, dst, first(l["tcp.dstport"]))
		n := len(l["kado.type"])
		for _, f := range []string{"kado.version", "kado.type_name", "kado.payload_length", "kado.sequence_id", "kado.compressed"} {
			if len(l[f]) != n {
				t.Fatalf("packet %d (%s): %d values of %s for %d frames: %v", i, dir, len(l[f]), f, n, l)
			}
		}
		// kado.payload and kado.json are absent for an empty payload,
		// kado.decompressed for one not compressed: take them in turn.
		var pi, di, ji int
		for k := 0; k < n; k++ {
			s := shown{Dir: dir, Version: l["kado.version"][k], Type: l["kado.type"][k], TypeName: l["kado.type_name"][k],
				Length: l["kado.payload_length"][k], Timestamp: l["kado.timestamp"][k], Seq: l["kado.sequence_id"][k],
				Compressed: l["kado.compressed"][k]}
			if s.Length != "0" {
				s.Payload = take(l["kado.payload"], &pi)
				if s.Compressed == "1" {
					// Wireshark shows empty bytes as <MISSING>.
					s.Decompressed = strings.TrimPrefix(take(l["kado.decompressed"], &di), "<MISSING>")
				}
				s.JSON = take(l["kado.json"], &ji)
			}
			frames = append(frames, s)
		}
	}
	return frames
}

func first(vs ...[]string) string {
	for _, v := range vs {
		if len(v) > 0 {
			return v[0]
		}
	}
	return ""
}

func take(vs []string, i *int) string {
	if *i >= len(vs) {
		return "<missing>"
	}
	*i++
	return vs[*i-1]
}

func endpoint(t *testing.T, addr, port string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		t.Fatalf("tshark gave address %q: %v", addr, err)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		t.Fatalf("tshark gave port %q: %v", port, err)
	}
	return netip.AddrPortFrom(a, uint16(p)).String()
}

// toonkit reads the capture as `toonkit decode` does and returns its
// frames as tshark should show them. Any problem it reports fails the test.
func toonkit(t *testing.T, capFile []byte) []shown {
	t.Helper()
	frames, problems, _ := toonkitAll(t, capFile)
	if problems > 0 {
		t.Fatalf("toonkit found %d problems in the capture", problems)
	}
	return frames
}

// toonkitAll is toonkit with --keep-going: the frames, and how many
// problems and notes were reported.
func toonkitAll(t *testing.T, capFile []byte) (frames []shown, problems, notes int) {
	t.Helper()
	_, err := capture.Read(bytes.NewReader(capFile), capture.Options{}, func(r *capture.Record) error {
		switch r.Kind {
		case capture.Frame:
		case capture.Problem:
			t.Logf("toonkit: %v", r.Err)
			problems++
			return nil
		case capture.Note: // bytes before the first header, a direction without frames
			notes++
			return nil
		default: // a WebSocket text message
			return nil
		}
		client, server, _ := strings.Cut(r.Conn, ">")
		dir := client + ">" + server
		if r.Dir == capture.S2C {
			dir = server + ">" + client
		}
		h := r.Frame.Header
		wire := r.Frame.Payload()
		s := shown{Dir: dir, Version: strconv.Itoa(int(h.Version)), Type: strconv.Itoa(int(h.Type)), TypeName: h.Type.String(),
			Length: strconv.FormatUint(uint64(h.PayloadLength), 10), Timestamp: strconv.FormatUint(h.Timestamp, 10),
			Seq: strconv.FormatUint(uint64(h.SequenceID), 10), Compressed: "0", Payload: hex.EncodeToString(wire)}
		if len(wire) > 0 {
			plain, err := kado.AppendDecompressed(nil, wire, 0)
			if err != nil {
				return err
			}
			if r.Frame.Compressed() {
				s.Compressed, s.Decompressed = "1", hex.EncodeToString(plain)
			}
			s.JSON = string(plain)
		}
		frames = append(frames, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return frames, problems, notes
}

// compare checks that tshark showed every frame toonkit read, each field
// equal, in the same order within each direction.
func compare(t *testing.T, got, want []shown) {
	t.Helper()
	byDir := func(fs []shown) map[string][]shown {
		m := map[string][]shown{}
		for _, f := range fs {
			m[f.Dir] = append(m[f.Dir], f)
		}
		return m
	}
	g, w := byDir(got), byDir(want)
	var dirs []string
	for d := range w {
		dirs = append(dirs, d)
	}
	for d := range g {
		if _, ok := w[d]; !ok {
			dirs = append(dirs, d)
		}
	}
	slices.Sort(dirs)
	for _, d := range dirs {
		gs, ws := g[d], w[d]
		if len(gs) != len(ws) {
			t.Errorf("%s: tshark showed %d frames, toonkit read %d", d, len(gs), len(ws))
		}
		for i := range min(len(gs), len(ws)) {
			if gs[i] != ws[i] {
				t.Errorf("%s frame %d:\n tshark:  %v\n toonkit: %v", d, i, gs[i], ws[i])
				if gs[i].Payload != ws[i].Payload || gs[i].Decompressed != ws[i].Decompressed {
					t.Errorf(" payload tshark %s / %s\n payload toonkit %s / %s", gs[i].Payload, gs[i].Decompressed, ws[i].Payload, ws[i].Decompressed)
				}
				if gs[i].JSON != ws[i].JSON {
					t.Errorf(" json tshark  %q\n json toonkit %q", gs[i].JSON, ws[i].JSON)
				}
			}
		}
	}
}

// frame builds a frame; mode says whether it is RLE-compressed.
func frame(t testing.TB, typ kado.MessageType, seq int, payload []byte, mode kado.CompressMode) []byte {
	b, _, err := kado.AppendFrame(nil, kado.Header{Version: 1, Type: typ, Timestamp: 1735689600000 + uint64(seq)*1001, SequenceID: uint32(seq)}, payload, mode)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rawFrame builds a frame around a wire payload as it is (for RLE bodies
// no encoder writes).
func rawFrame(typ kado.MessageType, seq int, wire []byte) []byte {
	b := kado.AppendHeader(nil, kado.Header{Version: 1, Type: typ, PayloadLength: uint32(len(wire)), Timestamp: 1735689600000 + uint64(seq), SequenceID: uint32(seq)})
	return append(b, wire...)
}

// payloads are what producers write: Python's json.dumps (", " and ": ",
// ensure_ascii escapes), indented with CRLF line ends, non-ASCII text as
// it is, and long runs that the RLE compresses.
func payloads(t *testing.T) [][]byte {
	doc := []byte(`{"task":"summarise","doc":"q3-report.txt","lang":"fr","note":"déjà vu 🚀 <b>&</b>","n":[1,2.50,-3e5,12345678901234567890123],"ok":true,"none":null,"ctl":"tab\tnl\n\"q\"\\"}`)
	ps := [][]byte{
		doc,
		pyjson.Dumps(t, doc),
		pyjson.Dumps(t, doc, "--indent", "2", "--crlf"),
		pyjson.Dumps(t, doc, "--no-ascii"),
		[]byte(`{"status":"running","progress":0.45}`),
		[]byte(`[]`),
	}
	for i := range ps {
		ps[i] = bytes.TrimRight(ps[i], "\r\n")
	}
	return ps
}

// streams builds the frames of a c2s and an s2c stream: the payloads
// plain and compressed (runs of 4 to 700 bytes, pieces of 255 whose count
// byte is FF), and RLE bodies no encoder writes (a zero count, a body that
// decompresses to nothing).
func streams(t *testing.T) (c2s, s2c [][]byte) {
	seq := 1
	next := func() int { seq++; return seq }
	for _, p := range payloads(t) {
		c2s = append(c2s, frame(t, kado.Instruction, next(), p, kado.CompressNever))
		s2c = append(s2c, frame(t, kado.ToolResult, next(), p, kado.CompressAlways))
	}
	big := []byte(`{"data":"` + strings.Repeat("A", 700) + `","pad":"` + strings.Repeat(" ", 255) + `xyz` + strings.Repeat("é", 300) + `"}`)
	c2s = append(c2s, frame(t, kado.ContextResponse, next(), big, kado.CompressAuto))
	s2c = append(s2c, frame(t, kado.Status, next(), pyjson.Dumps(t, big, "--indent", "2"), kado.CompressAuto))
	c2s = append(c2s, rawFrame(kado.ToolCall, next(), []byte("Z{\"a\":\"\xff\x62\x00x\xff\x7a\x05\"}")))
	s2c = append(s2c, rawFrame(kado.Error, next(), []byte("Z{\"code\":1}")))
	c2s = append(c2s, rawFrame(kado.Heartbeat, next(), []byte("Z{}\xff\x20\x00")))
	s2c = append(s2c, rawFrame(kado.ContextRequest, next(), []byte("{}")))
	for _, typ := range kado.MessageTypes() {
		c2s = append(c2s, frame(t, typ, next(), []byte(`{"type":"`+typ.String()+`"}`), kado.CompressNever))
	}
	return c2s, s2c
}

// TestTsharkMatchesToonkit: frames split across segments and several in a
// segment, both directions interleaved, a segment out of order and one
// sent twice, on the registered port; a connection on another port found
// by the heuristic; WebSocket binary messages (masked, a message in two
// frames). Ethernet, IPv4, pcapng.
func TestTsharkMatchesToonkit(t *testing.T) {
	needs.Slow(t, "runs tshark over many captures")
	c2s, s2c := streams(t)
	b := &capturetest.Builder{File: capturetest.PcapNG}

	c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	cs, ss := bytes.Join(c2s, nil), bytes.Join(s2c, nil)
	rng := rand.New(rand.NewPCG(1, 2))
	var co, so int
	for step := 0; co < len(cs) || so < len(ss); step++ {
		// Segments of 1 to 300 bytes: most frames cut, several frames in
		// some; every fifth c2s step sends two segments in swapped order,
		// then the first again.
		if co < len(cs) {
			n := min(1+rng.IntN(300), len(cs)-co)
			if step%5 == 4 && len(cs)-co > n+1 {
				m := min(1+rng.IntN(40), len(cs)-co-n)
				c.Send(capturetest.C2S, co+n, cs[co+n:co+n+m])
				c.Send(capturetest.C2S, co, cs[co:co+n])
				c.Send(capturetest.C2S, co+n, cs[co+n:co+n+m])
				n += m
			} else {
				c.Send(capturetest.C2S, co, cs[co:co+n])
			}
			co += n
		}
		if so < len(ss) {
			n := min(1+rng.IntN(500), len(ss)-so)
			c.Send(capturetest.S2C, so, ss[so:so+n])
			so += n
		}
	}
	c.Fin(capturetest.C2S, len(cs))
	c.Fin(capturetest.S2C, len(ss))

	// The heuristic: port 9555 is registered nowhere.
	h := b.Conn("10.0.0.3:40000", "10.0.0.4:9555")
	h.Handshake()
	hs := bytes.Join(c2s[:4], nil)
	h.SendSplit(capturetest.C2S, 0, hs, len(c2s[0])+3, 30)
	h.Send(capturetest.S2C, 0, s2c[1])

	// WebSocket on 8080: the handshake, then a binary message in two
	// frames (masked), one frame holding two Kado frames, and the server's
	// unmasked answer.
	w := b.Conn("10.0.0.1:51300", "10.0.0.2:8080")
	w.Handshake()
	w.Send(capturetest.C2S, 0, []byte(capturetest.WSRequest))
	w.Send(capturetest.S2C, 0, []byte(capturetest.WSResponse))
	mask := []byte{0x37, 0xfa, 0x21, 0x3d}
	var ws []byte
	ws = append(ws, capturetest.WSFrame(false, 2, c2s[1][:12], mask)...)
	ws = append(ws, capturetest.WSFrame(true, 0, c2s[1][12:], mask)...)
	ws = append(ws, capturetest.WSFrame(true, 2, append(slices.Clone(c2s[2]), c2s[3]...), mask)...)
	off := len(capturetest.WSRequest)
	w.SendSplit(capturetest.C2S, off, ws, 20)
	resp := capturetest.WSFrame(true, 2, s2c[6], nil)
	w.Send(capturetest.S2C, len(capturetest.WSResponse), resp)

	// Not Kado frames, on ports registered nowhere: HTTP, and bytes that
	// start as a header would but with type 9. Neither heuristic may take
	// them (toonkit does not: a frame tshark shows there is an extra).
	x := b.Conn("10.0.0.5:40001", "10.0.0.6:9600")
	x.Handshake()
	x.Send(capturetest.C2S, 0, []byte("GET /frames HTTP/1.1\r\nHost: example\r\n\r\n"))
	bad := slices.Clone(c2s[0])
	bad[1] = 9
	y := b.Conn("10.0.0.5:40002", "10.0.0.6:9601")
	y.Handshake()
	y.Send(capturetest.C2S, 0, bad)

	capFile := b.Bytes()
	want := toonkit(t, capFile)
	count := map[string]int{}
	for _, f := range want {
		count[f.Dir]++
	}
	for dir, n := range map[string]int{
		"10.0.0.1:51234>10.0.0.2:7000": len(c2s), "10.0.0.2:7000>10.0.0.1:51234": len(s2c),
		"10.0.0.3:40000>10.0.0.4:9555": 4, "10.0.0.4:9555>10.0.0.3:40000": 1,
		"10.0.0.1:51300>10.0.0.2:8080": 3, "10.0.0.2:8080>10.0.0.1:51300": 1,
	} {
		if count[dir] != n {
			t.Errorf("toonkit read %d frames from %s, the test sent %d", count[dir], dir, n)
		}
	}
	lua := luaFile(t, dissector.Options{})
	compare(t, tshark(t, lua, capFile), want)
	// Two passes (-2), as Wireshark's GUI dissects a packet again when it
	// is selected: the same frames.
	compare(t, tshark(t, lua, capFile, "-2"), want)
}

// TestTsharkEveryOffsetIPv6: each frame cut at another byte offset (frame
// k at offset k, so every offset of the header and the payload is cut
// once), over IPv6 in a Linux cooked capture (SLL) in a pcap, on a port
// registered with Options.Ports.
func TestTsharkEveryOffsetIPv6(t *testing.T) {
	needs.Slow(t, "runs tshark at every offset")
	c2s, s2c := streams(t)
	b := &capturetest.Builder{File: capturetest.PcapNanos, Link: layers.LinkTypeLinuxSLL}
	c := b.Conn("[fd00::1]:51234", "[fd00::2]:7100")
	c.Handshake()
	f := c2s[0]
	var off int
	for k := 1; k < len(f); k++ {
		g := frame(t, kado.MessageTypes()[k%8], k, f[kado.HeaderSize:], kado.CompressNever)
		off = c.SendSplit(capturetest.C2S, off, g, k)
	}
	c.Fin(capturetest.C2S, off)
	c.Send(capturetest.S2C, 0, bytes.Join(s2c, nil))

	capFile := b.Bytes()
	want := toonkit(t, capFile)
	if len(want) != len(f)-1+len(s2c) {
		t.Fatalf("toonkit read %d frames, want %d", len(want), len(f)-1+len(s2c))
	}
	compare(t, tshark(t, luaFile(t, dissector.Options{Ports: []int{7000, 7100}}), capFile), want)
	// Not registered on 7100: the port named for one run (Decode As), or
	// in the dissector's preference.
	lua := luaFile(t, dissector.Options{})
	compare(t, tshark(t, lua, capFile, "-d", "tcp.port==7100,kado"), want)
	compare(t, tshark(t, lua, capFile, "-o", "kado.tcp_ports:7100"), want)
}

// TestTsharkRLE: RLE bodies of random bytes, escapes and counts (zero,
// FF, an escape cut short at the end), decompressed by the Lua exactly as
// by kado. They are not JSON, so toonkit's decode would refuse
// them: the Lua's bytes are compared with binary.AppendDecompressed.
func TestTsharkRLE(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var stream []byte
	var want []string
	bodies := [][]byte{{}, {0xff}, {0xff, 0x41}, {0xff, 0x41, 0x00}, {0xff, 0x41, 0xff}, {0x41, 0xff, 0xff, 0xff, 0xff}}
	for range 200 {
		n := rng.IntN(40)
		body := make([]byte, n)
		for i := range body {
			switch rng.IntN(4) {
			case 0:
				body[i] = 0xff
			case 1:
				body[i] = byte(rng.IntN(4))
			default:
				body[i] = byte(rng.Uint32())
			}
		}
		bodies = append(bodies, body)
	}
	for i, body := range bodies {
		wire := append([]byte{kado.CompressionMagic}, body...)
		stream = append(stream, rawFrame(kado.ToolResult, i, wire)...)
		plain, err := kado.AppendDecompressed(nil, wire, 0)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, hex.EncodeToString(plain))
	}
	b := &capturetest.Builder{File: capturetest.PcapNG}
	c := b.Conn("10.0.0.1:51234", "10.0.0.2:7000")
	c.Handshake()
	c.SendSplit(capturetest.C2S, 0, stream, 1000, 1000, 1000)
	got := tshark(t, luaFile(t, dissector.Options{}), b.Bytes())
	if len(got) != len(want) {
		t.Fatalf("tshark showed %d frames, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Compressed != "1" || got[i].Decompressed != want[i] {
			t.Errorf("frame %d: body % x: tshark decompressed %q (compressed=%s), kado %q", i, bodies[i], got[i].Decompressed, got[i].Compressed, want[i])
		}
	}
}

// TestTsharkResync: a connection already open when the capture began (its
// first segment starts inside a frame), and one whose stream carries bytes
// that are not frames between frames (a bad version, an unknown type, a
// length above the limit, text): the Lua skips to the next plausible header
// as toonkit does, and shows the same frames after it. Random bytes, on
// the port and through the heuristic, make no Lua error.
func TestTsharkResync(t *testing.T) {
	needs.Slow(t, "runs tshark over many captures")
	c2s, s2c := streams(t)
	b := &capturetest.Builder{File: capturetest.PcapNG}

	open := b.Conn("10.0.0.1:50000", "10.0.0.2:7000") // no handshake
	cs := bytes.Join(c2s, nil)
	open.SendSplit(capturetest.C2S, 7, cs[7:], 5, 100, 200, 300)
	ss := bytes.Join(s2c, nil)
	open.SendSplit(capturetest.S2C, len(s2c[0])+len(s2c[1])/2, ss[len(s2c[0])+len(s2c[1])/2:], 40)

	junk := b.Conn("10.0.0.1:50001", "10.0.0.2:7000")
	junk.Handshake()
	var js []byte
	js = append(js, c2s[0]...)
	js = append(js, 2, 1, 5, 0, 0, 0, 'x', 'y') // version 2
	js = append(js, c2s[1]...)
	js = append(js, 1, 9, 5, 0, 0, 0, 'x', 'y') // type 9
	js = append(js, c2s[2]...)
	huge := slices.Clone(c2s[3][:kado.HeaderSize])
	huge[5] = 0x7f // a length above 64 MiB
	js = append(js, huge...)
	js = append(js, "GET / HTTP/1.1\r\n\r\n"...)
	js = append(js, c2s[4]...)
	junk.SendSplit(capturetest.C2S, 0, js, 30, 30, 30)
	junk.Fin(capturetest.C2S, len(js))

	capFile := b.Bytes()
	want, problems, _ := toonkitAll(t, capFile)
	if problems == 0 {
		t.Fatal("toonkit found nothing wrong in the junk")
	}
	lua := luaFile(t, dissector.Options{})
	compare(t, tshark(t, lua, capFile), want)

	// Random bytes: some start as a header would, some runs of 0x5A and FF.
	rng := rand.New(rand.NewPCG(5, 6))
	r := &capturetest.Builder{File: capturetest.PcapNG}
	for i, port := range []int{7000, 7000, 9000, 9001} {
		c := r.Conn(fmt.Sprintf("10.0.1.%d:4000%d", i+1, i), fmt.Sprintf("10.0.2.1:%d", port))
		c.Handshake()
		var s []byte
		for len(s) < 3000 {
			switch rng.IntN(4) {
			case 0:
				s = append(s, kado.AppendHeader(nil, kado.Header{Version: 1, Type: kado.MessageType(rng.IntN(10)), PayloadLength: uint32(rng.IntN(60))})...)
			case 1:
				s = append(s, 0x5a, 0xff, byte(rng.IntN(256)), byte(rng.IntN(3)))
			case 2:
				s = append(s, c2s[rng.IntN(len(c2s))]...)
			default:
				for range rng.IntN(50) {
					s = append(s, byte(rng.Uint32()))
				}
			}
		}
		s = slices.Concat(c2s[0], s)
		c.SendSplit(capturetest.C2S, 0, s, 100, 17, 1, 500, 33)
	}
	runTshark(t, lua, r.Bytes(), "-V")
}

// Package dissector writes a Wireshark dissector for Kado binary TOON frames,
// as a Lua plugin that Wireshark and tshark load.
//
// The dissector shows each frame's header fields (the type with its name),
// whether the payload is compressed, and the payload as JSON, decompressed
// when it is RLE-compressed (the Lua undoes the RLE exactly as
// kado does). It is registered on TCP ports (DefaultPort unless
// Options.Ports names others; they are the default of its preference
// kado.tcp_ports), as a heuristic dissector on TCP (a connection from a
// segment that starts with a plausible header: version 1, a known type, a
// length within the limit, a payload that can begin JSON or a compressed
// body) and on WebSocket binary messages, and it reassembles frames split
// across TCP segments (dissect_tcp_pdus). Where no frame starts, the bytes
// up to the next plausible header are shown as skipped, as toonkit's
// --keep-going resynchronises.
//
// The header layout and the type names come from kado's
// constants and tables, so the Lua never drifts from the Go decoder.
package dissector

import (
	_ "embed"
	"fmt"
	"io"
	"text/template"

	"github.com/toonkit/toonkit/kado"
)

// DefaultPort is the TCP port the dissector is registered on when
// Options.Ports is empty: the port of the Kado orchestrator in the docs'
// examples (docs/formats/pcap.md).
const DefaultPort = 7000

// Options say what the dissector is registered on.
type Options struct {
	// Ports are the TCP ports (1-65535) whose connections are Kado frame
	// streams; empty means DefaultPort.
	Ports []int
	// MaxPayload bounds a payload, as on the wire and as decompressed;
	// 0 means kado.DefaultMaxFrameSize. A frame whose header claims more
	// is shown as malformed.
	MaxPayload int
}

//go:embed kado.lua.tmpl
var luaText string

var luaTemplate = template.Must(template.New("kado.lua").Parse(luaText))

type typeEntry struct {
	Value uint8
	Name  string
}

// Write writes the Lua dissector to w.
func Write(w io.Writer, opts Options) error {
	ports := opts.Ports
	if len(ports) == 0 {
		ports = []int{DefaultPort}
	}
	seen := map[int]bool{}
	var uniq []int
	for _, p := range ports {
		if p < 1 || p > 65535 {
			return fmt.Errorf("port %d is outside 1-65535", p)
		}
		if !seen[p] {
			seen[p] = true
			uniq = append(uniq, p)
		}
	}
	max := opts.MaxPayload
	if max <= 0 {
		max = kado.DefaultMaxFrameSize
	}
	var types []typeEntry
	for _, t := range kado.MessageTypes() {
		types = append(types, typeEntry{Value: uint8(t), Name: t.String()})
	}
	return luaTemplate.Execute(w, map[string]any{
		"Ports":      uniq,
		"HeaderSize": kado.HeaderSize,
		"Version":    kado.Version,
		"Magic":      kado.CompressionMagic,
		"Escape":     0xFF,
		"MaxPayload": max,
		"Types":      types,
	})
}

// Package mcpproxy sits between an agent and its tools: it passes the
// messages of a Model Context Protocol session over stdio between a client
// and a server, and rewrites the JSON text that the server's tools return
// as TOON when that costs the model fewer tokens.
//
// # What is rewritten
//
// Only the result of a tools/call request the client sent, and in it only
// the text of a text block ("type": "text") that is a JSON object or
// array, valid (RFC 8259, no name twice). It becomes TOON as `toonkit
// encode --to toon` writes it (or the cheapest of the forms Options.Among
// names, as `convert --to cheapest` chooses) when that form has fewer
// tokens than the text had, by at least Options.MinSaving percent, on the
// tokenizer Options.Tokenizer names. The value stays exact: TOON's
// decoders read back the JSON value.
//
// Everything else passes untouched, byte for byte: structuredContent, a
// result with "isError": true, an error response, text that is not JSON,
// images, audio and resources, every other request, response and
// notification (progress, cancellation, logging, pings), and the requests
// the server sends the client (sampling, elicitation, roots) and their
// answers. With Options.Describe, the results of tools/list gain one line
// in each tool's description (DescribeLine).
//
// # Built on the Go SDK, not its transport
//
// Messages are classified with the official Go SDK's jsonrpc package
// (github.com/modelcontextprotocol/go-sdk). Its transports are not used
// to pass them on: an mcp.Connection decodes each message and encodes it
// again, which drops members it does not know and changes the bytes, splits
// a batch into single messages, and ends the session at the first line
// that is not JSON-RPC. The Proxy reads lines and writes each one as it
// came, changing only the bytes of a text it rewrites: a message it
// cannot read is passed on as it is, and one longer than
// DefaultMaxMessage is passed on as it comes, without being held.
package mcpproxy

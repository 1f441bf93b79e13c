// Package lsp is toonkit's language server for TOON documents (LSP 3.17
// over a stream: `toonkit lsp` gives it the editor's stdin and stdout).
//
// What it offers, on documents synced incrementally:
//   - diagnostics as the text changes: every TOON problem in strict mode,
//     each with its code (TOON000-TOON011, as validate reports them) and
//     range, then, for a document without one, the findings of the JSON
//     Schema that its #:schema comment or the nearest .toonkit.yaml
//     names (internal/schemamap; SCH001..., TK002 for a schema that
//     cannot be used);
//   - formatting of the whole document or of a range of lines, by
//     toonfmt (what `toonkit fmt` writes), as line edits;
//   - hover: a key's JSON path and type; an array header's declared and
//     actual lengths and its fields; a cell's field and row;
//   - document symbols (the key outline), folding ranges and selection
//     ranges;
//   - code actions: set a wrong [N] to the actual count; quote a value
//     that needs quotes; write a list of objects as a table, or a table
//     as a list, when the value reads back the same;
//   - the command toonkit.showJSON (CommandShowJSON), whose result is the
//     document as JSON.
//
// Positions count in UTF-16 code units, or in UTF-8 bytes when the client
// offers "utf-8" among its positionEncodings (3.17).
//
// The protocol's types are go.lsp.dev/protocol's and the JSON-RPC is
// go.lsp.dev/jsonrpc2's; where those (written for LSP 3.16) lack a field
// of 3.17, or cannot tell two messages apart (a change with no range, and
// an insertion at 0:0), this package declares the message itself, from
// the library's parts.
//
// The hover, symbols and code actions read the document's outline: its
// lines, nested by indentation, with the byte ranges of keys, values and
// cells. It is read line by line and never fails, so that they work on a
// document the decoder rejects; the diagnostics come from the decoder
// itself.
package lsp

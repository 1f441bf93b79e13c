package validate

import (
	"bytes"
	"sort"
	"strings"
	"sync"

	"github.com/go-json-experiment/json/jsontext"
)

// Rule is one rule validate checks: its stable code, the severity of its
// findings, and what it asks for, in a few words.
type Rule struct {
	Code     string
	Severity Severity
	Text     string
}

// goRules are the rules checked in Go rather than by a schema's x-code.
var goRules = []Rule{
	{"BIN001", Error, "18 header bytes (spec rule 1)"},
	{"BIN002", Error, "version 1 (spec rule 2)"},
	{"BIN003", Error, "a frame type from 1 to 8 (spec rule 3)"},
	{"BIN004", Error, "payloadLength bytes present (spec rule 4)"},
	{"BIN005", Error, "payloadLength within --max-frame-size"},
	{"BIN006", Error, "the payload decompresses and is JSON"},
	{"BIN030", Warning, "sequence ids go up from frame to frame"},
	{"BIN031", Warning, "timestamps do not go back"},
	{"BIN032", Warning, "RLE: an FF escape is not cut short"},
	{"BIN033", Warning, "RLE: no zero count"},
	{"BIN034", Warning, "no bytes after the last frame that are not a frame"},
	{"CAP001", Error, "no bytes are missing from a direction of a connection"},
	{"CAP002", Error, "a WebSocket direction keeps to RFC 6455"},
	{"CAP003", Error, "the connection was followed (not past the cap of open connections)"},
	{"CAP004", Error, "a direction on a port that --port names carries frames"},
	{"CAP005", Error, "a direction of a connection can be read"},
	{"CAP006", Error, "copies of the same bytes of a direction agree (the first is kept)"},
	{"CAP007", Error, "every packet of the capture that may carry TCP is read (none cut short, over the record size limit, or fragments never whole)"},
	{"TAB001", Error, "the @toon 1.x and @keys lines"},
	{"TAB002", Error, "one cell per key in every row"},
	{"TAB003", Error, `escapes \\ \c \n \r only`},
	{"TAB004", Error, "valid UTF-8"},
	{"TAB005", Error, "a line within --max-frame-size"},
	{"CHF011", Warning, "no top-level field outside the envelope (custom fields go in x_custom_fields)"},
	{"CHF012", Warning, "UUIDs in canonical form (lowercase 8-4-4-4-12)"},
	{"CHF050", Error, "a message_id is not repeated"},
	{"CHF051", Warning, "a request_id is not reused with another payload"},
	{"CHF052", Error, "the output chunks of a step tile its output"},
	{"CHF053", Error, "one work_result per task"},
	{"CHF054", Warning, "no work_status after the task's work_result"},
	{"CHF064", Warning, "an error code the spec defines (5001-5006)"},
	{"AOP050", Error, "seq does not repeat or step back within a run_id"},
	{"AOP051", Warning, "seq has no gap within a run_id"},
	{"AOP052", Error, "the top-level signature equals meta.signature"},
	{"NAR001", Error, "events end in LF, not CR LF"},
	{"NAR002", Error, "each line is one JSON object within --max-frame-size"},
	{"NAR003", Error, "the last line ends in LF"},
	{"NAR043", Error, "mediaType is a MIME type"},
	{"NAR046", Error, "an assetId is not repeated"},
	{"NAR080", Error, "a done event ends each invocation"},
	{"NAR081", Error, "one done event"},
	{"NAR082", Warning, "no event after done"},
	{"NAR083", Warning, "done has ok false after an error event"},
	{"NAR084", Error, "a known event type (spec 5.2)"},
	{"TK001", Error, "a file whose format and protocol toonkit can tell (name it with --as)"},
	{"TK002", Error, "the schema a file is associated with (#:schema, .toonkit.yaml) can be read and used"},
}

var rules struct {
	once sync.Once
	list []Rule
}

// Rules are every rule validate checks, sorted by code: those of the
// embedded schemas (their x-code, with the x-message of the first field
// that has it) and those checked in Go. A finding's Code is always one of
// them.
func Rules() []Rule {
	rules.once.Do(func() {
		seen := map[string]bool{}
		for _, r := range append(goRules, toonRules...) {
			seen[r.Code] = true
			rules.list = append(rules.list, r)
		}
		for _, name := range SchemaNames() {
			b, _ := Schema(name)
			for _, r := range schemaRules(b) {
				if !seen[r.Code] {
					seen[r.Code] = true
					rules.list = append(rules.list, r)
				}
			}
		}
		sort.Slice(rules.list, func(i, j int) bool { return rules.list[i].Code < rules.list[j].Code })
	})
	return rules.list
}

// schemaRules are the x-code and x-message pairs of a schema document, in
// the order their objects end; a code without a message says so.
func schemaRules(doc []byte) []Rule {
	type obj struct{ code, msg string }
	var stack []obj
	var out []Rule
	d := jsontext.NewDecoder(bytes.NewReader(doc))
	var key string
	for {
		tok, err := d.ReadToken()
		if err != nil {
			return out
		}
		switch tok.Kind() {
		case '{':
			stack = append(stack, obj{})
			key = ""
			continue
		case '}':
			o := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if o.code != "" {
				if o.msg == "" {
					o.msg = "the rule of the field in the schema"
				}
				out = append(out, Rule{Code: o.code, Severity: Error, Text: o.msg})
			}
			key = ""
			continue
		case '"':
			// In an object, a string read as its odd token is a name.
			if k, n := d.StackIndex(d.StackDepth()); k == '{' && n%2 == 1 {
				key = tok.String()
				continue
			}
			if len(stack) > 0 {
				switch key {
				case "x-code":
					stack[len(stack)-1].code = tok.String()
				case "x-message":
					stack[len(stack)-1].msg = strings.TrimSpace(tok.String())
				}
			}
		}
		key = ""
	}
}

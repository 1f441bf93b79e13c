package mcpproxy_test

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/toonkit/toonkit/internal/mcpproxy"
)

// The result of a tools/call, its text JSON as a server writes it: the
// text becomes TOON, which takes fewer tokens; the rest stays as it was.
func ExampleRewriter_Result() {
	rw, _ := mcpproxy.NewRewriter(mcpproxy.Options{})
	result := `{"content":[{"type":"text","text":"{\"orders\": [{\"id\": 1, \"total\": 42.5}, {\"id\": 2, \"total\": 17.0}]}"}],"structuredContent":{"n":2}}`
	out, call := rw.Result([]byte(result))
	fmt.Println(string(out))
	fmt.Println(call.Rewritten, call.Choice, call.Before.Tokens > call.After.Tokens)
	// Output:
	// {"content":[{"type":"text","text":"orders[2]{id,total}:\n  1,42.5\n  2,17"}],"structuredContent":{"n":2}}
	// true toon-comma true
}

// A session between a client (its messages on a reader) and a server
// that answers once the client is done; the log on stdout.
func ExampleProxy_Run() {
	p, _ := mcpproxy.New(mcpproxy.Options{}, os.Stdout)
	client := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"users"}}` + "\n"
	server := `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[{\"id\": 1, \"name\": \"Ada\"}, {\"id\": 2, \"name\": \"Grace\"}]"}]}}` + "\n"
	upR, upW := io.Pipe()     // proxy -> server
	downR, downW := io.Pipe() // server -> proxy
	go func() {
		io.ReadAll(upR) // the server answers the request once it has it
		io.WriteString(downW, server)
		downW.Close()
	}()
	var toClient strings.Builder
	p.Run(strings.NewReader(client), upW, downR, &toClient)
	fmt.Print(toClient.String())
	// Output:
	// {"tool":"users","id":1,"rewritten":true,"choice":"toon-comma","before":{"bytes":54,"tokens":26},"after":{"bytes":31,"tokens":18},"texts":1,"json":1}
	// {"event":"total","calls":1,"rewritten":1,"before":{"bytes":54,"tokens":26},"after":{"bytes":31,"tokens":18},"saved_percent":30.8}
	// {"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"[2]{id,name}:\n  1,Ada\n  2,Grace"}]}}
}

package mcpserve_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toonkit/toonkit/internal/mcpserve"
)

// A client calls the encode tool over the SDK's in-memory transports.
func ExampleNewServer() {
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, _ := mcpserve.NewServer(mcpserve.Options{Version: "example"}).Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()
	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "encode", Arguments: map[string]any{
		"json": `{"users":[{"id":1,"name":"Ada"},{"id":2,"name":"Grace"}]}`,
	}})
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// users[2]{id,name}:
	//   1,Ada
	//   2,Grace
}

package validate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/toonkit/toonkit/internal/validate"
)

// A user's schema, with a $ref to a file beside it, checks an NDJSON
// stream: each finding at its field, with the schema's x-code where it has
// one (SCH001 otherwise).
func ExampleUserSchema() {
	dir, _ := os.MkdirTemp("", "schema")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "order.json"), []byte(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["id", "sku"],
  "properties": {
    "id": {"type": "integer", "minimum": 1},
    "sku": {"$ref": "sku.json"}
  }
}`), 0o644)
	os.WriteFile(filepath.Join(dir, "sku.json"), []byte(`{"type": "string", "pattern": "^[A-Z]{3}-[0-9]+$", "x-code": "ORD001", "x-message": "must be a SKU like ABC-12"}`), 0o644)

	us, err := validate.LoadUserSchema(filepath.Join(dir, "order.json"))
	if err != nil {
		fmt.Println(err)
		return
	}
	in := `{"id": 1, "sku": "ABC-12"}
{"id": 0, "sku": "abc"}
{"sku": "XYZ-9"}
`
	n, err := us.Validate(strings.NewReader(in), "orders.ndjson", validate.UserOptions{}, func(f validate.Finding) bool {
		fmt.Println(f.Text())
		return true
	})
	fmt.Println(n, "records", err)
	// Output:
	// orders.ndjson:2:8: error: /id: must be at least 1, found 0 [SCH001]
	// orders.ndjson:2:18: error: /sku: must be a SKU like ABC-12, found "abc" [ORD001]
	// orders.ndjson:3:1: error: /id: is required (the field is missing) [SCH001]
	// 3 records <nil>
}

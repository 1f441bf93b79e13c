package tabular_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/tabular"
)

// A Decoder reads a table row by row, each row a JSON object.
func ExampleDecoder() {
	table := "@toon 1.0\n@keys id,name\n1,Ada\n2,Lin\n"
	d := tabular.NewDecoder(strings.NewReader(table), tabular.DecoderOptions{})
	keys, err := d.Keys()
	fmt.Println(keys, err)
	for {
		row, line, err := d.Next()
		if err == io.EOF {
			break
		}
		fmt.Println(line, string(row), err)
	}
	// Output:
	// [id name] <nil>
	// 3 {"id":1,"name":"Ada"} <nil>
	// 4 {"id":2,"name":"Lin"} <nil>
}

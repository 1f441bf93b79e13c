package csvin_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/toonkit/toonkit/internal/codec/csvin"
)

// A Reader gives each row as a JSON object of the header's fields: numbers
// in canonical form, true and false, and empty cells typed, the rest
// strings (007 and 1.50 among them, which would not read back as written).
func ExampleReader() {
	table := "id,name,zip,price,vip,note\r\n1,Ada,007,1.50,true,\r\n2,\"Lin, B\",90210,2.5,false,\"said \"\"hi\"\"\"\r\n"
	r := csvin.NewReader(strings.NewReader(table), csvin.Options{})
	for {
		rec, pos, err := r.Next()
		if err == io.EOF {
			break
		}
		fmt.Println(pos.Line, string(rec), err)
	}
	// Output:
	// 2 {"id":1,"name":"Ada","zip":"007","price":"1.50","vip":true,"note":null} <nil>
	// 3 {"id":2,"name":"Lin, B","zip":90210,"price":2.5,"vip":false,"note":"said \"hi\""} <nil>
}

// A row with more or fewer cells than the header is an error naming its
// line.
func ExampleReader_ragged() {
	r := csvin.NewReader(strings.NewReader("a,b\n1,2\n3\n"), csvin.Options{})
	for {
		_, _, err := r.Next()
		if err != nil {
			fmt.Println(err)
			break
		}
	}
	// Output:
	// 3: the row has 1 cell, the header (line 1) has 2
}

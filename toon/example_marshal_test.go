package toon_test

import (
	"fmt"
	"log"
	"os"
	"strings"
	"time"

	"github.com/toonkit/toonkit/toon"
)

func ExampleMarshal() {
	type Order struct {
		ID    string  `json:"id"`
		Total float64 `json:"total"`
	}
	type User struct {
		ID     int64    `json:"id"`
		Name   string   `json:"name"`
		Tags   []string `json:"tags"`
		Orders []Order  `json:"orders"`
	}
	users := []User{
		{1, "Ada", []string{"admin", "ops"}, []Order{{"A-1", 12.5}, {"A-2", 99}}},
		{2, "Linus", nil, nil},
	}
	out, err := toon.Marshal(users)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// [2]:
	//   - id: 1
	//     name: Ada
	//     tags[2]: admin,ops
	//     orders[2]{id,total}:
	//       A-1,12.5
	//       A-2,99
	//   - id: 2
	//     name: Linus
	//     tags: null
	//     orders: null
}

// Struct tags: a toon tag names a field for TOON alone; without one, the
// json tag applies, with encoding/json's rules.
func ExampleMarshal_structTags() {
	type Event struct {
		Kind   string            `toon:"kind" json:"type"`
		At     time.Time         `json:"at"`
		Secret string            `toon:"-" json:"secret"`
		Note   string            `json:"note,omitempty"`
		Count  int64             `json:"count,string"`
		Labels map[string]string `json:"labels"`
		//lint:ignore U1000 skipped, as the example shows
		private int
	}
	out, err := toon.Marshal(Event{
		Kind:   "deploy",
		At:     time.Date(2026, 11, 25, 15, 4, 5, 0, time.UTC),
		Secret: "s3cr3t",
		Count:  9007199254740993,
		Labels: map[string]string{"zone": "eu-west-1", "app": "api"},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// kind: deploy
	// at: "2026-11-25T15:04:05Z"
	// count: "9007199254740993"
	// labels:
	//   app: api
	//   zone: eu-west-1
}

// MarshalOptions set the delimiter and the indentation.
func ExampleMarshalOptions() {
	rows := []struct {
		SKU string `json:"sku"`
		Qty int    `json:"qty"`
	}{{"a,1", 2}, {"b|2", 3}}
	out, err := toon.MarshalOptions{Delimiter: toon.Pipe, IndentSize: 4}.Marshal(map[string]any{"items": rows})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(out))
	// Output:
	// items[2|]{sku|qty}:
	//     a,1|2
	//     "b|2"|3
}

func ExampleNewEncoder() {
	enc := toon.NewEncoder(os.Stdout)
	enc.SetOptions(toon.MarshalOptions{Delimiter: toon.Tab})
	if err := enc.Encode(map[string]any{"ids": []int{1, 2, 3}, "ok": true}); err != nil {
		log.Fatal(err)
	}
	// Output:
	// ids[3	]: 1	2	3
	// ok: true
}

// Marshal returns the document without a final newline (§12);
// `toonkit encode --to toon` writes the same bytes and a "\n", as
// Encoder.Encode does.
func ExampleMarshal_finalNewline() {
	v := map[string]any{"id": 1, "tags": []string{"a", "b"}}
	out, err := toon.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Marshal:        %q\n", out)
	var cli strings.Builder // what the CLI writes for the same value
	if err := toon.NewEncoder(&cli).Encode(v); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("Encoder.Encode: %q\n", cli.String())
	fmt.Println(cli.String() == string(out)+"\n")
	// Output:
	// Marshal:        "id: 1\ntags[2]: a,b"
	// Encoder.Encode: "id: 1\ntags[2]: a,b\n"
	// true
}

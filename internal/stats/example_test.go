package stats_test

import (
	"fmt"

	"github.com/toonkit/toonkit/internal/stats"
)

func ExampleMeasure() {
	doc := []byte(`[{"id":1,"name":"Alice"},{"id":2,"name":"Bob"},{"id":3,"name":"Charlie"}]`)
	rep, err := stats.Measure(doc, stats.Options{Tokenizers: []string{"o200k_base"}})
	if err != nil {
		panic(err)
	}
	for _, row := range rep.Rows {
		fmt.Printf("%-12s %3d bytes %3d tokens\n", row.Format, row.Bytes, row.Tokens[0])
	}
	fmt.Println("cheapest:", rep.Rows[rep.Cheapest(0)].Format)
	// Output:
	// json          73 bytes  27 tokens
	// json-indent  129 bytes  56 tokens
	// toon-comma    43 bytes  24 tokens
	// toon-tab      44 bytes  25 tokens
	// toon-pipe     44 bytes  26 tokens
	// tabular       48 bytes  24 tokens
	// cheapest: toon-comma
}

func ExampleCheapestDelimiter() {
	// Prices with a thousands separator need quotes with the comma
	// delimiter, not with a tab.
	doc := []byte(`[{"sku":"A1","price":"1,299.00"},{"sku":"B2","price":"2,499.00"},{"sku":"C3","price":"3,999.00"}]`)
	d, rep, err := stats.CheapestDelimiter(doc, "o200k_base", 2, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println(d)
	for _, row := range rep.Rows {
		fmt.Println(row.Format, row.Tokens[0])
	}
	// Output:
	// tab
	// toon-comma 38
	// toon-tab 37
	// toon-pipe 38
}

func ExampleMeter() {
	// Records as they are read (NDJSON lines, a JSON array's elements),
	// measured as the array of them all, without holding them.
	m, err := stats.NewMeter(stats.Options{Tokenizers: []string{"o200k_base"}})
	if err != nil {
		panic(err)
	}
	for _, rec := range []string{`{"id":1,"name":"Alice"}`, `{"id":2,"name":"Bob"}`, `{"id":3,"name":"Charlie"}`} {
		if err := m.Record([]byte(rec)); err != nil {
			panic(err)
		}
	}
	rep, err := m.Close()
	if err != nil {
		panic(err)
	}
	for _, row := range rep.Rows {
		fmt.Printf("%-12s %3d tokens\n", row.Format, row.Tokens[0])
	}
	// Output:
	// json          27 tokens
	// json-indent   56 tokens
	// toon-comma    24 tokens
	// toon-tab      25 tokens
	// toon-pipe     26 tokens
	// tabular       24 tokens
}

package stats_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/toonkit/toonkit/internal/stats"
)

// The Genesis table is measured only when asked for, or for a table.
func TestAmong(t *testing.T) {
	if got := stats.Among(nil, false); slices.Contains(got, stats.Tabular) || len(got) != 5 {
		t.Errorf("Among(nil, false) = %v", got)
	}
	if got := stats.Among(nil, true); !slices.Equal(got, stats.Formats) {
		t.Errorf("Among(nil, true) = %v", got)
	}
	if got := stats.Among([]string{stats.JSON}, true); !slices.Equal(got, []string{stats.JSON}) {
		t.Errorf("Among(json, true) = %v", got)
	}
	for _, c := range []struct {
		in   []string
		want []string
	}{
		{[]string{"tabular,json"}, []string{"json", "tabular"}},
		{[]string{"toon", "JSON"}, []string{"json", "toon-comma", "toon-tab", "toon-pipe"}},
		{[]string{"all"}, stats.Formats},
		{[]string{" toon-tab , toon-tab"}, []string{"toon-tab"}},
	} {
		if got, err := stats.ParseAmong(c.in); err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseAmong(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	if _, err := stats.ParseAmong([]string{"json,yaml"}); err == nil || err.Error() != `unknown format "yaml" (supported: json, json-indent, toon-comma, toon-tab, toon-pipe, tabular, toon, all)` {
		t.Errorf("ParseAmong(yaml): %v", err)
	}
}

// ParseAmong reads --among: row names, toon for TOON's three delimiters,
// all for every row; Among gives Default when nothing was asked for.
func ExampleParseAmong() {
	among, _ := stats.ParseAmong([]string{"toon,tabular"})
	fmt.Println(among)
	fmt.Println(stats.Among(nil, false))
	// Output:
	// [toon-comma toon-tab toon-pipe tabular]
	// [json json-indent toon-comma toon-tab toon-pipe]
}

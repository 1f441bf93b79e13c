package seal_test

import (
	"fmt"
	"strings"
	"time"

	"github.com/toonkit/toonkit/pkg/seal"
	"github.com/toonkit/toonkit/pkg/sign"
)

// ExampleFromLog seals a signed log of one event, then reads the seal
// back, checking its HMAC.
func ExampleFromLog() {
	log := `{"seq":1,"t":"2025-12-05T10:30:00Z","actor":"agent","type":"note","payload":{"a":1},"meta":{"run_id":"r-1","signature":"9b6a3d96dea0d665eecdd2c08032209e771ee833298117952b7f20b565987dbd"}}` + "\n"
	key := []byte("test-key")
	s, _ := sign.NewSigner(key, sign.SchemeSpec)
	b, err := seal.FromLog(strings.NewReader(log), s, 0)
	if err != nil {
		panic(err)
	}
	sl, _ := b.Seal(key, sign.SchemeSpec, time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	doc, _ := sl.Marshal()
	back, err := seal.Parse(doc, key)
	fmt.Println(back.Runs[0].RunID, back.Runs[0].Count, err)
	_, err = seal.Parse(doc, []byte("another key"))
	fmt.Println(err)
	// Output:
	// r-1 1 <nil>
	// the seal's own HMAC does not match: the seal was edited, or made with another key
}

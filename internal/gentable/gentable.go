// Package gentable writes the table benchmark's input (scripts/genbench
// -table, scripts/bench.sh's tables section), for the benchmarks of the
// packages that convert it, so that they measure what the bench measures.
package gentable

import (
	"bufio"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
)

// Write writes a JSON array of flat objects of at least size bytes (and
// at least 2 objects) to w, one object a line, each of the same ten keys in
// the same order (about 200 bytes each): strings with commas, newlines,
// quotes and backslashes, integers and decimals, booleans and nulls; no
// string that would read back as anything else in a table. The same seed
// gives the same bytes.
func Write(w io.Writer, size int64, seed uint64) error {
	bw := bufio.NewWriterSize(w, 1<<20)
	rng := rand.New(rand.NewPCG(seed, 0x7461626c65))
	first := []string{"Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Grace", "Hiro", "Ines", "José"}
	last := []string{"Martin", "Chen", "Okafor", "Müller", "Schmidt", "Tanaka", "Ruiz", "Novak", "Haddad", "Kowalski"}
	cities := []string{"Paris, France", "Lagos, Nigeria", "Osaka, Japan", "São Paulo, Brazil", "Austin, TX", "Berlin"}
	notes := []string{"Prefers async reviews", "On call this week, then off", `Line one\nLine two`, `Said \"later\", twice`,
		`Path C:\\work\\tmp, cleaned`, "Owns billing; escalations go here", "New hire, pairing with ops"}
	var line []byte
	bw.WriteString("[\n")
	var n int64
	for i := 0; n < size || i < 2; i++ {
		line = line[:0]
		if i > 0 {
			line = append(line, ",\n"...)
		}
		fn, ln := first[rng.IntN(len(first))], last[rng.IntN(len(last))]
		line = fmt.Appendf(line, `{"id":%d,"name":"%s %s","email":"%s.%s%d@example.com","city":"%s","note":"%s",`,
			i+1, fn, ln, strings.ToLower(fn[:1]), strings.ToLower(ln), i, cities[rng.IntN(len(cities))], notes[rng.IntN(len(notes))])
		line = fmt.Appendf(line, `"score":%d.%02d,"active":%t,"visits":%d,"ratio":%s,"tag":%s}`,
			rng.IntN(100), rng.IntN(100), rng.IntN(2) == 0, rng.IntN(100000), []string{"0.5", "1e-3", "-2.25", "null"}[rng.IntN(4)],
			[]string{`"alpha"`, `"beta, gamma"`, "null", `"δ"`}[rng.IntN(4)])
		if _, err := bw.Write(line); err != nil {
			return err
		}
		n += int64(len(line))
	}
	bw.WriteString("\n]\n")
	return bw.Flush()
}

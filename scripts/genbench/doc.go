package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strings"
)

// writeDoc writes one JSON document of about size bytes, of a shape that
// issue 33's size marks name:
//   - a: an object holding one array of uniform flat objects (customer
//     records), which TOON writes as a table; json.dumps's separators;
//   - b: an array of mixed objects: nested objects, arrays of uneven
//     length and kind, optional members (TOON's list form); indented;
//   - c: a deep configuration: regions, clusters, services, each service
//     nested five levels more; indented.
func writeDoc(path, shape string, size int64, seed uint64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	w := &countWriter{w: bufio.NewWriterSize(f, 1<<20)}
	rng := rand.New(rand.NewPCG(seed, 0x646f63))
	switch shape {
	case "a":
		docTable(w, rng, size)
	case "b":
		docMixed(w, rng, size)
	case "c":
		docDeep(w, rng, size)
	default:
		return fmt.Errorf("-doc: unknown shape %q (a, b or c)", shape)
	}
	if w.err != nil {
		return w.err
	}
	if err := w.w.Flush(); err != nil {
		return err
	}
	return f.Close()
}

type countWriter struct {
	w   *bufio.Writer
	n   int64
	err error
}

func (c *countWriter) printf(format string, args ...any) {
	if c.err != nil {
		return
	}
	k, err := fmt.Fprintf(c.w, format, args...)
	c.n += int64(k)
	c.err = err
}

var (
	docFirst  = []string{"Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Grace", "Hiro", "Ines", "José"}
	docLast   = []string{"Martin", "Chen", "Okafor", "Müller", "Schmidt", "Tanaka", "Ruiz", "Novak", "Haddad", "Kowalski"}
	docCities = []string{"Lyon", "Osaka", "Lagos", "São Paulo", "Zürich", "Austin", "Pune", "Oslo"}
	docWords  = []string{"admin", "ops", "dev", "billing", "on-call", "remote", "beta tester", "mentor", "a, b", "x: y"}
)

func docTable(w *countWriter, rng *rand.Rand, size int64) {
	w.printf(`{"source": "crm", "generated": "2026-12-03T00:00:00Z", "customers": [`)
	for i := 0; w.n < size-2; i++ {
		if i > 0 {
			w.printf(", ")
		}
		fn, ln := docFirst[rng.IntN(len(docFirst))], docLast[rng.IntN(len(docLast))]
		w.printf(`{"id": %d, "name": "%s %s", "email": "%s.%s%d@example.com", "city": "%s", "active": %t, "balance": %d.%02d, "orders": %d, "since": "20%02d-%02d-%02d", "note": %s}`,
			i+1, fn, ln, strings.ToLower(fn), strings.ToLower(ln), i, docCities[rng.IntN(len(docCities))], rng.IntN(2) == 0,
			rng.IntN(100000), rng.IntN(100), rng.IntN(500), rng.IntN(26), 1+rng.IntN(12), 1+rng.IntN(28), docNote(rng))
	}
	w.printf("]}\n")
}

func docNote(rng *rand.Rand) string {
	switch rng.IntN(4) {
	case 0:
		return "null"
	case 1:
		return `""`
	}
	return fmt.Sprintf("%q", docWords[rng.IntN(len(docWords))])
}

func docMixed(w *countWriter, rng *rand.Rand, size int64) {
	w.printf("[")
	for i := 0; w.n < size-2; i++ {
		if i > 0 {
			w.printf(",")
		}
		w.printf("\n  {\n    \"id\": %d,\n    \"kind\": %q", i, []string{"order", "refund", "note"}[rng.IntN(3)])
		if rng.IntN(3) > 0 {
			w.printf(",\n    \"customer\": {\n      \"name\": \"%s %s\",\n      \"address\": {\n        \"city\": %q,\n        \"zip\": \"%05d\"\n      }\n    }",
				docFirst[rng.IntN(len(docFirst))], docLast[rng.IntN(len(docLast))], docCities[rng.IntN(len(docCities))], rng.IntN(100000))
		}
		w.printf(",\n    \"tags\": [")
		for j := range rng.IntN(4) {
			if j > 0 {
				w.printf(", ")
			}
			w.printf("%q", docWords[rng.IntN(len(docWords))])
		}
		w.printf("]")
		if rng.IntN(2) == 0 {
			w.printf(",\n    \"lines\": [")
			for j := range 1 + rng.IntN(3) {
				if j > 0 {
					w.printf(",")
				}
				if rng.IntN(4) == 0 {
					w.printf("\n      {\n        \"sku\": \"S-%d\",\n        \"qty\": %d,\n        \"opts\": [%d, \"x\"]\n      }", rng.IntN(1000), 1+rng.IntN(9), rng.IntN(9))
				} else {
					w.printf("\n      {\n        \"sku\": \"S-%d\",\n        \"qty\": %d\n      }", rng.IntN(1000), 1+rng.IntN(9))
				}
			}
			w.printf("\n    ]")
		}
		if rng.IntN(5) == 0 {
			w.printf(",\n    \"matrix\": [[1, 2], [3], []]")
		}
		w.printf(",\n    \"total\": %d.%02d\n  }", rng.IntN(10000), rng.IntN(100))
	}
	w.printf("\n]\n")
}

func docDeep(w *countWriter, rng *rand.Rand, size int64) {
	w.printf("{\n  \"version\": 3,\n  \"regions\": {")
	for r := 0; w.n < size-100; r++ {
		if r > 0 {
			w.printf(",")
		}
		w.printf("\n    \"region-%03d\": {\n      \"zone\": %q,\n      \"clusters\": {", r, docCities[r%len(docCities)])
		for c := 0; c < 100 && w.n < size-100; c++ {
			if c > 0 {
				w.printf(",")
			}
			w.printf("\n        \"cluster-%03d\": {\n          \"nodes\": %d,\n          \"services\": {", c, 3+rng.IntN(50))
			for s := 0; s < 100 && w.n < size-100; s++ {
				if s > 0 {
					w.printf(",")
				}
				w.printf("\n            \"svc-%03d\": {\n              \"image\": \"registry.example.com/svc-%d:%d.%d\",\n              \"replicas\": %d,\n              \"env\": {\n                \"LOG_LEVEL\": %q,\n                \"FEATURE_%d\": %t\n              },\n              \"ports\": [%d, %d],\n              \"limits\": {\n                \"cpu\": \"%dm\",\n                \"memory\": \"%dMi\"\n              },\n              \"routes\": {\n                \"main\": {\n                  \"match\": {\n                    \"path\": \"/api/v%d/%s\",\n                    \"methods\": [\"GET\", \"POST\"]\n                  },\n                  \"timeout\": %d\n                }\n              }\n            }",
					s, rng.IntN(1000), rng.IntN(10), rng.IntN(10), 1+rng.IntN(9), []string{"info", "debug", "warn"}[rng.IntN(3)], rng.IntN(100), rng.IntN(2) == 0,
					8000+rng.IntN(1000), 9000+rng.IntN(1000), 100*(1+rng.IntN(40)), 64*(1+rng.IntN(64)), 1+rng.IntN(3), docWords[rng.IntN(len(docWords))], 1+rng.IntN(60))
			}
			w.printf("\n          }\n        }")
		}
		w.printf("\n      }\n    }")
	}
	w.printf("\n  }\n}\n")
}

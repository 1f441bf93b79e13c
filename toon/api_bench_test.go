package toon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"
)

// The Go API's benchmark data: 100k users with uneven nested arrays (a
// list of 0 to 3 tags and a table of 0 to 2 orders each), 18 MB as
// compact JSON and as TOON, as in issue 20 (whose file was 12 MB). Marshal and Unmarshal run beside
// encoding/json on the same values.

type benchUser struct {
	ID     int64        `json:"id"`
	Name   string       `json:"name"`
	Email  string       `json:"email"`
	Active bool         `json:"active"`
	Score  float64      `json:"score"`
	Tags   []string     `json:"tags"`
	Orders []benchOrder `json:"orders"`
}

type benchOrder struct {
	ID     string  `json:"id"`
	Amount float64 `json:"amount"`
	Items  int     `json:"items"`
}

// benchUsers returns n users made from a fixed seed.
func benchUsers(n int) []benchUser {
	rng := rand.New(rand.NewPCG(20, 0x746f6f6e))
	first := []string{"Alice", "Bob", "Chloé", "Dmitri", "Eve", "Fatima", "Grace", "Hiro", "Ines", "José"}
	last := []string{"Martin", "Chen", "Okafor", "Müller", "Schmidt", "Tanaka", "Ruiz", "Novak", "Haddad", "Kowalski"}
	words := []string{"admin", "ops", "dev", "billing", "on-call", "remote", "beta tester", "mentor"}
	users := make([]benchUser, n)
	for i := range users {
		fn, ln := first[rng.IntN(len(first))], last[rng.IntN(len(last))]
		u := benchUser{
			ID:     int64(i + 1),
			Name:   fn + " " + ln,
			Email:  fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(fn), strings.ToLower(ln), i+1),
			Active: rng.IntN(2) == 0,
			Score:  float64(rng.IntN(10000)) / 100,
		}
		if k := rng.IntN(4); k > 0 {
			u.Tags = make([]string, k)
			for j := range u.Tags {
				u.Tags[j] = words[rng.IntN(len(words))]
			}
		}
		if k := rng.IntN(3); k > 0 {
			u.Orders = make([]benchOrder, k)
			for j := range u.Orders {
				u.Orders[j] = benchOrder{
					ID:     fmt.Sprintf("O%d", 3*i+j),
					Amount: float64(rng.IntN(100000)) / 100,
					Items:  1 + rng.IntN(9),
				}
			}
		}
		users[i] = u
	}
	return users
}

var benchData = sync.OnceValues(func() ([]benchUser, []byte) {
	users := benchUsers(100000)
	js, err := json.Marshal(users)
	if err != nil {
		panic(err)
	}
	var toon bytes.Buffer
	if err := FromJSON(&toon, js, MarshalOptions{}); err != nil {
		panic(err)
	}
	return users, toon.Bytes()
})

// BenchmarkMarshalUsersJSON is encoding/json's Marshal on the 100k users:
// the mark for BenchmarkMarshalUsers.
func BenchmarkMarshalUsersJSON(b *testing.B) {
	users, _ := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := json.Marshal(users); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeUsersJSON is the byte-level Encode of the users' JSON.
func BenchmarkEncodeUsersJSON(b *testing.B) {
	users, _ := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	var out bytes.Buffer
	for b.Loop() {
		out.Reset()
		if err := FromJSON(&out, js, MarshalOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalUsers is Marshal on the 100k users; its bytes per second
// count the JSON that json.Marshal writes for them, so that the MB/s of
// both benchmarks compare.
func BenchmarkMarshalUsers(b *testing.B) {
	users, want := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		out, err := Marshal(users)
		if err != nil {
			b.Fatal(err)
		}
		if len(out) != len(want) {
			b.Fatalf("Marshal wrote %d bytes, want %d", len(out), len(want))
		}
	}
}

// BenchmarkUnmarshalUsersJSON is encoding/json's Unmarshal of the 100k
// users' JSON: the mark for BenchmarkUnmarshalUsers.
func BenchmarkUnmarshalUsersJSON(b *testing.B) {
	users, _ := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var got []benchUser
		if err := json.Unmarshal(js, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshalUsers is Unmarshal of the 100k users' TOON; its bytes
// per second count their JSON, as BenchmarkMarshalUsers does, so that the
// MB/s of both benchmarks compare.
func BenchmarkUnmarshalUsers(b *testing.B) {
	users, doc := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var got []benchUser
		if err := Unmarshal(doc, &got); err != nil {
			b.Fatal(err)
		}
		if len(got) != len(users) {
			b.Fatalf("Unmarshal stored %d users, want %d", len(got), len(users))
		}
	}
}

// BenchmarkDecoderUsers is a Decoder reading the 100k users' TOON.
func BenchmarkDecoderUsers(b *testing.B) {
	users, doc := benchData()
	js, _ := json.Marshal(users)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var got []benchUser
		if err := NewDecoder(bytes.NewReader(doc)).Decode(&got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalUsersVsJSON runs json.Marshal and Marshal in turns, one
// call each per iteration, and reports the time of each and
// json-ns/toon-ns (above 1: Marshal is the faster): on a loaded machine
// the turns share its load.
func BenchmarkMarshalUsersVsJSON(b *testing.B) {
	users, _ := benchData()
	marshalVsJSON(b, users)
}

// BenchmarkMarshalUsersAnyVsJSON is BenchmarkMarshalUsersVsJSON on the
// users as encoding/json decodes them into any: maps and slices.
func BenchmarkMarshalUsersAnyVsJSON(b *testing.B) {
	users, _ := benchData()
	js, _ := json.Marshal(users)
	var v any
	if err := json.Unmarshal(js, &v); err != nil {
		b.Fatal(err)
	}
	marshalVsJSON(b, v)
}

// marshalVsJSON runs json.Marshal and Marshal of v in turns, each first
// in every other iteration (the garbage of one is collected during the
// other).
func marshalVsJSON(b *testing.B, v any) {
	var tj, tt time.Duration
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			t0 := time.Now()
			var err error
			if (i+k)%2 == 0 {
				_, err = json.Marshal(v)
				tj += time.Since(t0)
			} else {
				_, err = Marshal(v)
				tt += time.Since(t0)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(tj.Nanoseconds())/float64(b.N), "json-ns/op")
	b.ReportMetric(float64(tt.Nanoseconds())/float64(b.N), "toon-ns/op")
	b.ReportMetric(float64(tj)/float64(tt), "json/toon")
}

// BenchmarkUnmarshalUsersVsJSON runs json.Unmarshal of the users' JSON and
// Unmarshal of their TOON in turns, one call each per iteration, and
// reports the time of each and json-ns/toon-ns (above 1: Unmarshal is the
// faster): on a loaded machine the turns share its load.
func BenchmarkUnmarshalUsersVsJSON(b *testing.B) {
	unmarshalVsJSON(b, func() any { return new([]benchUser) })
}

// BenchmarkUnmarshalUsersAnyVsJSON is BenchmarkUnmarshalUsersVsJSON into
// an interface: encoding/json's shapes on both sides.
func BenchmarkUnmarshalUsersAnyVsJSON(b *testing.B) {
	unmarshalVsJSON(b, func() any { return new(any) })
}

// unmarshalVsJSON runs json.Unmarshal of the users' JSON and Unmarshal of
// their TOON into new(T) in turns, each first in every other iteration,
// as marshalVsJSON does.
func unmarshalVsJSON(b *testing.B, mk func() any) {
	users, doc := benchData()
	js, _ := json.Marshal(users)
	var tj, tt time.Duration
	for i := 0; b.Loop(); i++ {
		for k := range 2 {
			t0 := time.Now()
			var err error
			if (i+k)%2 == 0 {
				err = json.Unmarshal(js, mk())
				tj += time.Since(t0)
			} else {
				err = Unmarshal(doc, mk())
				tt += time.Since(t0)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(tj.Nanoseconds())/float64(b.N), "json-ns/op")
	b.ReportMetric(float64(tt.Nanoseconds())/float64(b.N), "toon-ns/op")
	b.ReportMetric(float64(tj)/float64(tt), "json/toon")
}

// smallDoc is one user of the benchmark data, as a message of its own:
// the cost of a call counts more than the bytes.
var smallDoc = sync.OnceValues(func() (benchUser, []byte) {
	users := benchUsers(3)
	u := users[2]
	doc, err := Marshal(u)
	if err != nil {
		panic(err)
	}
	return u, doc
})

// BenchmarkUnmarshalSmallJSON is encoding/json's Unmarshal of one user:
// the mark for BenchmarkUnmarshalSmall.
func BenchmarkUnmarshalSmallJSON(b *testing.B) {
	u, _ := smallDoc()
	js, _ := json.Marshal(u)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var got benchUser
		if err := json.Unmarshal(js, &got); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshalSmall is Unmarshal of one user's TOON; its bytes per
// second count the JSON.
func BenchmarkUnmarshalSmall(b *testing.B) {
	u, doc := smallDoc()
	js, _ := json.Marshal(u)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		var got benchUser
		if err := Unmarshal(doc, &got); err != nil {
			b.Fatal(err)
		}
	}
}

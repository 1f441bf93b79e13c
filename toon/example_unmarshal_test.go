package toon_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/toonkit/toonkit/toon"
)

func ExampleUnmarshal() {
	type Order struct {
		ID     string  `toon:"id"`
		Amount float64 `json:"amount"` // no toon tag: the json tag is used
	}
	type User struct {
		ID     int64    `toon:"id"`
		Name   string   `toon:"name"`
		Tags   []string `toon:"tags,omitempty"`
		Orders []Order  `toon:"orders"`
	}
	doc := []byte(`id: 7
name: Ada Lovelace
tags[2]: admin,ops
orders[2]{id,amount}:
  A-1,19.99
  A-2,5
`)
	var u User
	if err := toon.Unmarshal(doc, &u); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%+v\n", u)
	// Output:
	// {ID:7 Name:Ada Lovelace Tags:[admin ops] Orders:[{ID:A-1 Amount:19.99} {ID:A-2 Amount:5}]}
}

func ExampleNewDecoder() {
	in := strings.NewReader(`count: 12345678901234567890
ratio: 0.5
items[2]{sku,qty}:
  X1,2
  Y2,1
`)
	dec := toon.NewDecoder(in)
	dec.UseNumber() // numbers in an interface as json.Number: exact
	var v map[string]any
	if err := dec.Decode(&v); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(v["count"], v["ratio"])
	fmt.Println(v["items"])
	// A TOON stream is one document: then Decode gives io.EOF.
	fmt.Println(dec.Decode(&v))
	// Output:
	// 12345678901234567890 0.5
	// [map[qty:2 sku:X1] map[qty:1 sku:Y2]]
	// EOF
}

func ExampleUnmarshalOptions() {
	type Config struct {
		Name  string `toon:"name"`
		Ports []int  `toon:"ports"`
	}
	// Four spaces per level, and a key that matches no field is an error.
	opts := toon.UnmarshalOptions{IndentSize: 4, DisallowUnknownFields: true}
	var c Config
	err := opts.Unmarshal([]byte("name: web\nports[2]: 80,443\nport: 8080\n"), &c)
	var fe *toon.UnmarshalFieldError
	fmt.Println(errors.As(err, &fe), fe.Key, fe.Line)
	fmt.Println(err)
	// Output:
	// true port 3
	// 3:1: toon: unknown field "port" in Go value of type toon_test.Config at port
}

func ExampleUnmarshalTypeError() {
	var v struct {
		Users []struct {
			ID  int    `toon:"id"`
			Tag string `toon:"tag"`
		} `toon:"users"`
	}
	err := toon.Unmarshal([]byte("users[2]{id,tag}:\n  1,a\n  two,b\n"), &v)
	var te *toon.UnmarshalTypeError
	if errors.As(err, &te) {
		fmt.Println(te.Field, te.Line, te.Value, te.Type)
	}
	fmt.Println(err)
	// Output:
	// users[1].id 3 string int
	// 3:3: toon: cannot unmarshal string into Go value users[1].id of type int
}

func ExampleSyntaxError() {
	var v any
	err := toon.Unmarshal([]byte("items[3]: a,b\n"), &v)
	var se *toon.SyntaxError
	if errors.As(err, &se) {
		fmt.Println(se.Line, se.Column)
	}
	fmt.Println(err)
	// Output:
	// 1 6
	// 1:6: array declares 3 values, found 2
}

// Decoding into an interface gives encoding/json's shapes.
func ExampleUnmarshal_any() {
	var v any
	if err := toon.Unmarshal([]byte("a[2]: 1,x\nb:\n  c: true\n"), &v); err != nil {
		fmt.Println(err)
		return
	}
	js, _ := json.Marshal(v)
	fmt.Printf("%T %s\n", v, js)
	// Output:
	// map[string]interface {} {"a":[1,"x"],"b":{"c":true}}
}

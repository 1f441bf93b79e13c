package csvin_test

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/internal/codec/csvin"
)

// FuzzCSV: no input makes the reader panic or hang; every record is a
// valid JSON object, or the reader stops with an *Error.
func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"id,name\n1,Ada\n2,\"Lin, B\"\n", "a,b\r\n\"x\r\ny\",2\r\n", "a\tb\n1\t2\n", "a,b\n1\n", "a,,b\n",
		"a,a\n", "a\n\"x\n", "a\nx\"y\n", "\xEF\xBB\xBFa\n007\n", "a,b,c\n1.50,1e3,-0\n", "",
	} {
		f.Add([]byte(s), false, false)
	}
	f.Fuzz(func(t *testing.T, in []byte, tab, asStrings bool) {
		opts := csvin.Options{Strings: asStrings, MaxSize: 4096}
		if tab {
			opts.Comma = '\t'
		}
		r := csvin.NewReader(bytes.NewReader(in), opts)
		for {
			rec, _, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var e *csvin.Error
				if !errors.As(err, &e) {
					t.Fatalf("error %v (%T) is no *csvin.Error", err, err)
				}
				return
			}
			if !jsontext.Value(rec).IsValid() || rec[0] != '{' {
				t.Fatalf("%q gave the record %q", in, rec)
			}
		}
	})
}

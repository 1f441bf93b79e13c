package capture

import (
	"github.com/go-json-experiment/json/jsontext"
	"github.com/toonkit/toonkit/kado"
)

// AppendSource appends where a record came from as the JSON object
// {"conn":"10.0.0.1:51234>10.0.0.2:7000","dir":"c2s","time":"2026-01-02T03:04:05.123456789Z"}.
func AppendSource(dst []byte, r *Record) []byte {
	dst = append(dst, `{"conn":`...)
	dst, _ = jsontext.AppendQuote(dst, r.Conn)
	dst = append(dst, `,"dir":"`...)
	dst = append(dst, r.Dir.String()...)
	dst = append(dst, `","time":"`...)
	dst = AppendTime(dst, r.Time)
	return append(dst, `"}`...)
}

// AppendRecord appends the JSON record `toonkit decode` writes for a
// record: for a frame, kado.AppendRecord's form with the source as the last
// member of the header,
//
//	{"header":{"version":1,...,"compressed":false,"capture":{"conn":...,"dir":...,"time":...}},"payload":...}
//
// and for a WebSocket text message {"capture":{...},"text":"..."}. Other
// records have no JSON form: dst is returned as it is.
func AppendRecord(dst []byte, r *Record) []byte {
	switch r.Kind {
	case Frame:
		const tail = `},"payload":}`
		dst = kado.AppendRecord(dst, r.Frame.Header, r.Frame.Compressed(), nil)
		dst = append(dst[:len(dst)-len(tail)], `,"capture":`...)
		dst = AppendSource(dst, r)
		dst = append(dst, `},"payload":`...)
		dst = append(dst, r.JSON...)
		return append(dst, '}')
	case Text:
		dst = append(dst, `{"capture":`...)
		dst = AppendSource(dst, r)
		dst = append(dst, `,"text":`...)
		dst, _ = jsontext.AppendQuote(dst, r.Text)
		return append(dst, '}')
	}
	return dst
}

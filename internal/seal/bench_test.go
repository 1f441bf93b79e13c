package seal_test

import (
	"bytes"
	"testing"

	"github.com/toonkit/toonkit/internal/seal"
	"github.com/toonkit/toonkit/internal/sign"
)

// BenchmarkSeal: sign.SignStream and sign.Log.Verify on one worker, plain
// and sealing (issue 22 §5: sealing adds at most 10%; scripts/bench.sh
// measures the commands).
func BenchmarkSeal(b *testing.B) {
	signed := bytes.Repeat(signedLog(b), 1000)
	s, _ := sign.NewSigner(testKey, sign.SchemeSpec)
	for _, sealed := range []bool{false, true} {
		name := map[bool]string{false: "plain", true: "seal"}[sealed]
		b.Run("sign/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(signed)))
			for b.Loop() {
				var sb seal.Builder
				h := sign.StreamHandler{Output: func([]byte) error { return nil }, Bad: func(e *sign.EventError) error { return e }}
				if sealed {
					h.Signed = func(run, seq, t []byte, d *[32]byte) error { sb.Add(run, seq, t, d); return nil }
				}
				if _, err := sign.SignStream(b.Context(), bytes.NewReader(signed), s, sign.StreamOptions{}, h); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("verify/"+name, func(b *testing.B) {
			b.SetBytes(int64(len(signed)))
			for b.Loop() {
				var sb seal.Builder
				l := &sign.Log{Signer: s, Emit: func(sign.Problem) {}}
				if sealed {
					l.Signed = func(_ sign.Where, run, seq, t []byte, d *[32]byte) { sb.Add(run, seq, t, d) }
				}
				if err := l.Verify(b.Context(), bytes.NewReader(signed), "f", sign.VerifyOptions{Workers: 1}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

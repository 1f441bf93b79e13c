package validate

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchMessages is a stream of n valid messages of a protocol, as
// scripts/genbench writes them: Chiffon tasks of four messages (a request,
// two statuses with output chunks, a result), trace runs of 1000 events.
func benchMessages(proto string, n int) string {
	var b strings.Builder
	for i := range n {
		benchMessage(&b, proto, i)
	}
	return b.String()
}

// benchMessage writes message i of benchMessages, and its newline.
func benchMessage(b *strings.Builder, proto string, i int) {
	switch proto {
	case "chiffon":
		task := fmt.Sprintf("880e8400-e29b-41d4-a716-%012x", i/4)
		env := fmt.Sprintf(`{"protocol_version":"1.0","message_id":"550e8400-e29b-41d4-a716-%012x","from_agent":"%%s","to_agent":"%%s","timestamp":"2026-01-19T04:21:%02dZ","trace_id":"660e8400-e29b-41d4-a716-%012x","request_id":"770e8400-e29b-41d4-a716-%012x","type":"%%s","payload":%%s}`, i, i%60, i/4, i)
		switch i % 4 {
		case 0:
			fmt.Fprintf(b, env, "orchestrator", "infra", "work_request", `{"task_id":"`+task+`","work_type":"run_playbook","parameters":{"playbook":"deploy_kuma.yml","extra_vars":{"version":"1.4.0"}},"hints":{"max_duration_seconds":300,"max_memory_mb":512}}`)
		case 1, 2:
			chunk := "bytes 0-50 of 100"
			if i%4 == 2 {
				chunk = "bytes 50-100 of 100"
			}
			fmt.Fprintf(b, env, "infra", "orchestrator", "work_status", `{"task_id":"`+task+`","status":"running","progress_percent":50,"step":{"number":5,"name":"Collecting logs","output":"Updating config.yaml...\nAdded uptime monitors: 3\n","output_chunk":"`+chunk+`"}}`)
		default:
			fmt.Fprintf(b, env, "infra", "orchestrator", "work_result", `{"task_id":"`+task+`","status":"success","exit_code":0,"output":"Deployment completed successfully.","resources_used":{"duration_seconds":87,"gpu_vram_mb":0,"cpu_time_ms":12450}}`)
		}
	case "trace":
		sig := fmt.Sprintf("%064x", i)
		payload := []string{
			`{"goal":"Process customer refund request","steps":[{"step_id":"s1","description":"interpret query","decision":"select_tool: create_ticket","confidence":0.82}],"safety_checks":[{"name":"policy_lookup","result":"passed"}],"uncertainty":"low"}`,
			`{"action":"create_ticket","params":{"title":"Refund Request - Order #12345","order_id":"ORD-12345","amount":99.99}}`,
			`{"status":"ok","data":{"ticket_id":"T-999","status":"open"},"meta":{"latency_ms":120,"policy_flags":[],"retries":0}}`,
			`{"text":"Your refund ticket has been created: T-999."}`,
		}[i%4]
		typ := []string{"reasoning", "action_request", "action_response", "final_output"}[i%4]
		fmt.Fprintf(b, `{"seq":%d,"t":"2025-12-05T10:30:00.000Z","actor":"agent","type":"%s","payload":%s,"meta":{"seed":42,"run_id":"550e8400-e29b-41d4-a716-%012x","agent_id":123,"session_id":"sess-abc123","signature":"%s"},"signature":"%s"}`,
			i%1000, typ, payload, i/1000, sig, sig)
	}
	b.WriteByte('\n')
}

// BenchmarkValidate validates 10,000 valid messages of each protocol,
// compact and as Python's json.dumps writes them (", " and ": "); b.N
// counts streams, and msg/s is reported.
func BenchmarkValidate(b *testing.B) {
	if err := loadSchemas(); err != nil {
		b.Fatal(err)
	}
	const n = 10000
	for _, proto := range []string{"chiffon", "trace"} {
		compact := benchMessages(proto, n)
		py := pyFormat(b, []string{compact})[0][0]
		v := map[string]func(io.Reader, string, Options, Emit) (int, error){"chiffon": Chiffon, "trace": Trace}[proto]
		for _, in := range []struct{ name, text string }{{"compact", compact}, {"python", py}} {
			b.Run(proto+"/"+in.name, func(b *testing.B) {
				b.SetBytes(int64(len(in.text)))
				data := []byte(in.text)
				cpu0 := cpuTime()
				for b.Loop() {
					got, err := v(bytes.NewReader(data), "in", Options{}, func(f Finding) bool { b.Fatal(f.Text()); return false })
					if err != nil || got != n {
						b.Fatal(got, err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msg/s")
				// On a busy machine the wall time says little: the CPU
				// time of the process (all threads, the GC's too) per
				// message is the steadier figure.
				b.ReportMetric(float64(n*b.N)/(cpuTime()-cpu0).Seconds(), "msg/cpu-s")
			})
		}
	}
}

// cpuTime is the CPU time the process has used (user and system).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkValidateWorkers validates 40,000 valid compact messages of each
// protocol on 1 and on 2 workers (Options.Workers): msg/s is the speed-up
// on an idle machine; msg/cpu-s says what the workers cost in CPU time
// (the same figure for both means no work is done twice).
func BenchmarkValidateWorkers(b *testing.B) {
	if err := loadSchemas(); err != nil {
		b.Fatal(err)
	}
	const n = 40000
	for _, proto := range []string{"chiffon", "trace"} {
		data := []byte(benchMessages(proto, n))
		v := map[string]func(io.Reader, string, Options, Emit) (int, error){"chiffon": Chiffon, "trace": Trace}[proto]
		for _, workers := range []int{1, 2} {
			b.Run(fmt.Sprintf("%s/workers=%d", proto, workers), func(b *testing.B) {
				b.SetBytes(int64(len(data)))
				cpu0 := cpuTime()
				for b.Loop() {
					got, err := v(bytes.NewReader(data), "in", Options{Workers: workers}, func(f Finding) bool { b.Fatal(f.Text()); return false })
					if err != nil || got != n {
						b.Fatal(got, err)
					}
				}
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "msg/s")
				b.ReportMetric(float64(n*b.N)/(cpuTime()-cpu0).Seconds(), "msg/cpu-s")
			})
		}
	}
}

// BenchmarkChiffonStream validates a stream of 400,000 Chiffon messages
// (160 MB, made as it is read), long enough for the id sets to grow to the
// size of a large stream's: b.N counts streams.
func BenchmarkChiffonStream(b *testing.B) {
	if err := loadSchemas(); err != nil {
		b.Fatal(err)
	}
	const n = 400000
	cpu0 := cpuTime()
	for b.Loop() {
		got, err := Chiffon(newChiffonReader(n), "in", Options{}, func(f Finding) bool { b.Fatal(f.Text()); return false })
		if err != nil || got != n {
			b.Fatal(got, err)
		}
	}
	b.ReportMetric(float64(n*b.N)/(cpuTime()-cpu0).Seconds(), "msg/cpu-s")
}

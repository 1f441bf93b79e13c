#!/usr/bin/env bash
# scripts/bench.sh [TOONKIT]: toonkit's speed and memory marks, beside jq, in one run.
#
# Generates a capture of Kado binary frames (1-64 KB payloads, some compressed)
# and its NDJSON with scripts/genbench, then measures on the same machine:
#   toonkit decode capture.bin                            MB/s of frame input
#   toonkit encode --to binary --timestamp 1 capture.ndjson   MB/s of NDJSON input
#   jq -c . capture.ndjson                                MB/s of NDJSON input
# each REPS times (median reported), with the peak RSS of each from
# /usr/bin/time -v (the largest over the runs), the peak RSS of decode and
# encode on an input twice as large (each file twice over), and the wall time
# of `toonkit --version` and of decoding one small frame (median of
# STARTUP_REPS runs). decode, encode and inspect --json run with -j 1 and
# with the default -j (one worker per CPU) in turns, REPS times each, for
# the speed-up of the workers. It checks that decode prints the generated NDJSON and that
# decode | encode gives the capture back byte for byte.
#
# Marks: decode (all CPUs) >= 800 MB/s and >= 15x jq; encode >= 100 MB/s;
# decode, encode --to binary and inspect --json on all CPUs >= 1.6x -j 1
# (median over median); peak RSS
# <= 64 MiB whatever the input size; --version and one small frame <= 15 ms.
# Tables (genbench -table: a JSON array of flat objects with strings holding
# commas, newlines, quotes and backslashes, numbers, booleans and nulls):
# convert --to tabular (MB/s of JSON input) and convert --to json -c back (MB/s
# of table input), each beside jq -c . on the same JSON; marks >= 100 MB/s and
# >= 5x jq each; table -> JSON peak RSS <= 64 MiB on the table and on it
# twice over; JSON -> tabular peak RSS <= 128 MiB on a BENCH_TABLE_BIG_MB
# (1 GB) array; --stats >= 2 MB/s of JSON input; toonkit stats (every
# format, o200k_base) >= 4 MB/s of JSON input on one core (GOMAXPROCS=1), its peak
# RSS <= 128 MiB on one core, and on the table twice over (two inputs) <= 128
# MiB and flat (within 25% + 4 MiB), with the default -j (info); convert --to tabular on all
# CPUs >= 1.6x -j 1 (in turns, median over median). Checks: the table
# converts back to the same records.
# Validate (genbench -messages): BENCH_MESSAGES valid Chiffon and AOP trace
# messages, compact and as Python services write them (the same messages
# rewritten by python3 scripts/pyjson.py: json.dumps' ", " and ": "),
# validated with GOMAXPROCS=1. Marks, for each protocol: >= 150,000
# messages/s on either formatting; Python-formatted >= 0.8x compact; >= 1.5x
# ajv-cli (npm, wall time) validating the same messages, as one JSON array,
# against the schema toonkit exports (--print-schema); with the default -j
# (one worker per CPU) >= 2.5x ajv-cli and >= 1.6x -j 1 (in turns); peak
# RSS of the default -j on the trace events and on 4x as many <= 64 MiB, flat. Info: messages per
# CPU-second (user + system, from GNU time) of toonkit and of ajv-cli (node
# takes more than one core), steadier than the wall time on a busy machine. Peak RSS on a 1 GB trace stream (mark <= 64 MiB) and on a
# 1 GB Chiffon stream (info: the sets of message ids, request ids and task
# ids that its stream rules need grow with the stream; mark <= 128 bytes of
# peak RSS a message, about 100 with ~37-45 bytes an id).
# Bridge (genbench -messages chiffon): BENCH_BRIDGE_MESSAGES Chiffon messages
# (default 100000) converted to trace events and piped into toonkit sign,
# end to end, mark >= 50,000 messages/s; peak RSS at N and 4N messages, mark
# constant (4N within 20% + 4 MiB of N). Check: the signed events verify and
# validate.
#
# Sign and verify (genbench -messages audit): BENCH_SIGN_EVENTS unsigned AOP
# trace events of about 1 KB, signed (toonkit sign) and the result verified
# (toonkit verify), each with GOMAXPROCS=1; marks >= 100,000 events/s each;
# beside the spec's own Python generate_signature (python3) signing the same
# events (json.loads, sign, json.dumps per line), mark >= 10x. sign -j 1 and
# the default -j in turns: speed-up mark >= 1.6x, the default >= 20x the
# Python function, its peak RSS <= 64 MiB on the events and on them four
# times over. Check: Python verifies every signature toonkit wrote
# (scripts/gen-sign-vectors.py --verify). verify -j 1 and the default -j in
# turns: speed-up mark >= 1.6x; the default's peak RSS <= 64 MiB on the
# signed events and on 4x as many.
# TOON, the official format (genbench -users): a JSON array of
# BENCH_TOON_USERS (100000) users {id, name, email, active, score, tags},
# ~20 MB, and the same without tags (a tabular array). toonkit encode --to
# toon and decode (TOON to indented JSON), beside jq -c . on the JSON and the
# reference CLI @toon-format/cli (npm, installed into the run folder; its
# encode -e and decode -d to stdout, BENCH_TOON_REF_REPS runs each). Marks:
# encode >= 20x and decode >= 50x the reference CLI (wall time); decode peak
# RSS <= 64 MiB on the 100k users and on 10x as many; encode peak RSS <= 3x
# the input. Checks: decode gives the JSON back byte for byte; toonkit's
# TOON is byte for byte the reference CLI's.
# Then peak RSS on inputs of one value at the 64 MiB limit (genbench
# -limit-dir): decode and inspect of a compressed frame that decompresses to
# 64 MiB and of an uncompressed 64 MiB frame, encode of a 64 MiB value; mark
# <= 2.5 x the limit (160 MiB), jq -c . on the same value beside it.
# Python-formatted pairs: encode --to binary (the capture's NDJSON), convert
# --to tabular (the table's JSON array), convert --from chiffon --to trace
# (the bridge's messages), sign and verify (the audit events, signed) each
# run on the compact input and on the same input as Python services write
# it (rewritten by python3 scripts/pyjson.py: json.dumps' ", " and ": "),
# in turns, so that a change in the machine's load falls on both. Printed:
# each side's MB/s of its own input, and the ratio of the records per
# second (compact wall time over Python-formatted wall time, the same
# records); mark >= 0.8x. Info: the same ratio in CPU time (user + system,
# from GNU time), steadier on a busy machine.
# Query (jq's language): BENCH_QUERY_MESSAGES (100000) Chiffon messages as
# Python services write them (genbench -messages chiffon, rewritten by
# python3 scripts/pyjson.py), filtered with `.payload.status` and with
# `select(.type == "work_status") | {id: .message_id, p: .payload.progress_percent}`
# (-c) by toonkit query (GOMAXPROCS=1, --jobs 1), jq and the gojq CLI
# (GOMAXPROCS=1; v0.12.17, go install'ed once into BENCH_GOJQ_DIR), in turns,
# one core each: marks >= 1.5x jq and >= 2x gojq (median wall time). A
# TOON table of BENCH_TOON_USERS (100000) flat users filtered with
# `.[] | select(.active) | {id, name}` beside jq on the same data as JSON:
# mark >= 1.5x (issue 33). Peak RSS of `query -c .payload.status` on a
# BENCH_QUERY_BIG_MB Chiffon stream: mark <= 64 MiB. Checks: toonkit's
# output is jq's, byte for byte, for every filter.
# Packet captures (scripts/gencapture -bench): a pcapng of BENCH_PCAP_MB
# (default 200) of frame traffic over 100 TCP connections, decoded (toonkit
# decode, MB/s of capture) beside tshark -r FILE -q -z conv,tcp on the same
# file in turns, when tshark is installed, and decode -j 1 in turns with the
# default -j (info). Marks: >= 150 MB/s, peak RSS <= 128 MiB (of either).
# inspect of a capture (issue 19 §5): a pcapng of BENCH_INSPECT_MB (default
# 28) over 100 connections, of large frames (gencapture -bench) and of small
# ones (-small), to /dev/null: the full view (default -j, and -j 1) and
# --oneline, beside hexyl (xxd where hexyl is absent) on the same file, in
# turns. Marks: view >= 50 MB/s, --oneline >= 200 MB/s of capture.
# MB is 10^6 bytes. The exit status is 1 when a mark or a check fails.
#
# Environment:
#   BENCH_MB            size of the capture in MB (default 200)
#   BENCH_REPS          repetitions of each throughput measure (default 5)
#   BENCH_STARTUP_REPS  repetitions of each startup measure (default 21)
#   BENCH_DIR           where the run's folder is made (default bench-out/,
#                       git-ignored); the folder and its ~1.2 GB of inputs
#                       are removed at the end unless BENCH_KEEP=1
#   BENCH_SEED          generator seed (default 1)
#   BENCH_TIME          GNU time (default /usr/bin/time; gtime on macOS)
#   BENCH_TABLE_MB      size of the JSON array for the tabular measures (default 100)
#   BENCH_TABLE_BIG_MB  size of the large JSON array for JSON -> tabular's peak RSS
#                       (default 1000; 0 skips it)
#   BENCH_DOC_MB        size of the bigdoc section's documents, in MB (default 1000)
#   BENCH_DOC_JQ        0 leaves jq -c . out of the bigdoc section (it takes
#                       minutes per GB)
#   BENCH_ONLY          the sections to run, comma-separated (default all): frames
#                       (decode, encode), tables, validate, sign, bridge, toon,
#                       bigdoc (one document of BENCH_DOC_MB, 1 core), query, pcap (decode of a capture), inspect (the
#                       views of a capture), tap (bytes through toonkit tap
#                       beside a direct connection), limits (one value at
#                       the size limit), startup
#   BENCH_TAP_MB        megabytes sent each round through the tap (default 200)
#   BENCH_PCAP_MB       size of the pcapng for the pcap section (default 200)
#   BENCH_INSPECT_MB    size of each pcapng of the inspect section (default 28)
#   BENCH_MESSAGES      messages per protocol for validate (default 100000)
#   BENCH_VALIDATE_BIG_MB  size of the large Chiffon stream for validate's peak
#                       RSS (default 1000; 0 skips it)
#   BENCH_AJV           0 skips ajv-cli (installed from npm into the run folder)
#   BENCH_SIGN_EVENTS   trace events for sign and verify (default 100000)
#   BENCH_BRIDGE_MESSAGES  Chiffon messages for the bridge (default 100000)
#   BENCH_TOON_USERS    users in the TOON inputs (default 100000)
#   BENCH_TOON_REF      0 skips the reference TOON CLI (npm)
#   BENCH_TOON_REF_REPS runs of each reference CLI measure (default 3; its
#                       decode takes ~16 s a run)
#   BENCH_PY            0 skips the Python-formatted pairs (they need python3)
#   BENCH_QUERY_MESSAGES  Chiffon messages for query (default 100000)
#   BENCH_QUERY_BIG_MB  size of the NDJSON stream for query's peak RSS (default
#                       200, quick; make bench sets 1000; 0 skips it)
#   BENCH_GOJQ_DIR      where the gojq CLI is installed and kept between runs
#                       (default bench-out/gojq-v0.12.17); BENCH_GOJQ=0 skips it
set -euo pipefail

tk=${1:-bin/toonkit}
mb=${BENCH_MB:-200}
reps=${BENCH_REPS:-5}
sreps=${BENCH_STARTUP_REPS:-21}
seed=${BENCH_SEED:-1}
gnutime=${BENCH_TIME:-/usr/bin/time}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() { echo "bench.sh: $*" >&2; exit 2; }
note() { echo "bench.sh: $*" >&2; }

# want SECTION: whether BENCH_ONLY (comma-separated, default all) names it.
sections="frames tables validate sign bridge toon bigdoc query pcap inspect tap limits startup"
only=${BENCH_ONLY:-}
for s in ${only//,/ }; do
	[[ " $sections " == *" $s "* ]] || die "BENCH_ONLY: no section '$s' (sections: ${sections// /, })"
done
want() { [[ -z $only || ",$only," == *",$1,"* ]]; }

[[ -x $tk && ! -d $tk ]] || die "no toonkit binary at $tk (build it with: make build)"
tk=$(cd "$(dirname "$tk")" && pwd)/$(basename "$tk")
[[ $mb =~ ^[0-9]+$ && $mb -ge 1 ]] || die "BENCH_MB must be a whole number of MB, found '$mb'"
[[ $reps =~ ^[0-9]+$ && $reps -ge 1 && $sreps =~ ^[0-9]+$ && $sreps -ge 1 ]] || die "BENCH_REPS and BENCH_STARTUP_REPS must be whole numbers >= 1"
command -v go >/dev/null || die "go is needed to build scripts/genbench (https://go.dev/dl/)"

base=${BENCH_DIR:-$root/bench-out}
mkdir -p "$base"
dir=$(mktemp -d "$(cd "$base" && pwd)/run.XXXXXX")
cleanup() {
	if [[ ${BENCH_KEEP:-0} == 1 ]]; then
		note "inputs kept in $dir"
	else
		rm -rf "$dir"
	fi
}
trap cleanup EXIT

# ---- tools ----
have_jq=0
if command -v jq >/dev/null; then
	have_jq=1
	jq_path=$(command -v jq)
else
	note "jq not found: the jq columns are skipped (install it with: sudo apt-get install jq)"
fi
have_time=0
if command -v "$gnutime" >/dev/null && "$gnutime" -v true >/dev/null 2>&1; then
	have_time=1
else
	note "GNU time ($gnutime -v) not found: peak RSS is skipped (install it with: sudo apt-get install time)"
fi

# now_ns prints the wall clock in nanoseconds, without a fork when bash has
# EPOCHREALTIME (5.0+).
if [[ -n ${EPOCHREALTIME:-} ]]; then
	now_ns() {
		local t=${EPOCHREALTIME/[.,]/}
		REPLY=$((10#$t * 1000))
	}
else
	now_ns() { REPLY=$(date +%s%N); }
fi

median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
maxof() { printf '%s\n' "$@" | sort -n | tail -n 1; }

# measure N CMD...: runs CMD N times with stdout to /dev/null; sets MED_NS
# (median wall time), MAX_KB (largest peak RSS in KiB) and MED_CPU_NS (median
# user + system CPU time), the last two "" without GNU time.
measure() {
	local n=$1 i t0 rc
	shift
	local times=() rss=() cpus=()
	for ((i = 0; i < n; i++)); do
		now_ns
		t0=$REPLY
		if ((have_time)); then
			"$gnutime" -v -o "$dir/time.txt" "$@" >/dev/null && rc=0 || rc=$?
		else
			"$@" >/dev/null && rc=0 || rc=$?
		fi
		now_ns
		((rc == 0)) || die "failed (exit $rc): $*"
		times+=($((REPLY - t0)))
		if ((have_time)); then
			rss+=("$(awk -F': *' '/Maximum resident set size/ {print $2}' "$dir/time.txt")")
			cpus+=("$(awk -F': *' '/(User|System) time \(seconds\)/ {s += $2} END {printf "%.0f", s * 1e9}' "$dir/time.txt")")
		fi
	done
	MED_NS=$(median "${times[@]}")
	MAX_KB="" MED_CPU_NS=""
	if ((have_time)); then MAX_KB=$(maxof "${rss[@]}") MED_CPU_NS=$(median "${cpus[@]}"); fi
}

# inturns LABEL CMD...: CMD with -j 1 and CMD as it is (the default -j, one
# worker per CPU), in turns, $reps times each, so that a change in the
# machine's load falls on both: their median wall times in IT1_NS and ITJ_NS,
# the default's peak RSS (the largest of its runs) in ITJ_KB, and with GNU
# time their median CPU times (user + system) in IT1_CPU_NS and ITJ_CPU_NS.
# jflag names the worker flag where -j means something else (query:
# jflag=--jobs).
inturns() {
	local label=$1 i
	shift
	local t1=() tj=() kb=() c1=() cj=()
	note "$label, -j 1 and the default -j $jobs in turns, x$reps"
	for ((i = 0; i < reps; i++)); do
		measure 1 "$@" "${jflag:--j}" 1
		t1+=("$MED_NS") c1+=("${MED_CPU_NS:-0}")
		measure 1 "$@"
		tj+=("$MED_NS") kb+=("${MAX_KB:-0}") cj+=("${MED_CPU_NS:-0}")
	done
	IT1_NS=$(median "${t1[@]}") ITJ_NS=$(median "${tj[@]}") ITJ_KB=$(maxof "${kb[@]}")
	IT1_CPU_NS=$(median "${c1[@]}") ITJ_CPU_NS=$(median "${cj[@]}")
}

# wall N CMD...: median wall time of CMD in ns, without /usr/bin/time, in MED_NS.
wall() {
	local n=$1 i t0
	shift
	local times=()
	"$@" >/dev/null 2>&1 || die "failed: $*"
	"$@" >/dev/null 2>&1
	for ((i = 0; i < n; i++)); do
		now_ns
		t0=$REPLY
		"$@" >/dev/null 2>&1
		now_ns
		times+=($((REPLY - t0)))
	done
	MED_NS=$(median "${times[@]}")
}

mbps() { awk -v b="$1" -v ns="$2" 'BEGIN {printf "%.1f", b / 1e6 / (ns / 1e9)}'; }
ms() { awk -v ns="$1" 'BEGIN {printf "%.2f", ns / 1e6}'; }
mib() { awk -v kb="$1" 'BEGIN {printf "%.1f", kb / 1024}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (b > 0) printf "%.1fx", a / b; else print "n/a"}'; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a >= b)}'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN {exit !(a <= b)}'; }
size() { wc -c <"$1" | tr -d ' '; }

# Python-formatted pairs (see the header): pypair NAME COMPACT CMD... writes
# COMPACT as Python does (NAME.py beside it) and runs CMD COMPACT and CMD
# NAME.py in turns, $reps times each; it keeps the median wall and CPU
# times and the sizes of both, by NAME, for pyrows.
py_pairs=0
if [[ ${BENCH_PY:-1} != 0 ]] && command -v python3 >/dev/null; then
	py_pairs=1
elif [[ ${BENCH_PY:-1} != 0 ]]; then
	note "python3 not found: the Python-formatted pairs are skipped"
fi
declare -A pyc_ns pyp_ns pyc_cpu pyp_cpu pyc_bytes pyp_bytes
cputime() { awk -F': *' '/(User|System) time \(seconds\)/ {s += $2} END {printf "%.0f", s * 1e9}' "$dir/time.txt"; }
pypair() {
	local name=$1 c=$2 i
	shift 2
	((py_pairs)) || return 0
	local p=${c%.*}.py.${c##*.}
	python3 "$root/scripts/pyjson.py" "$c" "$p" || die "scripts/pyjson.py $c failed"
	note "$name, compact and Python-formatted in turns, x$reps"
	local cw=() pw=() cc=() pc=()
	for ((i = 0; i < reps; i++)); do
		measure 1 "$@" "$c"
		cw+=("$MED_NS")
		if ((have_time)); then cc+=("$(cputime)"); fi
		measure 1 "$@" "$p"
		pw+=("$MED_NS")
		if ((have_time)); then pc+=("$(cputime)"); fi
	done
	pyc_ns[$name]=$(median "${cw[@]}") pyp_ns[$name]=$(median "${pw[@]}")
	pyc_cpu[$name]="" pyp_cpu[$name]=""
	if ((have_time)); then pyc_cpu[$name]=$(median "${cc[@]}") pyp_cpu[$name]=$(median "${pc[@]}"); fi
	pyc_bytes[$name]=$(size "$c") pyp_bytes[$name]=$(size "$p")
	rm -f "$p"
}
# ratiorow LABEL A B MARK: the row of the ratio A/B (two times or two
# figures of the same work), checked against MARK (at least).
ratiorow() {
	local r
	r=$(awk -v a="$2" -v b="$3" 'BEGIN {printf "%.2fx", a / b}')
	check ge "${r%x}" "$4"
	row "$1" "$r" ">= $4x" "" "$RES"
}
# pyrows NAME LABEL: the rows of a pair, and its mark.
pyrows() {
	local name=$1 label=$2
	if [[ -z ${pyc_ns[$name]:-} ]]; then
		row "  $label, Python-formatted" "n/a" ">= 0.8x" "" "SKIP (no python3)"
		return
	fi
	row "  $label MB/s: compact / Python" "$(mbps "${pyc_bytes[$name]}" "${pyc_ns[$name]}") / $(mbps "${pyp_bytes[$name]}" "${pyp_ns[$name]}")" "" "" "(json.dumps)"
	ratiorow "  $label: Python vs compact, rec/s" "${pyc_ns[$name]}" "${pyp_ns[$name]}" 0.8
	if [[ -n ${pyc_cpu[$name]} ]]; then
		row "    the same in CPU time" "$(awk -v a="${pyc_cpu[$name]}" -v b="${pyp_cpu[$name]}" 'BEGIN {if (b > 0) printf "%.2fx", a / b; else print "n/a"}')" "" "" "(info)"
	fi
}

# ---- machine ----
cpu=$(awk -F': *' '/^model name/ {print $2; exit}' /proc/cpuinfo 2>/dev/null || true)
echo "== toonkit bench ($(date -u +%Y-%m-%dT%H:%M:%SZ))"
echo "machine:  $(nproc) CPU, ${cpu:-unknown CPU}, $(uname -sr)"
load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown)
echo "load:     $load (1, 5, 15 min) before the run"
if awk -v l="${load%% *}" -v n="$(nproc)" 'BEGIN {exit !(l + 0 > n / 2)}'; then
	echo "          other work is running on this machine: the figures may come out low"
fi
echo "go:       $(go version)"
echo "toonkit:  $tk ($("$tk" --version 2>&1 | head -n 1))"
if ((have_jq)); then echo "jq:       $jq_path ($(jq --version 2>&1))"; fi
echo

# ---- inputs ----
note "building scripts/genbench"
(cd "$root" && go build -o "$dir/genbench" ./scripts/genbench)
printf '{"instruction":"Write unit tests for the UserService class"}\n' |
	"$tk" encode --to binary --timestamp 1735689600123 -o "$dir/small.bin"
failures=0
jobs=$(nproc) # the default -j
if want frames; then
note "generating ${mb} MB of frames in $dir"
"$dir/genbench" -mb "$mb" -seed "$seed" -o "$dir/capture.bin" -ndjson "$dir/capture.ndjson" 2>"$dir/gen.txt" ||
	{ cat "$dir/gen.txt" >&2; die "genbench failed"; }
cat "$dir/capture.bin" "$dir/capture.bin" >"$dir/capture2x.bin"
cat "$dir/capture.ndjson" "$dir/capture.ndjson" >"$dir/capture2x.ndjson"
bin_bytes=$(size "$dir/capture.bin")
nd_bytes=$(size "$dir/capture.ndjson")

# ---- checks ----
note "checking decode and decode | encode"
if "$tk" decode "$dir/capture.bin" >"$dir/decoded.ndjson" && cmp -s "$dir/decoded.ndjson" "$dir/capture.ndjson"; then
	chk_decode=PASS
else
	chk_decode=FAIL
	failures=$((failures + 1))
	cmp "$dir/decoded.ndjson" "$dir/capture.ndjson" >&2 || true
fi
if "$tk" decode "$dir/capture.bin" | "$tk" encode --to binary >"$dir/roundtrip.bin" && cmp -s "$dir/roundtrip.bin" "$dir/capture.bin"; then
	chk_round=PASS
else
	chk_round=FAIL
	failures=$((failures + 1))
	cmp "$dir/roundtrip.bin" "$dir/capture.bin" >&2 || true
fi
rm -f "$dir/decoded.ndjson" "$dir/roundtrip.bin"

# ---- measures ----
note "decode x$reps"
measure "$reps" "$tk" decode "$dir/capture.bin"
dec_ns=$MED_NS dec_kb=$MAX_KB
note "encode x$reps"
measure "$reps" "$tk" encode --to binary --timestamp 1 "$dir/capture.ndjson"
enc_ns=$MED_NS enc_kb=$MAX_KB
jq_ns="" jq_kb=""
if ((have_jq)); then
	note "jq -c . x$reps"
	measure "$reps" jq -c . "$dir/capture.ndjson"
	jq_ns=$MED_NS jq_kb=$MAX_KB
fi
# -j 1 against the default (-j GOMAXPROCS, the CPUs), in turns, so that
# other work on the machine weighs on both alike.
note "decode, encode and inspect --json, -j 1 and the default -j $jobs in turns, x$reps"
d1=() dj=() e1=() ej=() i1=() ij=()
for ((i = 0; i < reps; i++)); do
	measure 1 "$tk" decode -j 1 "$dir/capture.bin"
	d1+=("$MED_NS")
	measure 1 "$tk" decode "$dir/capture.bin"
	dj+=("$MED_NS")
	measure 1 "$tk" encode --to binary --timestamp 1 -j 1 "$dir/capture.ndjson"
	e1+=("$MED_NS")
	measure 1 "$tk" encode --to binary --timestamp 1 "$dir/capture.ndjson"
	ej+=("$MED_NS")
	measure 1 "$tk" inspect --json -j 1 "$dir/capture.bin"
	i1+=("$MED_NS")
	measure 1 "$tk" inspect --json "$dir/capture.bin"
	ij+=("$MED_NS")
done
dec1_ns=$(median "${d1[@]}") decj_ns=$(median "${dj[@]}") enc1_ns=$(median "${e1[@]}") encj_ns=$(median "${ej[@]}")
ins1_ns=$(median "${i1[@]}") insj_ns=$(median "${ij[@]}")
# decode --payload: the payloads alone, -j 1 against the default in turns,
# and jq -c . over the same payloads (one per line).
"$tk" decode --payload "$dir/capture.bin" >"$dir/payloads.ndjson" || die "decode --payload failed"
pl_bytes=$(size "$dir/payloads.ndjson")
inturns "decode --payload" "$tk" decode --payload "$dir/capture.bin"
pay1_ns=$IT1_NS payj_ns=$ITJ_NS
pjq_ns=""
if ((have_jq)); then
	note "jq -c . over the payloads x$reps"
	measure "$reps" jq -c . "$dir/payloads.ndjson"
	pjq_ns=$MED_NS
fi
dec2_kb="" enc2_kb=""
pypair encode "$dir/capture.ndjson" "$tk" encode --to binary --timestamp 1
if ((have_time)); then
	note "decode and encode on the 2x input, x$reps"
	measure "$reps" "$tk" decode "$dir/capture2x.bin"
	dec2_kb=$MAX_KB
	measure "$reps" "$tk" encode --to binary --timestamp 1 "$dir/capture2x.ndjson"
	enc2_kb=$MAX_KB
fi
fi # frames
# Tables.
if want tables; then
tmb=${BENCH_TABLE_MB:-100}
bigmb=${BENCH_TABLE_BIG_MB:-1000}
note "generating a ${tmb} MB JSON array of flat objects"
"$dir/genbench" -table "$dir/table.json" -mb "$tmb" || die "genbench -table failed"
"$tk" convert --to tabular "$dir/table.json" -o "$dir/table.toon" || die "convert --to tabular failed"
{ cat "$dir/table.toon"; tail -n +3 "$dir/table.toon"; } >"$dir/table2x.toon"
tj_bytes=$(size "$dir/table.json") tt_bytes=$(size "$dir/table.toon")
rows=$(($(wc -l <"$dir/table.toon") - 2))
note "checking that the table converts back to the same records"
if cmp -s <("$tk" convert --to json -c "$dir/table.toon") <("$tk" convert --to json -c "$dir/table.json"); then
	chk_table=PASS
else
	chk_table=FAIL
	failures=$((failures + 1))
fi
note "convert --to tabular x$reps"
measure "$reps" "$tk" convert --to tabular "$dir/table.json"
tab_ns=$MED_NS tab_kb=$MAX_KB
inturns "convert --to tabular" "$tk" convert --to tabular "$dir/table.json"
tab1_ns=$IT1_NS tabj_ns=$ITJ_NS tab1_cpu=$IT1_CPU_NS tabj_cpu=$ITJ_CPU_NS
inturns "convert --to json -c (the table)" "$tk" convert --to json -c "$dir/table.toon"
untab1_ns=$IT1_NS untabj_ns=$ITJ_NS
pypair tabular "$dir/table.json" "$tk" convert --to tabular
note "convert --to json -c x$reps"
measure "$reps" "$tk" convert --to json -c "$dir/table.toon"
untab_ns=$MED_NS untab_kb=$MAX_KB
untab2_kb=""
if ((have_time)); then
	measure "$reps" "$tk" convert --to json -c "$dir/table2x.toon"
	untab2_kb=$MAX_KB
fi
tjq_ns=""
if ((have_jq)); then
	note "jq -c . on the JSON array x$reps"
	measure "$reps" jq -c . "$dir/table.json"
	tjq_ns=$MED_NS
fi
note "convert --to tabular --stats x1"
measure 1 "$tk" convert --to tabular --stats "$dir/table.json"
stats_ns=$MED_NS
note "stats --tokenizer o200k_base on one core (GOMAXPROCS=1), then -j 1 and the default -j in turns, x1 each"
measure 1 env GOMAXPROCS=1 "$tk" stats --tokenizer o200k_base "$dir/table.json"
tstats_ns=$MED_NS tstats_kb=$MAX_KB
measure 1 "$tk" stats --tokenizer o200k_base -j 1 "$dir/table.json"
tstats1_ns=$MED_NS
measure 1 "$tk" stats --tokenizer o200k_base "$dir/table.json"
tstatsj_ns=$MED_NS tstatsj_kb=$MAX_KB
tstats2_kb=""
if ((have_time)); then
	note "stats --tokenizer o200k_base on one core, the table twice over (two inputs), x1"
	measure 1 env GOMAXPROCS=1 "$tk" stats --tokenizer o200k_base "$dir/table.json" "$dir/table.json"
	tstats2_kb=$MAX_KB
fi
big_kb=""
if ((have_time && bigmb > 0)); then
	note "generating a ${bigmb} MB JSON array, and converting it to a table"
	"$dir/genbench" -table "$dir/big.json" -mb "$bigmb" || die "genbench -table failed"
	measure 1 "$tk" convert --to tabular "$dir/big.json"
	big_kb=$MAX_KB big_ns=$MED_NS
	big_bytes=$(size "$dir/big.json")
	rm -f "$dir/big.json"
fi
rm -f "$dir/table2x.toon"
fi # tables

# Validate: each protocol's messages compact and as Python writes them.
if want validate; then
nmsg=${BENCH_MESSAGES:-100000}
vbig=${BENCH_VALIDATE_BIG_MB:-1000}
val_names=() val_ns=() valpy_ns=() val_cpu=() valpy_cpu=() ajv_ns=() ajv_cpu=()
valj1_ns=() valjn_ns=() valj_bytes=() t1x_kb="" t4x_kb=""
have_py=0
if command -v python3 >/dev/null; then
	have_py=1
else
	note "python3 not found: the Python-formatted inputs are skipped"
fi
have_ajv=0
if [[ ${BENCH_AJV:-1} != 0 ]] && command -v npm >/dev/null && command -v node >/dev/null; then
	note "installing ajv-cli from npm"
	mkdir -p "$dir/ajv"
	if (cd "$dir/ajv" && npm init -y >/dev/null 2>&1 && npm install --silent ajv-cli@5 ajv-formats@2 >/dev/null 2>&1); then
		have_ajv=1
	else
		note "ajv-cli could not be installed: its column is skipped"
	fi
fi
for proto in chiffon trace; do
	"$dir/genbench" -messages "$proto" -frames "$nmsg" -o "$dir/$proto.ndjson" || die "genbench -messages failed"
	if ((have_py)); then
		python3 "$root/scripts/pyjson.py" "$dir/$proto.ndjson" "$dir/$proto.py.ndjson" || die "scripts/pyjson.py failed"
	fi
	# Compact and Python-formatted runs take turns, so that a change in the
	# machine's load falls on both.
	note "validate $proto, compact and Python-formatted, x$reps"
	c_ns=() c_cpu=() p_ns=() p_cpu=()
	for ((i = 0; i < reps; i++)); do
		measure 1 env GOMAXPROCS=1 "$tk" validate "$dir/$proto.ndjson"
		c_ns+=("$MED_NS") c_cpu+=("$MED_CPU_NS")
		if ((have_py)); then
			measure 1 env GOMAXPROCS=1 "$tk" validate "$dir/$proto.py.ndjson"
			p_ns+=("$MED_NS") p_cpu+=("$MED_CPU_NS")
		fi
	done
	val_names+=("$proto") val_ns+=("$(median "${c_ns[@]}")")
	val_cpu+=("$(if ((have_time)); then median "${c_cpu[@]}"; fi)")
	valpy_ns+=("$(if ((have_py)); then median "${p_ns[@]}"; fi)")
	valpy_cpu+=("$(if ((have_py && have_time)); then median "${p_cpu[@]}"; fi)")
	a="" ac=""
	if ((have_ajv)); then
		"$tk" validate --print-schema "$proto" >"$dir/ajv/$proto.json"
		printf '{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"https://toonkit.dev/schemas/stream-%s.json","type":"array","items":{"$ref":"https://toonkit.dev/schemas/%s.json"}}\n' "$proto" "$proto" >"$dir/ajv/stream-$proto.json"
		sed '1s/^/[/; $!s/$/,/; $s/$/]/' "$dir/$proto.ndjson" >"$dir/ajv/$proto-data.json"
		note "ajv-cli $proto x$reps"
		measure "$reps" "$dir/ajv/node_modules/.bin/ajv" validate --spec=draft2020 --strict=false -c ajv-formats \
			-s "$dir/ajv/stream-$proto.json" -r "$dir/ajv/$proto.json" -d "$dir/ajv/$proto-data.json"
		a=$MED_NS ac=$MED_CPU_NS
	fi
	ajv_ns+=("$a") ajv_cpu+=("${ac:-}")
	# -j 1 against the default (-j GOMAXPROCS, the CPUs), in turns; the
	# peak RSS of the default on trace events, and on 4x as many.
	inturns "validate $proto" "$tk" validate "$dir/$proto.ndjson"
	valj1_ns+=("$IT1_NS") valjn_ns+=("$ITJ_NS") valj_bytes+=("$(size "$dir/$proto.ndjson")")
	if [[ $proto == trace ]] && ((have_time)); then
		t1x_kb=$ITJ_KB
		"$dir/genbench" -messages trace -frames $((4 * nmsg)) -o "$dir/trace4x.ndjson" || die "genbench -messages failed"
		measure "$reps" "$tk" validate "$dir/trace4x.ndjson"
		t4x_kb=$MAX_KB
		rm -f "$dir/trace4x.ndjson"
	fi
	rm -f "$dir/$proto.ndjson" "$dir/$proto.py.ndjson" "$dir/ajv/$proto-data.json"
done
vbig_kb="" tbig_kb=""
if ((have_time && vbig > 0)); then
	note "generating a ${vbig} MB trace stream, and validating it"
	"$dir/genbench" -messages trace -mb "$vbig" -o "$dir/big.ndjson" || die "genbench -messages failed"
	measure 1 "$tk" validate "$dir/big.ndjson"
	tbig_kb=$MAX_KB tbig_n=$(wc -l <"$dir/big.ndjson")
	note "generating a ${vbig} MB Chiffon stream, and validating it"
	"$dir/genbench" -messages chiffon -mb "$vbig" -o "$dir/big.ndjson" || die "genbench -messages failed"
	measure 1 "$tk" validate "$dir/big.ndjson"
	vbig_kb=$MAX_KB vbig_n=$(wc -l <"$dir/big.ndjson")
	rm -f "$dir/big.ndjson"
fi
fi # validate

printf 'bench-salt-key-of-toonkit\n' >"$dir/audit.key"
chmod 600 "$dir/audit.key"
# Sign and verify, beside the spec's Python function.
if want sign; then
nsig=${BENCH_SIGN_EVENTS:-100000}
"$dir/genbench" -messages audit -frames "$nsig" -o "$dir/audit.ndjson" || die "genbench -messages audit failed"
sig_bytes=$(size "$dir/audit.ndjson")
"$tk" sign --key-file "$dir/audit.key" "$dir/audit.ndjson" -o "$dir/signed.ndjson" || die "toonkit sign failed"
sbytes=$(size "$dir/signed.ndjson")
note "sign x$reps"
measure "$reps" env GOMAXPROCS=1 "$tk" sign --key-file "$dir/audit.key" "$dir/audit.ndjson"
sign_ns=$MED_NS sign_kb=$MAX_KB
# -j 1 and the default -j (the CPUs) in turns; the default's peak RSS on
# the input and on it four times over.
inturns sign "$tk" sign --key-file "$dir/audit.key" "$dir/audit.ndjson"
sign1_ns=$IT1_NS signj_ns=$ITJ_NS signj_kb=$ITJ_KB sign4_kb=""
if ((have_time)); then
	cat "$dir/audit.ndjson" "$dir/audit.ndjson" "$dir/audit.ndjson" "$dir/audit.ndjson" >"$dir/audit4.ndjson"
	measure 1 "$tk" sign --key-file "$dir/audit.key" "$dir/audit4.ndjson"
	sign4_kb=$MAX_KB
	rm -f "$dir/audit4.ndjson"
fi
note "verify x$reps"
measure "$reps" env GOMAXPROCS=1 "$tk" verify --key-file "$dir/audit.key" "$dir/signed.ndjson"
verify_ns=$MED_NS verify_kb=$MAX_KB
# verify -j 1 and the default -j (the CPUs) in turns; the default's peak
# RSS on the events and on a log four times as long (4N other events).
inturns verify "$tk" verify --key-file "$dir/audit.key" "$dir/signed.ndjson"
verify1_ns=$IT1_NS verifyj_ns=$ITJ_NS verifyj_kb=$ITJ_KB verify4_kb=""
if ((have_time)); then
	"$dir/genbench" -messages audit -frames "$((4 * nsig))" -o "$dir/audit4v.ndjson" || die "genbench -messages audit failed"
	"$tk" sign --key-file "$dir/audit.key" "$dir/audit4v.ndjson" -o "$dir/signed4.ndjson" || die "toonkit sign failed"
	rm -f "$dir/audit4v.ndjson"
	measure 1 "$tk" verify --key-file "$dir/audit.key" "$dir/signed4.ndjson"
	verify4_kb=$MAX_KB
	rm -f "$dir/signed4.ndjson"
fi
# The seal (sign --seal, verify --seal): each with and without, in turns,
# with GOMAXPROCS=1; sealing adds at most 10% (plain / sealed >= 0.91).
note "sign and verify with and without --seal, in turns, x$reps"
"$tk" sign --key-file "$dir/audit.key" --seal "$dir/audit.seal" "$dir/audit.ndjson" >/dev/null || die "toonkit sign --seal failed"
t_sp=() t_ss=() t_vp=() t_vs=()
for ((i = 0; i < reps; i++)); do
	measure 1 env GOMAXPROCS=1 "$tk" sign --key-file "$dir/audit.key" "$dir/audit.ndjson"
	t_sp+=("$MED_NS")
	measure 1 env GOMAXPROCS=1 "$tk" sign --key-file "$dir/audit.key" --seal "$dir/bench.seal" "$dir/audit.ndjson"
	t_ss+=("$MED_NS")
	measure 1 env GOMAXPROCS=1 "$tk" verify --key-file "$dir/audit.key" "$dir/signed.ndjson"
	t_vp+=("$MED_NS")
	measure 1 env GOMAXPROCS=1 "$tk" verify --key-file "$dir/audit.key" --seal "$dir/audit.seal" "$dir/signed.ndjson"
	t_vs+=("$MED_NS")
done
sealsp_ns=$(median "${t_sp[@]}") sealss_ns=$(median "${t_ss[@]}") sealvp_ns=$(median "${t_vp[@]}") sealvs_ns=$(median "${t_vs[@]}")
rm -f "$dir/audit.seal" "$dir/bench.seal"
# Key rotation: verify with 3 keys, the log's last (two newer keys given
# before it, as after two rotations), in turns with the one key: the key
# that matched the event before is tried first, so the one-key path keeps
# its speed (3 keys / 1 key >= 0.95).
note "verify with 1 key and with 3 keys, in turns, x$reps"
printf 'bench-newest-key-000001\n' >"$dir/new.key"
printf 'bench-newer-key-0000001\n' >"$dir/mid.key"
chmod 600 "$dir/new.key" "$dir/mid.key"
t_k1=() t_k3=()
for ((i = 0; i < reps; i++)); do
	measure 1 env GOMAXPROCS=1 "$tk" verify --key-file "$dir/audit.key" "$dir/signed.ndjson"
	t_k1+=("$MED_NS")
	measure 1 env GOMAXPROCS=1 "$tk" verify --key-file "$dir/new.key" --key-file "$dir/mid.key" --key-file "$dir/audit.key" "$dir/signed.ndjson"
	t_k3+=("$MED_NS")
done
keys1_ns=$(median "${t_k1[@]}") keys3_ns=$(median "${t_k3[@]}")
pypair sign "$dir/audit.ndjson" env GOMAXPROCS=1 "$tk" sign --key-file "$dir/audit.key"
pypair verify "$dir/signed.ndjson" env GOMAXPROCS=1 "$tk" verify --key-file "$dir/audit.key"
py_ns="" chk_pyverify="SKIP (no python3)"
if command -v python3 >/dev/null; then
	# The spec's code block ("Signature Generation"), as it is, in a loop
	# that reads, signs and writes each event as toonkit sign does.
	note "python3 generate_signature x$reps"
	measure "$reps" python3 "$root/scripts/gen-sign-vectors.py" --sign "$dir/audit.key" "$dir/audit.ndjson"
	py_ns=$MED_NS
	note "checking that Python verifies toonkit's signatures"
	if python3 "$root/scripts/gen-sign-vectors.py" --verify bench-salt-key-of-toonkit spec "$dir/signed.ndjson" >"$dir/pyverify.txt" 2>&1; then
		chk_pyverify=PASS
	else
		chk_pyverify=FAIL
		failures=$((failures + 1))
	fi
fi
rm -f "$dir/audit.ndjson" "$dir/signed.ndjson"
fi # sign

# Protocol bridge: a Chiffon log converted to trace events and piped into
# sign, end to end; peak RSS at N and 4N messages (constant memory).
if want bridge; then
nbr=${BENCH_BRIDGE_MESSAGES:-100000}
"$dir/genbench" -messages chiffon -frames "$nbr" -o "$dir/chiffon.ndjson" || die "genbench -messages chiffon failed"
br_bytes=$(size "$dir/chiffon.ndjson")
note "convert --to trace | sign x$reps"
measure "$reps" bash -o pipefail -c "\"$tk\" convert --from chiffon --to trace \"$dir/chiffon.ndjson\" | \"$tk\" sign --key-file \"$dir/audit.key\""
br_ns=$MED_NS br_kb=$MAX_KB
note "convert --to trace alone x$reps"
measure "$reps" "$tk" convert --from chiffon --to trace "$dir/chiffon.ndjson"
brc_ns=$MED_NS
inturns "convert --from chiffon --to trace" "$tk" convert --from chiffon --to trace "$dir/chiffon.ndjson"
br1_ns=$IT1_NS brj_ns=$ITJ_NS
pypair trace "$dir/chiffon.ndjson" "$tk" convert --from chiffon --to trace
chk_bridge=FAIL
if "$tk" convert --from chiffon --to trace "$dir/chiffon.ndjson" | "$tk" sign --key-file "$dir/audit.key" -o "$dir/chiffon-signed.ndjson" &&
	"$tk" verify -q --key-file "$dir/audit.key" "$dir/chiffon-signed.ndjson" >/dev/null &&
	"$tk" validate -q "$dir/chiffon-signed.ndjson" >/dev/null; then
	chk_bridge=PASS
else
	failures=$((failures + 1))
fi
br4_kb=""
if ((have_time)); then
	"$dir/genbench" -messages chiffon -frames $((4 * nbr)) -o "$dir/chiffon4.ndjson" || die "genbench -messages chiffon failed"
	note "convert --to trace | sign on $((4 * nbr)) messages, once, for memory"
	measure 1 bash -o pipefail -c "\"$tk\" convert --from chiffon --to trace \"$dir/chiffon4.ndjson\" | \"$tk\" sign --key-file \"$dir/audit.key\""
	br4_kb=$MAX_KB
fi
rm -f "$dir/chiffon.ndjson" "$dir/chiffon4.ndjson" "$dir/chiffon-signed.ndjson"
fi # bridge

# TOON: encode and decode beside jq and the reference CLI.
if want toon; then
ntoon=${BENCH_TOON_USERS:-100000}
toon_sets=(users users-flat)
toon_ref=""
if [[ ${BENCH_TOON_REF:-1} != 0 ]] && command -v npm >/dev/null && command -v node >/dev/null; then
	note "installing @toon-format/cli@4.1.1 from npm into $dir/toonref"
	if npm install --no-audit --no-fund --silent --prefix "$dir/toonref" @toon-format/cli@4.1.1 >"$dir/npm.txt" 2>&1; then
		toon_ref=$dir/toonref/node_modules/.bin/toon
	else
		note "npm install failed: the reference TOON CLI is skipped ($(tail -n 1 "$dir/npm.txt"))"
	fi
fi
toon_ref_reps=${BENCH_TOON_REF_REPS:-3}
declare -A tn_bytes tt_bytes tn_enc tn_enc_kb tn_dec tn_dec_kb tn_jq tn_ref_enc tn_ref_dec
chk_toon_rt=PASS chk_toon_ref="SKIP (no reference CLI)"
[[ -n $toon_ref ]] && chk_toon_ref=PASS
for set in "${toon_sets[@]}"; do
	flags=()
	[[ $set == users-flat ]] && flags=(-no-tags)
	"$dir/genbench" -users "$dir/$set.json" -frames "$ntoon" "${flags[@]}" || die "genbench -users failed"
	"$tk" encode --to toon "$dir/$set.json" -o "$dir/$set.toon" || die "toonkit encode --to toon failed"
	tn_bytes[$set]=$(size "$dir/$set.json") tt_bytes[$set]=$(size "$dir/$set.toon")
	"$tk" decode "$dir/$set.toon" -o "$dir/$set.back.json" || die "toonkit decode of TOON failed"
	cmp -s "$dir/$set.back.json" "$dir/$set.json" || { chk_toon_rt=FAIL; failures=$((failures + 1)); }
	note "toon $set: encode, decode x$reps"
	measure "$reps" "$tk" encode --to toon "$dir/$set.json"
	tn_enc[$set]=$MED_NS tn_enc_kb[$set]=$MAX_KB
	measure "$reps" "$tk" decode "$dir/$set.toon"
	tn_dec[$set]=$MED_NS tn_dec_kb[$set]=$MAX_KB
	if ((have_jq)); then
		measure "$reps" jq -c . "$dir/$set.json"
		tn_jq[$set]=$MED_NS
	fi
	if [[ -n $toon_ref ]]; then
		note "toon $set: the reference CLI, encode and decode x$toon_ref_reps"
		"$toon_ref" -e "$dir/$set.json" >"$dir/$set.ref.toon" || die "the reference TOON CLI failed"
		# Both end the document with one newline (toonkit's CLI adds it).
		cmp -s "$dir/$set.toon" "$dir/$set.ref.toon" || { chk_toon_ref=FAIL; failures=$((failures + 1)); }
		measure "$toon_ref_reps" "$toon_ref" -e "$dir/$set.json"
		tn_ref_enc[$set]=$MED_NS
		measure "$toon_ref_reps" "$toon_ref" -d "$dir/$set.toon"
		tn_ref_dec[$set]=$MED_NS
	fi
done
toon_big_kb="" toon_big_bytes=0
if ((have_time)); then
	note "toon: decode of $((ntoon * 10)) users"
	"$dir/genbench" -users "$dir/big-users.json" -frames "$((ntoon * 10))" || die "genbench -users failed"
	"$tk" encode --to toon "$dir/big-users.json" -o "$dir/big-users.toon" || die "toonkit encode --to toon failed"
	rm -f "$dir/big-users.json"
	toon_big_bytes=$(size "$dir/big-users.toon")
	measure 1 "$tk" decode "$dir/big-users.toon"
	toon_big_kb=$MAX_KB
	rm -f "$dir/big-users.toon"
fi
fi # toon

# Documents of any size (issue 33): encode and decode of one JSON document of
# BENCH_DOC_MB (default 1000) MB of each shape genbench -doc writes, a (an
# object holding a table), b (mixed objects, list form) and c (a deep
# configuration), on one core (GOMAXPROCS=1), beside jq -c . over the same
# JSON (BENCH_DOC_JQ=0 leaves it out), and the reference CLI on a 20 MB
# document of the same shape. Output goes to /dev/null, as jq's does (decode
# does not hold output bound there); decode to a file (> FILE: held in a
# temporary file, then copied) is shown too, for what writing 1 GB costs on
# the machine. Checks:
# peak RSS <= 64 MiB each way; the TOON decoded and encoded again is the
# same TOON.
declare -A bd_bytes bd_tbytes bd_enc bd_enc_kb bd_dec bd_dec_kb bd_dec_file bd_jq bd_ref_enc bd_ref_dec bd_cut_enc bd_cut_dec
bd_shapes=(a b c) bd_same=PASS
if want bigdoc; then
docmb=${BENCH_DOC_MB:-1000}
for shape in "${bd_shapes[@]}"; do
	note "bigdoc $shape: a ${docmb} MB document; encode, decode (1 core)"
	"$dir/genbench" -doc "$shape" -mb "$docmb" -o "$dir/doc.json" || die "genbench -doc failed"
	bd_bytes[$shape]=$(size "$dir/doc.json")
	"$tk" encode "$dir/doc.json" -o "$dir/doc.toon" || die "toonkit encode failed"
	bd_tbytes[$shape]=$(size "$dir/doc.toon")
	measure 1 env GOMAXPROCS=1 "$tk" encode "$dir/doc.json"
	bd_enc[$shape]=$MED_NS bd_enc_kb[$shape]=$MAX_KB
	measure 1 env GOMAXPROCS=1 "$tk" decode "$dir/doc.toon"
	bd_dec[$shape]=$MED_NS bd_dec_kb[$shape]=$MAX_KB
	# The same, to a file (the shell's > FILE), for the cost of writing
	# 1 GB, twice (the hold's temporary file, then the file), here.
	measure 1 env GOMAXPROCS=1 sh -c 'exec "$0" decode "$1" >"$2"' "$tk" "$dir/doc.toon" "$dir/doc.back.json"
	bd_dec_file[$shape]=$MED_NS
	rm -f "$dir/doc.back.json"
	"$tk" decode "$dir/doc.toon" | "$tk" encode | cmp -s - "$dir/doc.toon" || { bd_same=FAIL; failures=$((failures + 1)); }
	if ((have_jq)) && [[ ${BENCH_DOC_JQ:-1} != 0 ]]; then
		note "bigdoc $shape: jq -c ."
		measure 1 jq -c . "$dir/doc.json"
		bd_jq[$shape]=$MED_NS
	fi
	rm -f "$dir/doc.json" "$dir/doc.toon"
	"$dir/genbench" -doc "$shape" -mb 20 -o "$dir/cut.json" || die "genbench -doc failed"
	"$tk" encode "$dir/cut.json" -o "$dir/cut.toon" || die "toonkit encode failed"
	measure 3 env GOMAXPROCS=1 "$tk" encode "$dir/cut.json"
	bd_cut_enc[$shape]=$MED_NS
	measure 3 env GOMAXPROCS=1 "$tk" decode "$dir/cut.toon"
	bd_cut_dec[$shape]=$MED_NS
	if [[ -n ${toon_ref:-} ]]; then
		note "bigdoc $shape: the reference CLI on 20 MB"
		measure 1 "$toon_ref" -e "$dir/cut.json"
		bd_ref_enc[$shape]=$MED_NS
		measure 1 "$toon_ref" -d "$dir/cut.toon"
		bd_ref_dec[$shape]=$MED_NS
	fi
	rm -f "$dir/cut.json" "$dir/cut.toon"
done
fi # bigdoc

# Query: toonkit query, jq and the gojq CLI on one core, in turns.
if want query; then
nq=${BENCH_QUERY_MESSAGES:-100000}
qbig=${BENCH_QUERY_BIG_MB:-200}
qfilters=('.payload.status' 'select(.type == "work_status") | {id: .message_id, p: .payload.progress_percent}')
gojq=""
if [[ ${BENCH_GOJQ:-1} != 0 ]]; then
	gojq_dir=${BENCH_GOJQ_DIR:-$base/gojq-v0.12.17}
	if [[ ! -x $gojq_dir/gojq ]]; then
		note "installing the gojq CLI v0.12.17 into $gojq_dir (once)"
		mkdir -p "$gojq_dir"
		GOBIN=$(cd "$gojq_dir" && pwd) GOFLAGS= go install github.com/itchyny/gojq/cmd/gojq@v0.12.17 >"$dir/gojq.txt" 2>&1 ||
			note "go install gojq failed: its column is skipped ($(tail -n 1 "$dir/gojq.txt"))"
	fi
	[[ -x $gojq_dir/gojq ]] && gojq=$gojq_dir/gojq
fi
# One core: jq and gojq evaluate on one thread; GOMAXPROCS=1 keeps the Go
# programs' collectors on it too; --jobs 1 where query has the flag.
qjobs=()
"$tk" query --help 2>/dev/null | grep -qE -- '^ +(-[a-zA-Z], )?--jobs' && qjobs=(--jobs 1)
"$dir/genbench" -messages chiffon -frames "$nq" -o "$dir/q.ndjson" || die "genbench -messages chiffon failed"
qin=$dir/q.ndjson
if command -v python3 >/dev/null; then
	python3 "$root/scripts/pyjson.py" "$dir/q.ndjson" "$dir/q.py.ndjson" || die "scripts/pyjson.py failed"
	qin=$dir/q.py.ndjson
else
	note "python3 not found: query runs on the compact messages"
fi
q_bytes=$(size "$qin")
declare -A qtk_ns qjq_ns qgo_ns qtk_kb
chk_query=PASS
for qi in "${!qfilters[@]}"; do
	qf=${qfilters[$qi]}
	if ! "$tk" query -c "$qf" "$qin" >"$dir/q.tk" || { ((have_jq)) && ! cmp -s "$dir/q.tk" <(jq -c "$qf" "$qin"); }; then
		chk_query=FAIL
		failures=$((failures + 1))
	fi
	note "query $qf: toonkit, jq, gojq in turns, x$reps"
	tw=() jw=() gw=() kb=()
	for ((i = 0; i < reps; i++)); do
		measure 1 env GOMAXPROCS=1 "$tk" query "${qjobs[@]}" -c "$qf" "$qin"
		tw+=("$MED_NS") kb+=("${MAX_KB:-0}")
		if ((have_jq)); then
			measure 1 jq -c "$qf" "$qin"
			jw+=("$MED_NS")
		fi
		if [[ -n $gojq ]]; then
			measure 1 env GOMAXPROCS=1 "$gojq" -c "$qf" "$qin"
			gw+=("$MED_NS")
		fi
	done
	qtk_ns[$qi]=$(median "${tw[@]}") qtk_kb[$qi]=$(maxof "${kb[@]}")
	qjq_ns[$qi]="" qgo_ns[$qi]=""
	((have_jq)) && qjq_ns[$qi]=$(median "${jw[@]}")
	[[ -n $gojq ]] && qgo_ns[$qi]=$(median "${gw[@]}")
done
# Query on the workers (--jobs; query's -j is jq's --join-output): --jobs 1
# and the default --jobs (one worker per CPU) in turns, on
# BENCH_QUERY_MESSAGES Chiffon messages as Python writes them (json.dumps),
# for each filter. No mark (query is not among issue 17's record commands):
# the speed-up is reported.
nqj=$nq qjfilters=("${qfilters[@]}") qjin=$qin qj_bytes=$q_bytes
declare -A qj1_ns qjj_ns qjj_kb
for qi in "${!qjfilters[@]}"; do
	jflag=--jobs inturns "query --jobs, ${qjfilters[$qi]}" "$tk" query -c "${qjfilters[$qi]}" "$qjin"
	qj1_ns[$qi]=$IT1_NS qjj_ns[$qi]=$ITJ_NS qjj_kb[$qi]=$ITJ_KB
done
rm -f "$dir/q.tk" "$dir/q.ndjson" "$dir/q.py.ndjson"
# A TOON table beside jq on the same data as JSON.
ntq=${BENCH_TOON_USERS:-100000}
tqf='.[] | select(.active) | {id, name}'
"$dir/genbench" -users "$dir/qusers.json" -frames "$ntq" -no-tags || die "genbench -users failed"
"$tk" encode --to toon "$dir/qusers.json" -o "$dir/qusers.toon" || die "toonkit encode --to toon failed"
if ! "$tk" query -c "$tqf" "$dir/qusers.toon" >"$dir/q.tk" || { ((have_jq)) && ! cmp -s "$dir/q.tk" <(jq -c "$tqf" "$dir/qusers.json"); }; then
	chk_query=FAIL
	failures=$((failures + 1))
fi
note "query over a TOON table and jq over its JSON, in turns, x$reps"
tw=() jw=()
for ((i = 0; i < reps; i++)); do
	measure 1 env GOMAXPROCS=1 "$tk" query "${qjobs[@]}" -c "$tqf" "$dir/qusers.toon"
	tw+=("$MED_NS")
	if ((have_jq)); then
		measure 1 jq -c "$tqf" "$dir/qusers.json"
		jw+=("$MED_NS")
	fi
done
qtoon_ns=$(median "${tw[@]}") qtoonjq_ns=""
((have_jq)) && qtoonjq_ns=$(median "${jw[@]}")
qtoon_bytes=$(size "$dir/qusers.toon") qtoonjson_bytes=$(size "$dir/qusers.json")
rm -f "$dir/q.tk" "$dir/qusers.json" "$dir/qusers.toon"
qbig_kb=""
if ((have_time && qbig > 0)); then
	note "generating a ${qbig} MB Chiffon stream, and querying it"
	"$dir/genbench" -messages chiffon -mb "$qbig" -o "$dir/qbig.ndjson" || die "genbench -messages failed"
	measure 1 "$tk" query -c .payload.status "$dir/qbig.ndjson"
	qbig_kb=$MAX_KB qbig_ns=$MED_NS qbig_bytes=$(size "$dir/qbig.ndjson")
	rm -f "$dir/qbig.ndjson"
fi
fi # query

# A packet capture: decode beside tshark's TCP conversations, in turns.
if want pcap; then
	note "pcap: a ${BENCH_PCAP_MB:-200} MB pcapng over 100 connections, decode and tshark in turns, x$reps"
	(cd "$root" && go build -o "$dir/gencapture" ./scripts/gencapture)
	"$dir/gencapture" -bench "${BENCH_PCAP_MB:-200}" -conns 100 -o "$dir/capture.pcapng" || die "gencapture -bench failed"
	pcap_bytes=$(size "$dir/capture.pcapng")
	pc=() pckb=() pc1=() ts=()
	have_tshark=0
	if command -v tshark >/dev/null; then have_tshark=1; fi
	for ((i = 0; i < reps; i++)); do
		measure 1 "$tk" decode "$dir/capture.pcapng"
		pc+=("$MED_NS") pckb+=("${MAX_KB:-0}")
		measure 1 "$tk" decode -j 1 "$dir/capture.pcapng"
		pc1+=("$MED_NS") pckb+=("${MAX_KB:-0}")
		if ((have_tshark)); then
			measure 1 tshark -r "$dir/capture.pcapng" -q -z conv,tcp
			ts+=("$MED_NS")
		fi
	done
	pcap_ns=$(median "${pc[@]}") pcap1_ns=$(median "${pc1[@]}") pcap_kb=$(maxof "${pckb[@]}") tshark_ns=""
	if ((have_tshark)); then tshark_ns=$(median "${ts[@]}"); fi
	rm -f "$dir/capture.pcapng"
fi

# inspect of a capture: the full view and --oneline beside a hexdump tool,
# on large frames and on small ones, in turns.
if want inspect; then
	(cd "$root" && go build -o "$dir/gencapture" ./scripts/gencapture)
	hexer=""
	if command -v hexyl >/dev/null; then hexer=hexyl; elif command -v xxd >/dev/null; then hexer=xxd; fi
	declare -A ins_bytes ins_ns ins1_ns ins_one_ns ins_hex_ns ins_kb
	for kind in large small; do
		gflag=()
		if [[ $kind == small ]]; then gflag=(-small); fi
		"$dir/gencapture" -bench "${BENCH_INSPECT_MB:-28}" "${gflag[@]}" -conns 100 -o "$dir/inspect.pcapng" || die "gencapture -bench failed"
		ins_bytes[$kind]=$(size "$dir/inspect.pcapng")
		note "inspect: a ${BENCH_INSPECT_MB:-28} MB pcapng of $kind frames: the view (-j $jobs, -j 1), --oneline${hexer:+ and $hexer} in turns, x$reps"
		iv=() iv1=() io=() ih=() ik=()
		for ((i = 0; i < reps; i++)); do
			measure 1 "$tk" inspect "$dir/inspect.pcapng"
			iv+=("$MED_NS") ik+=("${MAX_KB:-0}")
			measure 1 "$tk" inspect -j 1 "$dir/inspect.pcapng"
			iv1+=("$MED_NS")
			measure 1 "$tk" inspect --oneline "$dir/inspect.pcapng"
			io+=("$MED_NS")
			if [[ -n $hexer ]]; then
				measure 1 "$hexer" "$dir/inspect.pcapng"
				ih+=("$MED_NS")
			fi
		done
		ins_ns[$kind]=$(median "${iv[@]}") ins1_ns[$kind]=$(median "${iv1[@]}") ins_one_ns[$kind]=$(median "${io[@]}")
		ins_kb[$kind]=$(maxof "${ik[@]}") ins_hex_ns[$kind]=""
		if [[ -n $hexer ]]; then ins_hex_ns[$kind]=$(median "${ih[@]}"); fi
		rm -f "$dir/inspect.pcapng"
	done
fi

# toonkit tap: the same frames sent to a sink on 127.0.0.1 directly and
# through one tap (its one-line view on /dev/null), in turns
# (scripts/tapbench). Info: forwarded MB/s of each, and the bytes the view
# did not keep up with (forwarded all the same).
if want tap; then
	note "tap: ${BENCH_TAP_MB:-200} MB direct and through toonkit tap in turns, x$reps"
	(cd "$root" && go build -o "$dir/tapbench" ./scripts/tapbench)
	"$dir/tapbench" -tk "$tk" -mb "${BENCH_TAP_MB:-200}" -reps "$reps" >"$dir/tap.txt" || die "tapbench failed"
	tapv() { awk -v k="$1" '$1 == k {print $2}' "$dir/tap.txt"; }
	tap_bytes=$(tapv bytes) tap_direct_ns=$(tapv direct_ns) tap_ns=$(tapv tap_ns) tap_frames=$(tapv tap_frames) tap_lost=$(tapv tap_lost)
fi

# One value at the size limit (64 MiB, the default --max-frame-size): a frame
# or a value is held whole so that nothing partial is written, so it costs its
# own size, and the buffer that grows to hold it; never a multiple of it.
lim_names=() lim_kbs=()
if want limits && ((have_time)); then
	note "one value at the 64 MiB limit, x$reps each"
	mkdir -p "$dir/limit"
	"$dir/genbench" -limit-dir "$dir/limit" || die "genbench -limit-dir failed"
	for job in "decode bomb.bin" "decode big.bin" "inspect bomb.bin" "inspect big.bin" "encode --to binary big.json"; do
		read -r -a args <<<"$job"
		last=${args[${#args[@]} - 1]}
		unset 'args[${#args[@]}-1]'
		measure "$reps" "$tk" "${args[@]}" "$dir/limit/$last"
		lim_names+=("$job") lim_kbs+=("$MAX_KB")
	done
	if ((have_jq)); then
		measure 1 jq -c . "$dir/limit/big.json"
		lim_names+=("jq -c . big.json") lim_kbs+=("$MAX_KB")
	fi
	rm -rf "$dir/limit"
fi

if want startup; then
note "startup x$sreps"
wall "$sreps" "$tk" --version
ver_ns=$MED_NS
wall "$sreps" "$tk" decode "$dir/small.bin"
small_ns=$MED_NS
jqver_ns=""
if ((have_jq)); then
	wall "$sreps" jq --version
	jqver_ns=$MED_NS
fi
fi # startup

# ---- table ----
row() { printf '%-38s %12s %11s %8s  %s\n' "$@"; }
# check COND...: RES is PASS when COND holds; a FAIL is counted.
check() {
	if "$@"; then
		RES=PASS
	else
		RES=FAIL
		failures=$((failures + 1))
	fi
}
vsjq() { if ((have_jq)); then ratio "$@"; else echo n/a; fi; }
lim=65536 # KiB: 64 MiB

if want frames; then
dec_mbps=$(mbps "$bin_bytes" "$dec_ns")
enc_mbps=$(mbps "$nd_bytes" "$enc_ns")
jq_mbps=""
if ((have_jq)); then jq_mbps=$(mbps "$nd_bytes" "$jq_ns"); fi
echo "input: capture.bin $bin_bytes bytes ($(awk -v b="$bin_bytes" 'BEGIN{printf "%.1f", b/1e6}') MB), capture.ndjson $nd_bytes bytes ($(awk -v b="$nd_bytes" 'BEGIN{printf "%.1f", b/1e6}') MB); the 2x inputs are each file twice over"
sed 's/^genbench: */  /' "$dir/gen.txt"
fi
echo "throughput: median of $reps runs; peak RSS: largest of the runs (/usr/bin/time -v); startup: median of $sreps runs"
echo "vs jq: toonkit's figure over jq's (MB/s: higher is better; MiB and ms: lower is better)"
if [[ -n $only ]]; then echo "sections: ${only//,/, } (BENCH_ONLY)"; fi
echo
row "measure" "value" "mark" "vs jq" "result"
row "-------" "-----" "----" "-----" "------"
# speedup LABEL BYTES NS1 NSJ: the -j 1 and -j N rows and the speed-up mark.
speedup() {
	row "$1 MB/s: -j 1 / -j $jobs" "$(mbps "$2" "$3") / $(mbps "$2" "$4")" "" "" "(in turns)"
	ratiorow "  $1 speed-up, -j $jobs vs -j 1" "$3" "$4" 1.6
}
if want frames; then

check ge "$dec_mbps" 800
row "decode MB/s (frame input)" "$dec_mbps" ">= 800" "$(vsjq "$dec_mbps" "$jq_mbps")" "$RES"
if ((have_jq)); then
	r=$(ratio "$dec_mbps" "$jq_mbps")
	check ge "${r%x}" 15
	row "decode vs jq, MB/s ratio" "$r" ">= 15x" "" "$RES"
	row "  same content, wall-time ratio" "$(ratio "$jq_ns" "$dec_ns")" "" "" "(info)"
else
	row "decode vs jq" "n/a" ">= 15x" "n/a" "SKIP (no jq)"
fi
check ge "$enc_mbps" 100
row "encode MB/s (NDJSON input)" "$enc_mbps" ">= 100" "$(vsjq "$enc_mbps" "$jq_mbps")" "$RES"
pyrows encode "encode"
speedup decode "$bin_bytes" "$dec1_ns" "$decj_ns"
speedup "encode --to binary" "$nd_bytes" "$enc1_ns" "$encj_ns"
speedup "inspect --json" "$bin_bytes" "$ins1_ns" "$insj_ns"
speedup "decode --payload" "$bin_bytes" "$pay1_ns" "$payj_ns"
if ((have_jq)); then
	# The same payloads: jq reads them as NDJSON, toonkit from the frames.
	ratiorow "decode --payload vs jq -c . (same payloads), wall-time ratio" "$pjq_ns" "$payj_ns" 15
else
	row "decode --payload vs jq" "n/a" ">= 15x" "n/a" "SKIP (no jq)"
fi
if ((have_jq)); then
	row "jq -c . MB/s (NDJSON input)" "$jq_mbps" "" "1.0x" "(reference)"
fi

if ((have_time)); then
	check le "$dec_kb" $lim
	row "decode peak RSS MiB" "$(mib "$dec_kb")" "<= 64" "$(vsjq "$dec_kb" "$jq_kb")" "$RES"
	check le "$dec2_kb" $lim
	row "decode peak RSS MiB, 2x input" "$(mib "$dec2_kb")" "<= 64" "" "$RES"
	# Constant memory: the 2x input may take at most 25% + 4 MiB more than
	# the 1x input (a garbage-collected heap's peak varies from run to run).
	check le "$dec2_kb" "$((dec_kb * 5 / 4 + 4096))"
	row "  growth 1x -> 2x" "$(ratio "$dec2_kb" "$dec_kb")" "flat" "" "$RES"
	check le "$enc_kb" $lim
	row "encode peak RSS MiB" "$(mib "$enc_kb")" "<= 64" "$(vsjq "$enc_kb" "$jq_kb")" "$RES"
	check le "$enc2_kb" $lim
	row "encode peak RSS MiB, 2x input" "$(mib "$enc2_kb")" "<= 64" "" "$RES"
	check le "$enc2_kb" "$((enc_kb * 5 / 4 + 4096))"
	row "  growth 1x -> 2x" "$(ratio "$enc2_kb" "$enc_kb")" "flat" "" "$RES"
	if ((have_jq)); then
		row "jq -c . peak RSS MiB" "$(mib "$jq_kb")" "" "1.0x" "(reference)"
	fi
else
	row "peak RSS" "n/a" "<= 64" "n/a" "SKIP (no GNU time)"
fi
fi # frames

if want tables; then
tab_mbps=$(mbps "$tj_bytes" "$tab_ns")
untab_mbps=$(mbps "$tt_bytes" "$untab_ns")
untab_json_mbps=$(mbps "$tj_bytes" "$untab_ns")
tjq_mbps=""
if ((have_jq)); then tjq_mbps=$(mbps "$tj_bytes" "$tjq_ns"); fi
row "tables: $rows objects, $(awk -v b="$tj_bytes" 'BEGIN{printf "%.1f", b/1e6}') MB JSON" "$(awk -v b="$tt_bytes" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "(the table)"
check ge "$tab_mbps" 100
row "JSON -> tabular MB/s (JSON input)" "$tab_mbps" ">= 100" "$(vsjq "$tab_mbps" "$tjq_mbps")" "$RES"
if ((have_jq)); then
	r=$(ratio "$tab_mbps" "$tjq_mbps")
	check ge "${r%x}" 5
	row "  vs jq -c . on the same JSON" "$r" ">= 5x" "" "$RES"
fi
pyrows tabular "tabular"
speedup "JSON -> tabular" "$tj_bytes" "$tab1_ns" "$tabj_ns"
if ((have_time)); then
	row "  CPU s a run: -j 1 / -j $jobs" "$(awk -v a="$tab1_cpu" -v b="$tabj_cpu" 'BEGIN {printf "%.3f / %.3f", a / 1e9, b / 1e9}')" "" "" "(info: user + system)"
fi
check ge "$untab_mbps" 100
row "tabular -> JSON MB/s (table input)" "$untab_mbps" ">= 100" "" "$RES"
row "  the same, in MB/s of JSON written" "$untab_json_mbps" "" "$(vsjq "$untab_json_mbps" "$tjq_mbps")" "(info)"
row "tabular -> JSON MB/s: -j 1 / -j $jobs" "$(mbps "$tt_bytes" "$untab1_ns") / $(mbps "$tt_bytes" "$untabj_ns")" "" "" "(in turns)"
row "  speed-up, -j $jobs vs -j 1" "$(awk -v a="$untab1_ns" -v b="$untabj_ns" 'BEGIN {printf "%.2fx", a / b}')" "" "" "(info)"
if ((have_jq)); then
	r=$(ratio "$tjq_ns" "$untab_ns")
	check ge "${r%x}" 5
	row "  vs jq -c . on the JSON, wall time" "$r" ">= 5x" "" "$RES"
	row "jq -c . MB/s (the JSON array)" "$tjq_mbps" "" "1.0x" "(reference)"
fi
if ((have_time)); then
	check le "$untab_kb" $lim
	row "tabular -> JSON peak RSS MiB" "$(mib "$untab_kb")" "<= 64" "" "$RES"
	check le "$untab2_kb" $lim
	row "  on the table twice over" "$(mib "$untab2_kb")" "<= 64" "" "$RES"
	row "JSON -> tabular peak RSS MiB" "$(mib "$tab_kb")" "" "" "(info)"
	if [[ -n $big_kb ]]; then
		check le "$big_kb" $((lim * 2))
		row "  on a $(awk -v b="$big_bytes" 'BEGIN{printf "%.0f", b/1e6}') MB array" "$(mib "$big_kb")" "<= 128" "" "$RES"
		row "  its MB/s" "$(mbps "$big_bytes" "$big_ns")" "" "" "(info)"
	fi
fi
stats_mbps=$(mbps "$tj_bytes" "$stats_ns")
check ge "$stats_mbps" 2
row "--stats MB/s (JSON input, o200k_base)" "$stats_mbps" ">= 2" "" "$RES"
tstats_mbps=$(mbps "$tj_bytes" "$tstats_ns")
check ge "$tstats_mbps" 4
row "stats MB/s per tokenizer, one core" "$tstats_mbps" ">= 4" "" "$RES"
if [[ -n $tstats_kb ]]; then
	# stats streams: its memory does not grow with the input.
	check le "$tstats_kb" $((lim * 2))
	row "  its peak RSS MiB" "$(mib "$tstats_kb")" "<= 128" "" "$RES"
	# Each worker has its own tables of each tokenizer (~12 MiB): info.
	row "  peak RSS MiB, the default -j" "$(mib "$tstatsj_kb")" "" "" "(info)"
	if [[ -n $tstats2_kb ]]; then
		check le "$tstats2_kb" $((lim * 2))
		row "  peak RSS MiB, one core, 2x input" "$(mib "$tstats2_kb")" "<= 128" "" "$RES"
		check le "$tstats2_kb" "$((tstats_kb * 5 / 4 + 4096))"
		row "  growth 1x -> 2x" "$(ratio "$tstats2_kb" "$tstats_kb")" "flat" "" "$RES"
	fi
fi
speedup "stats (6 formats, o200k_base)" "$tj_bytes" "$tstats1_ns" "$tstatsj_ns"
row "the table converts back to its records" "" "identical" "" "$chk_table"
echo
fi # tables

evps() { awk -v n="$1" -v ns="$2" 'BEGIN {printf "%.0f", n / (ns / 1e9)}'; }
if want validate; then
row "validate: $nmsg messages each, 1 core" "" "" "" "(GOMAXPROCS=1)"
for i in "${!val_names[@]}"; do
	p=${val_names[$i]}
	mps=$(evps "$nmsg" "${val_ns[$i]}")
	check ge "$mps" 150000
	row "validate $p msg/s, compact" "$mps" ">= 150000" "" "$RES"
	if [[ -n ${val_cpu[$i]} ]]; then
		row "  messages per CPU-second" "$(evps "$nmsg" "${val_cpu[$i]}")" "" "" "(info)"
	fi
	if [[ -n ${valpy_ns[$i]} ]]; then
		pmps=$(evps "$nmsg" "${valpy_ns[$i]}")
		check ge "$pmps" 150000
		row "validate $p msg/s, Python" "$pmps" ">= 150000" "" "$RES"
		if [[ -n ${valpy_cpu[$i]} ]]; then
			row "  messages per CPU-second" "$(evps "$nmsg" "${valpy_cpu[$i]}")" "" "" "(info)"
		fi
		ratiorow "  Python vs compact, msg/s" "${val_ns[$i]}" "${valpy_ns[$i]}" 0.8
	else
		row "validate $p msg/s, Python" "n/a" ">= 150000" "" "SKIP (no python3)"
	fi
	if [[ -n ${ajv_ns[$i]} ]]; then
		row "  ajv-cli msg/s (same schema)" "$(evps "$nmsg" "${ajv_ns[$i]}")" "" "" "(reference)"
		if [[ -n ${ajv_cpu[$i]} ]]; then
			# node uses more than one core (its collector's threads).
			row "  ajv-cli messages per CPU-second" "$(evps "$nmsg" "${ajv_cpu[$i]}")" "" "" "(info)"
		fi
		ratiorow "  toonkit vs ajv-cli, wall time" "${ajv_ns[$i]}" "${val_ns[$i]}" 1.5
		ratiorow "  toonkit -j $jobs vs ajv-cli, wall time" "${ajv_ns[$i]}" "${valjn_ns[$i]}" 2.5
	else
		row "  toonkit vs ajv-cli" "n/a" ">= 1.5x" "" "SKIP (no ajv-cli)"
	fi
	row "validate $p MB/s: -j 1 / -j $jobs" "$(mbps "${valj_bytes[$i]}" "${valj1_ns[$i]}") / $(mbps "${valj_bytes[$i]}" "${valjn_ns[$i]}")" "" "" "(in turns)"
	ratiorow "  validate $p speed-up, -j $jobs vs -j 1" "${valj1_ns[$i]}" "${valjn_ns[$i]}" 1.6
done
if [[ -n $t4x_kb ]]; then
	check le "$t1x_kb" 65536
	row "validate trace peak RSS MiB, -j $jobs" "$(mib "$t1x_kb")" "<= 64" "" "$RES"
	check le "$t4x_kb" 65536
	row "  on 4x as many events" "$(mib "$t4x_kb")" "<= 64" "" "$RES"
	check le "$t4x_kb" "$((t1x_kb * 5 / 4 + 4096))"
	row "  growth 1x -> 4x" "$(ratio "$t4x_kb" "$t1x_kb")" "flat" "" "$RES"
fi
if [[ -n $tbig_kb ]]; then
	check le "$tbig_kb" 65536
	row "validate trace peak RSS MiB, $vbig MB" "$(mib "$tbig_kb")" "<= 64" "" "$RES"
	row "  ($tbig_n messages; one run_id per 1000)" "" "" "" ""
	row "validate chiffon peak RSS MiB, $vbig MB" "$(mib "$vbig_kb")" "" "" "(info)"
	row "  ($vbig_n messages; with its id sets)" "" "" "" ""
	check le "$((vbig_kb * 1024 / vbig_n))" 128
	row "  peak RSS per message, bytes" "$((vbig_kb * 1024 / vbig_n))" "<= 128" "" "$RES"
fi
echo
fi # validate

if want sign; then
row "sign: $nsig events, $(awk -v b="$sig_bytes" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "" ""
check ge "$(evps "$nsig" "$sign_ns")" 100000
row "sign events/s, 1 core" "$(evps "$nsig" "$sign_ns")" ">= 100000" "" "$RES"
check ge "$(evps "$nsig" "$verify_ns")" 100000
row "verify events/s, 1 core" "$(evps "$nsig" "$verify_ns")" ">= 100000" "" "$RES"
row "verify MB/s: -j 1 / -j $jobs" "$(mbps "$sbytes" "$verify1_ns") / $(mbps "$sbytes" "$verifyj_ns")" "" "" "(in turns)"
ratiorow "  verify speed-up, -j $jobs vs -j 1" "$verify1_ns" "$verifyj_ns" 1.6
if ((have_time)); then
	check le "$(maxof "$verifyj_kb" "$verify4_kb")" $lim
	row "  verify -j $jobs peak RSS MiB, 1x / 4x input" "$(mib "$verifyj_kb") / $(mib "$verify4_kb")" "<= 64" "" "$RES"
fi
pyrows sign "sign"
pyrows verify "verify"
if [[ -n $py_ns ]]; then
	row "  python3 generate_signature events/s" "$(evps "$nsig" "$py_ns")" "" "" "(reference)"
	r=$(ratio "$py_ns" "$sign_ns")
	check ge "${r%x}" 10
	row "  sign vs the spec's Python, wall time" "$r" ">= 10x" "" "$RES"
else
	row "  sign vs the spec's Python" "n/a" ">= 10x" "" "SKIP (no python3)"
fi
row "sign MB/s: -j 1 / -j $jobs" "$(mbps "$sig_bytes" "$sign1_ns") / $(mbps "$sig_bytes" "$signj_ns")" "" "" "(in turns)"
row "sign events/s, 1 core: plain / --seal" "$(evps "$nsig" "$sealsp_ns") / $(evps "$nsig" "$sealss_ns")" "" "" "(in turns)"
ratiorow "  sign --seal speed, vs plain" "$sealsp_ns" "$sealss_ns" 0.91
row "verify events/s, 1 core: plain / --seal" "$(evps "$nsig" "$sealvp_ns") / $(evps "$nsig" "$sealvs_ns")" "" "" "(in turns)"
ratiorow "  verify --seal speed, vs plain" "$sealvp_ns" "$sealvs_ns" 0.91
row "verify events/s, 1 core: 1 key / 3 keys" "$(evps "$nsig" "$keys1_ns") / $(evps "$nsig" "$keys3_ns")" "" "" "(in turns)"
ratiorow "  verify with 3 keys (the log's last), vs 1" "$keys1_ns" "$keys3_ns" 0.95
ratiorow "  sign speed-up, -j $jobs vs -j 1" "$sign1_ns" "$signj_ns" 1.6
if [[ -n $py_ns ]]; then
	ratiorow "  sign -j $jobs vs the spec's Python, wall time" "$py_ns" "$signj_ns" 20
fi
if ((have_time)); then
	check le "$(maxof "$signj_kb" "$sign4_kb")" $lim
	row "  sign -j $jobs peak RSS MiB, 1x / 4x input" "$(mib "$signj_kb") / $(mib "$sign4_kb")" "<= 64" "" "$RES"
fi
if ((have_time)); then
	row "sign / verify peak RSS MiB" "$(mib "$sign_kb") / $(mib "$verify_kb")" "" "" "(info)"
fi
row "Python verifies toonkit's signatures" "" "all" "" "$chk_pyverify"
echo
fi # sign
if want bridge; then
row "bridge: $nbr Chiffon messages, $(awk -v b="$br_bytes" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "" ""
check ge "$(evps "$nbr" "$br_ns")" 50000
row "convert --to trace | sign messages/s" "$(evps "$nbr" "$br_ns")" ">= 50000" "" "$RES"
row "  convert --to trace alone messages/s" "$(evps "$nbr" "$brc_ns")" "" "" "(info)"
speedup "  convert --to trace" "$br_bytes" "$br1_ns" "$brj_ns"
pyrows trace "to trace"
if [[ -n $br4_kb ]]; then
	check le "$br4_kb" "$((br_kb + br_kb / 5 + 4096))"
	row "  peak RSS MiB, N / 4N messages" "$(mib "$br_kb") / $(mib "$br4_kb")" "4N <= N + 20% + 4" "" "$RES"
fi
row "  signed output verifies and validates" "" "all" "" "$chk_bridge"
echo
fi # bridge
if want toon; then
for set in "${toon_sets[@]}"; do
	what="TOON: $ntoon users, $(awk -v b="${tn_bytes[$set]}" 'BEGIN{printf "%.1f MB", b/1e6}') JSON"
	[[ $set == users-flat ]] && what="$what, no tags (tabular)"
	row "$what" "$(awk -v b="${tt_bytes[$set]}" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "(the TOON)"
	enc_v=$(mbps "${tn_bytes[$set]}" "${tn_enc[$set]}") dec_v=$(mbps "${tt_bytes[$set]}" "${tn_dec[$set]}")
	row "  encode --to toon ms (MB/s of JSON)" "$(ms "${tn_enc[$set]}") ($enc_v)" "" "" "(info)"
	row "  decode ms (MB/s of TOON)" "$(ms "${tn_dec[$set]}") ($dec_v)" "" "" "(info)"
	if [[ -n ${tn_jq[$set]:-} ]]; then
		row "  jq -c . ms (the JSON)" "$(ms "${tn_jq[$set]}")" "" "" "(reference)"
		row "  encode vs jq, wall time" "$(ratio "${tn_jq[$set]}" "${tn_enc[$set]}")" "" "" "(info)"
	fi
	if [[ -n $toon_ref ]]; then
		row "  reference CLI encode / decode ms" "$(ms "${tn_ref_enc[$set]}") / $(ms "${tn_ref_dec[$set]}")" "" "" "(reference)"
		r=$(ratio "${tn_ref_enc[$set]}" "${tn_enc[$set]}")
		check ge "${r%x}" 20
		row "  encode vs the reference CLI" "$r" ">= 20x" "" "$RES"
		r=$(ratio "${tn_ref_dec[$set]}" "${tn_dec[$set]}")
		check ge "${r%x}" 50
		row "  decode vs the reference CLI" "$r" ">= 50x" "" "$RES"
	else
		row "  vs the reference CLI" "n/a" ">= 20x, 50x" "" "SKIP (no node/npm)"
	fi
	if ((have_time)); then
		check le "${tn_dec_kb[$set]}" 65536
		row "  decode peak RSS MiB" "$(mib "${tn_dec_kb[$set]}")" "<= 64" "" "$RES"
		check le "$((tn_enc_kb[$set] * 1024))" "$((tn_bytes[$set] * 3))"
		row "  encode peak RSS MiB (x input)" "$(mib "${tn_enc_kb[$set]}") ($(awk -v k="${tn_enc_kb[$set]}" -v b="${tn_bytes[$set]}" 'BEGIN{printf "%.2fx", k*1024/b}'))" "<= 3x" "" "$RES"
	fi
done
if [[ -n $toon_big_kb ]]; then
	check le "$toon_big_kb" 65536
	row "TOON decode peak RSS MiB, $(awk -v b="$toon_big_bytes" 'BEGIN{printf "%.0f MB", b/1e6}') TOON" "$(mib "$toon_big_kb")" "<= 64" "" "$RES"
fi
row "TOON decodes back to the JSON" "" "identical" "" "$chk_toon_rt"
row "toonkit TOON = reference CLI TOON" "" "identical" "" "$chk_toon_ref"
echo
fi # toon

if want bigdoc; then
for shape in "${bd_shapes[@]}"; do
	row "document $shape: $(awk -v b="${bd_bytes[$shape]}" 'BEGIN{printf "%.0f MB", b/1e6}') JSON, $(awk -v b="${bd_tbytes[$shape]}" 'BEGIN{printf "%.0f MB", b/1e6}') TOON" "" "" "" "(1 core)"
	mark=200
	[[ $shape != a ]] && mark=100
	v=$(mbps "${bd_bytes[$shape]}" "${bd_enc[$shape]}")
	check ge "$v" "$mark"
	row "  encode MB/s of JSON" "$v" ">= $mark" "" "$RES"
	v=$(mbps "${bd_bytes[$shape]}" "${bd_dec[$shape]}")
	check ge "$v" "$mark"
	row "  decode MB/s of the JSON document" "$v" ">= $mark" "" "$RES"
	row "  decode MB/s to a file (> FILE)" "$(mbps "${bd_bytes[$shape]}" "${bd_dec_file[$shape]}")" "" "" "(info)"
	if [[ -n ${bd_jq[$shape]:-} ]]; then
		row "  jq -c . MB/s" "$(mbps "${bd_bytes[$shape]}" "${bd_jq[$shape]}")" "" "" "(reference)"
		row "  encode / decode vs jq, wall time" "$(ratio "${bd_jq[$shape]}" "${bd_enc[$shape]}") / $(ratio "${bd_jq[$shape]}" "${bd_dec[$shape]}")" "" "" "(info)"
	fi
	if ((have_time)); then
		check le "${bd_enc_kb[$shape]}" 65536
		row "  encode peak RSS MiB" "$(mib "${bd_enc_kb[$shape]}")" "<= 64" "" "$RES"
		check le "${bd_dec_kb[$shape]}" 65536
		row "  decode peak RSS MiB" "$(mib "${bd_dec_kb[$shape]}")" "<= 64" "" "$RES"
	fi
	row "  20 MB cut: encode / decode ms" "$(ms "${bd_cut_enc[$shape]}") / $(ms "${bd_cut_dec[$shape]}")" "" "" "(info)"
	if [[ -n ${bd_ref_enc[$shape]:-} ]]; then
		row "  20 MB cut: reference CLI enc / dec ms" "$(ms "${bd_ref_enc[$shape]}") / $(ms "${bd_ref_dec[$shape]}")" "" "" "(reference)"
		row "  20 MB cut: vs the reference CLI" "$(ratio "${bd_ref_enc[$shape]}" "${bd_cut_enc[$shape]}") / $(ratio "${bd_ref_dec[$shape]}" "${bd_cut_dec[$shape]}")" "" "" "(info)"
	fi
done
row "TOON decoded and encoded again" "" "identical" "" "$bd_same"
echo
fi # bigdoc

if want query; then
# qref NAME REF_NS TK_NS MARK: the reference's messages/s and toonkit's
# wall-time ratio to it, or a SKIP row without the reference.
qref() {
	if [[ -n $2 ]]; then
		row "  $1 msg/s" "$(evps "$nq" "$2")" "" "" "(reference)"
		ratiorow "  toonkit vs $1, wall time" "$2" "$3" "$4"
	else
		row "  toonkit vs $1" "n/a" ">= $4x" "" "SKIP (no $1)"
	fi
}
row "query: $nq Chiffon messages, $(awk -v b="$q_bytes" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "" "(json.dumps, 1 core)"
for qi in "${!qfilters[@]}"; do
	qlabel=".payload.status"
	((qi == 1)) && qlabel="select(...) | {id, p}"
	row "query $qlabel msg/s" "$(evps "$nq" "${qtk_ns[$qi]}")" "" "" "(-c, in turns)"
	qref jq "${qjq_ns[$qi]}" "${qtk_ns[$qi]}" 1.5
	qref gojq "${qgo_ns[$qi]}" "${qtk_ns[$qi]}" 2
	if ((have_time)); then
		row "  toonkit peak RSS MiB" "$(mib "${qtk_kb[$qi]}")" "" "" "(info)"
	fi
done
row "query a TOON table, $ntq rows ms" "$(ms "$qtoon_ns")" "" "" "(.[] | select(.active) | {id, name})"
if [[ -n $qtoonjq_ns ]]; then
	row "  jq on the same data as JSON ms" "$(ms "$qtoonjq_ns")" "" "" "(reference)"
	ratiorow "  toonkit (TOON) vs jq (JSON), wall time" "$qtoonjq_ns" "$qtoon_ns" 1.5
fi
if [[ -n $qbig_kb ]]; then
	check le "$qbig_kb" $lim
	row "query peak RSS MiB, $(awk -v b="$qbig_bytes" 'BEGIN{printf "%.0f", b/1e6}') MB NDJSON" "$(mib "$qbig_kb")" "<= 64" "" "$RES"
	row "  its MB/s" "$(mbps "$qbig_bytes" "$qbig_ns")" "" "" "(info)"
fi
row "query --jobs: $nqj Chiffon messages, $(awk -v b="$qj_bytes" 'BEGIN{printf "%.1f MB", b/1e6}')" "" "" "" "(json.dumps)"
for qi in "${!qjfilters[@]}"; do
	qlabel=".payload.status"
	((qi == 1)) && qlabel="select(...) | {id, p}"
	row "query $qlabel MB/s: --jobs 1 / --jobs $jobs" "$(mbps "$qj_bytes" "${qj1_ns[$qi]}") / $(mbps "$qj_bytes" "${qjj_ns[$qi]}")" "" "" "(-c, in turns)"
	row "  speed-up, --jobs $jobs vs --jobs 1" "$(awk -v a="${qj1_ns[$qi]}" -v b="${qjj_ns[$qi]}" 'BEGIN {printf "%.2fx", a / b}')" "" "" "(info: no mark)"
	if ((have_time)); then
		row "  peak RSS MiB, --jobs $jobs" "$(mib "${qjj_kb[$qi]}")" "" "" "(info)"
	fi
done
row "query's output is jq's" "" "identical" "" "$chk_query"
echo
fi # query
if want pcap; then
	pcap_mbps=$(mbps "$pcap_bytes" "$pcap_ns")
	check ge "$pcap_mbps" 150
	row "decode pcapng MB/s, $(awk -v b="$pcap_bytes" 'BEGIN{printf "%.0f MB", b/1e6}'), 100 conns" "$pcap_mbps" ">= 150" "" "$RES"
	if [[ -n $pcap_kb && $pcap_kb != 0 ]]; then
		check le "$pcap_kb" $((lim * 2))
		row "decode pcapng peak RSS MiB" "$(mib "$pcap_kb")" "<= 128" "" "$RES"
	fi
	# -j on a capture: no mark (issue 17's are on the frame capture above;
	# the reassembly is one pass, so the workers gain little here)
	row "  decode pcapng MB/s: -j 1 / -j $jobs" "$(mbps "$pcap_bytes" "$pcap1_ns") / $pcap_mbps" "" "" "(in turns)"
	row "    decode pcapng speed-up, -j $jobs vs -j 1" "$(ratio "$pcap1_ns" "$pcap_ns")" "" "" "(info: no mark)"
	if [[ -n $tshark_ns ]]; then
		row "  tshark -q -z conv,tcp MB/s" "$(mbps "$pcap_bytes" "$tshark_ns")" "" "$(ratio "$pcap_mbps" "$(mbps "$pcap_bytes" "$tshark_ns")")" "(reference; vs: toonkit over tshark)"
	fi
	echo
fi

if want inspect; then
	for kind in large small; do
		b=${ins_bytes[$kind]}
		v=$(mbps "$b" "${ins_ns[$kind]}")
		check ge "$v" 50
		row "inspect view MB/s, $kind frames, $(awk -v b="$b" 'BEGIN{printf "%.0f MB", b/1e6}')" "$v" ">= 50" "" "$RES"
		row "  the same, -j 1" "$(mbps "$b" "${ins1_ns[$kind]}")" "" "" "(info)"
		v=$(mbps "$b" "${ins_one_ns[$kind]}")
		check ge "$v" 200
		row "inspect --oneline MB/s, $kind frames" "$v" ">= 200" "" "$RES"
		if [[ -n ${ins_hex_ns[$kind]} ]]; then
			row "  $hexer MB/s, the same file" "$(mbps "$b" "${ins_hex_ns[$kind]}")" "" "$(ratio "${ins_hex_ns[$kind]}" "${ins_ns[$kind]}")" "(reference; vs: view over $hexer)"
		fi
		if [[ -n ${ins_kb[$kind]} && ${ins_kb[$kind]} != 0 ]]; then
			row "  view peak RSS MiB" "$(mib "${ins_kb[$kind]}")" "" "" "(info)"
		fi
	done
	echo
fi

if want tap; then
	tap_mbps=$(mbps "$tap_bytes" "$tap_ns") direct_mbps=$(mbps "$tap_bytes" "$tap_direct_ns")
	row "tap forwarded MB/s, view to /dev/null" "$tap_mbps" "" "$(ratio "$tap_mbps" "$direct_mbps")" "(info; vs: tap over direct)"
	row "  direct connection MB/s" "$direct_mbps" "" "" "(reference)"
	row "  frames shown / bytes not shown" "$tap_frames / $tap_lost" "" "" "(info: the view fell behind)"
	echo
fi

if want limits && ((have_time)); then
	# bomb.bin: a 0.8 MB compressed frame whose payload is 64 MiB of JSON;
	# big.bin: an uncompressed 64 MiB payload; big.json: a 64 MiB value with
	# white space to take out. Mark: 2.5 x the limit.
	for i in "${!lim_names[@]}"; do
		if [[ ${lim_names[$i]} == jq* ]]; then
			row "  ${lim_names[$i]}" "$(mib "${lim_kbs[$i]}")" "" "" "(reference)"
			continue
		fi
		check le "${lim_kbs[$i]}" $((lim * 5 / 2))
		row "peak RSS MiB, ${lim_names[$i]/--to binary /}" "$(mib "${lim_kbs[$i]}")" "<= 160" "" "$RES"
	done
fi

if want startup; then
check le "$ver_ns" 15000000
row "toonkit --version ms" "$(ms "$ver_ns")" "<= 15" "$(vsjq "$ver_ns" "$jqver_ns")" "$RES"
check le "$small_ns" 15000000
row "decode one small frame ms" "$(ms "$small_ns")" "<= 15" "" "$RES"
if ((have_jq)); then
	row "jq --version ms" "$(ms "$jqver_ns")" "" "1.0x" "(reference)"
fi
fi # startup

if want frames; then
row "decode prints the generated NDJSON" "" "identical" "" "$chk_decode"
row "decode | encode gives capture.bin" "" "cmp equal" "" "$chk_round"
fi
echo
if ((failures > 0)); then
	echo "bench: $failures FAIL"
	exit 1
fi
echo "bench: all marks met"

#!/usr/bin/env bash
# make demo: toonkit's main jobs on the sample files in testdata/demo.
# Usage: scripts/demo.sh [path/to/toonkit]
set -uo pipefail
cd "$(dirname "$0")/.."
tk=${1:-bin/toonkit}
d=testdata/demo
bold='' plain=''
if [ -t 1 ]; then bold=$'\033[1m' plain=$'\033[0m'; fi
# step CMD: show a shell command line, run it, and show its exit status.
step() { printf '\n%s$ %s%s\n' "$bold" "$1" "$plain"; bash -o pipefail -c "$1"; echo "(exit status $?)"; }

echo "toonkit demo: $("$tk" --version)"
echo "testdata/demo/capture.bin holds $(wc -c < $d/capture.bin) bytes: a Kado orchestrator/subagent session as binary TOON frames."

# 1. The debugging view of one compressed frame.
step "$tk inspect --frame 2 $d/capture.bin"
# 2. Decode the capture to NDJSON records, and only the payloads (cut to 120 columns here).
step "$tk decode $d/capture.bin | cut -c1-120"
step "$tk decode --payload $d/capture.bin | cut -c1-120"
# 3. Decode and encode again: the same bytes.
step "$tk decode $d/capture.bin | $tk encode --to binary | cmp - $d/capture.bin && echo identical"
# 4. A damaged capture: inspect shows the bad bytes and resynchronises;
#    decode stops at the first bad frame, or salvages with --keep-going.
step "$tk inspect --frame 3 $d/damaged.bin"
step "$tk decode --payload $d/damaged.bin | cut -c1-120"
step "$tk decode --payload --keep-going $d/damaged.bin | cut -c1-120"
# 5. JSON as a Genesis A2A table, with real token counts; and back.
step "$tk convert --to tabular --stats $d/users.json | cut -c1-120"
step "$tk convert --to json $d/users.toon | head -12"
# 5b. JSON as TOON (the official format, spec v4.0), with its tokens; and back.
step "$tk encode --to toon --stats $d/data.json"
step "$tk encode --to toon $d/orders.json"
step "$tk decode $d/orders.toon | head -12"
# 6. The lossless check: a string that would read back as a number.
step "echo '[{\"zip\":\"02134\",\"code\":\"2134\"}]' | $tk convert --to tabular"
# 7. A capture as a table, one row per frame, and back to the same bytes.
step "$tk convert --to tabular -q $d/capture.bin | cut -c1-120"
step "$tk convert --to tabular -q $d/capture.bin | $tk convert --to binary | cmp - $d/capture.bin && echo identical"
# 8. Validation for CI: every rule a damaged capture breaks, and as GitHub annotations.
step "$tk validate $d/capture.bin $d/users.toon"
step "$tk validate $d/damaged.bin"
step "$tk validate --report github $d/damaged.bin"
# 9. A signed audit log verified, and a copy that was tampered with: an edited
#    payload, a removed event, two events swapped (git gives the key file
#    mode 0644; a key is kept from others).
chmod 600 $d/audit.key $d/audit.keyring
step "$tk verify --key-file $d/audit.key $d/audit.ndjson"
step "$tk verify --key-file $d/audit.key --explain $d/tampered.ndjson"

# 10. A Chiffon message log as trace events (its two output chunks joined),
#     signed and verified; and back, every byte as it was.
step "$tk convert --to trace $d/chiffon.ndjson | $tk sign --key-file $d/audit.key | $tk verify --key-file $d/audit.key -"
step "$tk convert --to trace $d/chiffon.ndjson | $tk convert --to chiffon | cmp - $d/chiffon.ndjson && echo identical"

# 11. A Narratoria tool (tool.sh, the spec's minimum viable tool with an
#     asset) run as the application would run it: its events as they come,
#     the state its patch is merged into, its assets; then the same tool
#     breaking the protocol with an event of an unknown type.
step "$tk exec --state $d/state.json -- $d/tool.sh"
step "$tk exec -- $d/tool.sh --sparkle"

# 12. A packet capture as tcpdump -w saves it (pcapng): the TCP streams
#     reassembled, a WebSocket connection unwrapped, each frame stamped with
#     its connection, direction and capture time (the header fields before
#     them cut here).
step "$tk decode $d/session.pcapng | sed -E 's/^.*\"compressed\":(true|false),//' | cut -c1-160"
exit 0

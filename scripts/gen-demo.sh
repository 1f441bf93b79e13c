#!/usr/bin/env bash
# Regenerates the demo captures in testdata/demo from session.ndjson:
#   capture.bin  the session as Kado binary frames (two of them compressed)
#   damaged.bin  the same capture with a bad version byte in frame 3, seven
#                stray bytes before frame 5, and the last frame cut short
#   session.pcapng  frames over TCP and WebSocket as tcpdump saves them (scripts/gencapture)
# Usage: scripts/gen-demo.sh [path/to/toonkit]
set -euo pipefail
cd "$(dirname "$0")/.."
tk=${1:-bin/toonkit}
d=testdata/demo
"$tk" encode --to binary "$d/session.ndjson" -o "$d/capture.bin"
# Frame offsets, from decode's payloadLength: frame i starts at sum of 18+len.
mapfile -t lens < <("$tk" decode "$d/capture.bin" | sed -E 's/.*"payloadLength":([0-9]+).*/\1/')
off=(0)
for l in "${lens[@]}"; do off+=($(( ${off[-1]} + 18 + l ))); done
f3=${off[3]} f5=${off[5]} end=${off[-1]}
{
  head -c "$f3" "$d/capture.bin"
  printf '\x02'
  tail -c +"$((f3 + 2))" "$d/capture.bin" | head -c "$((f5 - f3 - 1))"
  printf 'GARBAGE'
  tail -c +"$((f5 + 1))" "$d/capture.bin" | head -c "$((end - f5 - 10))"
} > "$d/damaged.bin"
echo "wrote $d/capture.bin ($(wc -c < "$d/capture.bin") bytes) and $d/damaged.bin ($(wc -c < "$d/damaged.bin") bytes)"
# The tables: users.json as a table, and the capture as a table (one row per frame).
"$tk" convert --to tabular "$d/users.json" -o "$d/users.toon"
"$tk" convert --to tabular -q "$d/capture.bin" -o "$d/capture.toon"
echo "wrote $d/users.toon and $d/capture.toon"
# TOON (the official format): orders.json as TOON.
"$tk" encode --to toon "$d/orders.json" -o "$d/orders.toon"
echo "wrote $d/orders.toon"
# A packet capture (pcapng) of the frames over TCP and WebSocket, built with gopacket's writers.
go run ./scripts/gencapture "$d" session.pcapng
echo "wrote $d/session.pcapng"

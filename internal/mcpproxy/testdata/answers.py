# Writes answers.ndjson: tools/call answers as Python's json module writes
# them, one per line (the last one ends with CRLF), for TestQuickAnswerTakes
# WhatProducersWrite. Run: python3 answers.py > answers.ndjson
import json
import sys

rows = [{"id": i, "name": "caf\u00e9 %d" % i, "tags": ["a", "b"], "price": i * 1.5,
         "note": "line\nbreak \"quoted\" \\ tab\t \U0001F600 \u2028"} for i in range(40)]
texts = [
    json.dumps(rows, indent=2),                      # ensure_ascii: \u00e9, \ud83d\ude00
    json.dumps(rows, indent=2, ensure_ascii=False),  # UTF-8 as it is
    json.dumps({"items": rows}, separators=(",", ":")),
    json.dumps(rows[:3]),
]
out = sys.stdout.buffer
for n, text in enumerate(texts):
    result = {"content": [{"type": "text", "text": text}]}
    if n == 1:
        result["content"].insert(0, {"type": "image", "data": "AA==", "mimeType": "image/png"})
        result["structuredContent"] = {"rows": rows[:2]}
        result["isError"] = False
    msg = {"jsonrpc": "2.0", "id": n + 1, "result": result}
    for ensure_ascii in (True, False):
        for seps in (None, (",", ":")):
            line = json.dumps(msg, ensure_ascii=ensure_ascii, separators=seps)
            out.write(line.encode("utf-8") + b"\n")
multi = {"jsonrpc": "2.0", "id": "s-1", "result": {"content": [
    {"type": "text", "text": json.dumps(rows[:5])},
    {"type": "text", "text": "plain words"},
    {"type": "text", "text": json.dumps({"a": [1, 2, 3]}, indent=4)}]}}
out.write(json.dumps(multi, indent=2).replace("\n", " ").encode() + b"\n")
out.write(json.dumps(multi).encode() + b"\r\n")

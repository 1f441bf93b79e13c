#!/usr/bin/env python3
"""Writes trace events signed by Python, the spec's way and the AOP
backend's ways, for toonkit's tests and demo:

  testdata/sign/python-<scheme>.ndjson   events signed with key "test-key"
  testdata/sign/python-meta-only-<scheme>.ndjson
                                         the same, with the signature in
                                         meta.signature only (--meta-only)
  testdata/demo/audit.ndjson             a signed audit log (key in audit.key)
  testdata/demo/tampered.ndjson          the same log, changed unseen... almost

The signing functions are the spec's generate_signature (trace-events-aop.md,
"Signature Generation") and the three schemes the issue describes for the
backend. Run: python3 scripts/gen-sign-vectors.py (from the repository root).
With --meta-only it writes only the meta-only logs: events signed with key
"test-key" and stored the way many Python services store them, with
meta.signature and no top-level copy, each a line of json.dumps(event) with
its defaults. With --verify KEY SCHEME FILE it checks signatures instead (the tests use it
to have Python verify what toonkit signed); with --sign KEYFILE FILE it signs
NDJSON events with generate_signature (scripts/bench.sh times it).
"""
import hashlib
import hmac
import json
import random
import sys
import uuid


def generate_signature(org_salt_key, run_id, seq_no, timestamp, actor, type, payload):
    message = f"{run_id}{seq_no}{timestamp}{actor}{type}{json.dumps(payload, sort_keys=True)}"
    signature = hmac.new(
        org_salt_key.encode(),
        message.encode(),
        hashlib.sha256
    ).hexdigest()
    return signature


def mac(key, message):
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def sign(key, scheme, ev):
    run, seq, p = ev["meta"]["run_id"], ev["seq"], ev["payload"]
    if scheme == "spec":
        return generate_signature(key, run, seq, ev["t"], ev["actor"], ev["type"], p)
    if scheme == "payload":
        return mac(key, f"{run}{seq}{json.dumps(p)}")
    if scheme == "payload-compact":
        return mac(key, f"{run}{seq}{json.dumps(p, sort_keys=True, separators=(',', ':'))}")
    if scheme == "event-compact":
        rest = {k: v for k, v in ev.items() if k not in ("meta", "signature")}
        return mac(key, f"{run}{seq}{json.dumps(rest, sort_keys=True, separators=(',', ':'))}")
    raise ValueError(scheme)


def payloads(rnd):
    """Payloads that exercise the canonical form: order, unicode, numbers."""
    yield {"goal": "Process customer refund request", "steps": [{"step_id": "s1", "description": "interpret query", "decision": "select_tool: create_ticket", "confidence": 0.82}], "safety_checks": [{"name": "policy_lookup", "result": "passed"}], "uncertainty": "low"}
    yield {"action": "create_ticket", "params": {"title": "Refund – Order #12345", "order_id": "ORD-12345", "amount": 99.99, "reason": "Product defect"}, "context": {"user_id": "U-789", "city": "東京", "emoji": "👍🏽"}}
    yield {"status": "ok", "data": {"ticket_id": "T-999", "big": 123456789012345678901234567890, "tiny": 1e-7, "huge": 1e22, "neg_zero": -0.0, "int_zero": 0}, "meta": {"latency_ms": 120, "policy_flags": [], "retries": 0}}
    yield {"z": 1, "a": {"y": [3, 2, {"k": None, "b": True}], "x": False}, "control": "tab\there\nnl \u0007 bell \u007f del", "quote": "say \"hi\" \\ back/slash", "html": "<a href='x'>&amp;</a>"}
    yield {"text": "Your refund ticket has been created: T-999.", "structured": {"next_steps": ["Check email", "Wait 24 hours"], "ratio": 2.675, "third": 1 / 3}}
    yield {"error_type": "ValidationError", "message": "Invalid order ID format", "code": "ERR_INVALID_INPUT", "details": {"field": "order_id"}, "recoverable": True, "nan": float("nan"), "inf": float("inf"), "ninf": float("-inf")}
    for _ in range(14):
        yield {f"k{rnd.randint(0, 99)}": rnd.choice([rnd.random() * 10 ** rnd.randint(-30, 30), rnd.randint(-10**20, 10**20), "é" * rnd.randint(0, 3), [1, 2.5, "x"], {"n": None}]) for _ in range(rnd.randint(0, 6))}


def events(rnd, run_ids):
    out = []
    types = ["reasoning", "action_request", "action_response", "final_output", "error"]
    ps = list(payloads(rnd))
    seqs = {r: 0 for r in run_ids}
    for i, p in enumerate(ps):
        run = run_ids[i % len(run_ids)]
        seqs[run] += 1
        out.append({
            "seq": seqs[run],
            "t": f"2025-12-05T10:{30 + i // 60:02d}:{i % 60:02d}.{i * 7 % 1000:03d}Z",
            "actor": ["agent", "tool", "system", "user"][i % 4],
            "type": types[i % len(types)],
            "payload": p,
            "meta": {"seed": 42, "run_id": run, "agent_id": 123, "session_id": "sess-abc123"},
        })
    return out


def write(path, evs):
    with open(path, "w", encoding="utf-8") as f:
        for ev in evs:
            f.write(json.dumps(ev) + "\n")


def signed(key, scheme, evs, top=True):
    res = []
    for ev in evs:
        ev = json.loads(json.dumps(ev))
        s = sign(key, scheme, ev)
        ev["meta"]["signature"] = s
        if top:
            ev["signature"] = s
        res.append(ev)
    return res


def meta_only():
    """--meta-only: logs signed in meta.signature only, in every scheme."""
    rnd = random.Random(11)
    runs = [str(uuid.UUID(int=rnd.getrandbits(128), version=4)) for _ in range(3)]
    evs = events(rnd, runs)
    for scheme in ("spec", "payload", "payload-compact", "event-compact"):
        write(f"testdata/sign/python-meta-only-{scheme}.ndjson", signed("test-key", scheme, evs, top=False))


def verify(key, scheme, path):
    """--verify KEY SCHEME FILE: check toonkit's signatures (NDJSON or a
    JSON array) with the functions above, and that each event has the
    top-level copy, equal (sign writes both); prints "ok N" or each mismatch."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    evs = json.loads(text) if text.lstrip().startswith("[") else [json.loads(l) for l in text.splitlines() if l.strip()]
    bad = 0
    for i, ev in enumerate(evs):
        want = sign(key, scheme, ev)
        if not (hmac.compare_digest(want, ev["meta"]["signature"]) and ev["signature"] == ev["meta"]["signature"]):
            bad += 1
            print(f"event {i + 1}: signature mismatch")
    if bad:
        sys.exit(1)
    print(f"ok {len(evs)}")


def sign_file(key_file, path):
    """--sign KEYFILE FILE: sign NDJSON events with the spec's
    generate_signature, writing them to stdout (the reference that
    scripts/bench.sh times beside toonkit sign)."""
    key = open(key_file, encoding="utf-8").read().rstrip("\n")
    out = sys.stdout
    for line in open(path, encoding="utf-8"):
        ev = json.loads(line)
        s = generate_signature(key, ev["meta"]["run_id"], ev["seq"], ev["t"], ev["actor"], ev["type"], ev["payload"])
        ev["meta"]["signature"] = s
        ev["signature"] = s
        out.write(json.dumps(ev) + "\n")


def main():
    if len(sys.argv) == 5 and sys.argv[1] == "--verify":
        return verify(*sys.argv[2:])
    if len(sys.argv) == 4 and sys.argv[1] == "--sign":
        return sign_file(*sys.argv[2:])
    if len(sys.argv) == 2 and sys.argv[1] == "--meta-only":
        return meta_only()
    rnd = random.Random(5)
    runs = [str(uuid.UUID(int=rnd.getrandbits(128), version=4)) for _ in range(2)]
    evs = events(rnd, runs)
    for scheme in ("spec", "payload", "payload-compact", "event-compact"):
        write(f"testdata/sign/python-{scheme}.ndjson", signed("test-key", scheme, evs))
    # The demo: a short audit log signed with the demo key, and a copy
    # that was changed: a payload edited, an event removed, two swapped.
    demo_key = "demo-salt-key-change-me"
    with open("testdata/demo/audit.key", "w") as f:
        f.write(demo_key + "\n")
    demo = signed(demo_key, "spec", events(random.Random(7), ["550e8400-e29b-41d4-a716-446655440000", "6ba7b810-9dad-41d1-80b4-00c04fd430c8"])[:8])
    write("testdata/demo/audit.ndjson", demo)
    t = [json.loads(json.dumps(e)) for e in demo]
    t[2]["payload"]["data"]["ticket_id"] = "T-998"   # an edited payload
    del t[4]                                           # a removed event
    t[4], t[6] = t[6], t[4]                            # two events of a run swapped
    write("testdata/demo/tampered.ndjson", t)


if __name__ == "__main__":
    main()

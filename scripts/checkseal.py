#!/usr/bin/env python3
"""checkseal.py KEY_FILE SEAL LOG: check a toonkit seal (docs/formats/seal.md)
against an NDJSON log signed with the spec scheme. Prints ok, or exits 1."""
import hashlib, hmac, json, sys
key = (lambda k: k[:-2] if k.endswith(b'\r\n') else k.removesuffix(b'\n'))(open(sys.argv[1], 'rb').read())
seal = json.load(open(sys.argv[2], encoding='utf-8'))
body = json.dumps({k: v for k, v in seal.items() if k != 'hmac'}, sort_keys=True, separators=(',', ':'))
if not hmac.compare_digest(hmac.new(key, body.encode(), hashlib.sha256).hexdigest(), seal['hmac']): sys.exit('the seal HMAC does not match')
if seal['format'] not in ('toonkit-seal/1', 'toonkit-seal/2') or seal['scheme'] != 'spec': sys.exit('not a spec-scheme toonkit seal')
every, runs, sha = seal.get('every', 0), {}, lambda b: hashlib.sha256(b).digest()  # every: 0 in toonkit-seal/1, no checkpoints
for line in open(sys.argv[3], encoding='utf-8'):
    if not line.strip(): continue  # one event a line
    e = json.loads(line); rid = e['meta']['run_id']
    msg = (rid + str(e['seq']) + e['t'] + e['actor'] + e['type'] + json.dumps(e['payload'], sort_keys=True)).encode()
    mac = hmac.new(key, msg, hashlib.sha256)
    if not hmac.compare_digest(mac.hexdigest(), e['meta']['signature']): sys.exit('bad signature: %s seq %s' % (rid, e['seq']))
    r = runs.setdefault(rid, {'run_id': rid, 'first_seq': e['seq'], 'first_t': e['t'], 'count': 0, 'chain': sha(b'toonkit-seal/1 chain').hex(), **({'checkpoints': []} if every else {})})
    r.update(last_seq=e['seq'], last_t=e['t'], count=r['count'] + 1, chain=sha(bytes.fromhex(r['chain']) + mac.digest()).hex())
    if every and (r['count'] <= every or r['count'] % every == 0): r['checkpoints'].append(r['chain'][:10])
if list(runs.values()) != seal['runs']: sys.exit('the log and the seal differ')
print('ok')

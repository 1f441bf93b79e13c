#!/usr/bin/env python3
"""checkseal.py KEY_FILE SEAL LOG: check a toonkit seal (docs/formats/seal.md)
against an NDJSON log signed with the spec scheme. Prints ok, or exits 1."""
import hashlib, hmac, json, sys
unique = lambda pairs: dict(pairs) if len({k for k, _ in pairs}) == len(pairs) else sys.exit('not a seal: a member given twice')
key = (lambda k: k[:-2] if k.endswith(b'\r\n') else k.removesuffix(b'\n'))(open(sys.argv[1], 'rb').read())
seal = json.load(open(sys.argv[2], encoding='utf-8'), object_pairs_hook=unique)
body = json.dumps({k: v for k, v in seal.items() if k != 'hmac'}, sort_keys=True, separators=(',', ':'))
if not hmac.compare_digest(hmac.new(key, body.encode(), hashlib.sha256).hexdigest(), seal['hmac']): sys.exit('the seal HMAC does not match')
every, runs, sha, log = seal.get('every', 0), {}, lambda b: hashlib.sha256(b).digest(), hashlib.sha256(b'toonkit-seal/3 log').hexdigest()  # every: 0 in toonkit-seal/1, no checkpoints; log: the chain over all events
if seal['format'] not in ('toonkit-seal/1', 'toonkit-seal/2', 'toonkit-seal/3') or seal['scheme'] != 'spec' or seal['format'] != 'toonkit-seal/1' and not (type(every) is int and every >= 1): sys.exit('not a spec-scheme toonkit seal, or every below 1')
for line in open(sys.argv[3], encoding='utf-8'):
    if not line.strip(): continue  # one event a line
    e = json.loads(line); rid = e['meta']['run_id']
    msg = (rid + str(e['seq']) + e['t'] + e['actor'] + e['type'] + json.dumps(e['payload'], sort_keys=True)).encode()
    mac = hmac.new(key, msg, hashlib.sha256); log = sha(bytes.fromhex(log) + mac.digest()).hex()
    if not hmac.compare_digest(mac.hexdigest(), e['meta']['signature']): sys.exit('bad signature: %s seq %s' % (rid, e['seq']))
    if rid in runs and e['seq'] != runs[rid]['last_seq'] + 1: sys.exit('seq out of order: %s seq %s' % (rid, e['seq']))  # a repeat, a step back, a gap
    r = runs.setdefault(rid, {'run_id': rid, 'first_seq': e['seq'], 'first_t': e['t'], 'count': 0, 'chain': sha(b'toonkit-seal/1 chain').hex(), **({'checkpoints': []} if every else {})})
    r.update(last_seq=e['seq'], last_t=e['t'], count=r['count'] + 1, chain=sha(bytes.fromhex(r['chain']) + mac.digest()).hex())
    if every and (r['count'] <= every or r['count'] % every == 0): r['checkpoints'].append(r['chain'][:10])
if list(runs.values()) != seal['runs'] or (seal['log_chain'] if seal['format'] == 'toonkit-seal/3' else log) != log: sys.exit('the log and the seal differ')
print('ok')

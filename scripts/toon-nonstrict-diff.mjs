#!/usr/bin/env node
// Differential test of `toonkit decode --no-strict` against the reference
// TOON implementation, on damaged documents (issue 16 §5).
//
//   npm install --prefix /tmp/toonref @toon-format/toon@4.4.0 @toon-format/cli
//   go build -o /tmp/toonkit . && node scripts/toon-nonstrict-diff.mjs \
//       --toonkit /tmp/toonkit --ref /tmp/toonref [--n 1500] [--seed 1] [--cli 300]
//
// The documents are the spec's decode fixtures (TOON_SPEC_DIR, default
// ../shared/specs/toon-v4) and a few samples, damaged by seeded random
// edits: a line re-indented (spaces added or removed, spaces turned into
// tabs), deleted, duplicated or swapped, junk inserted, a cell added or
// removed. Each one is decoded non-strict by toonkit, by the reference
// library (decode(s, {strict: false})) and, for the first --cli documents,
// by the reference CLI (--decode --no-strict). The report counts the
// outcomes and prints examples of each disagreement. A run passes (exit 0)
// when, wherever the reference library decodes a document, toonkit decodes
// it to the same value. toonkit accepts more (an indented first line, a
// row's missing cells as null, malformed headers as keys: see
// docs/formats/toon.md); those are counted, not failures. The reference CLI
// (4.1.1) bundles an older decoder that skips lines in non-strict mode;
// it is compared for the record only.
//
// Nothing of the reference is copied here: it is loaded from --ref.

import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const args = Object.fromEntries(
  process.argv.slice(2).reduce((acc, a, i, all) => {
    if (a.startsWith("--")) acc.push([a.slice(2), all[i + 1]]);
    return acc;
  }, []),
);
const toonkit = args.toonkit ?? "toonkit";
const refDir = args.ref ?? "/tmp/toonref";
const total = +(args.n ?? 1500);
const cliCount = +(args.cli ?? 300);
const maxExamples = +(args.examples ?? 4);
let seed = +(args.seed ?? 1);

const lib = await import(pathToFileURL(path.join(refDir, "node_modules/@toon-format/toon/dist/index.mjs")).href);
const cliBin = path.join(refDir, "node_modules/@toon-format/cli/bin/toon.mjs");

// mulberry32: a small seeded generator, for runs that can be repeated.
function rand() {
  seed |= 0;
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = (a) => a[Math.floor(rand() * a.length)];

function seeds() {
  const dir = process.env.TOON_SPEC_DIR ?? path.resolve(path.dirname(new URL(import.meta.url).pathname), "../../shared/specs/toon-v4");
  const docs = [
    "a: 1\nb:\n  c: 2\n  d[2]: x,y\ne[2]{f,g}:\n  1,2\n  3,4",
    "users[2]{id,name}:\n  1,Ada\n  2,Bob\nmeta:\n  count: 2\n  tags[3]: a,b,c",
    "[3]:\n  - a: 1\n    b: 2\n  - x\n  - [2]: 1,2",
    "m[2:]{v,w}:\n  k: 1,2\n  j: 3,4\nn: 5",
    "o:\n  p:\n    q:\n      r: 1\n    s: 2\n  t: 3",
  ];
  const fixtures = path.join(dir, "tests/fixtures/decode");
  if (fs.existsSync(fixtures)) {
    for (const f of fs.readdirSync(fixtures)) {
      if (!f.endsWith(".json")) continue;
      for (const t of JSON.parse(fs.readFileSync(path.join(fixtures, f), "utf8")).tests) {
        if (typeof t.input === "string" && t.input.includes("\n")) docs.push(t.input);
      }
    }
  }
  return docs;
}

// damage applies one to three random edits to a document.
function damage(doc) {
  let lines = doc.split("\n");
  const edits = 1 + Math.floor(rand() * 3);
  for (let e = 0; e < edits && lines.length > 0; e++) {
    const i = Math.floor(rand() * lines.length);
    const l = lines[i];
    const ind = l.length - l.trimStart().length;
    switch (Math.floor(rand() * 9)) {
      case 0: lines[i] = " ".repeat(1 + Math.floor(rand() * 4)) + l; break;
      case 1: lines[i] = l.slice(Math.min(ind, 1 + Math.floor(rand() * 4))); break;
      case 2: lines[i] = l.slice(0, ind).replace(/  /g, "\t") + l.slice(ind); break;
      case 3: lines[i] = l.slice(0, ind).replace(/  /, "\t") + l.slice(ind); break;
      case 4: lines.splice(i, 1); break;
      case 5: lines.splice(i, 0, l); break;
      case 6: if (i + 1 < lines.length) [lines[i], lines[i + 1]] = [lines[i + 1], lines[i]]; break;
      case 7: lines.splice(i, 0, " ".repeat(ind) + pick(["zz: 9", "- zz", "zz", "9,9,9", "zz[1]: 9", "# zz"])); break;
      case 8: lines[i] = rand() < 0.5 ? l + ",zz" : l.replace(/,[^,]*$/, ""); break;
    }
  }
  return lines.join("\n");
}

function runToonkit(doc) {
  const r = spawnSync(toonkit, ["decode", "--from", "toon", "--no-strict"], { input: doc, encoding: "utf8" });
  if (r.status === 0) return { ok: true, value: JSON.parse(r.stdout) };
  return { ok: false, err: r.stderr.trim().split("\n")[0] };
}
function runLib(doc) {
  try {
    return { ok: true, value: lib.decode(doc, { strict: false }) };
  } catch (e) {
    return { ok: false, err: String(e.message) };
  }
}
function runCLI(doc) {
  const r = spawnSync("node", [cliBin, "--decode", "--no-strict"], { input: doc, encoding: "utf8" });
  if (r.status === 0 && r.stdout.trim() !== "") return { ok: true, value: JSON.parse(r.stdout) };
  return { ok: false, err: (r.stderr || r.stdout).trim().split("\n")[0] };
}

// scalars collects the keys and scalar values of a value as strings.
function scalars(v, out = new Set()) {
  if (Array.isArray(v)) v.forEach((x) => scalars(x, out));
  else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) out.add(k), scalars(x, out);
  else out.add(String(v));
  return out;
}
// lost: the scalars of the reference's value that toonkit's value lacks.
function lost(ref, ours) {
  const a = scalars(ours);
  return [...scalars(ref)].filter((s) => !a.has(s));
}

const docs = seeds();
const tally = {};
const examples = {};
const note = (cls, doc, detail) => {
  tally[cls] = (tally[cls] ?? 0) + 1;
  (examples[cls] ??= []).length < maxExamples && examples[cls].push({ doc, ...detail });
};
let failures = 0;
for (let n = 0; n < total; n++) {
  const doc = damage(pick(docs));
  const ours = runToonkit(doc);
  const refs = [["lib", runLib(doc)]];
  if (n < cliCount) refs.push(["cli", runCLI(doc)]);
  for (const [who, ref] of refs) {
    const same = ours.ok && ref.ok && JSON.stringify(ours.value) === JSON.stringify(ref.value);
    if (who === "lib" && ref.ok && !same) failures++;
    if (same) note(`${who}: same value`, doc, {});
    else if (!ours.ok && !ref.ok) note(`${who}: both fail`, doc, { ours: ours.err, ref: ref.err });
    else if (!ours.ok) note(`${who}: only toonkit fails`, doc, { ours: ours.err, ref: JSON.stringify(ref.value) });
    else if (!ref.ok) note(`${who}: only the reference fails`, doc, { ref: ref.err, value: JSON.stringify(ours.value) });
    else {
      const l = lost(ref.value, ours.value);
      const cls = l.length ? `${who}: DIFFERENT, toonkit lacks scalars the reference keeps` : `${who}: different value, nothing lost`;
      note(cls, doc, { ours: JSON.stringify(ours.value), ref: JSON.stringify(ref.value), lacks: l.slice(0, 5) });
    }
  }
}
console.log(`${total} damaged documents (seed ${args.seed ?? 1}); reference CLI on the first ${Math.min(cliCount, total)}`);
for (const cls of Object.keys(tally).sort()) console.log(`  ${String(tally[cls]).padStart(5)}  ${cls}`);
for (const cls of Object.keys(examples).sort()) {
  if (/same value|both fail/.test(cls)) continue;
  console.log(`\n## ${cls}`);
  for (const ex of examples[cls]) console.log(JSON.stringify(ex));
}
console.log(failures ? `\nFAIL: ${failures} documents the reference library decodes differ` : "\nPASS: every document the reference library decodes gives the same value");
process.exit(failures ? 1 : 0);

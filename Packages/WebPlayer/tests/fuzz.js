#!/usr/bin/env node
// The JavaScript parsers' fuzz harness (docs/fuzzing.md, "JavaScript parsers"): a mutation loop
// over the targets of parser-targets.js, seeded with their corpora, bounded in time and in
// inputs. A target must accept an input or refuse it with the parsers' own PlayerError; any other
// thrown value is a finding, saved with its input under <out>/findings/<target>/. Exits 1 when
// there is one. No coverage feedback (Node gives none cheaply): inputs a target accepts join the
// pool, so mutations build on what goes deep.
//
//   node Packages/WebPlayer/tests/fuzz.js [--seconds 60] [--inputs N] [--target js-zip] [--seed 1] [--out out/fuzz-js]
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { concat as concatBytes } from "../player/bytes.js";
import { TARGETS, verdict } from "./parser-targets.js";
import { ROOT, corpusFiles } from "./support.js";

/** A small deterministic generator (xorshift32): a run is repeated by its seed. */
export function generator(seed) {
  let state = (seed >>> 0) || 1;
  const next = () => { state ^= state << 13; state >>>= 0; state ^= state >>> 17; state ^= state << 5; state >>>= 0; return state; };
  return { below: (n) => next() % Math.max(1, n), chance: (n) => next() % n === 0 };
}

// Values that sit at the edges parsers check: sizes, counts, offsets, signatures.
const EDGES = [0, 1, 0x7f, 0x80, 0xff, 0xfe];
const EDGES32 = [0, 1, 0x7fffffff, 0x80000000, 0xffffffff, 0xffff, 0x10000];
const TOKENS = ["\"", "{", "}", "[", "]", ",", ":", "\\u", "\\", "\n", "\r\n", "#EXT", "=", "\"\"", "-1", "1e999", "0x", "\u0000", "\uFFFF"]
  .map((t) => new TextEncoder().encode(t));

/** One mutation of `input` (never changed in place), sometimes spliced with `other`. */
export function mutate(input, other, random) {
  const bytes = input.slice();
  const at = random.below(bytes.length);
  switch (random.below(9)) {
    case 0: if (bytes.length) bytes[at] ^= 1 << random.below(8); return bytes;
    case 1: if (bytes.length) bytes[at] = EDGES[random.below(EDGES.length)]; return bytes;
    case 2: {   // a 32-bit field, little or big endian
      if (bytes.length < 4) return bytes;
      const view = new DataView(bytes.buffer), offset = random.below(bytes.length - 3);
      view.setUint32(offset, EDGES32[random.below(EDGES32.length)] + (random.chance(4) ? bytes.length : 0), random.chance(2));
      return bytes;
    }
    case 3: return bytes.subarray(0, random.below(bytes.length + 1));   // truncated
    case 4: {   // a range deleted
      const end = Math.min(bytes.length, at + 1 + random.below(64));
      return concat(bytes.subarray(0, at), bytes.subarray(end));
    }
    case 5: {   // a range repeated
      const end = Math.min(bytes.length, at + 1 + random.below(64));
      return concat(bytes.subarray(0, end), bytes.subarray(at, end), bytes.subarray(end));
    }
    case 6: return concat(bytes.subarray(0, at), TOKENS[random.below(TOKENS.length)], bytes.subarray(at));
    case 7: {   // spliced: this input's head, another's tail
      const cut = random.below(other.length + 1);
      return concat(bytes.subarray(0, at), other.subarray(cut));
    }
    default: {  // random bytes inserted
      const noise = new Uint8Array(1 + random.below(16)).map(() => random.below(256));
      return concat(bytes.subarray(0, at), noise, bytes.subarray(at));
    }
  }
}

const concat = (...parts) => concatBytes(parts);

const MAX_POOL = 256;

/** Fuzzes `target` for `seconds` or `inputs` inputs, whichever ends first; returns
 * {executions, accepted, findings: [{input, error}]}. */
export async function fuzzTarget(target, { seconds, inputs = Infinity, seed = 1 }) {
  const pool = corpusFiles(target.corpus).filter((f) => !target.seeds || target.seeds(f.name)).map((f) => f.bytes);
  const random = generator(seed);
  const deadline = Date.now() + seconds * 1000;
  const findings = [];
  const seen = new Set();
  let executions = 0, accepted = 0;
  while (executions < inputs && Date.now() < deadline) {
    let input = pool[random.below(pool.length)];
    // One to four stacked mutations, as libFuzzer stacks them.
    for (let n = 1 + random.below(4); n > 0; n--) input = mutate(input, pool[random.below(pool.length)], random);
    executions++;
    try {
      if (await verdict(target, input) === "accepted") {
        accepted++;
        if (pool.length < MAX_POOL) pool.push(input);
      }
    } catch (error) {
      const key = `${error?.name}:${String(error?.stack ?? error).split("\n")[1] ?? ""}`;
      if (!seen.has(key)) { seen.add(key); findings.push({ input, error }); }
    }
  }
  return { executions, accepted, findings };
}

/** Writes each finding's input and what it threw under `out`/findings/`name`/. */
function saveFindings(out, name, findings) {
  const dir = join(out, "findings", name);
  mkdirSync(dir, { recursive: true });
  return findings.map(({ input, error }) => {
    const file = join(dir, `finding-${createHash("sha1").update(input).digest("hex").slice(0, 16)}`);
    writeFileSync(`${file}.bin`, input);
    writeFileSync(`${file}.txt`, `${String(error?.stack ?? error)}\n`);
    return `${file}.bin`;
  });
}

function options(argv) {
  const out = { seconds: 60, inputs: Infinity, target: null, seed: 1, out: join(ROOT, "out", "fuzz-js") };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--seconds") out.seconds = Number(value);
    else if (flag === "--inputs") out.inputs = Number(value);
    else if (flag === "--target") out.target = value || null;
    else if (flag === "--seed") out.seed = Number(value);
    else if (flag === "--out") out.out = resolve(value);
    else throw new Error(`fuzz.js: unknown option ${flag}`);
  }
  return out;
}

async function main() {
  const opts = options(process.argv.slice(2));
  // FUZZ_TARGET of `make fuzz` may name a Swift target; the JavaScript ones are js-<name>.
  if (opts.target && !opts.target.startsWith("js-")) {
    console.log(`fuzz (JavaScript): ${opts.target} is not a JavaScript target (js-${Object.keys(TARGETS).join(", js-")}); skipped`);
    return;
  }
  const names = opts.target ? [opts.target.slice(3)] : Object.keys(TARGETS);
  if (names.some((n) => !TARGETS[n])) throw new Error(`fuzz.js: no target ${opts.target}`);
  let failed = false;
  for (const name of names) {
    const { executions, accepted, findings } = await fuzzTarget(TARGETS[name], opts);
    const saved = saveFindings(opts.out, `js-${name}`, findings);
    console.log(`fuzz (JavaScript): js-${name}: ${executions} inputs, ${accepted} accepted, ${findings.length} findings`);
    for (const file of saved) console.log(`  finding: ${file}`);
    failed ||= findings.length > 0;
  }
  if (failed) process.exitCode = 1;
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

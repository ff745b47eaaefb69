// Every parser target (parser-targets.js) on its seeds, on every truncation of them and on
// seeds with one byte changed: accepted, or refused with the parsers' own PlayerError; never a
// TypeError, RangeError or any other thrown value.
import { test } from "node:test";
import assert from "node:assert/strict";
import { TARGETS, verdict } from "./parser-targets.js";
import { corpusFiles } from "./support.js";

// Truncations at these many points of each seed (every point for short seeds).
const CUTS = 96;

for (const [name, target] of Object.entries(TARGETS)) {
  const seeds = corpusFiles(target.corpus).filter((f) => !target.seeds || target.seeds(f.name));

  test(`${name}: every seed is accepted`, async () => {
    assert.ok(seeds.length > 0, "the target has seeds");
    for (const seed of seeds) assert.equal(await verdict(target, seed.bytes), "accepted", seed.name);
  });

  test(`${name}: a truncated seed is accepted or refused with a PlayerError`, async () => {
    for (const seed of seeds) {
      const step = Math.max(1, Math.floor(seed.bytes.length / CUTS));
      for (let length = 0; length < seed.bytes.length; length += step) {
        await assert.doesNotReject(verdict(target, seed.bytes.subarray(0, length)), `${seed.name} cut to ${length} bytes`);
      }
    }
  });

  test(`${name}: a seed with one byte changed is accepted or refused with a PlayerError`, async () => {
    for (const seed of seeds) {
      const step = Math.max(1, Math.floor(seed.bytes.length / CUTS));
      for (let at = 0; at < seed.bytes.length; at += step) {
        for (const value of [0x00, 0xff, seed.bytes[at] ^ 0x01]) {
          const changed = seed.bytes.slice();
          changed[at] = value;
          await assert.doesNotReject(verdict(target, changed), `${seed.name} with byte ${at} set to ${value}`);
        }
      }
    }
  });
}

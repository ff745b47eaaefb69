// The JavaScript fuzz harness's part of `make test` (docs/fuzzing.md, "JavaScript parsers"):
// every regression input through its target, and a short run of the harness itself (fixed
// seed, a few hundred inputs per target) that must find nothing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fuzzTarget } from "./fuzz.js";
import { TARGETS, verdict } from "./parser-targets.js";
import { ROOT, corpusFiles } from "./support.js";

const REGRESSIONS = "Packages/WebPlayer/tests/fuzz-regressions";

for (const [name, target] of Object.entries(TARGETS)) {
  const folder = join(REGRESSIONS, `js-${name}`);
  test(`js-${name}: its regression inputs are accepted or refused with a PlayerError`, async () => {
    const inputs = existsSync(join(ROOT, folder)) ? corpusFiles([folder]) : [];
    for (const input of inputs) await assert.doesNotReject(verdict(target, input.bytes), input.name);
  });

  test(`js-${name}: a short fuzz run finds nothing`, async () => {
    const { executions, findings } = await fuzzTarget(target, { seconds: 20, inputs: 300, seed: 1 });
    assert.ok(executions > 0);
    assert.deepEqual(findings.map((f) => String(f.error?.stack ?? f.error)), []);
  });
}

test("every regression folder names a target", () => {
  const root = join(ROOT, REGRESSIONS);
  const folders = readdirSync(root).filter((f) => statSync(join(root, f)).isDirectory());
  for (const folder of folders) assert.ok(folder.slice(3) in TARGETS && folder.startsWith("js-"), folder);
});

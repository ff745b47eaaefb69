// The shared fps-v2 reader vectors (Tests-E2E/ReaderVectors, docs/web.md "Shared reader
// vectors") through the JavaScript reader under Node, read with Range requests from an origin in
// memory: each reaches the verdict vectors.json gives, the check named as the Swift reader names it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { admitPackage } from "./parser-targets.js";
import { readBytes, readText } from "./support.js";

const { keyServiceURL, vectors } = JSON.parse(readText("Tests-E2E/ReaderVectors/vectors.json"));

for (const vector of vectors) {
  test(`${vector.file}: ${vector.verdict}${vector.check ? ` (${vector.check})` : ""}`, async () => {
    const bytes = readBytes(`Tests-E2E/ReaderVectors/${vector.file}`);
    let reached;
    try {
      await admitPackage(bytes, keyServiceURL);
      reached = { verdict: "admitted" };
    } catch (error) {
      assert.equal(error.code, "refused", `${error.name}: ${error.message}`);
      assert.equal(error.reason, "package_refused");
      reached = { verdict: "refused", check: error.check };
    }
    assert.deepEqual(reached, vector.verdict === "admitted" ? { verdict: "admitted" } : { verdict: "refused", check: vector.check });
  });
}

// The viewer's words: every code the player or the page can show has a sentence and a next
// step, each in one place (refusals.json, generated from the Swift client's table, or errors.js),
// and the page reads refusals.json strictly.
import { test } from "node:test";
import assert from "node:assert/strict";
import { ERROR_CODES, PAGE_REASONS } from "../player/errors.js";
import { describeFailure, readRefusalTable } from "../player/viewer-words.js";
import { readText } from "./support.js";

const refusals = readRefusalTable(readText("Packages/WebPlayer/player/refusals.json"));

test("refusals.json holds the KAS's refusal codes (docs/protocol.md) and the two token refusals", () => {
  const protocol = readText("docs/protocol.md");
  for (const code of ["not_entitled", "rental_purchase_window_closed", "concurrent_streams", "too_many_sessions", "region_blocked", "token_expired", "token_invalid"]) {
    assert.ok(code in refusals, code);
  }
  for (const code of Object.keys(refusals)) {
    if (!code.startsWith("token_")) assert.ok(protocol.includes(`\`${code}\``), `docs/protocol.md lacks ${code}`);
  }
});

test("each page reason has its words in exactly one place", () => {
  for (const [code, entry] of Object.entries(PAGE_REASONS)) {
    const here = typeof entry.explanation === "string";
    assert.notEqual(here, code in refusals, `${code}: words ${here ? "in both errors.js and refusals.json" : "in neither place"}`);
    if (here) assert.ok(entry.nextStep.length > 0, `${code} has no next step`);
  }
  for (const [code, entry] of Object.entries(ERROR_CODES)) {
    assert.ok(entry.explanation && entry.nextStep, `the error code ${code} has no words`);
  }
});

test("a refusal is described in words with its code beside them", () => {
  const entitlement = describeFailure({ code: "denied", reason: "not_entitled" }, refusals);
  assert.equal(entitlement.code, "not_entitled");
  assert.equal(entitlement.explanation, "This viewer is not entitled to this title.");
  assert.match(entitlement.nextStep, /signed in/);
  const timeout = describeFailure({ code: "transport", reason: "timeout" }, refusals);
  assert.equal(timeout.explanation, PAGE_REASONS.timeout.explanation);
  // No reason: the error code's words; no table (it failed to load): the page's own words.
  assert.equal(describeFailure({ code: "media" }, refusals).explanation, ERROR_CODES.media.explanation);
  assert.equal(describeFailure({ code: "denied", reason: "not_entitled" }, {}).explanation, ERROR_CODES.denied.explanation);
  assert.equal(describeFailure(undefined, refusals).code, "internal");
});

test("a refusal table that is not version 1 of the shape is refused", () => {
  assert.throws(() => readRefusalTable('{"refusals": {}, "version": 2}'), TypeError);
  assert.throws(() => readRefusalTable('{"refusals": {"x": {"nextStep": "y"}}, "version": 1}'), TypeError);
  assert.throws(() => readRefusalTable('{"refusals": {}, "refusals": {}, "version": 1}'));
});

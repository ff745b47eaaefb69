// configure(): one object, defaults in one place, and every key and range enforced
// (configuration.js; docs/web.md "Configuration" lists the same keys).
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_CONFIGURATION, SETTINGS, mergeConfiguration } from "../player/configuration.js";
import { readText } from "./support.js";

test("the defaults are the settings' defaults, frozen", () => {
  assert.equal(DEFAULT_CONFIGURATION.streaming.bufferAheadSeconds, 12);
  assert.equal(DEFAULT_CONFIGURATION.retry.longestRetryAfterSeconds, 60);
  assert.equal(DEFAULT_CONFIGURATION.abr.safety, 0.7);
  assert.ok(Object.isFrozen(DEFAULT_CONFIGURATION) && Object.isFrozen(DEFAULT_CONFIGURATION.abr));
  for (const [group, keys] of Object.entries(SETTINGS)) {
    assert.deepEqual(Object.keys(DEFAULT_CONFIGURATION[group]), Object.keys(keys));
  }
});

test("a partial object is merged; the base is left as it was", () => {
  const merged = mergeConfiguration(DEFAULT_CONFIGURATION, { streaming: { bufferAheadSeconds: 30 }, abr: { enabled: false } });
  assert.equal(merged.streaming.bufferAheadSeconds, 30);
  assert.equal(merged.streaming.keepBehindSeconds, 20);
  assert.equal(merged.abr.enabled, false);
  assert.equal(DEFAULT_CONFIGURATION.streaming.bufferAheadSeconds, 12);
  assert.ok(Object.isFrozen(merged.streaming));
  // A second merge starts from the first.
  assert.equal(mergeConfiguration(merged, { retry: { maxRateLimitedSends: 2 } }).streaming.bufferAheadSeconds, 30);
});

test("an unknown group or key is refused, naming it and what exists", () => {
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { buffering: {} }), { name: "TypeError", message: /unknown group "buffering".*streaming/ });
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { streaming: { bufferGoal: 10 } }),
    { name: "TypeError", message: /unknown setting "streaming.bufferGoal".*bufferAheadSeconds/ });
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, JSON.parse('{"__proto__": {"x": 1}}')), TypeError);
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, null), TypeError);
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { abr: 3 }), TypeError);
});

test("every numeric setting refuses a value below its minimum, above its maximum, and a non-number", () => {
  for (const [group, keys] of Object.entries(SETTINGS)) {
    for (const [key, rule] of Object.entries(keys)) {
      if (rule.boolean) {
        assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { [group]: { [key]: 1 } }), TypeError, `${group}.${key}`);
        continue;
      }
      for (const value of [rule.min - (rule.integer ? 1 : 0.5), rule.max + 1]) {
        assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { [group]: { [key]: value } }),
          { name: "RangeError", message: new RegExp(`${group}.${key} must be from ${rule.min} to ${rule.max}`) });
      }
      for (const value of ["12", NaN, Infinity, null]) {
        assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { [group]: { [key]: value } }), TypeError, `${group}.${key} = ${value}`);
      }
      // The bounds themselves are accepted.
      for (const value of [rule.min, rule.max]) {
        const partial = { [group]: { [key]: value } };
        if (group === "abr" && key.endsWith("HalfLifeSeconds")) continue;   // checked together below
        assert.equal(mergeConfiguration(DEFAULT_CONFIGURATION, partial)[group][key], value);
      }
    }
  }
});

test("whole-number settings refuse fractions, and the half-lives keep their order", () => {
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { retry: { maxRateLimitedSends: 2.5 } }), RangeError);
  assert.throws(() => mergeConfiguration(DEFAULT_CONFIGURATION, { abr: { fastHalfLifeSeconds: 10 } }), { name: "RangeError", message: /must not exceed/ });
  assert.equal(mergeConfiguration(DEFAULT_CONFIGURATION, { abr: { fastHalfLifeSeconds: 10, slowHalfLifeSeconds: 20 } }).abr.fastHalfLifeSeconds, 10);
});

test("docs/web.md lists every setting with its default", () => {
  const doc = readText("docs/web.md");
  for (const [group, keys] of Object.entries(SETTINGS)) {
    for (const [key, rule] of Object.entries(keys)) {
      assert.ok(doc.includes(`| \`${group}.${key}\` | ${rule.default} |`), `docs/web.md lacks the row of ${group}.${key}`);
    }
  }
});

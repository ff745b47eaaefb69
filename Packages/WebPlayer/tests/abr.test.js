// The ABR rule (abr.js): the bandwidth estimate and the variant choice.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BandwidthMeter, SAFETY, UP_SWITCH_BUFFER_SECONDS, chooseVariant } from "../player/abr.js";

const LADDER = [{ bandwidth: 100e3 }, { bandwidth: 800e3 }, { bandwidth: 3e6 }];
const MB = 1 << 20;

test("no estimate before the first transfer; transfers too small to measure are not sampled", () => {
  const meter = new BandwidthMeter();
  assert.equal(meter.estimate, null);
  meter.sample(1000, 1);
  assert.equal(meter.estimate, null);
});

test("one slow transfer is enough to lower the estimate", () => {
  const meter = new BandwidthMeter();
  for (let i = 0; i < 5; i++) meter.sample(MB, 1000);    // about 8.4 Mbit/s
  meter.sample(MB, 10000);                                // about 0.84 Mbit/s
  assert.ok(meter.estimate < 2e6, `estimate ${meter.estimate}`);
});

test("the choice fits SAFETY x the estimate, goes down at once and up only with buffer", () => {
  assert.equal(chooseVariant(LADDER, 0, null, 10), 0);
  assert.equal(chooseVariant(LADDER, 0, 10e6, UP_SWITCH_BUFFER_SECONDS), 2);
  assert.equal(chooseVariant(LADDER, 0, 10e6, UP_SWITCH_BUFFER_SECONDS - 1), 0);
  assert.equal(chooseVariant(LADDER, 2, 800e3 / SAFETY, 0), 1);
  assert.equal(chooseVariant(LADDER, 2, 1, 0), 0);
});

// The ABR rule (abr.js): the decaying bandwidth estimate, the variant choice, and a scripted
// bandwidth drop played through a simulated player: it switches down (abandoning the transfer in
// flight) before the buffer runs dry, and a seek keeps what the estimator learnt.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BandwidthMeter, chooseVariant, shouldAbandon } from "../player/abr.js";
import { DEFAULT_CONFIGURATION } from "../player/configuration.js";

const { safety: SAFETY, upSwitchBufferSeconds: UP_SWITCH_BUFFER_SECONDS } = DEFAULT_CONFIGURATION.abr;

const LADDER = [{ bandwidth: 300e3 }, { bandwidth: 1e6 }, { bandwidth: 4e6 }];
const MB = 1 << 20;

test("no estimate before the first transfer; transfers too small to measure are not sampled", () => {
  const meter = new BandwidthMeter();
  assert.equal(meter.estimate, null);
  meter.sample(1000, 1);
  assert.equal(meter.estimate, null);
  meter.sample(MB, 1000);
  assert.equal(Math.round(meter.estimate), MB * 8);
});

test("the estimate decays: a drop shows at once, a rise needs time", () => {
  const meter = new BandwidthMeter();
  for (let i = 0; i < 10; i++) meter.sample(MB, 1000);    // 8.4 Mbit/s for 10 s
  meter.sample(MB / 10, 1000);                             // one second at 0.84 Mbit/s
  assert.ok(meter.estimate < 6.5e6, `a drop lowers it at once (${meter.estimate})`);
  for (let i = 0; i < 30; i++) meter.sample(MB / 10, 1000);
  assert.ok(meter.estimate < 1e6, `old transfers decay (${meter.estimate})`);
  meter.sample(MB, 1000);
  assert.ok(meter.estimate < 4e6, `one fast second does not bring it back (${meter.estimate})`);
});

test("a transfer in flight is measured while it runs", () => {
  const meter = new BandwidthMeter();
  let clock = 0;
  const transfer = meter.start(() => clock);
  for (let i = 0; i < 10; i++) { clock += 100; transfer.received(100_000); }   // 8 Mbit/s
  assert.ok(Math.abs(meter.estimate - 8e6) < 1e5, `${meter.estimate}`);
  for (let i = 0; i < 10; i++) { clock += 100; transfer.tick(); }              // nothing arrives
  assert.ok(meter.estimate < 4e6, `a stall lowers it before the transfer ends (${meter.estimate})`);
  assert.equal(transfer.loadedBytes, 1_000_000);
});

test("the choice fits SAFETY x the estimate, goes down at once and up only with buffer", () => {
  assert.equal(chooseVariant(LADDER, 0, null, 10), 0);
  assert.equal(chooseVariant(LADDER, 0, 10e6, UP_SWITCH_BUFFER_SECONDS), 2);
  assert.equal(chooseVariant(LADDER, 0, 10e6, UP_SWITCH_BUFFER_SECONDS - 1), 0);
  assert.equal(chooseVariant(LADDER, 2, 1e6 / SAFETY, 0), 1);
  assert.equal(chooseVariant(LADDER, 2, 1, 0), 0);
});

test("a transfer is abandoned only when it cannot arrive in time and the lower one is quicker", () => {
  const base = { totalBytes: 1e6, elapsedMs: 1000, lowerBytes: 75e3 };
  assert.equal(shouldAbandon({ ...base, loadedBytes: 500e3, bufferAhead: 10 }), false);   // 1 s left
  assert.equal(shouldAbandon({ ...base, loadedBytes: 50e3, bufferAhead: 5 }), true);      // 19 s left, the lower in 1.5 s
  assert.equal(shouldAbandon({ ...base, loadedBytes: 50e3, bufferAhead: 0 }), true);      // after a seek: a shorter wait
  assert.equal(shouldAbandon({ ...base, loadedBytes: 50e3, bufferAhead: 5, lowerBytes: 900e3 }), false);   // the lower one is no quicker
  assert.equal(shouldAbandon({ ...base, loadedBytes: 50e3, bufferAhead: 5, elapsedMs: 100 }), false);   // too early to judge
  assert.equal(shouldAbandon({ ...base, loadedBytes: 50e3, bufferAhead: 5, lowerBytes: undefined }), false);
});

/** A player on a scripted link (bits per second at time t), 2 s segments, a 12 s buffer goal,
 * in 50 ms steps. Returns what happened: switches, abandoned transfers, the least buffer once
 * playing, stalls. `seekAt`: a seek (buffer emptied) at that time. */
function simulate({ link, seconds, abandon = true, seekAt = null }) {
  const meter = new BandwidthMeter();
  const STEP = 0.05, SEGMENT = 2, GOAL = 12;
  let t = 0, clock = 0, buffer = 0, playing = false, current = 0, transfer = null;
  const log = { switches: [], abandoned: [], stalls: 0, leastBuffer: Infinity, estimateAtSeek: null, firstAfterSeek: null };
  const startSegment = () => {
    const next = chooseVariant(LADDER, current, meter.estimate, buffer);
    if (next !== current) log.switches.push({ t, from: current, to: next });
    current = next;
    transfer = { meter: meter.start(() => clock), total: (LADDER[current].bandwidth * SEGMENT) / 8, variant: current };
    if (log.estimateAtSeek !== null && log.firstAfterSeek === null) log.firstAfterSeek = current;
  };
  while (t < seconds) {
    if (seekAt !== null && t >= seekAt && log.estimateAtSeek === null) {
      log.estimateAtSeek = meter.estimate;
      buffer = 0; playing = false; transfer = null;   // the download in flight is cancelled
    }
    if (!transfer && buffer < GOAL) startSegment();
    t += STEP; clock += STEP * 1000;
    if (transfer) {
      const bytes = Math.min(transfer.total - transfer.meter.loadedBytes, (link(t) * STEP) / 8);
      transfer.meter.received(bytes);
      if (transfer.meter.loadedBytes >= transfer.total) {
        transfer.meter.finish();
        buffer += SEGMENT;
        transfer = null;
      } else if (abandon && current > 0 && shouldAbandon({ loadedBytes: transfer.meter.loadedBytes, totalBytes: transfer.total,
        elapsedMs: transfer.meter.elapsedMs, bufferAhead: buffer, lowerBytes: (LADDER[0].bandwidth * SEGMENT) / 8 })) {
        log.abandoned.push({ t, variant: current });
        const lower = Math.min(current - 1, chooseVariant(LADDER, current, meter.estimate, buffer));
        log.switches.push({ t, from: current, to: lower });
        current = lower;
        transfer = null;
      }
    }
    if (!playing && buffer >= SEGMENT) playing = true;
    if (playing) {
      buffer -= STEP;
      log.leastBuffer = Math.min(log.leastBuffer, buffer);
      if (buffer <= 0) { buffer = 0; playing = false; log.stalls++; }
    }
  }
  log.estimate = meter.estimate;
  return log;
}

// 10 Mbit/s, then from 30 s on 500 kbit/s: the top rung (4 Mbit/s) no longer fits, and its 2 s
// segment (1 MB) takes 16 s, longer than the 12 s buffer.
const DROP = (t) => (t < 30 ? 10e6 : 500e3);

test("a scripted bandwidth drop: it switches down before the buffer runs dry", () => {
  const run = simulate({ link: DROP, seconds: 60 });
  assert.ok(run.switches.some((s) => s.to === 2 && s.t < 30), "it climbed to the top rung on the fast link");
  const down = run.switches.find((s) => s.t >= 30 && s.to < s.from);
  assert.ok(down, "it switched down after the drop");
  assert.ok(run.abandoned.length >= 1, "the top-rung transfer in flight at the drop was abandoned");
  assert.equal(run.stalls, 0, "the buffer never ran dry");
  assert.ok(run.leastBuffer > 0);
  // Without abandoning, the top rung's segment in flight takes longer than the buffer lasts.
  assert.ok(simulate({ link: DROP, seconds: 60, abandon: false }).stalls > 0, "the same drop stalls without abandoning");
});

test("a seek keeps what the estimator learnt", () => {
  const run = simulate({ link: () => 10e6, seconds: 40, seekAt: 30 });
  assert.ok(run.estimateAtSeek > 5e6);
  assert.equal(run.firstAfterSeek, 2, "the first segment after the seek comes from the rung the estimate fits, not the lowest");
  assert.ok(run.estimate > 5e6);
});

// A batch of segment downloads over a scripted link (measured-download.js with abr.js), the way
// tdf-hls.js runs it: measured while its bytes arrive, given up for a lower variant when a drop
// means it cannot arrive before the buffer runs out, and, cancelled by a seek, leaving what it
// measured in the meter. The link's clock is scripted: each chunk's arrival moves it on by the
// chunk's time at the link's rate then, so nothing depends on the machine's speed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AbandonedTransfer, BandwidthMeter, chooseVariant, shouldAbandon } from "../player/abr.js";
import { DEFAULT_CONFIGURATION } from "../player/configuration.js";

const SAFETY = DEFAULT_CONFIGURATION.abr.safety;
import { downloadBatch } from "../player/measured-download.js";

const LADDER = [{ bandwidth: 300e3 }, { bandwidth: 1e6 }, { bandwidth: 4e6 }];
const SEGMENT_SECONDS = 2;
const segmentBytes = (variant) => (LADDER[variant].bandwidth * SEGMENT_SECONDS) / 8;
const CHUNK = 8 << 10;

/** A `fetch` whose bodies arrive in CHUNK-byte chunks over a link of `rate(ms)` bits per second
 * on `clock` (shared by parallel fetches, so they share the link); `onChunk` after each. */
function scriptedLink(clock, rate, { onChunk } = {}) {
  return async (url, { signal } = {}) => {
    const size = Number(new URL(url).searchParams.get("bytes"));
    let sent = 0;
    const body = new ReadableStream({
      async pull(controller) {
        await new Promise((resolve) => setImmediate(resolve));
        if (signal?.aborted) { controller.error(new DOMException("stopped", "AbortError")); return; }
        const n = Math.min(CHUNK, size - sent);
        clock.ms += (n * 8 * 1000) / rate(clock.ms);
        sent += n;
        controller.enqueue(new Uint8Array(n));
        if (sent >= size) controller.close();
        onChunk?.();
      },
    });
    return new Response(body, { headers: { "Content-Length": String(size) } });
  };
}

async function withFetch(fetch, run) {
  const original = globalThis.fetch;
  globalThis.fetch = fetch;
  try { return await run(); } finally { globalThis.fetch = original; }
}

const batchOf = (variant, count) => Array.from({ length: count }, (_, i) =>
  ({ url: `https://origin.test/v${variant}/${i}.tdf?bytes=${segmentBytes(variant)}`, expectedBytes: segmentBytes(variant) }));

test("a scripted bandwidth drop: the batch in flight is given up and the rule goes down before the buffer runs dry", async () => {
  const clock = { ms: 0 };
  const meter = new BandwidthMeter();
  // The top rung learnt on a 10 Mbit/s link...
  await withFetch(scriptedLink(clock, () => 10e6), () => downloadBatch(batchOf(2, 2), { meter, limit: 1 << 24, now: () => clock.ms }));
  assert.equal(chooseVariant(LADDER, 2, meter.estimate, 10), 2, `the estimate fits the top rung (${meter.estimate})`);
  // ... then 8 s buffered, and the link drops to 500 kbit/s 300 ms into the next batch (2 MB:
  // 32 s at the new rate). The buffer drains with the clock.
  const start = clock.ms, buffered = 8;
  const bufferAhead = () => buffered - (clock.ms - start) / 1000;
  const rate = (ms) => (ms - start < 300 ? 10e6 : 500e3);
  let givenUpAt = null;
  const giveUp = ({ lengths, ...progress }) => {
    const lowerBytes = progress.totalBytes * (LADDER[0].bandwidth / LADDER[2].bandwidth);
    const verdict = shouldAbandon({ ...progress, bufferAhead: bufferAhead(), lowerBytes });
    if (verdict) givenUpAt = clock.ms;
    return verdict;
  };
  await assert.rejects(withFetch(scriptedLink(clock, rate), () =>
    downloadBatch(batchOf(2, 2), { meter, limit: 1 << 24, giveUp, now: () => clock.ms })), AbandonedTransfer);
  assert.ok(givenUpAt !== null && bufferAhead() > 0, `given up with ${bufferAhead()} s still buffered`);
  const next = chooseVariant(LADDER, 2, meter.estimate, bufferAhead());
  assert.ok(next < 2, `the next segment comes from a lower rung (estimate ${meter.estimate})`);
  assert.ok(LADDER[next].bandwidth <= meter.estimate * SAFETY || next === 0);
  // The lower rung's segment arrives, at the new rate, before the buffer runs dry.
  assert.ok((segmentBytes(next) * 8) / 500e3 < bufferAhead(), "the lower segment fits in what is left");
});

test("a seek cancels the batch in flight and keeps what the estimator learnt", async () => {
  const clock = { ms: 0 };
  const meter = new BandwidthMeter();
  await withFetch(scriptedLink(clock, () => 10e6), () => downloadBatch(batchOf(2, 2), { meter, limit: 1 << 24, now: () => clock.ms }));
  const learnt = meter.estimate;
  // A seek 200 KB into the next batch: its download is cancelled.
  const seek = new AbortController();
  let received = 0;
  const link = scriptedLink(clock, () => 10e6, { onChunk: () => { received += CHUNK; if (received >= 200e3) seek.abort(); } });
  await assert.rejects(withFetch(link, () => downloadBatch(batchOf(2, 2), { meter, signal: seek.signal, limit: 1 << 24, now: () => clock.ms })),
    (error) => error.name === "AbortError");
  assert.ok(meter.estimate > 0.9 * learnt, `the estimate stays (${learnt} -> ${meter.estimate})`);
  assert.equal(chooseVariant(LADDER, 2, meter.estimate, 0), 2, "the segments after the seek come from the rung the link fits");
});

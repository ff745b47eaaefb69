// Adaptive bitrate for tdf-hls ladders (docs/web.md "Variant switching"): which video variant
// the next segment comes from, decided from the measured download bandwidth and the seconds
// buffered ahead of the playhead. Variants have aligned segments (the packager refuses inputs
// whose IDR frames do not line up), so any segment boundary is a switch point.
//
// The estimate, after the idea hls.js and Shaka Player share (our own code): two exponentially
// weighted moving averages of the transfer rate, weighted by each transfer's duration, one fast
// (half-life abr.fastHalfLifeSeconds) and one slow (abr.slowHalfLifeSeconds), so a rise needs the
// slow one to agree and old transfers decay. The estimate is the lowest of the two and of the
// latest transfer's own rate, measured while it runs (start()). That third bound is what makes a
// drop show at once: the averages are weighted by seconds of transfer, and on a fast link a
// batch of segments takes a few milliseconds, so after a drop the first slow transfer (seconds
// long) leaves a good part of the fast history's weight in both averages. In the browser suite,
// 0.15 s of loopback transfers (925 KB) kept the fast average at 1.95 Mbit/s after 3.5 s at
// 0.93 Mbit/s, above what the 0.94 Mbit/s rung needs, and the ladder never went down.
//
// The rule:
// - the target is the highest variant whose BANDWIDTH (RFC 8216 §4.3.4.2: peak, audio included)
//   fits abr.safety x the estimate, the lowest when none does;
// - going down happens at once; going up only with at least abr.upSwitchBufferSeconds buffered;
// - shouldAbandon(): a transfer in flight that cannot arrive before the buffer runs out is
//   given up when the lowest variant's would arrive in time, or in at most half the time the
//   rest of this one needs (after a seek nothing is buffered, and a shorter wait still counts).
// A seek keeps what the meter learnt: the link did not change with the playhead, and a transfer
// a seek cancels has been sampled while it ran.

// (The abr.* settings, their defaults and ranges are configuration.js's.)
import { DEFAULT_CONFIGURATION } from "./configuration.js";

// Transfers smaller than this say more about latency than bandwidth and are not sampled.
const MIN_SAMPLE_BYTES = 8 << 10;
// A transfer in flight is judged only once it has run this long (its first bytes include the
// request's round trip).
const MIN_IN_FLIGHT_MS = 250;
// A transfer in flight is sampled in slices of at least this long.
const PROGRESS_SLICE_MS = 100;

/** One exponentially weighted moving average whose weights are seconds of transfer. */
class DecayingAverage {
  constructor(halfLifeSeconds) {
    this.alpha = Math.exp(Math.log(0.5) / halfLifeSeconds);
    this.value = 0;
    this.weight = 0;
  }

  add(seconds, rate) {
    const keep = this.alpha ** seconds;
    this.value = rate * (1 - keep) + keep * this.value;
    this.weight += seconds;
  }

  /** The average with the bias of its zero start removed (null before any sample). */
  get estimate() {
    if (this.weight === 0) return null;
    return this.value / (1 - this.alpha ** this.weight);
  }
}

export class BandwidthMeter {
  /** `abr`: the configuration's abr group (its half-lives). */
  constructor(abr = DEFAULT_CONFIGURATION.abr) {
    this.fast = new DecayingAverage(abr.fastHalfLifeSeconds);
    this.slow = new DecayingAverage(abr.slowHalfLifeSeconds);
    this.latest = null;   // {bytes, milliseconds} of the latest transfer, so far if in flight
  }

  /** A finished transfer of `bytes` that took `milliseconds` (several parallel fetches count as
   * one), measured only at its end. */
  sample(bytes, milliseconds) {
    if (bytes < MIN_SAMPLE_BYTES) return;
    this.add(bytes, milliseconds);
    this.latest = { bytes, milliseconds };
  }

  /** A transfer measured while it runs (several parallel fetches count as one): `received(n)`
   * as bytes arrive, `tick()` on a timer, `finish()` at its end (or when it is cancelled: what
   * it brought until then stays learnt). Each slice of at least PROGRESS_SLICE_MS is a sample
   * however few bytes it brought, so a link that collapses mid-transfer lowers the estimate
   * before the transfer ends. The wait for the first byte is a round trip, not bandwidth: it is
   * sampled only once it lasts MIN_IN_FLIGHT_MS (a link that brings nothing). `now` is the
   * clock (injectable for tests). */
  start(now = () => performance.now()) {
    const started = now();
    let sliceStart = started, sliceBytes = 0, total = 0, flowing = false;
    const flush = (atEnd) => {
      const at = now(), elapsed = at - sliceStart;
      if (!flowing && total === 0 && at - started < MIN_IN_FLIGHT_MS) return;
      if (elapsed < PROGRESS_SLICE_MS && !(atEnd && sliceBytes > 0)) return;
      this.add(sliceBytes, elapsed);
      // A short, small transfer's rate is its round trip's: it does not bound the estimate.
      if (total >= MIN_SAMPLE_BYTES || at - started >= MIN_IN_FLIGHT_MS) this.latest = { bytes: total, milliseconds: at - started };
      sliceStart = at;
      sliceBytes = 0;
    };
    return {
      received: (bytes) => {
        // The first byte ends the round trip: slices are timed from it.
        if (!flowing && total === 0 && now() - started < MIN_IN_FLIGHT_MS) sliceStart = now();
        flowing = true;
        sliceBytes += bytes;
        total += bytes;
        flush(false);
      },
      tick: () => flush(false),
      finish: () => flush(true),
      get loadedBytes() { return total; },
      get elapsedMs() { return now() - started; },
    };
  }

  add(bytes, milliseconds) {
    const seconds = Math.max(milliseconds, 1) / 1000;
    const rate = (bytes * 8) / seconds;
    this.fast.add(seconds, rate);
    this.slow.add(seconds, rate);
  }

  /** Bits per second, or null before the first sample. */
  get estimate() {
    const fast = this.fast.estimate, slow = this.slow.estimate;
    if (fast === null) return null;
    const latest = this.latest ? (this.latest.bytes * 8 * 1000) / Math.max(this.latest.milliseconds, 1) : Infinity;
    return Math.min(fast, slow, latest);
  }
}

/** The index (into `variants`, ascending by bandwidth) the next segment should come from, under
 * the configuration's abr group `abr` (safety, upSwitchBufferSeconds). */
export function chooseVariant(variants, current, estimate, bufferAhead, abr = DEFAULT_CONFIGURATION.abr) {
  if (estimate === null || variants.length < 2) return current;
  let target = 0;
  variants.forEach((v, i) => { if (v.bandwidth <= estimate * abr.safety) target = i; });
  if (target > current && bufferAhead < abr.upSwitchBufferSeconds) return current;
  return target;
}

/** Whether a transfer in flight (`loadedBytes` of `totalBytes` after `elapsedMs`) should be
 * given up for the lowest variant, whose transfer in its place would be `lowerBytes`: at the
 * rate seen so far, the rest of this one arrives after the `bufferAhead` seconds buffered run
 * out, and the lower one would arrive before them or in at most half the time. */
export function shouldAbandon({ loadedBytes, totalBytes, elapsedMs, bufferAhead, lowerBytes }) {
  if (!(lowerBytes > 0) || elapsedMs < MIN_IN_FLIGHT_MS || loadedBytes >= totalBytes || lowerBytes >= totalBytes) return false;
  const rate = (loadedBytes * 8) / (elapsedMs / 1000);   // bits per second so far
  if (rate === 0) return elapsedMs / 1000 > bufferAhead;
  const remainingSeconds = ((totalBytes - loadedBytes) * 8) / rate;
  const lowerSeconds = (lowerBytes * 8) / rate;
  return remainingSeconds > bufferAhead && (lowerSeconds < bufferAhead || lowerSeconds <= remainingSeconds / 2);
}

/** Thrown by a segment download given up for a lower variant (shouldAbandon): the streaming
 * engine asks for the same segment again, from the variant the ABR rule now picks. */
export class AbandonedTransfer extends Error {
  constructor() {
    super("a segment transfer was given up for a lower variant");
    this.name = "AbandonedTransfer";
  }
}

// Adaptive bitrate for tdf-hls ladders (docs/web.md "Variant switching"): which video variant
// the next segment comes from, decided from the measured download bandwidth and the seconds
// buffered ahead of the playhead. Variants have aligned segments (the packager refuses inputs
// whose IDR frames do not line up), so any segment boundary is a switch point.
//
// The rule, in the spirit of dash.js's throughput rule with a buffer guard:
// - the estimate is the lower of the latest sample and the harmonic mean of the last
//   SAMPLE_WINDOW samples, so one slow download is enough to go down and going up needs a
//   sustained rate;
// - the target is the highest variant whose BANDWIDTH (RFC 8216 §4.3.4.2: peak, audio included)
//   fits SAFETY x the estimate, the lowest when none does;
// - going down happens at once; going up only with at least UP_SWITCH_BUFFER_SECONDS buffered,
//   so a switch up never risks a stall.

export const SAFETY = 0.7;
export const SAMPLE_WINDOW = 3;
export const UP_SWITCH_BUFFER_SECONDS = 4;
// Downloads smaller than this say more about latency than bandwidth and are not sampled.
const MIN_SAMPLE_BYTES = 8 << 10;

export class BandwidthMeter {
  constructor() { this.samples = []; }

  /** One transfer of `bytes` that took `milliseconds` (several parallel fetches count as one). */
  sample(bytes, milliseconds) {
    if (bytes < MIN_SAMPLE_BYTES) return;
    this.samples.push((bytes * 8 * 1000) / Math.max(milliseconds, 1));
    if (this.samples.length > SAMPLE_WINDOW) this.samples.shift();
  }

  /** Bits per second, or null before the first sample. */
  get estimate() {
    if (!this.samples.length) return null;
    const harmonic = this.samples.length / this.samples.reduce((sum, s) => sum + 1 / s, 0);
    return Math.min(this.samples[this.samples.length - 1], harmonic);
  }
}

/** The index (into `variants`, ascending by bandwidth) the next segment should come from. */
export function chooseVariant(variants, current, estimate, bufferAhead) {
  if (estimate === null || variants.length < 2) return current;
  let target = 0;
  variants.forEach((v, i) => { if (v.bandwidth <= estimate * SAFETY) target = i; });
  if (target > current && bufferAhead < UP_SWITCH_BUFFER_SECONDS) return current;
  return target;
}

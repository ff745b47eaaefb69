// What every stream with a video ladder shares (tdf-hls.js, clear-key-stream.js): the renditions
// the streaming engine feeds, the bandwidth meter, and the variant rule around it (docs/web.md
// "Variant switching"): before each video segment the ABR rule of abr.js picks the variant
// (never above one a transfer of this segment was given up for), a viewer's pinned quality
// overrides it, and a switch emits `onVariant`. A stream drops what it fetched ahead for a
// variant it leaves in forget().
import { BandwidthMeter, chooseVariant } from "./abr.js";
import { DEFAULT_CONFIGURATION } from "./configuration.js";

export class VariantLadder {
  /** `renditions`: the engine's streams, the video one with `variants` (ascending by
   * bandwidth), `current` and `appended` (the variant whose init the SourceBuffer has). */
  constructor(renditions, { onVariant, settings = DEFAULT_CONFIGURATION }) {
    this.renditions = renditions;
    this.settings = settings;
    this.pinned = null;          // a viewer's quality choice (a video variant index), or null: automatic
    this.onVariant = onVariant;
    this.meter = new BandwidthMeter(settings.abr);
    this.videoBufferAhead = null;   // () -> seconds of video buffered ahead (the engine's)
    const video = renditions.find((r) => r.variants);
    this.width = video?.variants[0].width ?? null;
    this.height = video?.variants[0].height ?? null;
    this.duration = renditions[0].segments.reduce((sum, s) => sum + s.duration, 0);
  }

  /** What a rendition plays now: its current variant, or itself. */
  static source(r) { return r.variants ? r.variants[r.current] : r; }

  /** The video rendition (the one with variants), if any. */
  get video() { return this.renditions.find((r) => r.variants); }

  /** Whether a transfer on the current variant may be given up for a lower one: the choice is
   * automatic and there is a lower variant. */
  get mayAbandon() {
    return this.pinned === null && this.settings.abr.enabled && (this.video?.current ?? 0) > 0 && this.videoBufferAhead !== null;
  }

  /** Before segment `index` of the video: the ABR rule's choice (never above the variant a
   * transfer of this segment was given up for); the new variant's init and mime when the
   * SourceBuffer has another's. */
  adapt(r, index, bufferAhead) {
    if (!r.variants) return null;
    if (r.variants.length > 1) {
      let next = this.pinned ?? (this.settings.abr.enabled ? chooseVariant(r.variants, r.current, this.meter.estimate, bufferAhead, this.settings.abr) : 0);
      if (r.ceiling?.index === index) next = Math.min(next, r.ceiling.variant);
      if (next !== r.current) this.switchTo(r, next, { segment: index, bufferAhead });
    }
    if (r.appended === r.current) return null;
    r.appended = r.current;
    return { init: r.variants[r.current].init, mime: r.variants[r.current].mime };
  }

  /** A viewer's quality choice: the video variant `index` pinned, or null for the ABR rule. The
   * switch is made at once (not at the next video segment), so a download that another
   * rendition asks for meanwhile does not bring the old variant's video with it. */
  pin(index) {
    this.pinned = index;
    const video = this.video;
    if (video && index !== null && index !== video.current) {
      this.switchTo(video, index, { segment: null, bufferAhead: this.videoBufferAhead?.() ?? null });
    }
  }

  /** A transfer of segment `index` on `variant` was given up: the video moves down at once (to
   * the variant the estimate fits, at least one lower), and that segment is asked for again
   * from at most that variant. */
  abandoned(video, variant, index) {
    if (video.current !== variant) return;
    const buffered = this.videoBufferAhead();
    const lower = Math.min(variant - 1, chooseVariant(video.variants, variant, this.meter.estimate, buffered, this.settings.abr));
    video.ceiling = { index, variant: lower };
    this.switchTo(video, lower, { segment: index, bufferAhead: buffered, abandoned: true });
  }

  switchTo(r, next, { segment, bufferAhead, abandoned = false }) {
    this.forget(r.variants[r.current].id);
    const from = r.current;
    r.current = next;
    const to = r.variants[next];
    this.width = to.width;
    this.height = to.height;
    this.onVariant?.({ from, to: next, segment, bandwidth: to.bandwidth, width: to.width, height: to.height,
      estimate: Math.round(this.meter.estimate), bufferAhead, direction: next > from ? "up" : "down", abandoned });
  }

  /** Drops what was fetched ahead for the variant `id` (nothing here). */
  forget(id) {}   // eslint-disable-line no-unused-vars
}

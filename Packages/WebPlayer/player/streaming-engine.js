// Feeds MediaSource from segment lists, after the design of Shaka Player's StreamingEngine:
// one loop per stream (video, audio) that keeps a buffering goal ahead of the playhead, fetches
// on demand, appends a segment's bytes as they arrive, restarts from the right segment on a
// seek, evicts what lies well behind the playhead so memory stays flat on a long title, and ends
// the stream once every stream has appended its last segment. Appends wait on `updateend`;
// nothing is ordered by timers (the tick only looks again).
//
// Start-up (and any time the element cannot play forward: after a seek outside the buffer, in
// a stall) asks for no more than it takes to start: the segments within
// streaming.startupAheadSeconds of the playhead, a large one read first in a part of about STARTUP_PART_SECONDS, the rest once
// the element can play. On a small machine the page's main thread carries every download, check
// and append: a multi-megabyte segment, or the next one, taken at once competes with the key
// requests and the first frames' decoding (docs/web.md, "Start-up").
import { AbandonedTransfer } from "./abr.js";
import { concat } from "./bytes.js";
import { DEFAULT_CONFIGURATION } from "./configuration.js";
import { PlayerError } from "./errors.js";

// The buffering goals are the configuration's streaming group (configuration.js): bufferAhead
// while the element plays; while it cannot play forward, only the segments starting within
// startupAheadSeconds of the playhead (Shaka Player's rebuffering goal plays this part), the
// full goal resuming once it can; what lies keepBehindSeconds behind the playhead is evicted.
// Such a segment is read in two parts: about this many seconds of it (by its average rate), and
// at least STARTUP_PART_MIN_BYTES, first; the rest when the element can play forward ...
const STARTUP_PART_SECONDS = 0.5;
// (a segment not larger than this is read whole: a second request would cost more than it saves)
const STARTUP_PART_MIN_BYTES = 512 << 10;
// ... or after this many ticks at the latest, so a first part that cannot start playback on its
// own (an unusually large first frame) delays the rest but never stalls it.
const STARTUP_HOLD_TICKS = 4;
const TICK_MS = 250;
// A hole this small ahead of a stalled playhead (an audio fragment starting a few ms after the
// video's, a dropped frame at a segment edge) is jumped over instead of waiting forever.
const MAX_GAP_SECONDS = 0.5;

function whenUpdated(buffer) {
  return new Promise((resolve, reject) => {
    const done = () => { buffer.removeEventListener("error", failed); resolve(); };
    const failed = () => { buffer.removeEventListener("updateend", done); reject(new PlayerError("media", "the browser refused a media segment")); };
    buffer.addEventListener("updateend", done, { once: true });
    buffer.addEventListener("error", failed, { once: true });
  });
}

export class StreamingEngine {
  /** `streams`: [{mime, init (bytes), segments: [{start, duration}], fetch(index, {signal,
   * startup}) -> bytes, or an async iterator of byte chunks appended as they arrive (`signal`
   * aborts when a seek drops the segment; `startup`, when the segment is needed to start, is
   * {seconds, minBytes, playable}: a reader that can may read that many seconds of it (and at
   * least minBytes) first and the rest once the promise `playable` resolves; `bufferAhead()`,
   * the stream's seconds buffered ahead of the playhead now; a fetch that throws
   * AbandonedTransfer (abr.js) is asked again for the same segment, after adapt),
   * adapt(index, bufferAhead) -> {init, mime} | null (optional: a variant switch before segment
   * `index`, whose init is appended first)}]. `streaming`: the configuration's streaming group. */
  constructor(video, streams, { onError, streaming = DEFAULT_CONFIGURATION.streaming }) {
    this.video = video;
    this.settings = streaming;
    this.streams = streams.map((s) => ({ ...s, buffer: null, next: 0, busy: false, generation: 0, download: null, prefetched: null }));
    this.onError = onError;
    this.holds = new Set();
    this.destroyed = false;
    this.timer = null;
    this.listeners = [];
  }

  /** Opens the MediaSource, appends the inits and starts the loops. */
  async start(duration) {
    if (this.destroyed) return;
    // The first segments start downloading now, while the MediaSource opens and the inits go
    // in (not a ladder's: its variant is chosen when the segment is appended).
    for (const stream of this.streams) if (!stream.adapt) stream.prefetched = this.receive(stream, 0);
    this.mediaSource = new MediaSource();
    this.objectURL = URL.createObjectURL(this.mediaSource);
    this.video.src = this.objectURL;
    await new Promise((resolve) => this.mediaSource.addEventListener("sourceopen", resolve, { once: true }));
    // The player may be unloaded while the MediaSource opens (keys refused during start-up).
    if (this.destroyed) return;
    this.mediaSource.duration = duration;
    // Every SourceBuffer is added before the first append: once media is appended a
    // MediaSource takes no further buffers.
    for (const stream of this.streams) {
      if (!MediaSource.isTypeSupported(stream.mime)) throw new PlayerError("unsupported", `this browser cannot play ${stream.mime}`, { reason: "codec_unsupported" });
      stream.buffer = this.mediaSource.addSourceBuffer(stream.mime);
    }
    await Promise.all(this.streams.map((stream) => {
      stream.buffer.appendBuffer(stream.init);
      return whenUpdated(stream.buffer);
    }));
    if (this.destroyed) return;
    const on = (type, handler) => { this.video.addEventListener(type, handler); this.listeners.push([type, handler]); };
    on("seeking", () => this.seek());
    on("waiting", () => this.tick());
    on("canplay", () => { this.releaseHolds(); this.tick(); });
    on("timeupdate", () => this.tick());
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.tick();
  }

  /** Index of the segment holding `time`. */
  static segmentAt(segments, time) {
    for (let i = segments.length - 1; i >= 0; i--) if (segments[i].start <= time + 1e-3) return i;
    return 0;
  }

  seek() {
    const time = this.video.currentTime;
    for (const stream of this.streams) {
      // A newer generation makes an in-flight fetch drop its bytes instead of appending them,
      // and a streamed download is cancelled.
      stream.generation++;
      stream.download?.controller.abort();
      stream.prefetched?.controller.abort();
      stream.prefetched = null;
      stream.next = StreamingEngine.segmentAt(stream.segments, time);
      stream.ended = false;
    }
    this.releaseHolds();
    this.tick();
  }

  tick() {
    if (this.destroyed) return;
    for (const hold of this.holds) {
      if (++hold.ticks >= STARTUP_HOLD_TICKS) { this.holds.delete(hold); hold.resolve(); }
    }
    this.jumpGap();
    for (const stream of this.streams) this.pump(stream).catch((error) => this.fail(error));
  }

  /** Stall recovery: when the playhead waits in a small hole with media buffered just after it,
   * move it to the start of that media. */
  jumpGap() {
    const video = this.video;
    if (video.seeking || video.paused || video.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA) return;
    const ranges = video.buffered;
    for (let i = 0; i < ranges.length; i++) {
      const start = ranges.start(i);
      if (start > video.currentTime && start - video.currentTime <= MAX_GAP_SECONDS) {
        video.currentTime = start;
        return;
      }
    }
  }

  async pump(stream) {
    if (stream.busy || this.destroyed || this.mediaSource.readyState === "closed") return;
    stream.busy = true;
    try {
      const now = this.video.currentTime;
      await this.evict(stream, now);
      if (this.wants(stream, now)) {
        const generation = stream.generation;
        const index = stream.next;
        const change = stream.adapt?.(index, this.bufferAhead(stream, now));
        if (change) {
          // A new variant: its init first (changeType when the codec string differs).
          if (change.mime !== stream.mime && typeof stream.buffer.changeType === "function") stream.buffer.changeType(change.mime);
          stream.mime = change.mime;
          stream.buffer.appendBuffer(change.init);
          await whenUpdated(stream.buffer);
        }
        // Segment 0 may be on its way already (start()); anything else is asked for now.
        const early = stream.prefetched;
        stream.prefetched = null;
        const download = early && early.index === index && early.generation === generation ? early : this.receive(stream, index);
        if (download !== early) early?.controller.abort();
        stream.download = download;
        try {
          if (await this.append(stream, download, generation)) stream.next = index + 1;
        } catch (error) {
          // A download a seek cancelled is dropped like a stale one, one given up for a lower
          // variant is asked again (adapt() picks the variant); anything else fails.
          const cancelled = download.controller.signal.aborted && error?.name === "AbortError";
          if (!cancelled && !(error instanceof AbandonedTransfer)) throw error;
        } finally {
          stream.download = null;
          download.controller.abort();   // a download left unread (an append that failed) stops
        }
      }
      this.maybeEnd();
    } finally {
      stream.busy = false;
    }
    if (!this.destroyed && this.wants(stream, this.video.currentTime)) {
      queueMicrotask(() => this.pump(stream).catch((error) => this.fail(error)));
    }
  }

  /** Starts downloading segment `index` of `stream`: what `fetch` gives (bytes, or chunks as
   * they arrive) is kept in `arrived` until append() takes it, so a download never waits for the
   * SourceBuffer and the SourceBuffer takes whatever came during its previous append. */
  receive(stream, index) {
    const download = { index, generation: stream.generation, arrived: [], finished: false, failure: null, wake: null,
      controller: new AbortController() };
    const signal = () => { const resolve = download.wake; download.wake = null; resolve?.(); };
    const startup = this.video.readyState < HTMLMediaElement.HAVE_FUTURE_DATA
      ? { seconds: STARTUP_PART_SECONDS, minBytes: STARTUP_PART_MIN_BYTES, playable: this.whenPlayable() } : null;
    (async () => {
      try {
        const segment = await stream.fetch(index, { signal: download.controller.signal, startup,
          bufferAhead: () => (stream.buffer ? this.bufferAhead(stream, this.video.currentTime) : 0) });
        if (segment instanceof Uint8Array) download.arrived.push(segment);
        else for await (const chunk of segment) { download.arrived.push(chunk); signal(); }
      } catch (error) {
        download.failure = error;
      }
      download.finished = true;
      signal();
    })();
    return download;
  }

  /** Appends a segment received for `generation` as its bytes arrive. Returns false when a seek
   * or destroy made it stale; a segment left half appended is abandoned with abort(), which
   * resets the SourceBuffer's parser for the next one. */
  async append(stream, download, generation) {
    let partial = false;
    for (;;) {
      if (!download.arrived.length && !download.finished) await new Promise((resolve) => { download.wake = resolve; });
      if (this.destroyed || generation !== stream.generation) {
        if (partial && this.mediaSource.readyState === "open" && !stream.buffer.updating) stream.buffer.abort();
        return false;
      }
      if (download.arrived.length) {
        const bytes = download.arrived.length === 1 ? download.arrived[0] : concat(download.arrived);
        download.arrived.length = 0;
        stream.buffer.appendBuffer(bytes);
        partial = true;
        await whenUpdated(stream.buffer);
        continue;
      }
      if (download.failure) {
        // A segment left half appended (a transfer given up): the parser starts over.
        if (partial && this.mediaSource.readyState === "open" && !stream.buffer.updating) stream.buffer.abort();
        throw download.failure;
      }
      return true;
    }
  }

  /** Resolves once the element can play forward (its canplay), on a seek or destroy, or after
   * STARTUP_HOLD_TICKS ticks, whichever comes first. */
  whenPlayable() {
    return new Promise((resolve) => this.holds.add({ resolve, ticks: 0 }));
  }

  releaseHolds() {
    for (const hold of this.holds) hold.resolve();
    this.holds.clear();
  }

  /** Whether `stream`'s next segment falls within the buffering goal from `now`. */
  wants(stream, now) {
    const ahead = this.video.readyState >= HTMLMediaElement.HAVE_FUTURE_DATA
      ? this.settings.bufferAheadSeconds : this.settings.startupAheadSeconds;
    return stream.next < stream.segments.length && stream.segments[stream.next].start < now + ahead;
  }

  /** Seconds of `stream` buffered from `now` on (0 when the playhead is in no buffered range). */
  bufferAhead(stream, now) {
    const ranges = stream.buffer.buffered;
    for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= now + 0.1 && now < ranges.end(i)) return ranges.end(i) - now;
    return 0;
  }

  async evict(stream, now) {
    const ranges = stream.buffer.buffered;
    if (ranges.length && ranges.start(0) < now - this.settings.keepBehindSeconds) {
      stream.buffer.remove(0, now - this.settings.keepBehindSeconds);
      await whenUpdated(stream.buffer);
    }
  }

  maybeEnd() {
    if (this.mediaSource.readyState !== "open") return;
    if (this.streams.every((s) => s.next >= s.segments.length && !s.buffer.updating)) this.mediaSource.endOfStream();
  }

  fail(error) {
    if (this.destroyed) return;
    this.onError(error);
  }

  destroy() {
    this.destroyed = true;
    this.releaseHolds();
    for (const stream of this.streams) {
      stream.download?.controller.abort();
      stream.prefetched?.controller.abort();
    }
    clearInterval(this.timer);
    for (const [type, handler] of this.listeners) this.video.removeEventListener(type, handler);
    this.listeners = [];
    if (this.objectURL) URL.revokeObjectURL(this.objectURL);
  }
}

// Feeds MediaSource from segment lists, after the design of Shaka Player's StreamingEngine:
// one loop per stream (video, audio) that keeps a buffering goal ahead of the playhead, fetches
// on demand, restarts from the right segment on a seek, evicts what lies well behind the
// playhead so memory stays flat on a long title, and ends the stream once every stream has
// appended its last segment. Appends wait on `updateend`; nothing is ordered by timers.
import { PlayerError } from "./errors.js";

const BUFFER_AHEAD_SECONDS = 12;
const KEEP_BEHIND_SECONDS = 20;
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
  /** `streams`: [{mime, init (bytes), segments: [{start, duration}], fetch(index) -> bytes,
   * adapt(index, bufferAhead) -> {init, mime} | null (optional: a variant switch before segment
   * `index`, whose init is appended first)}]. */
  constructor(video, streams, { onError }) {
    this.video = video;
    this.streams = streams.map((s) => ({ ...s, buffer: null, next: 0, busy: false, generation: 0 }));
    this.onError = onError;
    this.destroyed = false;
    this.timer = null;
    this.listeners = [];
  }

  /** Opens the MediaSource, appends the inits and starts the loops. */
  async start(duration) {
    this.mediaSource = new MediaSource();
    this.objectURL = URL.createObjectURL(this.mediaSource);
    this.video.src = this.objectURL;
    await new Promise((resolve) => this.mediaSource.addEventListener("sourceopen", resolve, { once: true }));
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
    const on = (type, handler) => { this.video.addEventListener(type, handler); this.listeners.push([type, handler]); };
    on("seeking", () => this.seek());
    on("waiting", () => this.tick());
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
      // A newer generation makes an in-flight fetch drop its bytes instead of appending them.
      stream.generation++;
      stream.next = StreamingEngine.segmentAt(stream.segments, time);
      stream.ended = false;
    }
    this.tick();
  }

  tick() {
    if (this.destroyed) return;
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
      if (stream.next < stream.segments.length && stream.segments[stream.next].start < now + BUFFER_AHEAD_SECONDS) {
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
        const bytes = await stream.fetch(index);
        if (this.destroyed || generation !== stream.generation) return;
        stream.buffer.appendBuffer(bytes);
        await whenUpdated(stream.buffer);
        if (generation === stream.generation) stream.next = index + 1;
      }
      this.maybeEnd();
    } finally {
      stream.busy = false;
    }
    if (!this.destroyed && stream.next < stream.segments.length && stream.segments[stream.next].start < this.video.currentTime + BUFFER_AHEAD_SECONDS) {
      queueMicrotask(() => this.pump(stream).catch((error) => this.fail(error)));
    }
  }

  /** Seconds of `stream` buffered from `now` on (0 when the playhead is in no buffered range). */
  bufferAhead(stream, now) {
    const ranges = stream.buffer.buffered;
    for (let i = 0; i < ranges.length; i++) if (ranges.start(i) <= now + 0.1 && now < ranges.end(i)) return ranges.end(i) - now;
    return 0;
  }

  async evict(stream, now) {
    const ranges = stream.buffer.buffered;
    if (ranges.length && ranges.start(0) < now - KEEP_BEHIND_SECONDS) {
      stream.buffer.remove(0, now - KEEP_BEHIND_SECONDS);
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
    clearInterval(this.timer);
    for (const [type, handler] of this.listeners) this.video.removeEventListener(type, handler);
    this.listeners = [];
    if (this.objectURL) URL.revokeObjectURL(this.objectURL);
  }
}

// MediaDRMPlayer: plays fps-v2 packages and tdf-hls streams in a <video> element with Media
// Source Extensions, keys by the open path under the KAS's policy, and the DASH and HLS forms of
// a ClearKey playback (cmaf titles, fps-v2 views) with keys from its licence URL (docs/web.md). No build step:
// import this module from the KAS (`/player/mediadrm-player.js`) or from your own origin.
import { requireBrowserAPIs } from "./browser-support.js";
import { PlayerError } from "./errors.js";
import { ClearKeyCDM } from "./clear-key-cdm.js";
import { ClearKeyStream } from "./clear-key-stream.js";
import { DEFAULT_CONFIGURATION, mergeConfiguration } from "./configuration.js";
import { FPSv2Package } from "./fps-v2-package.js";
import { KeyService } from "./key-service.js";
import { MediaSessions } from "./media-sessions.js";
import { withRetryAfter } from "./rate-limit-wait.js";
import { StreamingEngine } from "./streaming-engine.js";
import { loadSubtitles } from "./subtitles.js";
import { TDFHLSStream } from "./tdf-hls.js";

/**
 * A player bound to one <video> element.
 *
 *   const player = new MediaDRMPlayer(video, { kas: "https://kas.example.com", token: async () => "..." });
 *   await player.load("https://cdn.example.com/talk.tdf");
 *
 * Events (CustomEvent, `detail`): `keysdelivered` ({component} once per component key, then
 * {all: true}); `error` ({error, code, reason, check}); `admitted` ({profile, duration});
 * `variantchange` (tdf-hls ladders: {from, to, segment, bandwidth, width, height, estimate,
 * bufferAhead, direction, abandoned} when the ABR rule of abr.js moves to another video variant;
 * `abandoned` when a batch in flight was given up for it);
 * `ratelimited` (tdf-hls: {retryAfter, attempt} before the player waits out a 429's
 * Retry-After and asks again); `trackschange` (after load and after an audio or subtitle change:
 * the qualities, audio tracks and subtitle tracks may have changed).
 * The element's own controls and events (playing, seeking, ended) work as usual.
 *
 * Settings (buffer goals, ABR, retry limits, timeouts) are one object: `configure(partial)`,
 * `getConfiguration()` (configuration.js, docs/web.md "Configuration").
 */
export class MediaDRMPlayer extends EventTarget {
  /** `options.kas`: the key service origin; `options.token`: a string or an async function
   * returning the viewer's bearer token (called before each request; the last value is kept to
   * end sessions on unload); `options.configuration`: a partial configuration, as configure()
   * takes. */
  constructor(video, options = {}) {
    super();
    if (!(video instanceof HTMLMediaElement)) throw new TypeError("MediaDRMPlayer needs a <video> element");
    if (typeof options.kas !== "string") throw new TypeError("MediaDRMPlayer needs the kas option (the key service URL)");
    if (typeof options.token !== "string" && typeof options.token !== "function") throw new TypeError("MediaDRMPlayer needs the token option (a string or an async function)");
    this.video = video;
    this.options = options;
    this.configuration = options.configuration === undefined ? DEFAULT_CONFIGURATION
      : mergeConfiguration(DEFAULT_CONFIGURATION, options.configuration);
    this.current = null;
    this.textTracks = new Map();   // subtitle rendition URL -> the TextTrack read from it
    this.onPageHide = () => this.current?.sessions?.stopOnUnload();
    window.addEventListener("pagehide", this.onPageHide);
  }

  /** Merges `partial` (e.g. `{ streaming: { bufferAheadSeconds: 30 } }`) into the settings; an
   * unknown key or a value out of range throws (TypeError, RangeError) and changes nothing.
   * Applies from the next load(). */
  configure(partial) {
    this.configuration = mergeConfiguration(this.configuration, partial);
  }

  /** The settings in force (a frozen object: change them with configure()). */
  getConfiguration() {
    return this.configuration;
  }

  /** Admits `src` (an fps-v2 package URL, or a tdf-hls master playlist URL ending in .m3u8; with
   * `options.licenseUrl` and `options.keyIds`, a ClearKey playback's `dashUrl` or `hlsUrl`) and
   * gets its first keys. Resolves when playback can start; rejects with a PlayerError carrying
   * `reason` on a refusal. Unloads whatever was loaded before. `options.playbackId`: the
   * delivery playback (`POST /media/v1/playback`) the media sessions join; `options.audioLanguage`:
   * the audio rendition wanted (BCP 47 prefix match; else the default); `options.licenseUrl`,
   * `options.keyIds`: a ClearKey playback answer's licence URL and its component -> key id map. */
  async load(src, options = {}) {
    checkClearKeyOptions(src, options);
    this.source = { src, options: { playbackId: options.playbackId ?? null, licenseUrl: options.licenseUrl, keyIds: options.keyIds } };
    await this.unload();
    try {
      requireBrowserAPIs();
    } catch (error) {
      this.emitError(error);
      throw error;
    }
    const abort = new AbortController();
    const current = { abort, engine: null, sessions: null, cdm: null, stream: null, subtitles: null };
    this.current = current;
    // A decode or CDM failure the element reports ends the playback like any other error.
    current.onMediaError = () => this.failDuringPlayback(current, new PlayerError("media",
      `the browser could not play the media (${this.video.error?.message || `error ${this.video.error?.code}`})`));
    this.video.addEventListener("error", current.onMediaError);
    const service = new KeyService(this.options.kas, this.options.token, { signal: abort.signal, network: this.configuration.network });
    const url = new URL(src, document.baseURI).href;
    try {
      if (options.licenseUrl !== undefined) await this.loadClearKey(current, service, url, options);
      else if (new URL(url).pathname.endsWith(".m3u8")) await this.loadTDFHLS(current, service, url, options);
      else await this.loadFPSv2(current, service, url, options);
      this.emit("trackschange", {});
    } catch (error) {
      // A failure the playback already reported (the engine's, during start-up) is the reason
      // the load failed; the abort it caused is not a second error.
      if (current.failure) throw current.failure;
      const failure = this.asPlayerError(error);
      if (this.current === current) await this.unload();
      this.emitError(failure);
      throw failure;
    }
  }

  async loadFPSv2(current, service, url, { playbackId }) {
    const pkg = await FPSv2Package.admit(url, { keyServiceURL: this.options.kas, signal: current.abort.signal });
    this.emit("admitted", { profile: "fps-v2", duration: pkg.duration });
    const [video, audio] = pkg.components;
    // The media side gets ready while the keys come (docs/web.md, "Start-up"): the CDM is set
    // up, the MediaSource opens and takes the inits, and the first segments (encrypted, public)
    // stream in. Their samples wait in the decoder for their keys (EME's "waiting for key"), so
    // the first frame follows the last key instead of its download, parsing and decoding
    // starting then. Nothing goes to the KAS before admission passed; load() resolves once
    // every key is in the CDM and the MediaSource has the inits.
    const cdmReady = ClearKeyCDM.attach(this.video, { videoCodec: video.codec, audioCodec: audio?.codec });
    // Kept so that an unload during the attach still closes and detaches what it attached.
    current.cdm = cdmReady.catch(() => null);
    current.sessions = new MediaSessions(service, {
      assetId: pkg.uuid, manifest: pkg.manifestBytes, components: pkg.components, cdm: cdmReady, playbackId,
      onKey: (component) => this.emit("keysdelivered", { component }),
      onFailure: (error) => this.failDuringPlayback(current, error),
    });
    const keys = current.sessions.acquireAll().then(() => this.emit("keysdelivered", { all: true }));
    current.engine = new StreamingEngine(this.video, pkg.components.map((c) => ({
      mime: `${c.id}/mp4; codecs="${c.codec}"`, init: c.init, segments: c.segments,
      fetch: (index, options) => pkg.segment(c, index, options),
    })), { onError: (error) => this.failDuringPlayback(current, error), streaming: this.configuration.streaming });
    // The first failure of either side fails the load; unload() stops the other.
    await Promise.all([keys, current.engine.start(pkg.duration)]);
  }

  async loadTDFHLS(current, service, url, { playbackId, audioLanguage }) {
    const stream = await TDFHLSStream.open(url, { service, signal: current.abort.signal, isTypeSupported: (m) => MediaSource.isTypeSupported(m),
      settings: this.configuration, audioLanguage,
      onVariant: (change) => this.emit("variantchange", change),
      onRateLimited: (wait) => this.emit("ratelimited", wait),
      // A policy with media rules: one media session for the playback, ended as fps-v2's are
      // (destroy, failure, pagehide).
      startMediaSession: (assetId) => {
        current.sessions = new MediaSessions(service, { assetId, playbackId, onFailure: (error) => this.failDuringPlayback(current, error) });
        return current.sessions.startPlayback();
      } });
    current.stream = stream;
    this.emit("admitted", { profile: "tdf-hls", duration: stream.duration });
    // As for fps-v2, the media side gets ready while the first batch's keys come: the
    // MediaSource opens and takes the inits (clear, from the playlists) during the first
    // rewrap, so the first segment is appended as soon as its key is in hand.
    const keys = stream.prefetchKeys(0).then(() => this.emit("keysdelivered", { all: true }));
    current.engine = new StreamingEngine(this.video, stream.renditions.map((r) => ({
      mime: r.mime, init: r.init, segments: r.segments, fetch: (index, options) => stream.segment(r, index, options),
      adapt: r.variants ? (index, bufferAhead) => stream.adapt(r, index, bufferAhead) : undefined,
    })), { onError: (error) => this.failDuringPlayback(current, error), streaming: this.configuration.streaming });
    // The first failure of either side fails the load; unload() stops the other.
    await Promise.all([keys, current.engine.start(stream.duration)]);
  }

  async loadClearKey(current, service, url, { licenseUrl, keyIds, audioLanguage }) {
    const stream = await ClearKeyStream.open(url, { signal: current.abort.signal, isTypeSupported: (m) => MediaSource.isTypeSupported(m),
      settings: this.configuration, audioLanguage, onVariant: (change) => this.emit("variantchange", change) });
    current.stream = stream;
    const keys = stream.keysFor(keyIds);
    this.emit("admitted", { profile: stream.profile, duration: stream.duration });
    // As for fps-v2, the media side gets ready while the licence comes: the CDM is set up, the
    // MediaSource opens and takes the inits, and the first segments wait in the decoder for
    // their keys. One licence request names every key the played renditions need.
    const cdmReady = ClearKeyCDM.attach(this.video, stream.codecs);
    current.cdm = cdmReady.catch(() => null);
    const licensed = cdmReady
      // A licence answered 429 with Retry-After is asked again, as a tdf-hls rewrap is.
      .then((cdm) => cdm.requestLicence(keys.map(({ kid }) => hexBytes(kid)), (message) => withRetryAfter(() => service.licence(licenseUrl, message),
        { retry: this.configuration.retry, signal: current.abort.signal, onRateLimited: (wait) => this.emit("ratelimited", wait) })))
      .then(() => {
        for (const { component } of keys) this.emit("keysdelivered", { component });
        this.emit("keysdelivered", { all: true });
      });
    current.engine = new StreamingEngine(this.video, stream.renditions.map((r) => ({
      mime: r.mime, init: r.init, segments: r.segments, fetch: (index, options) => stream.segment(r, index, options),
      adapt: r.variants ? (index, bufferAhead) => stream.adapt(r, index, bufferAhead) : undefined,
    })), { onError: (error) => this.failDuringPlayback(current, error), streaming: this.configuration.streaming });
    await Promise.all([licensed, current.engine.start(stream.duration)]);
  }

  // MARK: Tracks (tdf-hls and ClearKey playbacks; an fps-v2 package has one video and one audio)

  /** The video qualities: [{index, width, height, bandwidth}], lowest first, and `selected`:
   * the pinned index or "auto". */
  get qualities() {
    const video = this.current?.stream?.renditions.find((r) => r.variants);
    return { selected: this.current?.stream?.pinned ?? "auto", active: video?.current ?? 0,
      list: (video?.variants ?? []).map((v, index) => ({ index, width: v.width, height: v.height, bandwidth: v.bandwidth })) };
  }

  /** Pins the video quality `index` (from the next segment on), or "auto" for the ABR rule. */
  setQuality(index) {
    const stream = this.current?.stream;
    if (!stream) return;
    const count = stream.renditions.find((r) => r.variants)?.variants.length ?? 0;
    if (index !== "auto" && !(Number.isInteger(index) && index >= 0 && index < count)) throw new RangeError(`there is no quality ${index}`);
    stream.pin(index === "auto" ? null : index);
    this.emit("trackschange", {});
  }

  /** The audio renditions [{language, name}] and the one playing (`selected`, a language). */
  get audioTracks() {
    const stream = this.current?.stream;
    return { selected: stream?.audioLanguage ?? null, list: (stream?.audioTracks ?? []).map(({ language, name }) => ({ language, name })) };
  }

  /** Plays the audio rendition in `language`: the title is loaded again with it and resumes at
   * the same time, with the same quality choice and subtitles (its keys are asked for again, in
   * the same delivery playback). */
  async setAudioLanguage(language) {
    if (!this.source || language === this.audioTracks.selected) return;
    const time = this.video.currentTime, paused = this.video.paused;
    const pinned = this.current?.stream?.pinned ?? null, subtitles = this.subtitleTracks.selected;
    await this.load(this.source.src, { ...this.source.options, audioLanguage: language });
    if (pinned !== null) this.setQuality(pinned);
    if (subtitles !== null) await this.setSubtitles(subtitles);
    this.video.currentTime = time;
    if (!paused) await this.video.play();
  }

  /** The subtitle renditions [{language, name}] and the one shown (`selected`, or null). */
  get subtitleTracks() {
    const current = this.current;
    return { selected: current?.subtitles?.language ?? null,
      list: (current?.stream?.subtitleTracks ?? []).map(({ language, name }) => ({ language, name })) };
  }

  /** Shows the subtitle rendition in `language`, or none with null. */
  async setSubtitles(language) {
    const current = this.current;
    if (!current) return;
    if (current.subtitles) current.subtitles.track.mode = "disabled";
    current.subtitles = null;
    const wanted = current.stream?.subtitleTracks.find((t) => t.language === language);
    if (wanted) {
      // An element keeps every TextTrack it was given: one read before is shown again.
      let track = this.textTracks.get(wanted.url);
      if (!track) {
        track = await loadSubtitles(this.video, wanted, current.abort.signal);
        this.textTracks.set(wanted.url, track);
      }
      track.mode = "showing";
      current.subtitles = { language, track };
    }
    this.emit("trackschange", {});
  }

  /** Stops playback, ends every media session and detaches from the element. */
  async destroy() {
    await this.unload();
    window.removeEventListener("pagehide", this.onPageHide);
  }

  async unload() {
    const current = this.current;
    this.current = null;
    if (!current) return;
    this.video.removeEventListener("error", current.onMediaError);
    if (current.subtitles) current.subtitles.track.mode = "disabled";
    current.abort.abort();
    current.engine?.destroy();
    await current.sessions?.stop();
    this.video.removeAttribute("src");
    this.video.load();
    // The sessions close, then MediaKeys leave the element (ClearKeyCDM.close), so the element
    // can play anything next, a clear file included.
    const cdm = await current.cdm;
    await cdm?.close().catch(() => {});
  }

  failDuringPlayback(current, error) {
    if (this.current !== current) return;
    const failure = this.asPlayerError(error);
    current.failure = failure;
    this.unload();
    this.emitError(failure);
  }

  asPlayerError(error) {
    if (error instanceof PlayerError) return error;
    if (error?.name === "AbortError") return new PlayerError("aborted", "loading was stopped");
    return new PlayerError("internal", `the player failed: ${error?.message ?? error}`);
  }

  emitError(error) {
    this.emit("error", { error, code: error.code, reason: error.reason ?? null, check: error.check ?? null });
  }

  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** The 16 bytes of a key id given as 32 hex digits. */
const hexBytes = (text) => Uint8Array.from(text.match(/../g), (pair) => parseInt(pair, 16));

/** A ClearKey playback's options, checked before anything is loaded: `licenseUrl` an absolute
 * http(s) URL and `keyIds` component -> 32 hex digits, together; a DASH MPD needs them. */
function checkClearKeyOptions(src, { licenseUrl, keyIds }) {
  if (licenseUrl === undefined && keyIds === undefined) {
    if (typeof src === "string" && /\.mpd(\?|#|$)/.test(src)) throw new TypeError("a DASH MPD plays with the licenseUrl and keyIds options (a ClearKey playback's answer)");
    return;
  }
  let url = null;
  try { url = new URL(licenseUrl); } catch { url = null; }
  if (!url || !["https:", "http:"].includes(url.protocol)) throw new TypeError("the licenseUrl option is not an absolute http(s) URL");
  const entries = keyIds !== null && typeof keyIds === "object" ? Object.entries(keyIds) : [];
  if (!entries.length || entries.length > 16 || !entries.every(([, kid]) => typeof kid === "string" && /^[0-9a-fA-F]{32}$/.test(kid))) {
    throw new TypeError("the keyIds option is not an object of component -> key id (32 hex digits)");
  }
}

export { PlayerError };

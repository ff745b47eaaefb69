// A tdf-hls stream (docs/formats.md "tdf-hls stream"): ordinary playlists whose segments are
// Standard TDFs of clear CMAF fragments. Keys come by the path the Swift client uses: when a
// segment's key is missing, the archives of the next LOOKAHEAD segments of every rendition are
// fetched and all their keys asked for in ONE bulk rewrap with a fresh P-256 key. A policy
// without media rules goes to the OpenTDF rewrap (a signed request token, docs/protocol.md
// "OpenTDF routes"); a policy with `arkavo:media` only to the media rewrap (`POST
// /media/v1/rewrap`) through the playback's media session, started with the first batch and
// kept by MediaSessions, in batches within the KAS's per-request limits. A rate limit (429 with
// Retry-After, no refusal code) is waited out and the request made again (`onRateLimited`).
// Each segment is verified and decrypted with WebCrypto (TDFArchive) before its clear fragment
// reaches MediaSource. A
// ladder's video variants are all opened (playlists and inits only); the next segment's variant
// is chosen by the ABR rule (abr.js) from the bandwidth measured on segment downloads while they
// run (measured-download.js); a batch that cannot arrive before the video buffer runs out is
// given up for a lower variant.
import { AbandonedTransfer, shouldAbandon } from "./abr.js";
import { anySignal } from "./browser-support.js";
import { base64Decode, base64urlEncode, utf8 } from "./bytes.js";
import { DEFAULT_CONFIGURATION } from "./configuration.js";
import { PlayerError, malformed } from "./errors.js";
import { normalizeKeyServiceURL } from "./fps-v2-manifest.js";
import { readLenient } from "./hls-playlist.js";
import { ephemeralKey, unwrapKey } from "./key-unwrap.js";
import { downloadBatch, fetchBytes, fileName } from "./measured-download.js";
import { withRetryAfter } from "./rate-limit-wait.js";
import { isObject, parseStrictJSON } from "./strict-json.js";
import { TDFArchive } from "./tdf-archive.js";
import { VariantLadder } from "./variant-ladder.js";

const LOOKAHEAD = 4;
const MEDIA_RULES_KEY = "arkavo:media";
// The media rewrap's limits per request (docs/protocol.md, `POST /media/v1/rewrap`).
const MEDIA_REWRAP_MAX_OBJECTS = 512;
const MEDIA_REWRAP_MAX_POLICIES = 4;
const MAX_SEGMENT_BYTES = 64 << 20;
const MAX_INIT_BYTES = 1 << 20;

async function signedRequestToken(body, signingKey) {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value) => base64urlEncode(utf8.encode(JSON.stringify(value)));
  const input = `${encode({ alg: "ES256", typ: "JWT" })}.${encode({ exp: now + 60, iat: now, requestBody: body })}`;
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, signingKey, utf8.encode(input));
  return `${input}.${base64urlEncode(new Uint8Array(signature))}`;
}

/** A segment policy's uuid and whether it carries `arkavo:media` (docs/formats.md, "tdf-hls
 * stream"): such a policy is served only by the media rewrap, through a media session. */
function readPolicy(text) {
  const bytes = base64Decode(text);
  const policy = bytes && parseStrictJSON(utf8.decode(bytes), "a tdf-hls segment's policy");
  if (!isObject(policy) || typeof policy.uuid !== "string") throw malformed("a tdf-hls segment's policy is not a JSON object with a uuid");
  return { uuid: policy.uuid, hasMediaRules: Object.hasOwn(policy, MEDIA_RULES_KEY) };
}

/** The OpenTDF v2 bulk `requests` (docs/protocol.md): one per policy text, ids by position. */
const bulkRequests = (policies) => [...policies].map(([policy, objects], i) =>
  ({ algorithm: "ec:secp256r1", keyAccessObjects: objects, policy: { body: policy, id: `policy-${i}` } }));

/** `policies` split so that each media rewrap stays within the KAS's per-request limits. */
function mediaRewrapBatches(policies) {
  const batches = [];
  let batch = new Map(), count = 0;
  for (const [policy, objects] of policies) {
    for (let at = 0; at < objects.length;) {
      if (count === MEDIA_REWRAP_MAX_OBJECTS || (!batch.has(policy) && batch.size === MEDIA_REWRAP_MAX_POLICIES)) {
        batches.push(batch);
        batch = new Map();
        count = 0;
      }
      const take = objects.slice(at, at + MEDIA_REWRAP_MAX_OBJECTS - count);
      batch.set(policy, [...(batch.get(policy) ?? []), ...take]);
      count += take.length;
      at += take.length;
    }
  }
  if (count) batches.push(batch);
  return batches;
}

/** The 32-byte payload keys of a RewrapResponse, by key access object id: every requested id
 * must be there and permitted. */
async function unwrapResults(answer, requests, privateKey) {
  if (typeof answer.sessionPublicKey !== "string" || !Array.isArray(answer.responses)) throw malformed("the rewrap answer has no session public key or no responses");
  const results = new Map();
  for (const policy of answer.responses) for (const result of Array.isArray(policy?.results) ? policy.results : []) results.set(result?.keyAccessObjectId, result);
  const keys = new Map();
  for (const { keyAccessObjectId: id } of requests.flatMap((r) => r.keyAccessObjects)) {
    const result = results.get(id);
    if (!result) throw malformed("the rewrap answer left out a requested key");
    if (result.status !== "permit") throw TDFHLSStream.refusal(result);
    if (!base64Decode(result.kasWrappedKey || "")) throw malformed("a permitted rewrap result has no wrapped key");
    const key = await unwrapKey(result.kasWrappedKey, answer.sessionPublicKey, privateKey);
    if (key.length !== 32) throw malformed("a rewrapped payload key is not 32 bytes");
    keys.set(id, key);
  }
  return keys;
}

/** Whether a rendition's BCP 47 `language` is `wanted` or a subtag of it (`es` takes `es-MX`),
 * as the Swift client's `--audio-lang` matches. */
export function languageMatches(language, wanted) {
  if (!language || !wanted) return false;
  const a = language.toLowerCase(), b = wanted.toLowerCase();
  return a === b || a.startsWith(`${b}-`);
}

export class TDFHLSStream extends VariantLadder {
  /** Reads the master and media playlists and the clear inits of every variant whose codecs
   * MediaSource plays (ascending by BANDWIDTH; those whose segments do not start at the first's
   * times are left out, since no switch to them is seamless) and of the default audio
   * rendition of their group (or the one in `audioLanguage`, a BCP 47 prefix match). Playback
   * starts on the lowest variant. `settings`: the player's configuration. */
  static async open(url, { service, signal, isTypeSupported, onVariant, startMediaSession, onRateLimited,
    settings = DEFAULT_CONFIGURATION, audioLanguage = null }) {
    const master = readLenient(utf8.decode(await fetchBytes(url, signal, 1 << 20)), url);
    if (master.profile !== "tdf-hls") throw malformed("the master playlist does not carry the tdf-hls profile marker");
    const avc = (v) => v.codecs.find((c) => c.startsWith("avc1")) || v.codecs[0];
    const playable = master.variants.filter((v) => isTypeSupported(`video/mp4; codecs="${avc(v)}"`)).sort((a, b) => a.bandwidth - b.bandwidth);
    if (!playable.length) throw new PlayerError("unsupported", "this browser plays none of the stream's variants", { reason: "codec_unsupported" });
    const load = async (id, mediaURL, mime) => {
      const playlist = readLenient(utf8.decode(await fetchBytes(mediaURL, signal, 1 << 20)), mediaURL);
      if (!playlist.map || playlist.segments.length === 0 || !playlist.ended) throw malformed(`${fileName(mediaURL)} is not a complete VOD playlist with a map`);
      let start = 0;
      const segments = playlist.segments.map((s) => { const out = { url: s.url, start, duration: s.duration }; start += s.duration; return out; });
      return { id, mime, init: await fetchBytes(playlist.map, signal, MAX_INIT_BYTES), segments };
    };
    const loaded = await Promise.all(playable.map(async (v, i) => ({
      ...(await load(`video${i}`, v.url, `video/mp4; codecs="${avc(v)}"`)), bandwidth: v.bandwidth, width: v.width, height: v.height })));
    const aligned = (a, b) => a.segments.length === b.segments.length && a.segments.every((s, n) => Math.abs(s.start - b.segments[n].start) < 1e-3);
    const variants = loaded.filter((v) => aligned(v, loaded[0]));
    // `current`: the variant segments come from; `appended`: the one whose init the
    // SourceBuffer has (start() appends the first's).
    const video = { id: "video", variants, current: 0, appended: 0, ceiling: null, mime: variants[0].mime, init: variants[0].init,
      segments: variants[0].segments };
    const renditions = [video];
    const audio = master.audio.filter((a) => a.group === playable[0].audioGroup);
    const chosenAudio = audio.find((a) => languageMatches(a.language, audioLanguage)) || audio.find((a) => a.isDefault) || audio[0];
    const audioCodec = playable[0].codecs.find((c) => c.startsWith("mp4a"));
    if (chosenAudio && audioCodec && isTypeSupported(`audio/mp4; codecs="${audioCodec}"`)) {
      renditions.push(await load("audio", chosenAudio.url, `audio/mp4; codecs="${audioCodec}"`));
    }
    const tracks = (list) => list.map(({ url: trackURL, language, name }) => ({ url: trackURL, language, name }));
    const stream = new TDFHLSStream(renditions, { service, signal, onVariant, startMediaSession, onRateLimited, settings });
    stream.audioTracks = tracks(audio);
    stream.audioLanguage = renditions.length > 1 ? chosenAudio.language : null;
    stream.subtitleTracks = tracks(master.subtitles.filter((t) => t.group === playable[0].subtitleGroup));
    return stream;
  }

  constructor(renditions, { service, signal, onVariant, startMediaSession, onRateLimited, settings = DEFAULT_CONFIGURATION }) {
    super(renditions, { onVariant, settings });
    this.service = service;
    this.signal = signal;
    this.startMediaSession = startMediaSession;
    this.onRateLimited = onRateLimited;
    this.route = null;           // a promise of the media session id, or of null (bulk rewrap)
    this.archives = new Map();   // "<id>-<n>" -> TDFArchive awaiting its key
    this.keys = new Map();       // "<id>-<n>" -> 32-byte payload key (dropped once used)
    this.pending = null;         // the batch in flight: {promise, controller}
    this.failure = null;         // a batch's failure other than a cancel: final for the playback
  }

  /** Keys and archives fetched ahead for the variant `id`, which the video leaves, are dropped. */
  forget(id) {
    for (const [name, key] of this.keys) if (name.startsWith(`${id}-`)) { key.fill(0); this.keys.delete(name); }
    for (const name of [...this.archives.keys()]) if (name.startsWith(`${id}-`)) this.archives.delete(name);
  }

  /** Fetches the archives of segments index..index+LOOKAHEAD of every rendition and gets all
   * their missing keys in one rewrap (the media rewrap when the policy has media rules). A
   * caller that finds a batch in flight waits for it (its `signal`, a seek's, cancels that
   * batch too). Throws AbandonedTransfer when the batch was given up for a lower variant. */
  async prefetchKeys(index, signal) {
    if (this.failure) throw this.failure;
    const cancelOnAbort = (controller) => signal?.addEventListener("abort", () => controller.abort(), { once: true });
    if (this.pending) {
      cancelOnAbort(this.pending.controller);
      return this.pending.promise;
    }
    const controller = new AbortController();
    cancelOnAbort(controller);
    const promise = this.rewrapFrom(index, anySignal([this.signal, controller.signal]));
    this.pending = { promise, controller };
    try {
      await promise;
    } catch (error) {
      if (!(error instanceof AbandonedTransfer) && error?.name !== "AbortError") this.failure = error;
      throw error;
    } finally {
      if (this.pending?.promise === promise) this.pending = null;
    }
  }

  async rewrapFrom(index, signal) {
    const wanted = [];
    const video = this.renditions.find((r) => r.variants);
    for (const r of this.renditions) {
      const source = TDFHLSStream.source(r);
      for (let n = index; n < Math.min(index + LOOKAHEAD, source.segments.length); n++) {
        const id = `${source.id}-${n}`;
        if (!this.keys.has(id)) wanted.push({ id, url: source.segments[n].url, isVideo: r === video,
          expectedBytes: r === video ? (source.bandwidth * source.segments[n].duration) / 8 : 0 });
      }
    }
    if (!wanted.length) return;
    // The archives come in parallel, measured as one transfer while they arrive.
    const fetching = wanted.filter((w) => !this.archives.has(w.id));
    const variant = video?.current ?? 0;
    const lowest = video?.variants[0];
    const giveUp = this.mayAbandon ? ({ loadedBytes, totalBytes, elapsedMs, lengths }) => {
      // In place of this batch: the same, with the lowest variant's video (by the BANDWIDTH ratio).
      const videoBytes = fetching.reduce((sum, w, i) => sum + (w.isVideo ? lengths[i] : 0), 0);
      const lowerBytes = totalBytes - videoBytes + videoBytes * (lowest.bandwidth / video.variants[variant].bandwidth);
      return shouldAbandon({ loadedBytes, totalBytes, elapsedMs, bufferAhead: this.videoBufferAhead(), lowerBytes });
    } : null;
    try {
      await downloadBatch(fetching, { meter: this.meter, signal, limit: MAX_SEGMENT_BYTES, giveUp,
        // Each archive is kept as it arrives: a batch given up or cancelled keeps what came.
        onItem: (i, bytes) => { if (this.isCurrent(fetching[i].id)) this.archives.set(fetching[i].id, new TDFArchive(bytes)); } });
    } catch (error) {
      if (error instanceof AbandonedTransfer) this.abandoned(video, variant, index);
      throw error;
    }
    const archives = wanted.map((w) => this.archives.get(w.id));
    if (archives.some((a) => !a)) throw new AbandonedTransfer();   // a variant switch dropped some meanwhile
    const accepted = normalizeKeyServiceURL(this.service.base);
    const policies = new Map();
    archives.forEach((archive, i) => {
      this.archives.set(wanted[i].id, archive);
      if (normalizeKeyServiceURL(archive.keyAccess.url) !== accepted) throw malformed("a tdf-hls segment names a key service other than the one given");
      if (!policies.has(archive.policy)) policies.set(archive.policy, []);
      policies.get(archive.policy).push({ keyAccessObjectId: wanted[i].id, keyAccessObject: archive.keyAccess });
    });
    // The route is chosen once, from the first batch's policies, as the Swift client does.
    this.route ??= this.chooseRoute([...policies.keys()]);
    const sessionId = await this.route;
    for (const batch of sessionId ? mediaRewrapBatches(policies) : [policies]) {
      const keys = await this.withRetryAfter(() => sessionId ? this.mediaRewrap(sessionId, batch) : this.bulkRewrap(batch));
      // A key of a variant left while the rewrap ran is dropped at once, like forget()'s.
      for (const [id, key] of keys) if (this.isCurrent(id)) this.keys.set(id, key); else key.fill(0);
    }
  }

  /** Whether "<id>-<n>" belongs to what a rendition plays now (not a variant it left). */
  isCurrent(name) {
    return this.renditions.some((r) => name.startsWith(`${TDFHLSStream.source(r).id}-`));
  }

  /** The media session's id when a policy carries media rules (the session is started then,
   * for the policy uuid), else null: the bulk OpenTDF rewrap. */
  async chooseRoute(policyTexts) {
    const ruled = policyTexts.map(readPolicy).find((policy) => policy.hasMediaRules);
    if (!ruled) return null;
    if (!this.startMediaSession) throw new PlayerError("denied", "the stream's policy has media rules and no media session can be started", { reason: "media_rules_need_sessions" });
    return this.startMediaSession(ruled.uuid);
  }

  /** One `POST /kas/v2/rewrap` of `policies` (policy text -> key access objects) with a signed
   * request token made with a fresh P-256 key. */
  async bulkRewrap(policies) {
    const { privateKey, publicKeyPEM, signingKey } = await ephemeralKey({ signing: true });
    const requests = bulkRequests(policies);
    const token = await signedRequestToken(JSON.stringify({ clientPublicKey: publicKeyPEM, requests }), signingKey);
    return unwrapResults(await this.service.rewrap(token), requests, privateKey);
  }

  /** One `POST /media/v1/rewrap` of `policies` through the media session, with a fresh P-256 key. */
  async mediaRewrap(sessionId, policies) {
    const { privateKey, publicKeyPEM } = await ephemeralKey();
    const requests = bulkRequests(policies);
    return unwrapResults(await this.service.mediaRewrap(sessionId, publicKeyPEM, requests), requests, privateKey);
  }

  /** Runs `request` again after a rate limit's `Retry-After` (rate-limit-wait.js). */
  withRetryAfter(request) {
    return withRetryAfter(request, { retry: this.settings.retry, signal: this.signal, onRateLimited: this.onRateLimited });
  }

  /** A `fail` rewrap result as a PlayerError: the KAS's `reason` code when it sent one, else
   * one read from its fixed error text (docs/protocol.md, "OpenTDF routes"). */
  static refusal(result) {
    const text = typeof result.error === "string" ? result.error : "";
    const given = typeof result.reason === "string" && /^[a-z0-9_]{1,64}$/.test(result.reason) ? result.reason : null;
    const reason = given ?? (text.startsWith("bad request") ? "malformed_request"
      : text.includes("not entitled") ? "not_entitled"
      : text.includes("dissemination") ? "dissem_excluded"
      : text.includes("media rules") ? "media_rules_need_sessions" : "denied");
    return new PlayerError("denied", "the key service denied a segment key", { reason, status: 403 });
  }

  /** The clear fragment of segment `index` of rendition `r`. `signal`: a seek or destroy
   * cancels the wait (and the batch it waits for); `bufferAhead`: the engine's seconds of this
   * rendition buffered ahead (the video's decide whether a batch in flight is given up). Throws
   * AbandonedTransfer when the video variant changed meanwhile: the engine asks again, after
   * appending the new variant's init. */
  async segment(r, index, { signal, bufferAhead } = {}) {
    if (r.variants && bufferAhead) this.videoBufferAhead = bufferAhead;
    const variant = r.current;
    const id = () => `${TDFHLSStream.source(r).id}-${index}`;
    for (let asked = false; !this.keys.has(id());) {
      if (signal?.aborted) throw new DOMException("stopped", "AbortError");
      if (asked) throw malformed("a segment key is missing after the rewrap");
      const mine = !this.pending;
      await (mine ? this.prefetchKeys(index, signal) : this.prefetchKeys(index, signal).catch((error) => {
        // Another caller's batch: its cancel or abandonment is that caller's; ask again.
        if (this.failure) throw this.failure;
        if (!(error instanceof AbandonedTransfer) && error?.name !== "AbortError") throw error;
      }));
      if (r.variants && r.current !== variant) throw new AbandonedTransfer();
      asked = mine;
    }
    if (r.variants && r.current !== variant) throw new AbandonedTransfer();
    const key = this.keys.get(id());
    const archive = this.archives.get(id());
    if (!key || !archive) throw malformed("a segment key is missing after the rewrap");
    try {
      return await archive.decrypt(key);
    } finally {
      key.fill(0);
      this.keys.delete(id());
      this.archives.delete(id());
    }
  }
}

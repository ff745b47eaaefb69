// The open path's media sessions of one playback (docs/protocol.md "Media routes"), as the
// Swift client keeps them, with one `playbackId` for all (concurrency counts playbacks).
// fps-v2, as ContentKeySession: one session per component; per component a key request with a
// fresh P-256 key; each key handed to the CDM and dropped; a renewal at the lease rule
// (max(lease − 120 s, lease / 2) after delivery: a new session, a new key request, then the
// previous session ended). tdf-hls with media rules, as TDFHLSMediaSession: one session for the
// playback (`startPlayback`) whose id goes with every media rewrap; its answers carry no lease,
// so nothing is renewed. Every session gets heartbeats every `heartbeatSeconds` and is ended on
// stop(), on a failure, and on page unload (keepalive requests).
import { base64Encode, base64urlEncode } from "./bytes.js";
import { ephemeralKey, unwrapKey } from "./key-unwrap.js";

export const renewalDelaySeconds = (lease) => Math.max(lease - 120, lease / 2);

export class MediaSessions {
  /** `manifest`, `components`, `cdm` and `onKey` serve fps-v2's key requests; a tdf-hls
   * playback gives only `assetId` (the policy uuid) and `onFailure`, and calls startPlayback.
   * `playbackId`: the delivery playback these sessions belong to (`POST /media/v1/playback`'s
   * id, so they take no second stream slot), or a fresh one.
   */
  constructor(service, { assetId, manifest = null, components = [], cdm = null, onKey = () => {}, onFailure, playbackId = null }) {
    this.service = service;
    this.assetId = assetId;
    this.manifest = manifest && base64Encode(manifest);
    this.components = components;
    this.cdm = cdm;
    this.onKey = onKey;
    this.onFailure = onFailure;
    this.playbackId = playbackId ?? base64urlEncode(crypto.getRandomValues(new Uint8Array(16)));
    this.open = new Set();
    this.timers = new Set();
    this.stopped = false;
  }

  /** Gets every component's key into the CDM; on any failure ends whatever was opened and throws.
   * The requests go out together; the audio key goes into the CDM before the video key. Chromium
   * decrypts and decodes both tracks on one media thread and starts playback only with some
   * audio decoded: with the video key first, every large video frame decoded there delays the
   * audio, and the first `playing` (docs/web.md, "Start-up"). */
  async acquireAll() {
    const audioKeys = new Map(this.components.filter((c) => c.id === "audio").map((c) => [c, this.acquire(c)]));
    const audioInstalled = Promise.allSettled(audioKeys.values());
    const results = await Promise.allSettled(this.components.map((c) => audioKeys.get(c) ?? this.acquire(c, { installAfter: audioInstalled })));
    const failure = results.find((r) => r.status === "rejected");
    if (failure) {
      await this.stop();
      throw failure.reason;
    }
    results.forEach((r, i) => this.schedule(this.components[i], r.value));
  }

  /** tdf-hls with media rules: starts the playback's one session, bound to the asset and the
   * kind of rendition played (`video`: a ladder's variant ids are not component ids, and one
   * session serves the video and audio segments), with its heartbeats. Returns its id. */
  async startPlayback(rendition = "video") {
    const grant = await this.start(rendition);
    this.schedule(rendition, grant);
    return grant.sessionId;
  }

  /** Starts one session of this playback; it is ended with the others. */
  async start(component) {
    const grant = await this.service.startSession({ assetId: this.assetId, component, playbackId: this.playbackId });
    this.open.add(grant.sessionId);
    if (this.stopped) { await this.end(grant.sessionId); throw new DOMException("stopped", "AbortError"); }
    return grant;
  }

  /** One component's key: a session, a key request, the key into the CDM (after `installAfter`
   * settles, when given). Returns the session's grant with the key's lease. */
  async acquire(component, { installAfter = null } = {}) {
    // The request's key pair is made while the session starts.
    const keyPair = ephemeralKey();
    keyPair.catch(() => {});   // reported below, unless the session start failed first
    const grant = await this.start(component.id);
    const { privateKey, publicKeyPEM } = await keyPair;
    const answer = await this.service.requestKey({ assetId: this.assetId, component: component.id, sessionId: grant.sessionId,
      manifest: this.manifest, clientPublicKey: publicKeyPEM });
    const key = await unwrapKey(answer.wrappedKey, answer.sessionPublicKey, privateKey);
    if (key.length !== 16) { key.fill(0); throw new Error("a content key is not 16 bytes"); }
    // `cdm` may still be setting up (a promise); the key waits for it, never the other way.
    try {
      await installAfter;
      await (await this.cdm).install(component.kid, key);
    } finally {
      key.fill(0);
    }
    this.onKey(component.id);
    return { ...grant, leaseSeconds: answer.leaseSeconds, deliveredAt: performance.now() };
  }

  /** Heartbeats for `live`, and its renewal when its key came with a lease. */
  schedule(component, live) {
    const heartbeat = setInterval(() => {
      this.service.heartbeat(live.sessionId).catch((error) => {
        // A session being renewed is replaced at the KAS by its successor's start (one live
        // session per playback and component), so a heartbeat already in flight may come back
        // 404: that is the renewal working, not the playback failing.
        if (live.renewing) return;
        if (error?.status === 404 || error?.status === 401) this.fail(error);
      });
    }, live.heartbeatSeconds * 1000);
    this.timers.add(heartbeat);
    if (live.leaseSeconds) {
      const renewal = setTimeout(async () => {
        this.timers.delete(renewal);
        live.renewing = true;
        clearInterval(heartbeat);
        this.timers.delete(heartbeat);
        if (this.stopped) return;
        try {
          const renewed = await this.acquire(component);
          await this.end(live.sessionId);   // §10.6: the previous session ends after the new key.
          this.schedule(component, renewed);
        } catch (error) {
          this.fail(error);
        }
      }, renewalDelaySeconds(live.leaseSeconds) * 1000);
      this.timers.add(renewal);
    }
  }

  fail(error) {
    if (this.stopped) return;
    this.stop();
    this.onFailure(error);
  }

  async end(sessionId) {
    if (!this.open.delete(sessionId)) return;
    try { await this.service.endSession(sessionId); } catch { /* it times out at the KAS */ }
  }

  /** Ends every session (safe to call more than once), after the requests naming them that are
   * still in flight have been answered (KeyService.settled). */
  async stop() {
    this.stopped = true;
    for (const timer of this.timers) { clearTimeout(timer); clearInterval(timer); }
    this.timers.clear();
    if (this.open.size > 0) await this.service.settled();
    await Promise.all([...this.open].map((id) => this.end(id)));
  }

  /** The unload path: keepalive DELETEs that outlive the page. */
  stopOnUnload() {
    this.stopped = true;
    for (const timer of this.timers) { clearTimeout(timer); clearInterval(timer); }
    for (const id of this.open) this.service.endOnUnload(id);
    this.open.clear();
  }
}

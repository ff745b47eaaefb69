// The KAS media routes and the OpenTDF rewrap route (docs/protocol.md) from the page. The token
// travels only as `Authorization: Bearer` (never in a URL); answers are parsed strictly; a
// refusal becomes a PlayerError whose `reason` is the KAS's refusal code when it sent one
// (`{"error": "platform refused", "reason": "not_entitled"}`), else one derived from the status.
import { DEFAULT_CONFIGURATION } from "./configuration.js";
import { PlayerError, malformed } from "./errors.js";
import { isObject, parseStrictJSON } from "./strict-json.js";

const SESSION_ID = /^[A-Za-z0-9_-]{1,256}$/;
const MAX_ANSWER_BYTES = 4 << 20;
// A Retry-After larger than a day is read as a day: a cap on the value read, so a hostile
// header cannot make a number of it the page cannot use. Whether the player waits that long is
// the configuration's retry.longestRetryAfterSeconds (tdf-hls.js), a different rule.
const RETRY_AFTER_READ_CAP_SECONDS = 86400;

/** `promise`, or an AbortError as soon as `signal` aborts (the promise itself runs on). */
function untilAborted(promise, signal) {
  if (!signal) return promise;
  return new Promise((resolve, reject) => {
    const aborted = () => reject(new DOMException("stopped", "AbortError"));
    if (signal.aborted) { aborted(); return; }
    signal.addEventListener("abort", aborted, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", aborted));
  });
}

/** `promise`, or a `transport` PlayerError once `seconds` passed without its answer (the request
 * itself runs on: one naming a session is still waited for by settled()). */
function withTimeout(promise, seconds, route) {
  let timer;
  const expired = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new PlayerError("transport", `the key service did not answer ${route} within ${seconds} s`, { reason: "timeout" })), seconds * 1000);
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** The whole seconds of a `Retry-After` header (RFC 9110 §10.2.3, the delay form the KAS sends),
 * or undefined. */
function retryAfterSeconds(headers) {
  const value = headers.get("Retry-After");
  return value && /^[0-9]{1,6}$/.test(value) ? Math.min(Number(value), RETRY_AFTER_READ_CAP_SECONDS) : undefined;
}

/** The reason a refusal carries when the KAS gave none (statuses by fps-v2 §10.5). */
function derivedReason(status, error) {
  if (status === 401) return "unauthorized";
  if (status === 429) return error === "concurrency limit" ? "concurrent_streams" : error === "rate limit" ? "rate_limit" : "too_many_sessions";
  if (status === 403) return error === "manifest refused" ? "manifest_refused" : "denied";
  if (status === 404) return "session_ended";
  return status >= 500 ? "unavailable" : "malformed_request";
}

/** A KAS answer read strictly: the JSON object, or the refusal as a PlayerError whose `reason`
 * is the KAS's refusal code when it sent one, else derived from the status. */
async function readAnswer(response, route) {
  const text = await response.text();
  if (text.length > MAX_ANSWER_BYTES) throw malformed(`the key service's ${route} answer is too large`);
  let object = null;
  try { object = parseStrictJSON(text, `the ${route} answer`); } catch { object = null; }
  if (!response.ok) {
    const error = isObject(object) && typeof object.error === "string" ? object.error : null;
    const given = isObject(object) && typeof object.reason === "string" && /^[a-z0-9_]{1,64}$/.test(object.reason) ? object.reason : null;
    const reason = given ?? derivedReason(response.status, error);
    throw new PlayerError(response.status === 429 ? "limit" : response.status === 401 ? "unauthorized" : response.status >= 500 ? "transient" : "denied",
      `the key service refused ${route}: ${response.status} ${error ?? ""}`.trim(),
      // A 429 without a refusal code is the viewer's request budget running dry (a rate
      // limit, docs/protocol.md): its Retry-After says when to ask again.
      { reason, status: response.status, retryAfter: response.status === 429 && !given ? retryAfterSeconds(response.headers) : undefined });
  }
  if (!isObject(object)) throw malformed(`the key service's ${route} answer is not a JSON object`);
  return object;
}

export class KeyService {
  /** `base` the KAS origin; `token()` resolves to the bearer token (the last one is kept in
   * `lastToken` for the unload path); `network`: the configuration's network group (the
   * timeout of one call, the wait of a session's end). */
  constructor(base, token, { signal, network = DEFAULT_CONFIGURATION.network } = {}) {
    this.base = base.replace(/\/+$/, "");
    this.network = network;
    this.tokenSource = token;
    this.lastToken = null;
    this.signal = signal;
    this.inFlight = new Set();
  }

  /** Resolves once every request naming a session that was in flight has been answered (at most
   * network.sessionEndWaitSeconds). The session's end waits for it: the KAS judges a request when it reads it,
   * so a key request the page sent just before destroy() but answered after the end would be
   * refused (and audited) as one for an ended session. */
  async settled() {
    if (this.inFlight.size === 0) return;
    let timer;
    const limit = new Promise((resolve) => { timer = setTimeout(resolve, this.network.sessionEndWaitSeconds * 1000); });
    await Promise.race([Promise.allSettled([...this.inFlight]), limit]);
    clearTimeout(timer);
  }

  async token() {
    const value = typeof this.tokenSource === "function" ? await this.tokenSource() : this.tokenSource;
    if (typeof value !== "string" || !/^[A-Za-z0-9._~+/=-]+$/.test(value)) throw new PlayerError("unauthorized", "the token option gave no usable bearer token", { reason: "unauthorized" });
    this.lastToken = value;
    return value;
  }

  /** `abortable: false` for the session end: unloading aborts the playback's requests first,
   * and the end must still reach the KAS to free the stream slot. `inSession` for a request
   * that names a live session: aborting stops the caller's wait, never the request, which
   * settled() then waits for. */
  async call(method, path, body, route, { abortable = true, inSession = false } = {}) {
    const headers = { Authorization: `Bearer ${await this.token()}` };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    // Serialized before the try: only fetch's own failure is the transport error.
    const payload = body === undefined ? undefined : JSON.stringify(body);
    let response;
    try {
      if (abortable && this.signal?.aborted) throw new DOMException("stopped", "AbortError");
      const sent = fetch(this.base + path, { method, headers, body: payload,
        signal: abortable && !inSession ? this.signal : undefined, credentials: "omit", cache: "no-store", redirect: "error", mode: "cors" });
      if (inSession) {
        this.inFlight.add(sent);
        sent.catch(() => {}).finally(() => this.inFlight.delete(sent));
      }
      response = await withTimeout(inSession && abortable ? untilAborted(sent, this.signal) : sent,
        this.network.keyServiceTimeoutSeconds, route);
    } catch (error) {
      if (error && (error.name === "AbortError" || error instanceof PlayerError)) throw error;
      throw new PlayerError("transport", `the key service could not be reached for ${route}`);
    }
    return readAnswer(response, route);
  }

  /** POSTs an EME ClearKey licence request (`message`, the CDM's JSON, as it is) to a playback's
   * licence URL (docs/delivery.md "The ClearKey licence URL"), which carries its own
   * authorization: no bearer header is sent. Returns the parsed JSON Web Key set; a refusal is
   * a PlayerError with the KAS's `reason`. The URL (its signature) never appears in an error. */
  async licence(url, message) {
    let response;
    try {
      if (this.signal?.aborted) throw new DOMException("stopped", "AbortError");
      response = await withTimeout(fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: message,
        signal: this.signal, credentials: "omit", cache: "no-store", redirect: "error", mode: "cors" }), this.network.keyServiceTimeoutSeconds, "licence");
    } catch (error) {
      if (error && (error.name === "AbortError" || error instanceof PlayerError)) throw error;
      throw new PlayerError("transport", "the key service could not be reached for the licence");
    }
    return readAnswer(response, "licence");
  }


  async startSession({ assetId, component, playbackId }) {
    const answer = await this.call("POST", "/media/v1/session/start", { assetId, component, playbackId, protocol: "tdf" }, "session start");
    if (answer.status !== "started" || typeof answer.sessionId !== "string" || !SESSION_ID.test(answer.sessionId)) throw malformed("the session start answer is not a started session with a safe id");
    const heartbeat = answer.heartbeatSeconds ?? 60;
    if (!Number.isInteger(heartbeat) || heartbeat < 1 || heartbeat > 86400) throw malformed("the session start answer has an unusable heartbeatSeconds");
    return { sessionId: answer.sessionId, heartbeatSeconds: heartbeat };
  }

  async requestKey({ assetId, component, sessionId, manifest, clientPublicKey }) {
    const answer = await this.call("POST", "/media/v1/key-request", { assetId, clientPublicKey, component, sessionId, tdfManifest: manifest }, "key request", { inSession: true });
    if (answer.status !== "success" || typeof answer.wrappedKey !== "string" || typeof answer.sessionPublicKey !== "string") {
      throw malformed("the key answer is not a success with a wrapped key and a session public key");
    }
    const lease = answer.metadata?.lease_seconds;
    if (lease !== undefined && !(Number.isInteger(lease) && lease > 0 && lease <= 31536000)) throw malformed("the key answer's lease is unusable");
    return { wrappedKey: answer.wrappedKey, sessionPublicKey: answer.sessionPublicKey, leaseSeconds: lease ?? null };
  }

  heartbeat(sessionId) {
    return this.call("POST", `/media/v1/session/${sessionId}/heartbeat`, {}, "heartbeat", { inSession: true });
  }

  endSession(sessionId) {
    return this.call("DELETE", `/media/v1/session/${sessionId}`, undefined, "session end", { abortable: false });
  }

  /** Ends sessions while the page unloads: a keepalive fetch outlives the page and carries the
   * bearer header (sendBeacon cannot), with the last token the player got. */
  endOnUnload(sessionId) {
    if (!this.lastToken) return;
    try {
      fetch(`${this.base}/media/v1/session/${sessionId}`, { method: "DELETE", keepalive: true, credentials: "omit", mode: "cors",
        headers: { Authorization: `Bearer ${this.lastToken}` } }).catch(() => {});
    } catch { /* the page is going away: nothing more can be done */ }
  }

  /** POST /kas/v2/rewrap with a signed request token; returns the parsed answer. */
  rewrap(signedRequestToken) {
    return this.call("POST", "/kas/v2/rewrap", { signedRequestToken }, "rewrap");
  }

  /** POST /media/v1/rewrap: the OpenTDF v2 bulk request (`clientPublicKey`, `requests`) through
   * the live media session `sessionId`; returns the parsed OpenTDF RewrapResponse. */
  mediaRewrap(sessionId, clientPublicKey, requests) {
    return this.call("POST", "/media/v1/rewrap", { sessionId, clientPublicKey, requests }, "media rewrap", { inSession: true });
  }
}

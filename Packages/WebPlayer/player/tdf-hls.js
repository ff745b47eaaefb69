// A tdf-hls stream (docs/formats.md "tdf-hls stream"): ordinary playlists whose segments are
// Standard TDFs of clear CMAF fragments. Keys come by the path the Swift client uses: when a
// segment's key is missing, the archives of the next LOOKAHEAD segments of every rendition are
// fetched and all their keys asked for in ONE OpenTDF rewrap (a signed request token made with
// a fresh P-256 key, docs/protocol.md "OpenTDF routes"). Each segment is verified and
// decrypted with WebCrypto (TDFArchive) before its clear fragment reaches MediaSource.
import { base64Decode, base64urlEncode, utf8 } from "./bytes.js";
import { PlayerError, malformed } from "./errors.js";
import { normalizeKeyServiceURL } from "./fps-v2-manifest.js";
import { readLenient } from "./hls-playlist.js";
import { ephemeralKey, unwrapKey } from "./key-unwrap.js";
import { TDFArchive } from "./tdf-archive.js";

const LOOKAHEAD = 4;
const MAX_SEGMENT_BYTES = 64 << 20;
const MAX_INIT_BYTES = 1 << 20;

async function fetchBytes(url, signal, limit) {
  let response;
  try {
    response = await fetch(url, { signal, credentials: "omit" });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new PlayerError("transport", `the stream origin could not be reached (${new URL(url).origin})`);
  }
  if (!response.ok) throw new PlayerError("transport", `the stream origin answered ${response.status} for ${new URL(url).pathname}`, { status: response.status });
  const length = Number(response.headers.get("Content-Length") || 0);
  if (length > limit) throw malformed(`${new URL(url).pathname} is larger than the limit`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (bytes.length > limit) throw malformed(`${new URL(url).pathname} is larger than the limit`);
  return bytes;
}

async function signedRequestToken(body, signingKey) {
  const now = Math.floor(Date.now() / 1000);
  const encode = (value) => base64urlEncode(utf8.encode(JSON.stringify(value)));
  const input = `${encode({ alg: "ES256", typ: "JWT" })}.${encode({ exp: now + 60, iat: now, requestBody: body })}`;
  const signature = await crypto.subtle.sign({ name: "ECDSA", hash: "SHA-256" }, signingKey, utf8.encode(input));
  return `${input}.${base64urlEncode(new Uint8Array(signature))}`;
}

export class TDFHLSStream {
  /** Reads the master and media playlists and the clear inits; picks the first variant whose
   * codecs MediaSource plays, and its default audio rendition. */
  static async open(url, { service, signal, isTypeSupported }) {
    const master = readLenient(utf8.decode(await fetchBytes(url, signal, 1 << 20)), url);
    if (master.profile !== "tdf-hls") throw malformed("the master playlist does not carry the tdf-hls profile marker");
    const variant = master.variants.find((v) => isTypeSupported(`video/mp4; codecs="${v.codecs.find((c) => c.startsWith("avc1")) || v.codecs[0]}"`));
    if (!variant) throw new PlayerError("unsupported", "this browser plays none of the stream's variants", { reason: "codec_unsupported" });
    const audio = master.audio.filter((a) => a.group === variant.audioGroup);
    const renditions = [{ id: "video", url: variant.url, codec: variant.codecs.find((c) => c.startsWith("avc1")) }];
    const chosenAudio = audio.find((a) => a.isDefault) || audio[0];
    const audioCodec = variant.codecs.find((c) => c.startsWith("mp4a"));
    if (chosenAudio && audioCodec && isTypeSupported(`audio/mp4; codecs="${audioCodec}"`)) renditions.push({ id: "audio", url: chosenAudio.url, codec: audioCodec });
    const loaded = await Promise.all(renditions.map(async (r) => {
      const playlist = readLenient(utf8.decode(await fetchBytes(r.url, signal, 1 << 20)), r.url);
      if (!playlist.map || playlist.segments.length === 0 || !playlist.ended) throw malformed(`${new URL(r.url).pathname} is not a complete VOD playlist with a map`);
      let start = 0;
      const segments = playlist.segments.map((s) => { const out = { url: s.url, start, duration: s.duration }; start += s.duration; return out; });
      return { ...r, mime: `${r.id}/mp4; codecs="${r.codec}"`, init: await fetchBytes(playlist.map, signal, MAX_INIT_BYTES), segments };
    }));
    return new TDFHLSStream(loaded, { service, signal, width: variant.width, height: variant.height });
  }

  constructor(renditions, { service, signal, width, height }) {
    this.renditions = renditions;
    this.service = service;
    this.signal = signal;
    this.width = width;
    this.height = height;
    this.duration = renditions[0].segments.reduce((sum, s) => sum + s.duration, 0);
    this.archives = new Map();   // "<id>-<n>" -> TDFArchive awaiting its key
    this.keys = new Map();       // "<id>-<n>" -> 32-byte payload key (dropped once used)
    this.pending = null;
  }

  /** Fetches the archives of segments index..index+LOOKAHEAD of every rendition and gets all
   * their missing keys in one rewrap. */
  async prefetchKeys(index) {
    while (this.pending) await this.pending.catch(() => {});
    this.pending = this.rewrapFrom(index);
    try { await this.pending; } finally { this.pending = null; }
  }

  async rewrapFrom(index) {
    const wanted = [];
    for (const r of this.renditions) {
      for (let n = index; n < Math.min(index + LOOKAHEAD, r.segments.length); n++) {
        const id = `${r.id}-${n}`;
        if (!this.keys.has(id)) wanted.push({ id, url: r.segments[n].url });
      }
    }
    if (!wanted.length) return;
    const archives = await Promise.all(wanted.map(async (w) => this.archives.get(w.id) || new TDFArchive(await fetchBytes(w.url, this.signal, MAX_SEGMENT_BYTES))));
    const accepted = normalizeKeyServiceURL(this.service.base);
    const policies = new Map();
    archives.forEach((archive, i) => {
      this.archives.set(wanted[i].id, archive);
      if (normalizeKeyServiceURL(archive.keyAccess.url) !== accepted) throw malformed("a tdf-hls segment names a key service other than the one given");
      if (!policies.has(archive.policy)) policies.set(archive.policy, []);
      policies.get(archive.policy).push({ keyAccessObjectId: wanted[i].id, keyAccessObject: archive.keyAccess });
    });
    const { privateKey, publicKeyPEM, signingKey } = await ephemeralKey({ signing: true });
    const requests = [...policies].map(([policy, objects], i) => ({ algorithm: "ec:secp256r1", keyAccessObjects: objects, policy: { body: policy, id: `policy-${i}` } }));
    const token = await signedRequestToken(JSON.stringify({ clientPublicKey: publicKeyPEM, requests }), signingKey);
    const answer = await this.service.rewrap(token);
    if (typeof answer.sessionPublicKey !== "string" || !Array.isArray(answer.responses)) throw malformed("the rewrap answer has no session public key or no responses");
    const results = new Map();
    for (const policy of answer.responses) for (const result of Array.isArray(policy?.results) ? policy.results : []) results.set(result?.keyAccessObjectId, result);
    for (const w of wanted) {
      const result = results.get(w.id);
      if (!result) throw malformed("the rewrap answer left out a requested key");
      if (result.status !== "permit") throw TDFHLSStream.refusal(result);
      if (!base64Decode(result.kasWrappedKey || "")) throw malformed("a permitted rewrap result has no wrapped key");
      const key = await unwrapKey(result.kasWrappedKey, answer.sessionPublicKey, privateKey);
      if (key.length !== 32) throw malformed("a rewrapped payload key is not 32 bytes");
      this.keys.set(w.id, key);
    }
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

  /** The clear fragment of segment `index` of rendition `r`. */
  async segment(r, index) {
    const id = `${r.id}-${index}`;
    if (!this.keys.has(id)) await this.prefetchKeys(index);
    const key = this.keys.get(id);
    const archive = this.archives.get(id);
    if (!key || !archive) throw malformed("a segment key is missing after the rewrap");
    try {
      return await archive.decrypt(key);
    } finally {
      key.fill(0);
      this.keys.delete(id);
      this.archives.delete(id);
    }
  }
}

// Hands content keys to the browser's CDM through EME with the `org.w3.clearkey` key system and
// the `cbcs` scheme (W3C Encrypted Media Extensions; ClearKey's JSON Web Key set, §9.1). One
// MediaKeySession per component. A key's bytes are dropped (zeroed) right after update():
// the page keeps no copy.
import { base64urlEncode, utf8 } from "./bytes.js";
import { PlayerError, malformed } from "./errors.js";
import { isObject } from "./strict-json.js";

// A JSON Web Key's `kid` or `k` of 16 bytes: 22 base64url characters, no padding.
const KEY_16 = /^[A-Za-z0-9_-]{21}[AQgw]$/;

export class ClearKeyCDM {
  /** Asks for ClearKey with cbcs for these codecs and attaches MediaKeys to `video`. */
  static async attach(video, { videoCodec, audioCodec }) {
    const config = {
      initDataTypes: ["keyids"],
      videoCapabilities: [{ contentType: `video/mp4; codecs="${videoCodec}"`, encryptionScheme: "cbcs" }],
      sessionTypes: ["temporary"],
    };
    if (audioCodec) config.audioCapabilities = [{ contentType: `audio/mp4; codecs="${audioCodec}"`, encryptionScheme: "cbcs" }];
    let access;
    try {
      access = await navigator.requestMediaKeySystemAccess("org.w3.clearkey", [config]);
    } catch {
      throw new PlayerError("unsupported", "this browser does not offer EME ClearKey with the cbcs scheme for these codecs", { reason: "eme_unsupported" });
    }
    const mediaKeys = await access.createMediaKeys();
    await video.setMediaKeys(mediaKeys);
    return new ClearKeyCDM(video, mediaKeys);
  }

  constructor(video, mediaKeys) {
    this.video = video;
    this.mediaKeys = mediaKeys;
    this.sessions = [];
  }

  /** Puts `key` (16 bytes) under `kid` into a new MediaKeySession, then zeroes `key`. */
  async install(kid, key) {
    const session = this.mediaKeys.createSession("temporary");
    this.sessions.push(session);
    const kidText = base64urlEncode(kid);
    // generateRequest makes the CDM expect this KID; ClearKey's license is the JWK set itself.
    await session.generateRequest("keyids", utf8.encode(JSON.stringify({ kids: [kidText] })));
    const license = utf8.encode(JSON.stringify({ keys: [{ kty: "oct", kid: kidText, k: base64urlEncode(key) }], type: "temporary" }));
    key.fill(0);
    try {
      await session.update(license);
    } finally {
      license.fill(0);
    }
  }

  /** Asks for the keys `kids` (16-byte key ids) in one MediaKeySession, by a licence server: the
   * CDM's licence request (EME §9.1.3, the JSON naming the key ids) goes as it is to
   * `post(message)`, whose answer, a JSON Web Key set (EME §9.1.4), must hold exactly the keys
   * asked for before update() takes it; the bytes given to update() are zeroed after. */
  async requestLicence(kids, post) {
    const session = this.mediaKeys.createSession("temporary");
    this.sessions.push(session);
    const message = new Promise((resolve) => session.addEventListener("message", (e) => resolve(new Uint8Array(e.message)), { once: true }));
    const wanted = kids.map(base64urlEncode);
    await session.generateRequest("keyids", utf8.encode(JSON.stringify({ kids: wanted })));
    const answer = await post(await message);
    const keys = Array.isArray(answer.keys) ? answer.keys : [];
    const usable = (key) => isObject(key) && key.kty === "oct" && typeof key.kid === "string" && typeof key.k === "string" && KEY_16.test(key.k);
    if (keys.length !== wanted.length || !keys.every(usable) || !wanted.every((kid) => keys.some((key) => key.kid === kid))) {
      throw malformed("the licence does not hold exactly the keys asked for");
    }
    const license = utf8.encode(JSON.stringify({ keys: keys.map(({ kty, kid, k }) => ({ kty, kid, k })), type: "temporary" }));
    try {
      await session.update(license);
    } finally {
      license.fill(0);
    }
  }

  /** Closes every session, then detaches MediaKeys from the element: an element left with
   * MediaKeys sends whatever it plays next (a clear file, another player's stream) through this
   * CDM. Chromium refuses the detach while the element still has a media player, so the caller
   * empties the element (src removed, load()) first. */
  async close() {
    const sessions = this.sessions;
    this.sessions = [];
    await Promise.allSettled(sessions.map((s) => s.close()));
    if (this.video.mediaKeys === this.mediaKeys) await this.video.setMediaKeys(null);
  }
}

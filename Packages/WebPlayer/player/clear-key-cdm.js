// Hands content keys to the browser's CDM through EME with the `org.w3.clearkey` key system and
// the `cbcs` scheme (W3C Encrypted Media Extensions; ClearKey's JSON Web Key set, §9.1). One
// MediaKeySession per component. A key's bytes are dropped (zeroed) right after update():
// the page keeps no copy.
import { base64urlEncode, utf8 } from "./bytes.js";
import { PlayerError } from "./errors.js";

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

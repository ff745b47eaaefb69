// A page's own EME ClearKey handler for a standard player that brings no EME of its own (Video.js
// 7.5.5's VHS; docs/web.md "Standard players"). It knows only what the KAS's playback answer
// gives (POST /media/v1/playback, drmSystem "clearkey"): `licenseUrl` and `keyIds`. On each of
// the media element's `encrypted` events with new init data (the W3C common pssh names every key
// of the package, so one request usually covers them all) it opens a MediaKeySession, posts the
// CDM's licence request to `licenseUrl` exactly as the CDM wrote it (EME §9.1.3) and passes the
// answer (§9.1.4) to `session.update` as it came. A refused licence's JSON `reason` is handed
// to `onRefused`; the keys themselves never leave the CDM's request and answer.

// Every codec a cmaf package may carry; the browser keeps those it can decrypt and decode.
const CONFIGURATION = {
  initDataTypes: ["cenc"],
  videoCapabilities: [
    { contentType: 'video/mp4; codecs="avc1.42C01E"', encryptionScheme: "cbcs" },
    { contentType: 'video/mp4; codecs="hvc1.1.6.L93.B0"', encryptionScheme: "cbcs" },
  ],
  audioCapabilities: [{ contentType: 'audio/mp4; codecs="mp4a.40.2"', encryptionScheme: "cbcs" }],
};

const base64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const hexBytes = (hex) => Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));

/**
 * Handles `media`'s `encrypted` events with the playback answer's `licenseUrl` and `keyIds`
 * (component → 32 hex digits). `onKeys(count)` after an answer went into the CDM,
 * `onRefused(reason, status)` when the licence server refused (its JSON `reason`), `onError(message)`
 * for an EME failure in the browser.
 */
export function handleClearKey(media, { licenseUrl, keyIds }, { onKeys, onRefused, onError }) {
  // The key ids of the playback, as a ClearKey licence request names them (base64url).
  const playbackKeyIDs = new Set(Object.values(keyIds).map((hex) => base64url(hexBytes(hex))));
  const seen = new Set();
  let mediaKeys = null;
  const attachMediaKeys = async () => {
    const access = await navigator.requestMediaKeySystemAccess("org.w3.clearkey", [CONFIGURATION]);
    const keys = await access.createMediaKeys();
    await media.setMediaKeys(keys);
    return keys;
  };

  const license = async (session, message) => {
    const request = JSON.parse(new TextDecoder().decode(message));
    // The page's guard: it asks only for keys of this playback.
    if (!Array.isArray(request.kids) || !request.kids.every((kid) => playbackKeyIDs.has(kid))) {
      onError("the CDM asked for a key id that is not one of this playback's keyIds");
      return;
    }
    const answer = await fetch(licenseUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: message, credentials: "omit" });
    if (!answer.ok) {
      const body = await answer.json().catch(() => ({}));
      onRefused(body.reason ?? `licence HTTP ${answer.status}`, answer.status);
      return;
    }
    await session.update(await answer.arrayBuffer());
    onKeys(request.kids.length);
  };

  media.addEventListener("encrypted", (event) => {
    const initData = `${event.initDataType}:${base64url(new Uint8Array(event.initData))}`;
    if (seen.has(initData)) return;
    seen.add(initData);
    const { initDataType } = event;
    const data = event.initData;
    (async () => {
      mediaKeys ??= attachMediaKeys();
      const session = (await mediaKeys).createSession("temporary");
      session.addEventListener("message", (message) => {
        license(session, message.message).catch((error) => onError(`licence: ${error.message}`));
      });
      await session.generateRequest(initDataType, data);
    })().catch((error) => onError(`EME: ${error.message}`));
  });
}

// The browser suite's Video.js page (docs/web.md "Standard players"): an app that starts a
// ClearKey playback of a cmaf title at the KAS, hands Video.js 7.5.5 the playback's own MPD
// (`dashUrl`) and decrypts with the page's EME handler, which knows only the answer's
// `licenseUrl` and `keyIds`. Video.js comes from PyPI js.videojs in the suite's venv (a classic
// script: window.videojs). The suite passes the token through page.evaluate, never in a URL.
import { handleClearKey } from "./clearkey-handler.js";

// VHS 1.9 reads its options under `hls` (for DASH too); `overrideNative` makes it play through
// MSE even where the browser claims native HLS (Chromium does), and the native track lists are
// then left to VHS.
const VIDEOJS_OPTIONS = { html5: { hls: { overrideNative: true }, nativeAudioTracks: false, nativeVideoTracks: false } };

window.events = [];
let media = null;
const record = (type, detail = {}) => window.events.push({ type, time: media?.currentTime ?? 0, ...detail });
const showReason = (reason) => { document.getElementById("reason").textContent = reason; };

/** Starts the playback at the KAS (`kas`, `assetId`, the viewer's `token`) and plays its DASH
 * form in Video.js. Resolves {ok, keyIds} once Video.js has the source, or {ok: false, reason}
 * when the KAS refused the playback (its JSON `reason`, shown in the page). */
window.startVideojs = async ({ kas, assetId, token }) => {
  const started = await fetch(`${kas}/media/v1/playback`, {
    method: "POST", credentials: "omit",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ assetId, drmSystem: "clearkey", manifestTypes: ["dash"] }),
  });
  const answer = await started.json().catch(() => ({}));
  if (!started.ok) {
    const reason = answer.reason ?? `playback HTTP ${started.status}`;
    record("playback-refused", { reason, status: started.status });
    showReason(reason);
    return { ok: false, reason, status: started.status };
  }
  return window.playVideojs(answer);
};

/** Plays a ClearKey playback answer (`dashUrl`, `licenseUrl`, `keyIds`), however the app's
 * backend got it, in Video.js with the page's EME handler. */
window.playVideojs = async (answer) => {
  const player = window.player = videojs(document.getElementById("video"), VIDEOJS_OPTIONS);
  await new Promise((resolve) => player.ready(resolve));
  media = player.tech(true).el();
  for (const type of ["loadedmetadata", "playing", "seeked", "ended", "waiting"]) media.addEventListener(type, () => record(type));
  player.on("error", () => record("error", { code: player.error()?.code ?? null, message: player.error()?.message ?? null }));
  handleClearKey(media, answer, {
    onKeys: (count) => record("keysdelivered", { count }),
    onRefused: (reason, status) => { record("licence-refused", { reason, status }); showReason(reason); },
    onError: (message) => record("eme-error", { message }),
  });
  player.src({ src: answer.dashUrl, type: "application/dash+xml" });
  player.play()?.catch((error) => record("play-rejected", { message: String(error) }));
  return { ok: true, keyIds: Object.keys(answer.keyIds).sort() };
};

/** The element's decoded-frame counts and size (getVideoPlaybackQuality). */
window.quality = () => {
  const q = media.getVideoPlaybackQuality();
  // null where the browser does not report a count (JSON would drop undefined).
  const count = (name) => (name in q ? q[name] : null);
  return { total: count("totalVideoFrames"), corrupted: count("corruptedVideoFrames"), dropped: count("droppedVideoFrames"),
           width: media.videoWidth, height: media.videoHeight, duration: media.duration };
};

/** Whether this browser's EME ClearKey takes video `contentType` with the cbcs scheme: true, or
 * its refusal's text. */
window.clearKeyOffers = async (contentType) => {
  try {
    await navigator.requestMediaKeySystemAccess("org.w3.clearkey", [{ initDataTypes: ["cenc"], videoCapabilities: [{ contentType, encryptionScheme: "cbcs" }] }]);
    return true;
  } catch (error) {
    return `${error.name}: ${error.message}`;
  }
};

// The page the browser suite drives, served from an "app" origin other than the KAS's: it
// imports the player module from the KAS (a cross-origin ES module import) and records every
// event in order. The suite passes the token through page.evaluate, never in a URL.
const video = document.getElementById("video");
window.events = [];
const record = (type, detail = {}) => window.events.push({ type, time: video.currentTime, ...detail });
for (const type of ["playing", "seeking", "seeked", "ended", "waiting", "error", "loadedmetadata"]) {
  video.addEventListener(type, () => record(type, type === "error" ? { message: video.error?.message } : {}));
}

window.startPlayer = async ({ kas, src, token, options = {} }) => {
  try {
    const { MediaDRMPlayer } = await import(`${kas}/player/mediadrm-player.js`);
    window.player = new MediaDRMPlayer(video, { kas, token: async () => token });
    window.player.addEventListener("error", (e) => {
      record("player-error", { reason: e.detail.reason, code: e.detail.code, check: e.detail.check });
      document.getElementById("reason").textContent = e.detail.reason;
      showWords(kas, e.detail.error);
    });
    window.player.addEventListener("keysdelivered", (e) => record("keysdelivered", { component: e.detail.component ?? null }));
    window.player.addEventListener("variantchange", (e) => record("variantchange", e.detail));
    window.player.addEventListener("ratelimited", (e) => record("ratelimited", e.detail));
    const started = performance.now();
    video.addEventListener("playing", () => { window.firstPlayingMs ??= performance.now() - started; }, { once: true });
    await window.player.load(src, options);
    record("loaded");
    await video.play();
    return { ok: true };
  } catch (error) {
    record("load-rejected", { reason: error.reason ?? null, code: error.code ?? null, check: error.check ?? null, message: String(error.message) });
    return { ok: false, reason: error.reason ?? null, code: error.code ?? null, message: String(error.message) };
  }
};

/** The viewer's words for a failure (viewer-words.js, the KAS's refusals.json), in #words. */
async function showWords(kas, error) {
  const { describeFailure, loadRefusalTable } = await import(`${kas}/player/viewer-words.js`);
  const words = describeFailure(error, await loadRefusalTable().catch(() => ({})));
  document.getElementById("words").textContent = `${words.explanation} ${words.nextStep} (${words.code})`;
}

/** A ClearKey playback of `assetId` started at the KAS (`manifest`: "dash" or "hls"), as an app's
 * backend would, then its `dashUrl` or `hlsUrl` played by the player with the answer's
 * `licenseUrl`, `keyIds` and `playbackId`. */
window.startClearKeyPlayback = async ({ kas, assetId, token, manifest }) => {
  const started = await fetch(`${kas}/media/v1/playback`, { method: "POST", credentials: "omit",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
    body: JSON.stringify({ assetId, drmSystem: "clearkey", manifestTypes: [manifest] }) });
  const answer = await started.json().catch(() => ({}));
  if (!started.ok) {
    record("playback-refused", { reason: answer.reason ?? null, status: started.status });
    document.getElementById("reason").textContent = answer.reason ?? "";
    return { ok: false, reason: answer.reason ?? null, status: started.status };
  }
  return window.playClearKey({ kas, token, answer, manifest });
};

/** Plays a ClearKey playback answer (however the backend got it) with the player. */
window.playClearKey = async ({ kas, token, answer, manifest }) => {
  const src = manifest === "dash" ? answer.dashUrl : answer.hlsUrl;
  const result = await window.startPlayer({ kas, src, token,
    options: { licenseUrl: answer.licenseUrl, keyIds: answer.keyIds, playbackId: answer.playbackId } });
  return { ...result, keyIds: Object.keys(answer.keyIds).sort() };
};

window.seekTo = (time) => { video.currentTime = time; };
window.state = () => ({ width: video.videoWidth, height: video.videoHeight, duration: video.duration, time: video.currentTime, ended: video.ended });

/** Draws the frame at `time` of `element` to the canvas and returns its RGBA bytes. */
async function framePixelsAt(time, element = video) {
  // Both the seek and the presentation of the new frame (requestVideoFrameCallback): "seeked"
  // alone can come before the compositor has the frame at the new time.
  await Promise.all([
    new Promise((resolve) => element.addEventListener("seeked", resolve, { once: true })),
    new Promise((resolve) => element.requestVideoFrameCallback(() => resolve())),
    Promise.resolve().then(() => { element.currentTime = time; }),
  ]);
  const canvas = document.getElementById("canvas");
  canvas.width = element.videoWidth;
  canvas.height = element.videoHeight;
  const context = canvas.getContext("2d", { willReadFrequently: true });
  context.drawImage(element, 0, 0);
  return context.getImageData(0, 0, canvas.width, canvas.height).data;
}

/** The SHA-256 of the frame at `time`'s RGBA bytes. */
window.frameDigestAt = async (time, element = video) => {
  const pixels = await framePixelsAt(time, element);
  return Array.from(new Uint8Array(await crypto.subtle.digest("SHA-256", pixels)), (b) => b.toString(16).padStart(2, "0")).join("");
};

/** The same for a plain <video src> of a clear file (served with Range support, or the element
 * cannot seek), in the same element once the player is destroyed. */
window.plainFrameDigests = async (src, times) => {
  await window.player?.destroy();
  // The clear file comes from the package origin (Range, CORS): anonymous CORS keeps the
  // canvas readable.
  video.crossOrigin = "anonymous";
  video.src = src;
  await new Promise((resolve, reject) => { video.addEventListener("loadeddata", resolve, { once: true }); video.addEventListener("error", reject, { once: true }); });
  const out = [];
  for (const t of times) out.push(await window.frameDigestAt(t));
  return out;
};

/** Destroys the player, then plays the clear file `src` in the same element: whether MediaKeys
 * left the element, and the brightest channel value of the frame at `time` (0 for black). */
window.clearFrameAfterDestroy = async ({ src, time }) => {
  await window.player?.destroy();
  const mediaKeysDetached = video.mediaKeys === null;
  video.crossOrigin = "anonymous";
  video.src = src;
  await new Promise((resolve, reject) => { video.addEventListener("loadeddata", resolve, { once: true }); video.addEventListener("error", reject, { once: true }); });
  const pixels = await framePixelsAt(time);
  let brightest = 0;
  for (let i = 0; i < pixels.length; i += 4) brightest = Math.max(brightest, pixels[i], pixels[i + 1], pixels[i + 2]);
  return { mediaKeysDetached, brightest, width: video.videoWidth };
};

/** For the CORS test: a direct call to the KAS from this page. */
window.tryKAS = async (kas, token) => {
  try {
    const r = await fetch(`${kas}/media/v1/session/start`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: "{}" });
    return { reached: true, status: r.status };
  } catch (error) {
    return { reached: false, message: String(error) };
  }
};

/** The shared reader vectors through the JavaScript reader: [{file, verdict, check}] as the
 * reader decided, reading each package from `base` with Range requests. */
window.readerVerdicts = async ({ kas, base, files, keyServiceURL }) => {
  const { FPSv2Package } = await import(`${kas}/player/fps-v2-package.js`);
  const out = [];
  for (const file of files) {
    try {
      await FPSv2Package.admit(`${base}/${file}`, { keyServiceURL });
      out.push({ file, verdict: "admitted" });
    } catch (error) {
      out.push({ file, verdict: error.code === "refused" ? "refused" : `error: ${error.message}`, check: error.check ?? null });
    }
  }
  return out;
};

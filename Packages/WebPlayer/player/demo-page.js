// The test form at /player/test-form.html (the bench and the browser suite drive it; viewers use
// the viewer page, /player/): any of the player's four forms. An fps-v2 package or tdf-hls
// master playlist URL, which may come from `?src=`; or an asset id, for which the form starts a
// ClearKey playback at this KAS and plays its DASH or HLS form (a cmaf title, an fps-v2 title's
// views) with the answer's licence URL and key ids. The token is never in the URL: it is typed
// or pasted, kept in memory only, and sent only as the bearer header.
import { startClearKeyPlayback } from "./delivery-api.js";
import { MediaDRMPlayer } from "./mediadrm-player.js";

const video = document.getElementById("video");
const status = document.getElementById("status");
const src = document.getElementById("src");
const token = document.getElementById("token");
const asset = document.getElementById("asset");
const manifest = document.getElementById("manifest");
src.value = new URLSearchParams(location.search).get("src") || "";
let player = null;

document.getElementById("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await player?.destroy();
  if (!src.value && !asset.value.trim()) {
    status.textContent = "give a package or playlist URL, or an asset id";
    return;
  }
  const viewerToken = token.value.trim();
  player = new MediaDRMPlayer(video, { kas: location.origin, token: viewerToken });
  player.addEventListener("error", (e) => { status.textContent = `refused: ${e.detail.reason ?? e.detail.code}`; });
  // User Timing measures from load() (make bench reads them): admitted, every key in the CDM.
  player.addEventListener("admitted", () => performance.measure("mediadrm-load-to-admitted", "mediadrm-load"));
  player.addEventListener("keysdelivered", (e) => {
    if (!e.detail.all) return;
    performance.measure("mediadrm-load-to-keys", "mediadrm-load");
    status.textContent = "keys delivered";
  });
  status.textContent = "loading…";
  video.controls = false;
  performance.mark("mediadrm-load");
  // The element's own controls come once it plays; until then the status line says what happens.
  // Chromium's controls animate while media loads, and on a small machine that rendering takes
  // main-thread time the start-up needs (docs/web.md, "Start-up").
  video.addEventListener("playing", () => {
    performance.measure("mediadrm-load-to-playing", "mediadrm-load");
    video.controls = true;
  }, { once: true });
  try {
    if (asset.value.trim()) {
      const playback = await startClearKeyPlayback(location.origin, viewerToken, asset.value.trim(), manifest.value);
      await player.load(playback.url, { playbackId: playback.playbackId, licenseUrl: playback.licenseUrl, keyIds: playback.keyIds });
    } else {
      await player.load(src.value);
    }
    await video.play();
    status.textContent = "playing";
  } catch (error) {
    status.textContent = `refused: ${error.reason ?? error.code ?? error.message}`;
  }
});

// The test form at /player/test-form.html (the bench and the browser suite drive it; viewers use
// the viewer page, /player/): the package URL may come from `?src=` (never the token:
// it is typed or pasted, kept in memory only, and sent only as the bearer header).
import { MediaDRMPlayer } from "./mediadrm-player.js";

const video = document.getElementById("video");
const status = document.getElementById("status");
const src = document.getElementById("src");
const token = document.getElementById("token");
src.value = new URLSearchParams(location.search).get("src") || "";
let player = null;

document.getElementById("form").addEventListener("submit", async (event) => {
  event.preventDefault();
  await player?.destroy();
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
    await player.load(src.value);
    await video.play();
    status.textContent = "playing";
  } catch (error) {
    status.textContent = `refused: ${error.reason ?? error.code ?? error.message}`;
  }
});

// The viewer page at /player/ (docs/web.md "The viewer page"): sign in (sign-in.js, the module a
// deployment replaces), the titles this viewer may watch (GET /media/v1/catalog), and a player
// view with the page's own control bar (player-controls.js) over the library's MediaDRMPlayer.
// A refusal is shown in words (viewer-words.js) with its code beside them. The token lives in
// sign-in.js's memory only; localStorage keeps only each title's resume position.
import { listCatalog, releasePlayback, startClearKeyPlayback, startPlayback } from "./delivery-api.js";
import { MediaDRMPlayer } from "./mediadrm-player.js";
import { PlayerControls, formatTime } from "./player-controls.js";
import { savePosition, savedPosition } from "./resume-positions.js";
import { signIn } from "./sign-in.js";
import { describeFailure, loadRefusalTable } from "./viewer-words.js";

// The profiles this player plays (a cmaf title as a ClearKey playback: docs/web.md).
const PLAYABLE = new Set(["fps-v2", "tdf-hls", "cmaf"]);

const $ = (id) => document.getElementById(id);
const kas = location.origin;
const video = $("video");
let session = null;
let refusals = {};
let player = null;
let controls = null;
let playing = null;   // {title, playback} of the player view

function setStatus(text) {
  $("status").textContent = text;
}

function show(view) {
  for (const id of ["catalog", "player-view"]) $(id).hidden = id !== view;
}

// MARK: Catalog

function card(title) {
  const item = document.createElement("li");
  item.className = "card";
  const button = document.createElement("button");
  button.type = "button";
  button.className = "card-button";
  button.dataset.assetId = title.assetId;
  const poster = document.createElement("span");
  poster.className = "poster";
  poster.setAttribute("aria-hidden", "true");
  poster.textContent = title.title.charAt(0).toUpperCase();
  const name = document.createElement("span");
  name.className = "card-title";
  name.textContent = title.title;
  const facts = document.createElement("span");
  facts.className = "card-facts";
  const resume = savedPosition(title.assetId, title.duration);
  facts.textContent = `${formatTime(title.duration)} · ${title.profile}${resume ? ` · resume at ${formatTime(resume)}` : ""}`;
  button.append(poster, name, facts);
  if (PLAYABLE.has(title.profile)) button.addEventListener("click", () => play(title));
  else {
    button.disabled = true;
    facts.textContent += " · plays in standard players";
  }
  item.append(button);
  return item;
}

async function showCatalog(after = null) {
  show("catalog");
  const grid = $("catalog-grid");
  if (!after) grid.replaceChildren();
  $("catalog-status").textContent = "Loading your titles…";
  try {
    const page = await listCatalog(kas, session.token(), after);
    grid.append(...page.titles.map(card));
    $("catalog-status").textContent = grid.children.length ? "" : "No titles are open to you yet.";
    const more = $("catalog-more");
    more.hidden = !page.next;
    more.onclick = () => showCatalog(page.next);
  } catch (error) {
    const words = describeFailure(error, refusals);
    $("catalog-status").textContent = `${words.explanation} ${words.nextStep} (${words.code})`;
  }
}

// MARK: Player view

function showRefusal(failure) {
  const words = describeFailure(failure, refusals);
  $("refusal-explanation").textContent = words.explanation;
  $("refusal-next").textContent = words.nextStep;
  $("refusal-code").textContent = words.code;
  $("refusal").hidden = false;
  setStatus(`Refused: ${words.code}`);
}

async function play(title) {
  await stop();
  show("player-view");
  $("player-title").textContent = title.title;
  $("refusal").hidden = true;
  setStatus("Starting…");
  player = new MediaDRMPlayer(video, { kas, token: () => session.token() });
  controls = new PlayerControls({ container: $("controls"), stage: $("stage"), video, player });
  controls.onError = showRefusal;
  const current = { title, playback: null, player };
  playing = current;
  player.addEventListener("error", (event) => { if (playing === current) showRefusal(event.detail.error); });
  try {
    if (title.profile === "cmaf") {
      // A cmaf title: a ClearKey playback, played in its DASH form with the answer's licence.
      current.playback = await startClearKeyPlayback(kas, session.token(), title.assetId, "dash");
      await player.load(current.playback.url, { playbackId: current.playback.playbackId,
        licenseUrl: current.playback.licenseUrl, keyIds: current.playback.keyIds });
    } else {
      current.playback = await startPlayback(kas, session.token(), title.assetId);
      await player.load(current.playback.mediaUrl, { playbackId: current.playback.playbackId });
    }
    if (playing !== current) return;
    const resume = savedPosition(title.assetId, video.duration || title.duration);
    if (resume) video.currentTime = resume;
    await video.play();
    setStatus(resume ? `Playing from ${formatTime(resume)}` : "Playing");
  } catch (error) {
    if (playing === current && error?.name !== "NotAllowedError") showRefusal(error);
    else if (playing === current) setStatus("Press play to start");
  }
}

/** Saves where the title is, ends the playback (its sessions and its stream slot), removes the bar. */
async function stop() {
  const current = playing;
  playing = null;
  if (!current) return;
  if (Number.isFinite(video.duration) && video.currentTime > 0) savePosition(current.title.assetId, video.currentTime, video.duration);
  controls?.destroy();
  controls = null;
  await current.player.destroy();
  if (current.playback) await releasePlayback(kas, session.token(), current.playback.playbackId);
}

video.addEventListener("pause", () => {
  if (playing && !video.ended) { savePosition(playing.title.assetId, video.currentTime, video.duration); setStatus("Paused"); }
});
video.addEventListener("playing", () => { if (playing) setStatus("Playing"); });
video.addEventListener("seeked", () => { if (playing) savePosition(playing.title.assetId, video.currentTime, video.duration); });
video.addEventListener("ended", () => { if (playing) { savePosition(playing.title.assetId, video.duration, video.duration); setStatus("Ended"); } });
window.addEventListener("pagehide", () => {
  if (playing && Number.isFinite(video.duration)) savePosition(playing.title.assetId, video.currentTime, video.duration);
});

$("back").addEventListener("click", async () => {
  await stop();
  await showCatalog();
});

$("sign-out").addEventListener("click", async () => {
  await stop();
  session?.signOut();
  session = null;
  $("sign-out").hidden = true;
  show(null);
  start();
});

async function start() {
  session = await signIn($("sign-in"));
  $("sign-out").hidden = false;
  await showCatalog();
}

// The words load beside the sign-in; without them the page's own words for each code stand in.
loadRefusalTable().then((table) => { refusals = table; }, () => {});
start();

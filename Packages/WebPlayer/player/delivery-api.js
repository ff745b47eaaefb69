// The KAS delivery routes the viewer page calls (docs/delivery.md): the viewer's catalog, a
// playback's start (its signed media URL) and its release. The token goes only in the
// Authorization header; answers are read strictly; a refusal becomes a PlayerError carrying
// the KAS's refusal code, as the player's own key-service calls do.
import { PlayerError, malformed } from "./errors.js";
import { isObject, parseStrictJSON } from "./strict-json.js";

const ASSET_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

async function call(kas, token, method, path, body) {
  const headers = { Authorization: `Bearer ${token}` };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  let response;
  try {
    response = await fetch(kas.replace(/\/+$/, "") + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body),
      credentials: "omit", cache: "no-store", redirect: "error", mode: "cors" });
  } catch {
    throw new PlayerError("transport", "the key service could not be reached");
  }
  const text = await response.text();
  let object = null;
  try { object = text ? parseStrictJSON(text, "the key service's answer") : null; } catch { object = null; }
  if (!response.ok) {
    const given = isObject(object) && typeof object.reason === "string" && /^[a-z0-9_]{1,64}$/.test(object.reason) ? object.reason : null;
    const code = response.status === 401 ? "unauthorized" : response.status === 429 ? "limit" : response.status >= 500 ? "transient" : "denied";
    const derived = response.status === 401 ? "unauthorized" : response.status === 429 ? "rate_limit" : response.status >= 500 ? "unavailable"
      : response.status === 403 ? "denied" : "malformed_request";
    throw new PlayerError(code, `the key service refused ${method} ${path.split("?")[0]}: ${response.status}`, { reason: given ?? derived, status: response.status });
  }
  if (response.status !== 204 && !isObject(object)) throw malformed("the key service's answer is not a JSON object");
  return object;
}

/** One page of the titles this viewer may watch: {titles: [{assetId, title, duration, profile}], next}. */
export async function listCatalog(kas, token, after = null) {
  const answer = await call(kas, token, "GET", `/media/v1/catalog${after ? `?after=${encodeURIComponent(after)}` : ""}`);
  if (!Array.isArray(answer.titles)) throw malformed("the catalog answer has no titles list");
  const titles = answer.titles.filter((t) => isObject(t) && typeof t.assetId === "string" && ASSET_ID.test(t.assetId)
    && typeof t.title === "string" && Number.isFinite(t.duration) && typeof t.profile === "string");
  return { titles, next: typeof answer.next === "string" && ASSET_ID.test(answer.next) ? answer.next : null };
}

/** Starts a playback of `assetId` for the web player (drmSystem tdf): {playbackId, mediaUrl, releaseUrl}. */
export async function startPlayback(kas, token, assetId) {
  const answer = await call(kas, token, "POST", "/media/v1/playback", { assetId, drmSystem: "tdf", clientPlatform: "web" });
  if (typeof answer.playbackId !== "string" || typeof answer.mediaUrl !== "string" || typeof answer.releaseUrl !== "string") {
    throw malformed("the playback answer lacks its playbackId, mediaUrl or releaseUrl");
  }
  return { playbackId: answer.playbackId, mediaUrl: answer.mediaUrl, releaseUrl: answer.releaseUrl };
}

/** Starts a ClearKey playback of `assetId` (a cmaf title, or an fps-v2 title's views) in its
 * `manifest` form ("dash" or "hls"): {playbackId, url (its dashUrl or hlsUrl), licenseUrl, keyIds,
 * releaseUrl}, what MediaDRMPlayer.load takes for it. */
export async function startClearKeyPlayback(kas, token, assetId, manifest) {
  const answer = await call(kas, token, "POST", "/media/v1/playback", { assetId, drmSystem: "clearkey", manifestTypes: [manifest], clientPlatform: "web" });
  const url = manifest === "dash" ? answer.dashUrl : answer.hlsUrl;
  if (typeof answer.playbackId !== "string" || typeof url !== "string" || typeof answer.licenseUrl !== "string" || !isObject(answer.keyIds)) {
    throw malformed(`the playback answer lacks its playbackId, ${manifest}Url, licenseUrl or keyIds`);
  }
  return { playbackId: answer.playbackId, url, licenseUrl: answer.licenseUrl, keyIds: answer.keyIds, releaseUrl: answer.releaseUrl };
}

/** Releases a playback (its sessions end, its stream slot is free); a failure is left unsaid. */
export async function releasePlayback(kas, token, playbackId) {
  await call(kas, token, "DELETE", `/media/v1/playback/${encodeURIComponent(playbackId)}`).catch(() => {});
}

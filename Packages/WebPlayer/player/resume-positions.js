// Where each title was left, for resuming (docs/web.md "The viewer page"): one localStorage
// entry per title, keyed by its asset id, holding whole seconds only. Nothing else is stored
// (never a token). A storage the browser refuses (private modes) only means no resuming.
const PREFIX = "mediadrm.resume.";
// Closer than this to either end, a title starts from the beginning.
const MARGIN_SECONDS = 3;

/** The saved position of `assetId` within `duration`, or 0. */
export function savedPosition(assetId, duration) {
  let value = null;
  try { value = localStorage.getItem(PREFIX + assetId); } catch { return 0; }
  const seconds = value !== null && /^[0-9]{1,7}$/.test(value) ? Number(value) : 0;
  return seconds >= MARGIN_SECONDS && seconds < duration - MARGIN_SECONDS ? seconds : 0;
}

/** Saves `seconds` for `assetId` (forgotten near the end: the next play starts over). */
export function savePosition(assetId, seconds, duration) {
  try {
    if (seconds >= duration - MARGIN_SECONDS) localStorage.removeItem(PREFIX + assetId);
    else localStorage.setItem(PREFIX + assetId, String(Math.floor(seconds)));
  } catch { /* no storage: no resuming */ }
}

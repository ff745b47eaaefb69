// The support floor (docs/web.md, "Browsers"): Chromium 110, Firefox 115 ESR, Safari 16.4.
// What the player needs that some browser at the floor lacks is either replaced here by an
// equivalent built by hand, or refused before any request with reason `browser_unsupported`
// naming the missing API, so a missing API is never mistaken for a network or content failure.
import { PlayerError } from "./errors.js";

/** The APIs a playback cannot do without, by the name a refusal gives them. */
const REQUIRED = [
  ["MediaSource", (scope) => typeof scope.MediaSource === "function"],
  // Absent outside a secure context (https, or localhost).
  ["crypto.subtle", (scope) => typeof scope.crypto?.subtle?.importKey === "function"],
  ["ReadableStream.getReader", (scope) => typeof scope.ReadableStream?.prototype?.getReader === "function"],
  ["AbortController", (scope) => typeof scope.AbortController === "function"],
  ["TextDecoder", (scope) => typeof scope.TextDecoder === "function"],
];

/** The names of the required APIs `scope` lacks. */
export function missingBrowserAPIs(scope = globalThis) {
  return REQUIRED.filter(([, present]) => !present(scope)).map(([name]) => name);
}

/** Throws the `browser_unsupported` refusal when `scope` lacks a required API. */
export function requireBrowserAPIs(scope = globalThis) {
  const missing = missingBrowserAPIs(scope);
  if (missing.length) {
    throw new PlayerError("unsupported", `this browser lacks ${missing.join(", ")}, which the player needs (docs/web.md, "Browsers")`,
      { reason: "browser_unsupported" });
  }
}

/** A signal that aborts when any of `signals` (undefined ones ignored) does, with its reason.
 * `AbortSignal.any` is newer than the floor (Chromium 116, Firefox 124, Safari 17.4): without
 * it the signals are combined by hand. */
export function anySignal(signals, scope = globalThis) {
  const given = signals.filter(Boolean);
  if (given.length <= 1) return given[0];
  if (typeof scope.AbortSignal?.any === "function") return scope.AbortSignal.any(given);
  const controller = new AbortController();
  const already = given.find((s) => s.aborted);
  if (already) { controller.abort(already.reason); return controller.signal; }
  const onAbort = (event) => {
    for (const s of given) s.removeEventListener("abort", onAbort);
    controller.abort(event.target.reason);
  };
  for (const s of given) s.addEventListener("abort", onAbort);
  return controller.signal;
}

// Errors the player raises. `code` says what went wrong; `reason` is the key service's refusal
// code (the MediaDenial codes of docs/kas.md, e.g. `not_entitled`) when the KAS gave one, or a
// code of ours for refusals the page decides itself (`package_refused` with `check`).

/** What the page shows a viewer for a code: a sentence saying what happened and one saying what
 * to do next. A KAS refusal code's words are not here but in refusals.json, generated from the
 * Swift client's `PlaybackError.Refusal` (`player refusals`), so each code has its words in one
 * place (tests/viewer-words.test.js checks that no code has them in both). */
function words(meaning, explanation, nextStep) {
  return Object.freeze(explanation === undefined ? { meaning } : { meaning, explanation, nextStep });
}

/** Every `code` a PlayerError carries: what kind of failure it is, and the viewer's words for
 * it when the error has no `reason` with words of its own. docs/web.md lists the same. */
export const ERROR_CODES = Object.freeze({
  refused: words("the reader refused the package (with `check`)",
    "This video's files are damaged or not in a form this player accepts.", "Try another title; if it keeps happening, contact support."),
  malformed: words("an origin's file or a KAS answer does not parse",
    "Part of this video or of the key service's answer could not be read.", "Try again later; if it keeps happening, contact support."),
  transport: words("an origin or the KAS could not be reached, or answered with the wrong status",
    "The video or the key service could not be reached.", "Check your connection, then try again."),
  unauthorized: words("the token is missing or the KAS answered 401",
    "You are not signed in, or your sign-in is no longer accepted.", "Sign out and sign in again."),
  denied: words("the KAS refused (403, or a refused rewrap result)",
    "The key service refused to play this title for you.", "Choose another title, or contact support with the code below."),
  limit: words("the KAS answered 429",
    "Too many requests were made in a short time.", "Wait a minute, then try again."),
  transient: words("the KAS answered 5xx",
    "The key service is having a problem right now.", "Try again in a few minutes."),
  integrity: words("a tdf-hls segment does not verify",
    "A part of this video failed its integrity check, so it was not played.", "Try again later; if it keeps happening, contact support."),
  unsupported: words("the browser lacks what the content or the player needs",
    "This browser cannot play this video.", "Try a current version of Chrome, Edge or Firefox."),
  media: words("the element reported a decode or CDM failure",
    "The browser could not decode this video.", "Reload the page and try again, or try another browser."),
  aborted: words("loading was stopped (destroy or a new load)",
    "Playback was stopped.", "Press play to start again."),
  internal: words("a failure inside the player (a bug), never reported as one of the above",
    "Something went wrong inside the player.", "Reload the page; if it keeps happening, contact support with the code below."),
});

/** The `reason` codes the page decides itself or derives from a status when the KAS sent none
 * (a KAS refusal code, such as `not_entitled`, is passed on as the KAS sent it), with the
 * viewer's words for those refusals.json does not hold. docs/web.md lists the same. */
export const PAGE_REASONS = Object.freeze({
  package_refused: words("the reader refused the package (`check` names the check)",
    "This video's files are damaged or not in a form this player accepts.", "Try another title; if it keeps happening, contact support."),
  integrity: words("a tdf-hls segment does not verify",
    "A part of this video failed its integrity check, so it was not played.", "Try again later; if it keeps happening, contact support."),
  codec_unsupported: words("MediaSource plays none of the stream's variants",
    "This browser cannot play this video's format.", "Try a current version of Chrome, Edge or Firefox."),
  eme_unsupported: words("no EME ClearKey with cbcs for the package's codecs",
    "This browser cannot decrypt this video.", "Try a current version of Chrome, Edge or Firefox."),
  browser_unsupported: words("the browser lacks an API the player needs (named in the message)",
    "This browser lacks a feature the player needs.", "Try a current version of Chrome, Edge or Firefox."),
  media_rules_need_sessions: words("a policy with media rules and no way to start a media session",
    "This title needs a playback session this player could not start.", "Reload the page and try again."),
  unauthorized: words("401, or no usable token",
    "You are not signed in, or your sign-in is no longer accepted.", "Sign out and sign in again."),
  concurrent_streams: words("429, the concurrency limit"),
  too_many_sessions: words("429, too many sessions"),
  rate_limit: words("429, the key-request budget",
    "Too many requests were made in a short time.", "Wait a minute, then try again."),
  manifest_refused: words("403, the KAS refused the manifest",
    "The key service refused this video's package.", "Try another title; if it keeps happening, contact support."),
  denied: words("403",
    "The key service refused to play this title for you.", "Choose another title, or contact support with the code below."),
  not_entitled: words("a refused rewrap result saying so"),
  dissem_excluded: words("a refused rewrap result saying so"),
  session_ended: words("404, the media session is gone",
    "This playback's session has ended.", "Press play to start again."),
  unavailable: words("5xx",
    "The key service is having a problem right now.", "Try again in a few minutes."),
  malformed_request: words("another 4xx",
    "The key service did not accept the player's request.", "Reload the page and try again; if it keeps happening, contact support."),
  timeout: words("the KAS did not answer within network.keyServiceTimeoutSeconds",
    "The key service took too long to answer.", "Check your connection, then try again."),
});

/** An error of the player: `code`, optional `reason`, `status`, `check` and `retryAfter` (the
 * seconds of a rate limit's `Retry-After`: a 429 without a refusal code); never key material. */
export class PlayerError extends Error {
  constructor(code, message, { reason, status, check, retryAfter } = {}) {
    super(message);
    this.name = "PlayerError";
    this.code = code;
    if (reason !== undefined) this.reason = reason;
    if (status !== undefined) this.status = status;
    if (check !== undefined) this.check = check;
    if (retryAfter !== undefined) this.retryAfter = retryAfter;
  }
}

/** The reader refused the package: `check` names the admission check (the identifiers of
 * docs/fps-v2-admission.md, shared with the Swift reader). */
export function refused(check, message) {
  return new PlayerError("refused", message, { reason: "package_refused", check });
}

/** Malformed input from the network (an origin's file or a KAS answer). */
export function malformed(message) {
  return new PlayerError("malformed", message);
}

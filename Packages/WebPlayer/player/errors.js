// Errors the player raises. `code` says what went wrong; `reason` is the key service's refusal
// code (the MediaDenial codes of docs/kas.md, e.g. `not_entitled`) when the KAS gave one, or a
// code of ours for refusals the page decides itself (`package_refused` with `check`).

/** Every `code` a PlayerError carries: what kind of failure it is. docs/web.md lists the same. */
export const ERROR_CODES = Object.freeze({
  refused: "the reader refused the package (with `check`)",
  malformed: "an origin's file or a KAS answer does not parse",
  transport: "an origin or the KAS could not be reached, or answered with the wrong status",
  unauthorized: "the token is missing or the KAS answered 401",
  denied: "the KAS refused (403, or a refused rewrap result)",
  limit: "the KAS answered 429",
  transient: "the KAS answered 5xx",
  integrity: "a tdf-hls segment does not verify",
  unsupported: "the browser lacks what the content or the player needs",
  media: "the element reported a decode or CDM failure",
  aborted: "loading was stopped (destroy or a new load)",
  internal: "a failure inside the player (a bug), never reported as one of the above",
});

/** The `reason` codes the page decides itself or derives from a status when the KAS sent none
 * (a KAS refusal code, such as `not_entitled`, is passed on as the KAS sent it). docs/web.md
 * lists the same. */
export const PAGE_REASONS = Object.freeze({
  package_refused: "the reader refused the package (`check` names the check)",
  integrity: "a tdf-hls segment does not verify",
  codec_unsupported: "MediaSource plays none of the stream's variants",
  eme_unsupported: "no EME ClearKey with cbcs for the package's codecs",
  browser_unsupported: "the browser lacks an API the player needs (named in the message)",
  media_rules_need_sessions: "a policy with media rules and no way to start a media session",
  unauthorized: "401, or no usable token",
  concurrent_streams: "429, the concurrency limit",
  too_many_sessions: "429, too many sessions",
  rate_limit: "429, the key-request budget",
  manifest_refused: "403, the KAS refused the manifest",
  denied: "403",
  not_entitled: "a refused rewrap result saying so",
  dissem_excluded: "a refused rewrap result saying so",
  session_ended: "404, the media session is gone",
  unavailable: "5xx",
  malformed_request: "another 4xx",
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

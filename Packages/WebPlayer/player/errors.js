// Errors the player raises. `code` says what went wrong; `reason` is the key service's refusal
// code (the MediaDenial codes of docs/kas.md, e.g. `not_entitled`) when the KAS gave one, or a
// code of ours for refusals the page decides itself (`package_refused` with `check`).

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

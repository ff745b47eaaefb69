// A rate limit's Retry-After waited out as the Swift client's RateLimitWait does
// (docs/protocol.md): a 429 without a refusal code (PlayerError.retryAfter, key-service.js) is
// sent again after its Retry-After, at most retry.maxRateLimitedSends sends of one request, each
// wait at most retry.longestRetryAfterSeconds (the configuration's); past either the 429 is the
// playback's error. Used for tdf-hls rewraps and ClearKey licences.

/** Resolves after `ms`, or rejects with an AbortError when `signal` aborts first. */
function delay(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) { reject(new DOMException("stopped", "AbortError")); return; }
    const timer = setTimeout(() => { signal?.removeEventListener("abort", aborted); resolve(); }, ms);
    const aborted = () => { clearTimeout(timer); reject(new DOMException("stopped", "AbortError")); };
    signal?.addEventListener("abort", aborted, { once: true });
  });
}

/** Runs `request` (a new request each time) again after a rate limit's `Retry-After`, emitting
 * `onRateLimited({retryAfter, attempt})` before each wait (`signal` stops a wait); anything
 * else is thrown. `retry`: the configuration's retry group. */
export async function withRetryAfter(request, { retry, signal, onRateLimited }) {
  for (let send = 1; ; send++) {
    try {
      return await request();
    } catch (error) {
      const seconds = error?.retryAfter;
      if (!seconds || seconds > retry.longestRetryAfterSeconds || send >= retry.maxRateLimitedSends) throw error;
      onRateLimited?.({ retryAfter: seconds, attempt: send });
      await delay(seconds * 1000, signal);
    }
  }
}

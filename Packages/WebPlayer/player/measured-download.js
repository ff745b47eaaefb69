// Downloads from a tdf-hls stream's origin (playlists, inits, segment archives). A batch of
// segment archives is one transfer for the bandwidth meter (abr.js), measured while its bytes
// arrive, so the ABR rule sees a link that collapses before the batch ends; a batch can be given
// up while in flight (`giveUp`, the ABR's abandonment rule, asked on every CHECK_MS), and a
// cancelled one (a seek, destroy) leaves what it measured in the meter.
import { AbandonedTransfer } from "./abr.js";
import { anySignal } from "./browser-support.js";
import { concat } from "./bytes.js";
import { PlayerError, malformed } from "./errors.js";
import { contentRange } from "./range-source.js";

// How often a batch in flight samples a link that brings nothing and asks `giveUp`.
const CHECK_MS = 100;

/** The name a message gives a file: the last segment of its path. A per-playback manifest's
 * path holds the playback id, a credential (docs/delivery.md), which no error may carry. */
export const fileName = (url) => new URL(url).pathname.split("/").pop();

/** The body of `url` (at most `limit` bytes), or of its byte `range` ({start, length}: a Range
 * request whose answer must be 206 with exactly those bytes); `onLength(n)` once its
 * Content-Length is known, `onBytes(n)` as each chunk arrives. */
export async function fetchBytes(url, signal, limit, { onLength, onBytes, range = null } = {}) {
  if (range && range.length > limit) throw malformed(`a byte range of ${fileName(url)} is larger than the limit`);
  let response;
  try {
    response = await fetch(url, { signal, credentials: "omit",
      headers: range ? { Range: `bytes=${range.start}-${range.start + range.length - 1}` } : undefined });
  } catch (error) {
    if (error?.name === "AbortError") throw error;
    throw new PlayerError("transport", `the stream origin could not be reached (${new URL(url).origin})`);
  }
  if (!response.ok) throw new PlayerError("transport", `the stream origin answered ${response.status} for ${fileName(url)}`, { status: response.status });
  if (range) {
    if (response.status !== 206) throw new PlayerError("transport", `the stream origin answered ${response.status} to a Range request; it must answer 206`, { status: response.status });
    const { first, last } = contentRange(response);
    if (first !== range.start || last !== range.start + range.length - 1) throw malformed("the origin answered another range than the one asked for");
  }
  const tooLarge = () => malformed(`${fileName(url)} is larger than the limit`);
  const length = Number(response.headers.get("Content-Length") || 0);
  if (length > limit) throw tooLarge();
  if (length) onLength?.(length);
  const chunks = [];
  let received = 0;
  try {
    if (response.body?.getReader) {
      const reader = response.body.getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        received += value.length;
        if (received > limit) { reader.cancel().catch(() => {}); throw tooLarge(); }
        chunks.push(value);
        onBytes?.(value.length);
      }
    } else {
      chunks.push(new Uint8Array(await response.arrayBuffer()));
      received = chunks[0].length;
      if (received > limit) throw tooLarge();
      onBytes?.(received);
    }
  } catch (error) {
    if (error instanceof PlayerError || error?.name === "AbortError") throw error;
    throw new PlayerError("transport", `the stream origin's answer broke off (${new URL(url).origin})`);
  }
  if (range && received !== range.length) throw malformed("the origin's body does not match its Content-Range");
  return chunks.length === 1 ? chunks[0] : concat(chunks);
}

/** Downloads `items` ([{url, expectedBytes}]) in parallel as one transfer of `meter`. `giveUp`
 * ({loadedBytes, totalBytes, elapsedMs, lengths}) -> boolean is asked while it runs (`lengths`:
 * each item's Content-Length once known, else its expectedBytes; totalBytes their sum); when it answers true every fetch
 * stops and AbandonedTransfer is thrown. `onItem(i, bytes)` as each item arrives. `now`: the
 * clock (tests). */
export async function downloadBatch(items, { meter, signal, limit, giveUp, onItem, now }) {
  const stop = new AbortController();
  const combined = anySignal([signal, stop.signal]);
  const transfer = meter.start(now);
  const lengths = items.map((item) => item.expectedBytes);
  let abandoned = false;
  // Judged as each chunk arrives, and on a timer while none does.
  const judge = () => {
    if (abandoned || !giveUp) return;
    const totalBytes = lengths.reduce((sum, n) => sum + n, 0);
    if (giveUp({ loadedBytes: transfer.loadedBytes, totalBytes, elapsedMs: transfer.elapsedMs, lengths })) {
      abandoned = true;
      stop.abort();
    }
  };
  const timer = setInterval(() => { transfer.tick(); judge(); }, CHECK_MS);
  try {
    return await Promise.all(items.map(async (item, i) => {
      const bytes = await fetchBytes(item.url, combined, limit, { range: item.range ?? null,
        onLength: (n) => { lengths[i] = n; }, onBytes: (n) => { transfer.received(n); judge(); } });
      onItem?.(i, bytes);
      return bytes;
    }));
  } catch (error) {
    if (abandoned) throw new AbandonedTransfer();
    throw error;
  } finally {
    clearInterval(timer);
    transfer.finish();
    stop.abort();   // the other fetches of a batch that failed stop too
  }
}

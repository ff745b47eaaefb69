// Reads byte ranges of a remote file with HTTP Range requests (RFC 9110 §14), whole or as they
// arrive, as the Swift client's HTTPRangeSource does: every answer must be 206 with a
// Content-Range naming exactly the bytes asked for and the same total size, so a server that
// ignores Range (200 with the whole file) or a file that changes under the reader is an error,
// not silently wrong bytes.
import { anySignal } from "./browser-support.js";
import { PlayerError, malformed } from "./errors.js";

/** The `Content-Range` of a 206 answer as {first, last, total}. */
export function contentRange(response) {
  const match = /^bytes (\d{1,15})-(\d{1,15})\/(\d{1,15})$/.exec(response.headers.get("Content-Range") || "");
  if (!match) throw malformed("the origin's Content-Range is missing or malformed (is Content-Range exposed by CORS?)");
  const [first, last, total] = match.slice(1).map(Number);
  return { first, last, total };
}

export class RangeSource {
  /** `url` of the file; `signal` aborts every request (destroy()). */
  constructor(url, { signal } = {}) {
    this.url = url;
    this.signal = signal;
    this.size = null;
    this.etag = null;
  }

  /** The last `count` bytes; learns the file's size. */
  async tail(count) {
    const { bytes, start } = await this.request(`bytes=-${count}`, null, count);
    return { bytes, start };
  }

  /** Bytes [start, start + length). */
  async read(start, length) {
    if (length === 0) return new Uint8Array(0);
    const { bytes } = await this.request(`bytes=${start}-${start + length - 1}`, start, length);
    return bytes;
  }

  /** Bytes [start, start + length) as they arrive: an async iterator of chunks (the answer's
   * status and Content-Range checked before the first; a body shorter or longer than asked for
   * throws after the last). `signal` (with the source's own) cancels the download. */
  async *stream(start, length, { signal } = {}) {
    const { response, length: answered } = await this.answer(`bytes=${start}-${start + length - 1}`, start, length, signal);
    if (answered !== length || !response.body) throw malformed("the origin answered a range of the wrong length");
    const reader = response.body.getReader();
    let received = 0;
    try {
      for (;;) {
        const { done, value } = await this.body(() => reader.read());
        if (done) break;
        received += value.length;
        if (received > length) throw malformed("the origin's body does not match its Content-Range");
        yield value;
      }
    } finally {
      reader.cancel().catch(() => {});
    }
    if (received !== length) throw malformed("the origin's body does not match its Content-Range");
  }

  async request(range, expectedStart, maxLength) {
    const { response, start, length } = await this.answer(range, expectedStart, maxLength);
    const bytes = new Uint8Array(await this.body(() => response.arrayBuffer()));
    if (bytes.length !== length) throw malformed("the origin's body does not match its Content-Range");
    return { bytes, start };
  }

  /** Reads (part of) a body; a connection lost on the way is the origin's transport error. */
  async body(read) {
    try {
      return await read();
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw new PlayerError("transport", `the package origin's answer broke off (${new URL(this.url).origin})`);
    }
  }

  /** Sends one Range request and checks its answer's head: {response (body unread), start, length}. */
  async answer(range, expectedStart, maxLength, signal) {
    // Combined before the try: only fetch's own failure is the origin's transport error.
    const combined = anySignal([this.signal, signal]);
    let response;
    try {
      response = await fetch(this.url, { headers: { Range: range }, credentials: "omit", cache: "no-store", signal: combined });
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw new PlayerError("transport", `the package origin could not be reached (${new URL(this.url).origin})`);
    }
    if (response.status !== 206) {
      throw new PlayerError("transport", `the package origin answered ${response.status} to a Range request; it must answer 206 (see docs/web.md, origin set-up)`, { status: response.status });
    }
    const { first, last, total } = contentRange(response);
    if (this.size === null) this.size = total;
    if (total !== this.size) throw malformed("the package changed size between two reads");
    const etag = response.headers.get("ETag");
    if (etag && this.etag === null) this.etag = etag;
    if (etag && this.etag !== etag) throw malformed("the package changed between two reads (ETag)");
    if (expectedStart !== null && first !== expectedStart) throw malformed("the origin answered another range than the one asked for");
    const length = last - first + 1;
    if (last < first || length > maxLength) throw malformed("the origin answered a range of the wrong length");
    return { response, start: first, length };
  }
}

// Reads byte ranges of a remote file with HTTP Range requests (RFC 9110 §14), as the Swift
// client's HTTPRangeSource does: every answer must be 206 with a Content-Range naming exactly the
// bytes asked for and the same total size, so a server that ignores Range (200 with the whole
// file) or a file that changes under the reader is an error, not silently wrong bytes.
import { PlayerError, malformed } from "./errors.js";

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

  async request(range, expectedStart, maxLength) {
    let response;
    try {
      response = await fetch(this.url, { headers: { Range: range }, signal: this.signal, credentials: "omit", cache: "no-store" });
    } catch (error) {
      if (error && error.name === "AbortError") throw error;
      throw new PlayerError("transport", `the package origin could not be reached (${new URL(this.url).origin})`);
    }
    if (response.status !== 206) {
      throw new PlayerError("transport", `the package origin answered ${response.status} to a Range request; it must answer 206 (see docs/web.md, origin set-up)`, { status: response.status });
    }
    const header = response.headers.get("Content-Range") || "";
    const match = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(header);
    if (!match) throw malformed("the package origin's Content-Range is missing or malformed (is Content-Range exposed by CORS?)");
    const [first, last, total] = match.slice(1).map(Number);
    if (this.size === null) this.size = total;
    if (total !== this.size) throw malformed("the package changed size between two reads");
    const etag = response.headers.get("ETag");
    if (etag && this.etag === null) this.etag = etag;
    if (etag && this.etag !== etag) throw malformed("the package changed between two reads (ETag)");
    if (expectedStart !== null && first !== expectedStart) throw malformed("the origin answered another range than the one asked for");
    const length = last - first + 1;
    if (last < first || length > maxLength) throw malformed("the origin answered a range of the wrong length");
    const bytes = new Uint8Array(await response.arrayBuffer());
    if (bytes.length !== length) throw malformed("the origin's body does not match its Content-Range");
    return { bytes, start: first };
  }
}

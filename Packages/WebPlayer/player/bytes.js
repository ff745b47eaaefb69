// Byte helpers: canonical base64 (docs/formats.md: a value must re-encode to the text received),
// base64url, hex, and a bounds-checked big/little-endian reader for parsers of hostile input.
import { malformed } from "./errors.js";

const STANDARD = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

export function base64Encode(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

/** Canonical standard base64, or null: padding required, no whitespace, zero padding bits. */
export function base64Decode(text) {
  if (typeof text !== "string" || text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) return null;
  let binary;
  try { binary = atob(text); } catch { return null; }
  const bytes = Uint8Array.from(binary, (c) => c.charCodeAt(0));
  return base64Encode(bytes) === text ? bytes : null;
}

export function base64urlEncode(bytes) {
  return base64Encode(bytes).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function hex(bytes) {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

export function concat(parts) {
  const total = parts.reduce((n, p) => n + p.length, 0);
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) { out.set(p, at); at += p.length; }
  return out;
}

export function equalBytes(a, b) {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i] ^ b[i];
  return diff === 0;
}

export const utf8 = {
  encode: (text) => new TextEncoder().encode(text),
  /** Strict UTF-8: invalid sequences throw instead of becoming U+FFFD. */
  decode: (bytes) => {
    try { return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes); } catch {
      throw malformed("text that is not valid UTF-8");
    }
  },
};

/** Reads integers at absolute offsets, refusing any read past the end. */
export class ByteView {
  constructor(bytes) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  get length() { return this.bytes.length; }
  check(offset, size) {
    if (!Number.isInteger(offset) || offset < 0 || offset + size > this.bytes.length) {
      throw malformed(`a read of ${size} bytes at ${offset} runs past the end of ${this.bytes.length} bytes`);
    }
  }
  u8(o) { this.check(o, 1); return this.view.getUint8(o); }
  u16le(o) { this.check(o, 2); return this.view.getUint16(o, true); }
  u32le(o) { this.check(o, 4); return this.view.getUint32(o, true); }
  u16(o) { this.check(o, 2); return this.view.getUint16(o); }
  u32(o) { this.check(o, 4); return this.view.getUint32(o); }
  u64(o) { this.check(o, 8); return this.view.getUint32(o) * 2 ** 32 + this.view.getUint32(o + 4); }
  slice(o, n) { this.check(o, n); return this.bytes.subarray(o, o + n); }
}

// CRC-32 (ISO 3309, as ZIP stores it) by "slicing by 8": eight 256-entry tables let the loop
// take eight bytes per step instead of one; a 6 s 1080p segment (several MB) is checked before
// MediaSource gets it, on the page's main thread, so this speed is start-up latency.
let crcTables = null;
function makeCRCTables() {
  const tables = Array.from({ length: 8 }, () => new Uint32Array(256));
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    tables[0][n] = c >>> 0;
  }
  // tables[k][n]: the CRC register after byte n is followed by k zero bytes.
  for (let k = 1; k < 8; k++) {
    for (let n = 0; n < 256; n++) tables[k][n] = (tables[k - 1][n] >>> 8) ^ tables[0][tables[k - 1][n] & 0xff];
  }
  return tables;
}

/** CRC-32 (ISO 3309, as ZIP stores it) of `bytes`; with `previous` (the CRC-32 of the bytes
 * before them), of the whole run: crc32(b, crc32(a)) === crc32(a ‖ b). */
export function crc32(bytes, previous = 0) {
  crcTables ??= makeCRCTables();
  const [t0, t1, t2, t3, t4, t5, t6, t7] = crcTables;
  let crc = (previous ^ 0xffffffff) >>> 0;
  let i = 0;
  const whole = bytes.length - (bytes.length % 8);
  for (; i < whole; i += 8) {
    const low = crc ^ (bytes[i] | (bytes[i + 1] << 8) | (bytes[i + 2] << 16) | (bytes[i + 3] << 24));
    crc = t7[low & 0xff] ^ t6[(low >>> 8) & 0xff] ^ t5[(low >>> 16) & 0xff] ^ t4[low >>> 24] ^
      t3[bytes[i + 4]] ^ t2[bytes[i + 5]] ^ t1[bytes[i + 6]] ^ t0[bytes[i + 7]];
  }
  for (; i < bytes.length; i++) crc = t0[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

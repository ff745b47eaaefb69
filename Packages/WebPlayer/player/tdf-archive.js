// A Standard TDF (OpenTDF 4.3.0; docs/formats.md "Standard TDF") held in memory: the ZIP's
// `0.manifest.json` and `0.payload` (stored entries), and decryption with WebCrypto after every
// check the Swift reader makes: the policy binding under the payload key, the root signature
// (HMAC-SHA256 over the concatenated segment hashes), then each segment's hash (its GCM tag)
// and AES-256-GCM tag as it is opened. No plaintext is returned before all of them passed.
import { ByteView, base64Decode, concat, equalBytes, utf8 } from "./bytes.js";
import { PlayerError, malformed } from "./errors.js";
import { isObject, parseStrictJSON } from "./strict-json.js";

const integrity = (message) => new PlayerError("integrity", message, { reason: "integrity" });

/** The stored entries of an in-memory ZIP, by name (central directory first). */
function zipEntries(bytes) {
  const view = new ByteView(bytes);
  let end = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 65535); at--) {
    if (view.u32le(at) === 0x06054b50 && at + 22 + view.u16le(at + 20) === bytes.length) { end = at; break; }
  }
  if (end < 0) throw malformed("a tdf-hls segment is not a ZIP archive");
  const count = view.u16le(end + 10), cdOffset = view.u32le(end + 16);
  if (count > 16) throw malformed("a tdf-hls segment has too many entries");
  const entries = new Map();
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (view.u32le(at) !== 0x02014b50) throw malformed("a tdf-hls segment's central directory is malformed");
    const method = view.u16le(at + 10), size = view.u32le(at + 24), compressed = view.u32le(at + 20);
    const nameLength = view.u16le(at + 28), extra = view.u16le(at + 30), comment = view.u16le(at + 32), offset = view.u32le(at + 42);
    const name = utf8.decode(view.slice(at + 46, nameLength));
    if (method !== 0 || size !== compressed) throw malformed(`the TDF entry ${name.slice(0, 40)} is compressed; only stored entries are read`);
    if (view.u32le(offset) !== 0x04034b50) throw malformed("a TDF entry's local header is missing");
    const dataOffset = offset + 30 + view.u16le(offset + 26) + view.u16le(offset + 28);
    entries.set(name, view.slice(dataOffset, size));
    at += 46 + nameLength + extra + comment;
  }
  return entries;
}

const hashBytes = (text, size) => {
  const raw = base64Decode(text);
  if (raw && raw.length === size) return raw;
  // The legacy and Go SDK forms: base64 of the hex text.
  const hexText = raw && utf8.decode(raw);
  return hexText && /^[0-9a-fA-F]+$/.test(hexText) && hexText.length === size * 2
    ? Uint8Array.from(hexText.match(/../g), (h) => parseInt(h, 16)) : null;
};

export class TDFArchive {
  constructor(bytes) {
    const entries = zipEntries(bytes);
    const manifestBytes = entries.get("0.manifest.json"), payload = entries.get("0.payload");
    if (!manifestBytes || !payload) throw malformed("a tdf-hls segment lacks 0.manifest.json or 0.payload");
    const manifest = parseStrictJSON(utf8.decode(manifestBytes), "a TDF manifest");
    const info = manifest.encryptionInformation;
    if (!isObject(info) || !Array.isArray(info.keyAccess) || info.keyAccess.length !== 1 || typeof info.policy !== "string" || !isObject(info.integrityInformation)) {
      throw malformed("a tdf-hls segment's manifest lacks one key access, its policy or integrity information");
    }
    this.keyAccess = info.keyAccess[0];
    this.policy = info.policy;
    this.integrity = info.integrityInformation;
    this.payload = payload;
  }

  /** Verifies everything under the 32-byte payload `key`, then returns the plaintext. */
  async decrypt(keyBytes) {
    const subtle = crypto.subtle;
    const hmacKey = await subtle.importKey("raw", keyBytes, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
    const hmac = async (text) => new Uint8Array(await subtle.sign("HMAC", hmacKey, typeof text === "string" ? utf8.encode(text) : text));
    const binding = this.keyAccess.policyBinding;
    const bindingHash = hashBytes(typeof binding === "string" ? binding : binding?.hash, 32);
    if (!bindingHash || !equalBytes(bindingHash, await hmac(this.policy))) throw integrity("a segment's policy binding does not verify");
    const segments = this.integrity.segments;
    if (!Array.isArray(segments) || segments.length === 0 || segments.length > 100000) throw malformed("a TDF's segment list is missing");
    const hashes = segments.map((s) => hashBytes(s?.hash, 16));
    if (hashes.some((h) => !h)) throw malformed("a TDF segment hash is not 16 bytes");
    const root = hashBytes(this.integrity.rootSignature?.sig, 32);
    if (!root || !equalBytes(root, await hmac(concat(hashes)))) throw integrity("a segment's root signature does not verify");
    const aes = await subtle.importKey("raw", keyBytes, "AES-GCM", false, ["decrypt"]);
    const parts = [];
    let at = 0;
    for (let i = 0; i < segments.length; i++) {
      const size = segments[i].encryptedSegmentSize ?? this.integrity.encryptedSegmentSizeDefault;
      if (!Number.isInteger(size) || size < 28 || at + size > this.payload.length) throw malformed("a TDF segment size runs past the payload");
      const sealed = this.payload.subarray(at, at + size);
      if (!equalBytes(sealed.subarray(size - 16), hashes[i])) throw integrity(`TDF segment ${i}'s hash does not match its tag`);
      try {
        parts.push(new Uint8Array(await subtle.decrypt({ name: "AES-GCM", iv: sealed.subarray(0, 12) }, aes, sealed.subarray(12))));
      } catch { throw integrity(`TDF segment ${i} does not decrypt`); }
      at += size;
    }
    if (at !== this.payload.length) throw malformed("the TDF payload has bytes past its last segment");
    return concat(parts);
  }
}


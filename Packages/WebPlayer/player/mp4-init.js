// ISO BMFF (ISO/IEC 14496-12) just far enough to check an fps-v2 init segment (§8 #1–#7) and to
// read what the browser needs from it: the track's protected sample entry, its `tenc` KID and
// constant IV, the codec string for MediaSource. Every size is checked against its parent.
import { ByteView, equalBytes } from "./bytes.js";
import { refused } from "./errors.js";

/** The child boxes of bytes[start, end): [{type, start, end, body}]. */
export function boxes(view, start, end, check = "initBoxTree") {
  const out = [];
  let at = start;
  while (at < end) {
    if (end - at < 8) throw refused(check, "a box header runs past its parent");
    let size = view.u32(at);
    const type = String.fromCharCode(...view.slice(at + 4, 4));
    let header = 8;
    if (size === 1) { if (end - at < 16) throw refused(check, "a box header runs past its parent"); size = view.u64(at + 8); header = 16; }
    else if (size === 0) size = end - at;
    if (size < header || at + size > end) throw refused(check, `the ${type.replace(/[^ -~]/g, "?")} box runs past its parent`);
    out.push({ type, start: at, end: at + size, body: at + header });
    at += size;
  }
  return out;
}

const only = (list, type, check, what) => {
  const found = list.filter((b) => b.type === type);
  if (found.length !== 1) throw refused(check, `${what}: expected exactly one ${type} box`);
  return found[0];
};

/** Checks an fps-v2 init (§8) of component `kind` against the manifest IV; returns {kid, codec}. */
export function checkInit(bytes, kind, iv) {
  const view = new ByteView(bytes);
  const top = boxes(view, 0, bytes.length);
  const moov = only(top, "moov", "initBoxTree", "the init");
  const traks = boxes(view, moov.body, moov.end).filter((b) => b.type === "trak");
  if (traks.length !== 1) throw refused("initTrack", "the init does not hold exactly one track");
  const mdia = only(boxes(view, traks[0].body, traks[0].end), "mdia", "initTrack", "trak");
  const mdiaChildren = boxes(view, mdia.body, mdia.end);
  const hdlr = only(mdiaChildren, "hdlr", "initTrack", "mdia");
  const handler = String.fromCharCode(...view.slice(hdlr.body + 8, 4));
  if (handler !== (kind === "video" ? "vide" : "soun")) throw refused("initTrack", `the init's track is not a ${kind} track`);
  const minf = only(mdiaChildren, "minf", "initTrack", "mdia");
  const stbl = only(boxes(view, minf.body, minf.end), "stbl", "initTrack", "minf");
  const stsd = only(boxes(view, stbl.body, stbl.end), "stsd", "initTrack", "stbl");
  const entries = boxes(view, stsd.body + 8, stsd.end);
  const expected = kind === "video" ? "encv" : "enca";
  if (entries.length !== 1 || entries[0].type !== expected) throw refused("initSampleEntry", `the init's sample entry is not one ${expected}`);
  const entry = entries[0];
  // Children of a visual sample entry start after 78 bytes, of an audio one after 28.
  const children = boxes(view, entry.body + (kind === "video" ? 78 : 28), entry.end);
  const sinf = only(children, "sinf", "initSampleEntry", expected);
  const sinfChildren = boxes(view, sinf.body, sinf.end);
  const frma = only(sinfChildren, "frma", "initOriginalFormat", "sinf");
  const format = String.fromCharCode(...view.slice(frma.body, 4));
  if (format !== (kind === "video" ? "avc1" : "mp4a")) throw refused("initOriginalFormat", `the original format is ${format.replace(/[^ -~]/g, "?")}`);
  const schm = only(sinfChildren, "schm", "initScheme", "sinf");
  if (String.fromCharCode(...view.slice(schm.body + 4, 4)) !== "cbcs" || view.u32(schm.body + 8) !== 0x00010000) throw refused("initScheme", "the scheme is not cbcs version 0x00010000");
  const schi = only(sinfChildren, "schi", "initTrackEncryption", "sinf");
  const tenc = only(boxes(view, schi.body, schi.end), "tenc", "initTrackEncryption", "schi");
  const version = view.u8(tenc.body);
  const pattern = view.u8(tenc.body + 5);
  const isProtected = view.u8(tenc.body + 6), ivSize = view.u8(tenc.body + 7);
  const kid = view.slice(tenc.body + 8, 16);
  if (isProtected !== 1 || ivSize !== 0 || view.u8(tenc.body + 24) !== 16 || !equalBytes(view.slice(tenc.body + 25, 16), iv)) {
    throw refused("initTrackEncryption", "tenc is not protected with a 16-byte constant IV equal to method.iv");
  }
  if (kind === "video" ? version !== 1 || pattern !== 0x19 : version !== 0 || pattern !== 0) throw refused("initPattern", "the tenc pattern is not the profile's");
  let codec;
  if (kind === "video") {
    const avcC = only(children, "avcC", "initCodec", "encv");
    codec = `avc1.${[1, 2, 3].map((i) => view.u8(avcC.body + i).toString(16).padStart(2, "0").toUpperCase()).join("")}`;
    return { kid: new Uint8Array(kid), codec };
  }
  const esds = children.find((b) => b.type === "esds");
  if (!esds) throw refused("initCodec", "the audio sample entry has no esds");
  const config = audioSpecificConfig(view, esds.body + 4, esds.end);
  if (config.objectType !== 2) throw refused("initCodec", "the AudioSpecificConfig object type is not 2 (AAC-LC)");
  if (config.channelConfiguration < 1 || config.channelConfiguration > 7) throw refused("initCodec", "the AudioSpecificConfig channelConfiguration is not 1 to 7");
  codec = "mp4a.40.2";
  return { kid: new Uint8Array(kid), codec, channelConfiguration: config.channelConfiguration };
}

/** HLS CHANNELS for an AAC channelConfiguration (§7.2 #3): configuration 7 is 7.1, 8 channels. */
export const channelCount = (configuration) => (configuration === 7 ? 8 : configuration);

/** The leading fields of the AudioSpecificConfig (ISO/IEC 14496-3 §1.6.2.1) inside an esds
 * ES_Descriptor (ISO/IEC 14496-1 §7.2.6): object type and channel configuration. */
function audioSpecificConfig(view, start, end) {
  const unreadable = () => refused("initCodec", "the esds has no readable AudioSpecificConfig");
  let at = start;
  // A descriptor: tag, then a size in 1 to 4 bytes of 7 bits each.
  const descriptor = (tag) => {
    if (at >= end || view.u8(at) !== tag) throw unreadable();
    at++;
    let size = 0;
    for (let i = 0; i < 4; i++) {
      if (at >= end) throw unreadable();
      const byte = view.u8(at++);
      size = (size << 7) | (byte & 0x7f);
      if (!(byte & 0x80)) break;
    }
    if (at + size > end) throw unreadable();
    return at + size;
  };
  const esEnd = descriptor(0x03);
  at += 2;   // ES_ID
  if (at >= esEnd) throw unreadable();
  const flags = view.u8(at++);
  if (flags & 0x80) at += 2;                       // dependsOn_ES_ID
  if (flags & 0x40) { if (at >= esEnd) throw unreadable(); at += 1 + view.u8(at); }  // URL
  if (flags & 0x20) at += 2;                       // OCR_ES_Id
  descriptor(0x04);
  at += 13;  // objectTypeIndication, streamType, bufferSizeDB, maxBitrate, avgBitrate
  const infoEnd = descriptor(0x05);
  if (infoEnd - at < 2) throw unreadable();
  let bits = 0, have = 0;
  const read = (n) => {
    while (have < n) {
      if (at >= infoEnd) throw unreadable();
      bits = (bits * 256) + view.u8(at++);
      have += 8;
    }
    have -= n;
    const value = Math.floor(bits / 2 ** have) % 2 ** n;
    bits %= 2 ** have;
    return value;
  };
  let objectType = read(5);
  if (objectType === 31) objectType = 32 + read(6);
  if (read(4) === 0xf) read(24);
  return { objectType, channelConfiguration: read(4) };
}

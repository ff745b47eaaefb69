// The Segment Index box (`sidx`, ISO/IEC 14496-12 §8.16.3) that a DASH `SegmentBase` points at
// with `indexRange`: the byte ranges and durations of the file's media segments. Only a flat
// index (every reference to media, none to another sidx) is read; every field is bounds-checked
// and the count is checked before anything is allocated.
import { ByteView } from "./bytes.js";
import { malformed } from "./errors.js";
import { MAX_SEGMENTS } from "./hls-playlist.js";

/** The segments a `sidx` box at the start of `bytes` indexes, as [{start, duration, range:
 * {start, length}}] in seconds and file offsets; `indexStart` is the file offset of `bytes`. */
export function readSegmentIndex(bytes, indexStart) {
  const view = new ByteView(bytes);
  let size = view.u32(0);
  const type = String.fromCharCode(...view.slice(4, 4));
  let at = 8;
  if (size === 1) { size = view.u64(8); at = 16; }
  if (type !== "sidx") throw malformed("the DASH index range does not hold a sidx box");
  if (size < at || size > bytes.length) throw malformed("the sidx box runs past the index range");
  const version = view.u8(at);
  if (version > 1) throw malformed("the sidx box has an unknown version");
  const timescale = view.u32(at + 8);
  if (timescale === 0) throw malformed("the sidx box has no timescale");
  at += 12;
  const earliest = version === 0 ? view.u32(at) : view.u64(at);
  const firstOffset = version === 0 ? view.u32(at + 4) : view.u64(at + 8);
  at += version === 0 ? 8 : 16;
  const count = view.u16(at + 2);
  at += 4;
  if (count === 0 || count > MAX_SEGMENTS || at + count * 12 > size) throw malformed("the sidx box's references run past it or are none");
  const segments = [];
  let offset = indexStart + size + firstOffset;
  let time = earliest;
  for (let n = 0; n < count; n++, at += 12) {
    const reference = view.u32(at);
    if (reference >>> 31) throw malformed("the sidx box refers to another index, which the player does not read");
    const length = reference & 0x7fffffff;
    const duration = view.u32(at + 4);
    if (length === 0 || duration === 0) throw malformed("a sidx reference has no bytes or no duration");
    segments.push({ start: time / timescale, duration: duration / timescale, range: { start: offset, length } });
    offset += length;
    time += duration;
  }
  return segments;
}

// The fps-v2 container checks (docs/fps-v2-admission.md; draft-arkavo-tdf-fairplay-01 §4, §12)
// over the end record and the central directory alone, as the Swift reader's `.onRead` mode
// does for an HTTP package: each local header is then taken as 30 bytes plus its name (the exact
// layout allows no local extra field) and verified when its entry is read.
import { ByteView, crc32, utf8 } from "./bytes.js";
import { refused } from "./errors.js";

export const LIMITS = Object.freeze({
  maxArchiveBytes: 4294967295,
  maxEntries: 8192,
  maxExpandedBytes: 4294967295,
  maxMetadataBytes: 1048576,
  maxNameLength: 1024,
});

const END_RECORD = 0x06054b50, CENTRAL = 0x02014b50, LOCAL = 0x04034b50, ZIP64_LOCATOR = 0x07064b50;
const END_SIZE = 22, CENTRAL_SIZE = 46, LOCAL_SIZE = 30;

/** The end record of an archive of `size` bytes whose last bytes are `tail` (starting at `tailStart`). */
export function readEndRecord(tail, tailStart, size) {
  if (size > LIMITS.maxArchiveBytes) throw refused("archiveSize", "the package is larger than 4,294,967,295 bytes");
  if (size < END_SIZE || tail.length < END_SIZE) throw refused("endRecord", "the package is too short to be a ZIP archive");
  const view = new ByteView(tail);
  const at = tail.length - END_SIZE;
  // §4.3: the end record, with no comment, ends the file.
  if (view.u32le(at) !== END_RECORD) throw refused("exactLayout", "the package does not end with a ZIP end record without a comment");
  if (at >= 20 && view.u32le(at - 20) === ZIP64_LOCATOR) throw refused("zip32", "the package carries ZIP64 records");
  const disk = view.u16le(at + 4), cdDisk = view.u16le(at + 6);
  const diskEntries = view.u16le(at + 8), entries = view.u16le(at + 10);
  const cdSize = view.u32le(at + 12), cdOffset = view.u32le(at + 16), comment = view.u16le(at + 20);
  if (entries === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw refused("zip32", "the end record defers to ZIP64");
  if (disk !== 0 || cdDisk !== 0 || diskEntries !== entries) throw refused("endRecord", "the archive spans several disks");
  if (comment !== 0) throw refused("exactLayout", "the end record has a comment");
  const endOffset = tailStart + at;
  if (cdOffset + cdSize !== endOffset) throw refused("endRecord", "the central directory does not end where the end record starts");
  if (entries > LIMITS.maxEntries) throw refused("entryCount", "the package has more than 8,192 entries");
  return { entries, cdOffset, cdSize };
}

/** Parses and checks the central directory; returns entries in archive order with their data offsets. */
export function readCentralDirectory(bytes, end) {
  const view = new ByteView(bytes);
  const entries = [];
  const names = new Set();
  let at = 0, expanded = 0;
  for (let i = 0; i < end.entries; i++) {
    if (at + CENTRAL_SIZE > bytes.length || view.u32le(at) !== CENTRAL) throw refused("endRecord", `central directory record ${i} is malformed`);
    const flags = view.u16le(at + 8), method = view.u16le(at + 10);
    const crc = view.u32le(at + 16), compressed = view.u32le(at + 20), size = view.u32le(at + 24);
    const nameLength = view.u16le(at + 28), extraLength = view.u16le(at + 30), commentLength = view.u16le(at + 32);
    const disk = view.u16le(at + 34), offset = view.u32le(at + 42);
    if (compressed === 0xffffffff || size === 0xffffffff || offset === 0xffffffff) throw refused("zip32", "an entry defers to ZIP64");
    if (disk !== 0) throw refused("endRecord", "an entry lives on another disk");
    if (nameLength === 0 || nameLength > LIMITS.maxNameLength) throw refused("safeNames", "an entry name is empty or too long");
    const nameBytes = view.slice(at + CENTRAL_SIZE, nameLength);
    let name;
    try { name = utf8.decode(nameBytes); } catch { throw refused("entryNames", "an entry name is not UTF-8"); }
    if (name.startsWith("/") || name.includes("\\") || name.split("/").includes("..")) throw refused("safeNames", "an entry name is absolute, has a backslash or climbs out");
    if (names.has(name)) throw refused("uniqueNames", "two entries share a name");
    names.add(name);
    if (method !== 0 || (flags & 0x0009) !== 0 || compressed !== size) throw refused("storedEntries", `entry ${name} is compressed, encrypted or uses a data descriptor`);
    if (extraLength !== 0 || commentLength !== 0) throw refused("exactLayout", `entry ${name} has an extra field or a comment`);
    expanded += size;
    if (expanded > LIMITS.maxExpandedBytes) throw refused("expandedSize", "the entries total more than 4,294,967,295 bytes");
    entries.push({ name, flags, crc, size, offset, nameLength, dataOffset: offset + LOCAL_SIZE + nameLength });
    at += CENTRAL_SIZE + nameLength;
  }
  if (at !== bytes.length) throw refused("endRecord", "the central directory has bytes after its last record");
  // §4.3 exact layout: first local header at 0, entries back to back, directory right after.
  let expected = 0;
  for (const entry of entries) {
    if (entry.offset !== expected) throw refused("exactLayout", `entry ${entry.name} does not start where the previous one ended`);
    expected = entry.dataOffset + entry.size;
  }
  if (expected !== end.cdOffset) throw refused("exactLayout", "there is a gap before the central directory");
  return entries;
}

/** Checks `header` (an entry's local header as read: 30 bytes and the name) against `entry`. */
export function checkLocalHeader(header, entry) {
  const view = new ByteView(header);
  if (header.length !== LOCAL_SIZE + entry.nameLength || view.u32le(0) !== LOCAL) {
    throw refused("headersAgree", `the local header of ${entry.name} is missing`);
  }
  const agree = view.u16le(6) === entry.flags && view.u16le(8) === 0 && view.u32le(14) === entry.crc &&
    view.u32le(18) === entry.size && view.u32le(22) === entry.size && view.u16le(26) === entry.nameLength &&
    utf8.decode(view.slice(LOCAL_SIZE, entry.nameLength)) === entry.name;
  if (!agree) throw refused("headersAgree", `the local header of ${entry.name} disagrees with the central directory`);
  if (view.u16le(28) !== 0) throw refused("exactLayout", `the local header of ${entry.name} has an extra field`);
}

/** Compares the CRC-32 computed over an entry's data with the directory's. */
export function checkEntryCRC(crc, entry) {
  if (crc !== entry.crc) throw refused(entry.name === "manifest.json" || entry.name === "master.m3u8" ? "manifestEntryRead" : "componentEntryRead", `the CRC-32 of ${entry.name} does not match`);
}

/** Checks the local header in `bytes` (header then data) against `entry`, and the data's CRC-32
 * when `checkCRC`; returns the data. */
export function entryData(bytes, entry, { checkCRC }) {
  const headerSize = LOCAL_SIZE + entry.nameLength;
  if (bytes.length !== headerSize + entry.size) throw refused("headersAgree", `the local header of ${entry.name} is missing`);
  checkLocalHeader(bytes.subarray(0, headerSize), entry);
  const data = bytes.subarray(headerSize);
  if (checkCRC) checkEntryCRC(crc32(data), entry);
  return data;
}


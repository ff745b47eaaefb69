// An fps-v2 package read over HTTP Range and admitted as the Swift client's remote admission
// does (docs/fps-v2-admission.md, "Local headers: eager or on read"): the tail with the central
// directory, then the metadata entries in two reads; every reader check runs before the player
// sends anything to the key service. Segments are read with Range requests (one each, two for a
// large one needed to start) and handed on as they download: the local header is verified before
// any byte is used, the CRC-32 over the bytes as they pass, and a mismatch stops the playback
// when the segment ends.
import { concat, crc32, utf8 } from "./bytes.js";
import { malformed, refused } from "./errors.js";
import { checkManifest } from "./fps-v2-manifest.js";
import { channelCount, checkInit } from "./mp4-init.js";
import { checkMaster, checkMedia } from "./hls-playlist.js";
import { RangeSource } from "./range-source.js";
import { LIMITS, checkEntryCRC, checkLocalHeader, entryData, readCentralDirectory, readEndRecord } from "./zip-directory.js";

// A segment whose declared size is past this is refused rather than downloaded (6 s of 4K video
// at 40 Mbit/s is about 30 MB): what MediaSource has not taken yet waits in the page's memory.
export const MAX_SEGMENT_BYTES = 64 << 20;

const NAME = /^([a-z]+)(\.m3u8|-init\.mp4|-segment(0|[1-9][0-9]{0,3})\.m4s)$/;

/** Classifies an entry name (§4 #4); null when it is not an fps-v2 name. */
export function entryKind(name) {
  if (name === "manifest.json") return { kind: "manifest" };
  if (name === "master.m3u8") return { kind: "master" };
  const match = NAME.exec(name);
  if (!match) return null;
  if (match[2] === ".m3u8") return { kind: "playlist", component: match[1] };
  if (match[2] === "-init.mp4") return { kind: "init", component: match[1] };
  const number = Number(match[3]);
  return number < 4093 ? { kind: "segment", component: match[1], number } : null;
}

/** The entry-set checks that need no entry data: names, required entries (§4.4). */
function checkEntryNames(entries) {
  const byName = new Map();
  for (const entry of entries) {
    const kind = entryKind(entry.name);
    if (!kind) throw refused("entryNames", `the entry ${entry.name.slice(0, 80)} is not an fps-v2 name`);
    if (kind.kind !== "segment" && entry.size > LIMITS.maxMetadataBytes) throw refused("metadataSizes", `${entry.name} is larger than 1,048,576 bytes`);
    byName.set(entry.name, { ...entry, ...kind });
  }
  if (!byName.has("manifest.json") || !byName.has("master.m3u8")) throw refused("requiredEntries", "manifest.json or master.m3u8 is missing");
  return byName;
}

/** The component entry checks (§4.4) once the manifest named the components. */
function checkComponentEntries(byName, components) {
  const counts = new Map(components.map((id) => [id, 0]));
  for (const entry of byName.values()) {
    if (entry.component === undefined) continue;
    if (!counts.has(entry.component)) throw refused("componentEntries", `the entry ${entry.name} belongs to no listed component`);
    if (entry.kind === "segment") counts.set(entry.component, counts.get(entry.component) + 1);
  }
  for (const id of components) {
    if (!byName.has(`${id}.m3u8`) || !byName.has(`${id}-init.mp4`)) throw refused("componentEntries", `${id}.m3u8 or ${id}-init.mp4 is missing`);
    for (let n = 0; n < counts.get(id); n++) {
      if (!byName.has(`${id}-segment${n}.m4s`)) throw refused("segmentNumbering", `${id}-segment${n}.m4s is missing`);
    }
  }
  const first = counts.get(components[0]);
  if (first === 0 || components.some((id) => counts.get(id) !== first)) throw refused("segmentNumbering", "the components do not have the same, non-zero, segment count");
}

/** Reads the entries `names` (contiguous in archive order) in one Range request. */
async function readEntries(source, byName, names) {
  const list = names.map((n) => byName.get(n)).sort((a, b) => a.offset - b.offset);
  const contiguous = list.every((entry, i) => i === 0 || entry.offset === list[i - 1].dataOffset + list[i - 1].size);
  if (!contiguous) {
    // Not where a writer puts them: one read each, so a read never spans segment data.
    const parts = await Promise.all(list.map((entry) => readEntries(source, byName, [entry.name])));
    return new Map(parts.flatMap((part) => [...part]));
  }
  const start = list[0].offset, end = list[list.length - 1].dataOffset + list[list.length - 1].size;
  const bytes = await source.read(start, end - start);
  const out = new Map();
  for (const entry of list) {
    out.set(entry.name, entryData(bytes.subarray(entry.offset - start, entry.dataOffset + entry.size - start), entry, { checkCRC: true }));
  }
  return out;
}

/** Runs `task` when the page has nothing more urgent to do (a background-priority task where the
 * browser offers `scheduler.postTask`, else the next macrotask); resolves to its result. */
function inBackground(task) {
  if (typeof globalThis.scheduler?.postTask === "function") return globalThis.scheduler.postTask(task, { priority: "background" });
  return new Promise((resolve) => setTimeout(() => resolve(task()), 0));
}

/** An admitted fps-v2 package: `manifestBytes` exactly as stored, `uuid`, `components`
 * ({id, kid, codec, init, segments: [{entry, start, duration}]}), `duration`, `width`, `height`. */
export class FPSv2Package {
  static async admit(url, { keyServiceURL, signal }) {
    const source = new RangeSource(url, { signal });
    // The directory of a package of 8,192 entries fits in this first read in the common case.
    const { bytes: tail, start: tailStart } = await source.tail(65536);
    const end = readEndRecord(tail, tailStart, source.size);
    const directory = end.cdOffset >= tailStart
      ? tail.subarray(end.cdOffset - tailStart, end.cdOffset - tailStart + end.cdSize)
      : await source.read(end.cdOffset, end.cdSize);
    const byName = checkEntryNames(readCentralDirectory(directory, end));
    // The metadata entries in two reads made at once (the audio ones only when the directory
    // lists them); what they hold is checked only after both arrived.
    const head = ["manifest.json", "master.m3u8", "video.m3u8", "video-init.mp4"].filter((n) => byName.has(n));
    const tailNames = ["audio.m3u8", "audio-init.mp4"].filter((n) => byName.has(n));
    const reads = await Promise.allSettled([readEntries(source, byName, head),
      tailNames.length ? readEntries(source, byName, tailNames) : new Map()]);
    // A failure is reported in archive order whichever read finished first.
    const failed = reads.find((r) => r.status === "rejected");
    if (failed) throw failed.reason;
    const [first, second] = reads.map((r) => r.value);
    const manifestBytes = first.get("manifest.json");
    const manifest = checkManifest(manifestBytes, [keyServiceURL]);
    checkComponentEntries(byName, manifest.components);
    const data = new Map([...first, ...second]);
    const master = checkMaster(utf8.decode(data.get("master.m3u8")));
    if (master.hasAudio !== manifest.components.includes("audio")) throw refused("masterComponents", "the master's audio rendition does not match the component list");
    const components = manifest.components.map((id) => {
      const playlist = checkMedia(utf8.decode(data.get(`${id}.m3u8`)), id, manifest);
      const count = [...byName.values()].filter((e) => e.kind === "segment" && e.component === id).length;
      if (playlist.segments.length !== count) throw refused("mediaSegments", `${id}.m3u8 does not name every segment entry once`);
      const init = data.get(`${id}-init.mp4`);
      const { kid, codec, channelConfiguration } = checkInit(init, id, manifest.iv);
      let start = 0;
      const segments = playlist.segments.map((s) => {
        const segment = { entry: byName.get(s.uri), start, duration: s.duration };
        start += s.duration;
        return segment;
      });
      return { id, kid, codec, init, segments, targetDuration: playlist.targetDuration, channelConfiguration };
    });
    const [video, audio] = components;
    if (audio && (audio.segments.length !== video.segments.length || audio.targetDuration !== video.targetDuration ||
        audio.segments.some((s, i) => Math.abs(s.duration - video.segments[i].duration) > 0.0005))) {
      throw refused("segmentAlignment", "the audio segments are not aligned with the video's");
    }
    if (audio && master.channels !== channelCount(audio.channelConfiguration)) {
      throw refused("masterChannels", `CHANNELS="${master.channels}" but the audio init has ${channelCount(audio.channelConfiguration)} channels`);
    }
    return new FPSv2Package(source, manifestBytes, manifest, components, master);
  }

  constructor(source, manifestBytes, manifest, components, master) {
    this.source = source;
    this.manifestBytes = manifestBytes;
    this.uuid = manifest.uuid;
    this.components = components;
    this.width = master.width;
    this.height = master.height;
    this.duration = components[0].segments.reduce((sum, s) => sum + s.duration, 0);
  }

  /** Segment `index` of component `component` as it downloads, its local header and data read
   * with Range requests: an async iterator of data chunks. The local header is verified before
   * the first chunk; the CRC-32 runs over the chunks and a mismatch throws after the last one,
   * so the player stops (`componentEntryRead`) before the playhead reaches the rest of that
   * segment: a damaged segment ahead of the playhead never plays, and at start-up or after a
   * seek at most the frames decoded while its last bytes arrive are shown. Streaming is what
   * lets the first frames be decoded while a multi-megabyte segment is still on its way.
   * `startup` ({seconds, minBytes, playable}, from the streaming engine): read about `seconds`
   * of the segment (by its average rate, at least `minBytes`) first, and the rest once
   * `playable` resolves. */
  async *segment(component, index, { signal, startup } = {}) {
    const entry = component.segments[index].entry;
    if (entry.size > MAX_SEGMENT_BYTES) throw malformed(`${entry.name} is larger than ${MAX_SEGMENT_BYTES} bytes`);
    const headerSize = entry.dataOffset - entry.offset;
    const total = headerSize + entry.size;
    const duration = component.segments[index].duration;
    const first = startup ? Math.min(total, headerSize + Math.max(startup.minBytes, Math.ceil((entry.size * startup.seconds) / duration))) : total;
    const source = this.source;
    async function* parts() {
      yield* source.stream(entry.offset, first, { signal });
      if (first === total) return;
      await startup.playable;
      yield* source.stream(entry.offset + first, total - first, { signal });
    }
    let header = new Uint8Array(0);
    // The CRC-32 runs chunk after chunk at background priority: the check need not come before
    // the append, and during start-up the page's main thread has the key requests and the first
    // frames to serve first. The segment ends only once it is checked.
    let crc = Promise.resolve(0);
    for await (const chunk of parts()) {
      let data = chunk;
      if (header) {
        const wanted = headerSize - header.length;
        header = concat([header, chunk.subarray(0, wanted)]);
        if (header.length < headerSize) continue;
        checkLocalHeader(header, entry);
        header = null;
        data = chunk.subarray(wanted);
        if (data.length === 0) continue;
      }
      const bytes = data;
      crc = crc.then((previous) => inBackground(() => crc32(bytes, previous)));
      yield data;
    }
    checkEntryCRC(await crc, entry);
  }
}

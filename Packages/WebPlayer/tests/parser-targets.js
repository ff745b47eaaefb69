// The JavaScript parsers as targets over one input's bytes, with the corpora that seed them
// (the Swift fuzz corpora of Tests/Fuzz/corpus and the shared reader vectors): the unit tests
// run every seed and its truncations through them, the fuzz harness (fuzz.js) mutates the seeds.
// A target returns (accepted) or throws the parsers' own PlayerError (refused); anything else
// it throws is a bug: a hostile input must never reach a bare TypeError or RangeError.
import { utf8 } from "../player/bytes.js";
import { PlayerError } from "../player/errors.js";
import { readMPD } from "../player/dash-manifest.js";
import { checkManifest } from "../player/fps-v2-manifest.js";
import { FPSv2Package } from "../player/fps-v2-package.js";
import { checkMaster, checkMedia, readLenient } from "../player/hls-playlist.js";
import { checkInit } from "../player/mp4-init.js";
import { readSegmentIndex } from "../player/mp4-segment-index.js";
import { parseStrictJSON } from "../player/strict-json.js";
import { parseWebVTT } from "../player/subtitles.js";
import { TDFArchive } from "../player/tdf-archive.js";
import { entryData, readCentralDirectory, readEndRecord } from "../player/zip-directory.js";
import { rangeFetch, readBytes } from "./support.js";

/** The key service the seed packages and the reader vectors name. */
export const KEY_SERVICE = "http://127.0.0.1:8443";

/** An fps-v2 archive held whole: its entries' data by name, after the container checks. */
export function readArchive(bytes) {
  const end = readEndRecord(bytes, 0, bytes.length);
  const entries = readCentralDirectory(bytes.subarray(end.cdOffset, end.cdOffset + end.cdSize), end);
  return new Map(entries.map((entry) => [entry.name, entryData(bytes.subarray(entry.offset, entry.dataOffset + entry.size), entry, { checkCRC: true })]));
}

// The av seed package's manifest: its policy uuid and IV are the ones the av playlists and
// inits of the corpora name, so those seeds go the whole way through checkMedia and checkInit.
const AV_MANIFEST = checkManifest(readArchive(readBytes("Tests/Fuzz/corpus/fpsv2-admission/av.tdf")).get("manifest.json"), [KEY_SERVICE]);

/** Admits `bytes` as an fps-v2 package read with Range requests from an origin in memory. */
export async function admitPackage(bytes, keyServiceURL = KEY_SERVICE) {
  const url = "https://origin.example/package.tdf";
  const saved = globalThis.fetch;
  globalThis.fetch = rangeFetch(new Map([[url, bytes]]));
  try {
    return await FPSv2Package.admit(url, { keyServiceURL });
  } finally {
    globalThis.fetch = saved;
  }
}

const PACKAGES = ["Tests/Fuzz/corpus/fpsv2-admission", "Tests-E2E/ReaderVectors"];
// Seeds are admitted packages (the reader vectors' refusals have their own test).
const packageSeeds = (name) => name.includes("fpsv2") || name.endsWith("/valid.tdf");

export const TARGETS = {
  "strict-json": {
    corpus: ["Tests/Fuzz/corpus/json", "Tests/Fuzz/corpus/kas-manifest", "Tests/Fuzz/corpus/tdf-manifest"],
    run: (bytes) => parseStrictJSON(utf8.decode(bytes)),
  },
  "fps-v2-manifest": {
    corpus: ["Tests/Fuzz/corpus/kas-manifest"],
    run: (bytes) => checkManifest(bytes, [KEY_SERVICE]),
  },
  "hls-lenient": {
    // With the byte-range playlists of fps-v2 views and cmaf's ClearKey keys (this package's own seeds).
    corpus: ["Tests/Fuzz/corpus/hls", "Packages/WebPlayer/tests/corpus/hls-byterange"],
    run: (bytes) => readLenient(utf8.decode(bytes), "https://origin.example/stream/master.m3u8"),
  },
  "hls-fps-v2": {
    corpus: ["Tests/Fuzz/corpus/hls"],
    seeds: (name) => name.includes("/av-"),
    // A master or a media playlist (by what it holds), with the av package's uuid and IV.
    run: (bytes) => {
      const text = utf8.decode(bytes);
      if (text.includes("#EXT-X-STREAM-INF")) return checkMaster(text);
      return checkMedia(text, text.includes("/audio\"") ? "audio" : "video", AV_MANIFEST);
    },
  },
  "mp4-init": {
    corpus: ["Tests/Fuzz/corpus/mp4"],
    seeds: (name) => name.includes("/av-") && name.endsWith("-init.mp4"),
    run: (bytes) => checkInit(bytes, findType(bytes, "enca") ? "audio" : "video", AV_MANIFEST.iv),
  },
  zip: {
    corpus: ["Tests/Fuzz/corpus/zip", ...PACKAGES],
    seeds: packageSeeds,
    run: readArchive,
  },
  "tdf-archive": {
    corpus: ["Tests/Fuzz/corpus/tdf-archive"],
    // Parsed, then opened with a key that is not its own: the policy binding must refuse it.
    run: async (bytes) => {
      const archive = new TDFArchive(bytes);
      await archive.decrypt(new Uint8Array(32)).catch((error) => { if (error?.code !== "integrity") throw error; });
      return archive;
    },
  },
  // A tdf-hls subtitle segment, as the viewer page's subtitle menu reads it (subtitles.js).
  webvtt: {
    corpus: ["Tests/Fuzz/corpus/webvtt"],
    run: (bytes) => parseWebVTT(utf8.decode(bytes)),
  },
  // A DASH MPD of a cmaf title or an fps-v2 view (dash-manifest.js: the XML subset reader and
  // the SegmentTemplate, SegmentList and SegmentBase addressing).
  mpd: {
    corpus: ["Packages/WebPlayer/tests/corpus/mpd"],
    run: (bytes) => readMPD(utf8.decode(bytes), "https://origin.example/talk/manifest.mpd"),
  },
  // A SegmentBase's index (mp4-segment-index.js), read as if it were at byte 1000 of its file.
  sidx: {
    corpus: ["Packages/WebPlayer/tests/corpus/sidx"],
    run: (bytes) => readSegmentIndex(bytes, 1000),
  },
  "fps-v2-package": {
    corpus: PACKAGES,
    seeds: packageSeeds,
    run: admitPackage,
  },
};

/** Runs `target` on `bytes`: "accepted", or "refused" for a PlayerError; rethrows anything else. */
export async function verdict(target, bytes) {
  try {
    await target.run(bytes);
    return "accepted";
  } catch (error) {
    if (error instanceof PlayerError) return "refused";
    throw error;
  }
}

/** Whether the four-letter box type `type` occurs in `bytes`. */
function findType(bytes, type) {
  const codes = [...type].map((c) => c.charCodeAt(0));
  for (let i = 0; i + 4 <= bytes.length; i++) if (codes.every((c, k) => bytes[i + k] === c)) return true;
  return false;
}

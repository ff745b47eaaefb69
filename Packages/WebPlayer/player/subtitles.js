// Subtitle renditions of a tdf-hls stream (docs/formats.md "Subtitles"): clear WebVTT segments,
// each read within limits, moved onto the media timeline by its X-TIMESTAMP-MAP (RFC 8216
// §3.5), and added to a TextTrack of the element as VTTCues; a cue repeated in the segments it
// spans is added once. A protected rendition (`.tdf` segments) is not offered by this player.
import { utf8 } from "./bytes.js";
import { malformed } from "./errors.js";
import { readLenient } from "./hls-playlist.js";
import { fetchBytes } from "./measured-download.js";

const MAX_PLAYLIST_BYTES = 1 << 20;
const MAX_SEGMENT_BYTES = 1 << 20;
const MAX_CUES = 100000;
const MAX_CUE_TEXT = 4096;
const TIMING = /^((?:\d{2,}:)?\d{2}:\d{2}\.\d{3})[ \t]+-->[ \t]+((?:\d{2,}:)?\d{2}:\d{2}\.\d{3})(?:[ \t].*)?$/;
const MAP = /^X-TIMESTAMP-MAP=(?:MPEGTS:(\d{1,15}),LOCAL:((?:\d{2,}:)?\d{2}:\d{2}\.\d{3})|LOCAL:((?:\d{2,}:)?\d{2}:\d{2}\.\d{3}),MPEGTS:(\d{1,15}))$/;

/** Seconds of a WebVTT timestamp (`[hh:]mm:ss.ttt`). */
function seconds(stamp) {
  const parts = stamp.split(":").map(Number);
  return parts.reduce((total, part) => total * 60 + part, 0);
}

/** The cues of one WebVTT document as {start, end, text} on the media timeline. Throws
 * `malformed` for a document that is not WebVTT or has a timing line it cannot read. */
export function parseWebVTT(text) {
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  if (!/^WEBVTT(?:[ \t].*)?$/.test(lines[0])) throw malformed("a subtitle segment is not WebVTT (no WEBVTT signature)");
  let offset = 0;
  const cues = [];
  let i = 1;
  for (; i < lines.length && lines[i] !== ""; i++) {
    const map = MAP.exec(lines[i]);
    if (map) offset = Number(map[1] ?? map[4]) / 90000 - seconds(map[2] ?? map[3]);
  }
  while (i < lines.length) {
    if (lines[i] === "") { i++; continue; }
    // A block: an optional identifier line, then the timing line (a NOTE, STYLE or REGION block has none).
    const timing = TIMING.exec(lines[i]) ?? TIMING.exec(lines[i + 1] ?? "");
    const block = [];
    while (i < lines.length && lines[i] !== "") block.push(lines[i++]);
    if (!timing) {
      if (block.some((line) => line.includes("-->"))) throw malformed("a subtitle cue's timing line cannot be read");
      continue;
    }
    const body = block.slice(block.indexOf(timing[0]) + 1).join("\n");
    const start = seconds(timing[1]) + offset, end = seconds(timing[2]) + offset;
    if (!(end > start)) throw malformed("a subtitle cue ends before it starts");
    if (cues.length >= MAX_CUES) throw malformed("a subtitle segment has more than 100,000 cues");
    cues.push({ start, end, text: body.slice(0, MAX_CUE_TEXT) });
  }
  return cues;
}

/** Loads the rendition `track` ({url, language, name}: an HLS media playlist; or {segments: [url]},
 * a DASH text Representation's) into a new TextTrack of `video`, shown; resolves with the TextTrack. */
export async function loadSubtitles(video, track, signal) {
  const urls = track.segments ?? readLenient(utf8.decode(await fetchBytes(track.url, signal, MAX_PLAYLIST_BYTES)), track.url).segments.map((s) => s.url);
  if (urls.some((url) => !new URL(url).pathname.endsWith(".vtt"))) {
    throw malformed("this subtitle rendition is protected (.tdf segments), which the web player does not read");
  }
  const texts = await Promise.all(urls.map((url) => fetchBytes(url, signal, MAX_SEGMENT_BYTES)));
  const textTrack = video.addTextTrack("subtitles", track.name ?? track.language ?? "Subtitles", track.language ?? "");
  const seen = new Set();
  for (const bytes of texts) {
    for (const cue of parseWebVTT(utf8.decode(bytes))) {
      const key = `${cue.start}|${cue.end}|${cue.text}`;
      if (seen.has(key)) continue;
      seen.add(key);
      textTrack.addCue(new VTTCue(cue.start, cue.end, cue.text));
    }
  }
  textTrack.mode = "showing";
  return textTrack;
}

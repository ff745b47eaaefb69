// A presentation of CMAF fragments encrypted with `cbcs` that the browser's CDM decrypts (EME
// ClearKey, keys from the playback's licence URL: mediadrm-player.js): a cmaf package's DASH MPD
// or HLS playlists (docs/formats.md "cmaf package"), and the DASH and HLS views of an fps-v2
// package, whose inits and segments are byte ranges of the one `.tdf` file. This module reads
// the manifests (dash-manifest.js, hls-playlist.js), the inits (and a SegmentBase's `sidx`), and
// fetches each segment whole, by URL or by byte range, measured for the ABR rule; the video
// variant before each segment is VariantLadder's choice, and a download that cannot arrive
// before the video buffer runs out is given up for a lower variant, as for tdf-hls.
import { AbandonedTransfer, shouldAbandon } from "./abr.js";
import { utf8 } from "./bytes.js";
import { DEFAULT_CONFIGURATION } from "./configuration.js";
import { MAX_MPD_BYTES, readMPD } from "./dash-manifest.js";
import { PlayerError, malformed } from "./errors.js";
import { MAX_SEGMENT_BYTES } from "./fps-v2-package.js";
import { MAX_PLAYLIST_BYTES, readLenient } from "./hls-playlist.js";
import { downloadBatch, fetchBytes, fileName } from "./measured-download.js";
import { readSegmentIndex } from "./mp4-segment-index.js";
import { languageMatches } from "./tdf-hls.js";
import { VariantLadder } from "./variant-ladder.js";

const MAX_INIT_BYTES = 1 << 20;
// A sidx takes 12 bytes a segment: this holds far more than MAX_SEGMENTS' worth of a title.
const MAX_INDEX_BYTES = 2 << 20;

/** Whether `url` names a DASH MPD (its path ends in .mpd); else it is an HLS master playlist. */
export const isDASH = (url) => new URL(url).pathname.endsWith(".mpd");

/** The presentation of an MPD: {duration, video: [...], audio: [...], subtitles: [...]}, each
 * rendition {id, mime, codec, bandwidth, width, height, language, kid, init, index, segments}
 * (subtitles: {url, language, name, segments: [url]}). */
async function readDASH(url, signal) {
  const mpd = readMPD(utf8.decode(await fetchBytes(url, signal, MAX_MPD_BYTES)), url);
  const out = { duration: mpd.duration, video: [], audio: [], subtitles: [] };
  for (const set of mpd.sets) {
    for (const r of set.representations) {
      const rendition = { id: r.id, codec: r.codecs, bandwidth: r.bandwidth, width: r.width, height: r.height, language: set.language,
        name: set.language, kid: r.kid, init: r.init, index: r.index, segments: r.segments };
      if (set.contentType === "video") out.video.push({ ...rendition, mime: `video/mp4; codecs="${r.codecs}"` });
      else if (set.contentType === "audio") out.audio.push({ ...rendition, mime: `audio/mp4; codecs="${r.codecs}"` });
      else if (set.contentType === "text" && r.mimeType === "text/vtt") {
        out.subtitles.push({ url: r.segments[0]?.url ?? url, language: set.language, name: set.language, segments: r.segments.map((s) => s.url) });
      }
    }
  }
  // One audio rendition a language (the first the MPD lists), as an HLS group has.
  out.audio = out.audio.filter((a, i) => out.audio.findIndex((b) => b.language === a.language) === i);
  out.audio.forEach((a, i) => { a.isDefault = i === 0; });
  return out;
}

/** The same of an HLS master playlist; the media playlists are read when a rendition is loaded. */
async function readHLS(url, signal) {
  const master = readLenient(utf8.decode(await fetchBytes(url, signal, MAX_PLAYLIST_BYTES)), url);
  if (master.profile === "tdf-hls") throw malformed("this is a tdf-hls stream, whose keys come from the KAS: load it without a licence URL");
  if (!master.variants.length) throw malformed("the HLS URL is not a master playlist with variants");
  const first = master.variants[0];
  const videoCodec = (v) => v.codecs.find((c) => /^(avc1|avc3|hvc1|hev1)\./.test(c)) ?? v.codecs[0];
  const audioCodec = first.codecs.find((c) => c.startsWith("mp4a"));
  return {
    duration: null,
    video: master.variants.map((v, i) => ({ id: `video-${i + 1}`, playlist: v.url, codec: videoCodec(v), mime: `video/mp4; codecs="${videoCodec(v)}"`,
      bandwidth: v.bandwidth, width: v.width, height: v.height, audioGroup: v.audioGroup, subtitleGroup: v.subtitleGroup })),
    audio: audioCodec ? master.audio.filter((a) => a.group === first.audioGroup).map((a, i) => ({ id: `audio-${i + 1}`, playlist: a.url,
      codec: audioCodec, mime: `audio/mp4; codecs="${audioCodec}"`, bandwidth: 0, language: a.language, name: a.name, isDefault: a.isDefault })) : [],
    subtitles: master.subtitles.filter((t) => t.group === first.subtitleGroup).map(({ url: trackURL, language, name }) => ({ url: trackURL, language, name })),
  };
}

/** A rendition with its init bytes and segments: an HLS media playlist read (its map, byte
 * ranges and ClearKey key id), a SegmentBase's index read. */
async function load(rendition, signal) {
  let { init, segments, kid = null, index = null } = rendition;
  if (rendition.playlist) {
    const playlist = readLenient(utf8.decode(await fetchBytes(rendition.playlist, signal, MAX_PLAYLIST_BYTES)), rendition.playlist);
    if (!playlist.map || playlist.segments.length === 0 || !playlist.ended) throw malformed(`${fileName(rendition.playlist)} is not a complete VOD playlist with a map`);
    init = { url: playlist.map, range: playlist.mapRange };
    let start = 0;
    segments = playlist.segments.map((s) => { const out = { url: s.url, range: s.range ?? null, start, duration: s.duration }; start += s.duration; return out; });
    kid = playlist.keys.find((k) => k.kid)?.kid ?? null;
  }
  if (!init) throw malformed(`the rendition ${rendition.id} has no initialization segment`);
  if (index) segments = readSegmentIndex(await fetchBytes(index.url, signal, MAX_INDEX_BYTES, { range: index.range }), index.range.start)
    .map((s) => ({ ...s, url: index.url }));
  if (!segments.length) throw malformed(`the rendition ${rendition.id} has no segments`);
  const initBytes = await fetchBytes(init.url, signal, MAX_INIT_BYTES, { range: init.range });
  return { ...rendition, init: initBytes, segments, kid };
}

const aligned = (a, b) => a.segments.length === b.segments.length && a.segments.every((s, n) => Math.abs(s.start - b.segments[n].start) < 1e-3);

export class ClearKeyStream extends VariantLadder {
  /** Reads the MPD or master playlist at `url`, then the inits (and HLS media playlists) of
   * every video variant MediaSource plays (ascending by bandwidth; one whose segments do not
   * start at the first's times is left out) and of one audio rendition (`audioLanguage`, a BCP
   * 47 prefix match, else the default). Playback starts on the lowest variant. */
  static async open(url, { signal, isTypeSupported, onVariant, settings = DEFAULT_CONFIGURATION, audioLanguage = null }) {
    const presentation = isDASH(url) ? await readDASH(url, signal) : await readHLS(url, signal);
    const playable = presentation.video.filter((v) => v.codec && isTypeSupported(v.mime)).sort((a, b) => a.bandwidth - b.bandwidth);
    if (!playable.length) throw new PlayerError("unsupported", "this browser plays none of the presentation's video renditions", { reason: "codec_unsupported" });
    const loaded = await Promise.all(playable.map((v) => load(v, signal)));
    const variants = loaded.filter((v) => aligned(v, loaded[0]));
    const video = { id: "video", variants, current: 0, appended: 0, ceiling: null, mime: variants[0].mime, init: variants[0].init, segments: variants[0].segments };
    const renditions = [video];
    const audio = presentation.audio.filter((a) => a.codec && isTypeSupported(a.mime));
    const chosen = audio.find((a) => languageMatches(a.language, audioLanguage)) ?? audio.find((a) => a.isDefault) ?? audio[0];
    if (chosen) renditions.push({ ...(await load(chosen, signal)), id: "audio" });
    const stream = new ClearKeyStream(renditions, { signal, onVariant, settings });
    if (presentation.duration) stream.duration = presentation.duration;
    stream.profile = isDASH(url) ? "dash" : "hls";
    stream.audioTracks = audio.map(({ language, name }) => ({ language, name }));
    stream.audioLanguage = chosen?.language ?? null;
    stream.subtitleTracks = presentation.subtitles;
    return stream;
  }

  constructor(renditions, { signal, onVariant, settings }) {
    super(renditions, { onVariant, settings });
    this.signal = signal;
  }

  /** The codecs the CDM must decrypt: {videoCodec, audioCodec}. */
  get codecs() {
    const audio = this.renditions.find((r) => !r.variants);
    return { videoCodec: this.video.variants[0].codec, audioCodec: audio?.codec ?? null };
  }

  /** The key ids (32 lower-case hex digits) the played renditions are encrypted under, each
   * matched to its component in `keyIds` (the playback answer's component -> key id): [{component,
   * kid}]. A key id the playback does not list is refused (the licence request names only the
   * playback's keys); a presentation whose renditions name none asks for every key listed. */
  keysFor(keyIds) {
    const listed = new Map(Object.entries(keyIds).map(([component, kid]) => [String(kid).toLowerCase(), component]));
    const played = [...this.video.variants, ...this.renditions.filter((r) => !r.variants)];
    const named = [...new Set(played.map((r) => r.kid).filter(Boolean))];
    for (const kid of named) if (!listed.has(kid)) throw malformed("the manifest names a key id that the playback does not list");
    const kids = named.length ? named : [...listed.keys()];
    return kids.map((kid) => ({ component: listed.get(kid), kid }));
  }

  /** Segment `index` of rendition `r`, whole (its URL, or its byte range of the URL). Throws
   * AbandonedTransfer when the video download was given up for a lower variant (the engine
   * asks again, after appending the new variant's init). */
  async segment(r, index, { signal, bufferAhead } = {}) {
    if (r.variants && bufferAhead) this.videoBufferAhead = bufferAhead;
    const variant = r.current;
    const source = ClearKeyStream.source(r);
    const segment = source.segments[index];
    const expectedBytes = segment.range?.length ?? (source.bandwidth * segment.duration) / 8;
    const lowest = r.variants?.[0];
    const giveUp = r.variants && this.mayAbandon ? ({ loadedBytes, totalBytes, elapsedMs }) => shouldAbandon({ loadedBytes, totalBytes, elapsedMs,
      bufferAhead: this.videoBufferAhead(), lowerBytes: totalBytes * (lowest.bandwidth / source.bandwidth) }) : null;
    try {
      const [bytes] = await downloadBatch([{ url: segment.url, range: segment.range, expectedBytes }],
        { meter: this.meter, signal, limit: MAX_SEGMENT_BYTES, giveUp });
      if (r.variants && r.current !== variant) throw new AbandonedTransfer();
      return bytes;
    } catch (error) {
      if (error instanceof AbandonedTransfer && r.variants) this.abandoned(r, variant, index);
      throw error;
    }
  }
}

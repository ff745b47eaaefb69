// HLS playlists (RFC 8216): a line reader, attribute lists, and the fps-v2 closed grammar of
// draft-arkavo-tdf-fairplay-01 §7 (the rules of MediaDRMHLS's FPSv2Grammar, failures named by
// the shared check identifiers), plus the lenient reading tdf-hls playlists get.
import { base64Decode, hex } from "./bytes.js";
import { malformed, refused } from "./errors.js";

export const MAX_PLAYLIST_BYTES = 1048576;
/** The most segments one rendition may list (HLS and DASH alike). */
export const MAX_SEGMENTS = 100000;
// The ClearKey key format of an EXT-X-KEY (its URI a data: URI of the 16-byte key id, as
// docs/formats.md "cmaf package" writes it and hls.js reads it).
const MAX_KEYS = 64;
const CLEAR_KEY_FORMAT = "org.w3.clearkey";
const CLEAR_KEY_URI = /^data:text\/plain;base64,([A-Za-z0-9+/]{22}==)$/;
// RFC 8216 §4.3.2.2 <n>[@<o>]: decimal integers, bounded so that offset + length stays exact.
const BYTE_RANGE = /^([0-9]{1,15})(?:@([0-9]{1,15}))?$/;

/** An EXT-X-BYTERANGE or BYTERANGE value as {start, length}; without `@offset` the range starts
 * at `next` (the byte after the previous range of the same URI), which must then be known. */
export function byteRange(value, next) {
  const match = BYTE_RANGE.exec(value ?? "");
  if (!match || Number(match[1]) === 0) throw malformed("a playlist byte range is not <length>[@<offset>] with a positive length");
  const start = match[2] !== undefined ? Number(match[2]) : next;
  if (start === null || start === undefined) throw malformed("a playlist byte range has no offset and follows no range of the same URI");
  return { start, length: Number(match[1]) };
}

/** `uri` resolved against `base`; a URI that does not parse is the playlist's fault. */
export function resolveURL(uri, base) {
  try {
    return new URL(uri, base).href;
  } catch {
    throw malformed("a manifest names a URI that is not a URL");
  }
}

/** The key id (32 lower-case hex digits) of an `EXT-X-KEY` attribute list in the ClearKey key
 * format, null for another key format; a ClearKey URI that is not a data: URI of 16 bytes is
 * refused. */
function clearKeyID(list) {
  if (list.get("KEYFORMAT")?.text !== CLEAR_KEY_FORMAT) return null;
  const match = CLEAR_KEY_URI.exec(list.get("URI")?.text ?? "");
  const kid = match && base64Decode(match[1]);
  if (!kid || kid.length !== 16) throw malformed("a ClearKey EXT-X-KEY URI is not a data: URI of a 16-byte key id");
  return hex(kid);
}

/** Lines of a playlist: `#EXTM3U` first; tags as {tag, value}, URIs as {uri}. Blank lines and
 * comments are kept out only when `lenient`. */
export function playlistLines(text, { lenient }) {
  if (text.length > MAX_PLAYLIST_BYTES) throw malformed("a playlist is larger than 1 MiB");
  if (!lenient && text.includes("\r")) throw malformed("a playlist has a carriage return");
  const raw = text.split(/\r?\n/);
  if (lenient && raw[raw.length - 1] === "") raw.pop();
  if (raw[0] !== "#EXTM3U") throw malformed("a playlist does not start with #EXTM3U");
  const lines = [];
  for (const line of raw.slice(1)) {
    if (line === "" || (line.startsWith("#") && !line.startsWith("#EXT"))) {
      if (lenient) continue;
      throw malformed("a playlist has a blank or comment line");
    }
    if (line.startsWith("#EXT")) {
      const colon = line.indexOf(":");
      lines.push(colon < 0 ? { tag: line.slice(1), value: null } : { tag: line.slice(1, colon), value: line.slice(colon + 1) });
    } else {
      lines.push({ uri: line });
    }
  }
  return lines;
}

/** An attribute list as a Map of name -> {quoted, text}; duplicate names refused. */
export function attributes(value) {
  const out = new Map();
  const pattern = /([A-Z0-9-]+)=("([^"\r\n]*)"|[^",]*)(,|$)/gy;
  let match;
  let at = 0;
  while (at < (value || "").length) {
    pattern.lastIndex = at;
    match = pattern.exec(value);
    if (!match) throw malformed("a playlist attribute list is malformed");
    if (out.has(match[1])) throw malformed(`a playlist attribute list repeats ${match[1]}`);
    out.set(match[1], match[3] !== undefined ? { quoted: true, text: match[3] } : { quoted: false, text: match[2] });
    at = pattern.lastIndex;
  }
  return out;
}

const exactNames = (list, required, optional, check, where) => {
  for (const name of list.keys()) if (!required.includes(name) && !optional.includes(name)) throw refused(check, `${where} has the attribute ${name}`);
  for (const name of required) if (!list.has(name)) throw refused(check, `${where} has no ${name}`);
};
const is = (list, name, quoted, text) => list.get(name)?.quoted === quoted && list.get(name)?.text === text;

/** §7.1–§7.2: returns {hasAudio, codecs, resolution, channels}. */
export function checkMaster(text) {
  let lines;
  try { lines = playlistLines(text, { lenient: false }); } catch (e) { throw refused("masterGrammar", e.message); }
  const seen = new Set();
  let variant = null, rendition = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.uri !== undefined) throw refused("masterGrammar", "a URI line must immediately follow EXT-X-STREAM-INF");
    if (seen.has(line.tag)) throw refused("masterGrammar", `${line.tag} appears twice`);
    seen.add(line.tag);
    let list;
    switch (line.tag) {
      case "EXT-X-VERSION": if (line.value !== "7") throw refused("masterGrammar", "EXT-X-VERSION must be 7"); break;
      case "EXT-X-INDEPENDENT-SEGMENTS": if (line.value !== null) throw refused("masterGrammar", "EXT-X-INDEPENDENT-SEGMENTS takes no value"); break;
      case "EXT-X-MEDIA":
        try { list = attributes(line.value); } catch (e) { throw refused("masterGrammar", e.message); }
        exactNames(list, ["TYPE", "GROUP-ID", "NAME", "LANGUAGE", "DEFAULT", "AUTOSELECT", "CHANNELS", "URI"], [], "masterGrammar", "EXT-X-MEDIA");
        if (!is(list, "TYPE", false, "AUDIO") || !is(list, "GROUP-ID", true, "audio") || !is(list, "NAME", true, "Audio") ||
            !is(list, "DEFAULT", false, "YES") || !is(list, "AUTOSELECT", false, "YES") || !is(list, "URI", true, "audio.m3u8") ||
            !list.get("LANGUAGE").quoted || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(list.get("LANGUAGE").text) ||
            !list.get("CHANNELS").quoted || !["1", "2", "3", "4", "5", "6", "8"].includes(list.get("CHANNELS").text)) {
          throw refused("masterGrammar", "the audio rendition does not have the fps-v2 attributes");
        }
        rendition = { channels: Number(list.get("CHANNELS").text) };
        break;
      case "EXT-X-STREAM-INF": {
        try { list = attributes(line.value); } catch (e) { throw refused("masterGrammar", e.message); }
        exactNames(list, ["BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"], ["AUDIO"], "masterGrammar", "EXT-X-STREAM-INF");
        const int = (name) => /^[1-9][0-9]*$/.test(list.get(name).text) && !list.get(name).quoted ? Number(list.get(name).text) : null;
        const bandwidth = int("BANDWIDTH"), average = int("AVERAGE-BANDWIDTH");
        if (!bandwidth || !average || average > bandwidth) throw refused("masterGrammar", "BANDWIDTH and AVERAGE-BANDWIDTH must be positive integers, the average not above the peak");
        const codecs = list.get("CODECS").quoted ? list.get("CODECS").text.split(",") : [];
        const avc = codecs.filter((c) => /^avc1\.[0-9A-Fa-f]{6}$/.test(c)).length, mp4a = codecs.filter((c) => c === "mp4a.40.2").length;
        if (avc !== 1 || mp4a > 1 || avc + mp4a !== codecs.length) throw refused("masterGrammar", "CODECS must be one avc1.<6 hex> and, with audio, mp4a.40.2");
        const resolution = /^([1-9][0-9]*)x([1-9][0-9]*)$/.exec(list.get("RESOLUTION").quoted ? "" : list.get("RESOLUTION").text);
        if (!resolution) throw refused("masterGrammar", "RESOLUTION must be <w>x<h>");
        if (list.get("FRAME-RATE").quoted || !/^[0-9]+(\.[0-9]{1,3})?$/.test(list.get("FRAME-RATE").text) || Number(list.get("FRAME-RATE").text) <= 0) throw refused("masterGrammar", "FRAME-RATE must be a positive decimal with at most three decimals");
        if (list.has("AUDIO") && !is(list, "AUDIO", true, "audio")) throw refused("masterGrammar", 'AUDIO must be "audio"');
        const next = lines[i + 1];
        if (!next || next.uri !== "video.m3u8") throw refused("masterGrammar", "EXT-X-STREAM-INF must be followed by video.m3u8");
        i++;
        variant = { hasAudio: list.has("AUDIO"), codecs, width: Number(resolution[1]), height: Number(resolution[2]), hasMP4A: mp4a === 1 };
        break;
      }
      default: throw refused("masterGrammar", `${line.tag.slice(0, 40)} is not allowed in an fps-v2 master playlist`);
    }
  }
  for (const required of ["EXT-X-VERSION", "EXT-X-INDEPENDENT-SEGMENTS", "EXT-X-STREAM-INF"]) {
    if (!seen.has(required)) throw refused("masterGrammar", `${required} is required`);
  }
  if (variant.hasAudio !== (rendition !== null) || variant.hasMP4A !== (rendition !== null)) {
    throw refused("masterComponents", "AUDIO and mp4a.40.2 must be present exactly with the audio rendition");
  }
  return { ...variant, channels: rendition?.channels ?? null };
}

/** §7.1, §7.3 for component `id`: returns {targetDuration, segments: [{uri, duration}], map}. */
export function checkMedia(text, id, { uuid, iv }) {
  let lines;
  try { lines = playlistLines(text, { lenient: false }); } catch (e) { throw refused("mediaGrammar", e.message); }
  const seen = new Set();
  const segments = [];
  let map = null, key = null, targetDuration = null, ended = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (ended) throw refused("mediaGrammar", "EXT-X-ENDLIST must be the last line");
    if (line.uri !== undefined) throw refused("mediaGrammar", "a segment URI must immediately follow its EXTINF");
    if (line.tag !== "EXTINF" && line.tag !== "EXT-X-ENDLIST") {
      if (seen.has(line.tag)) throw refused("mediaGrammar", `${line.tag} appears twice`);
      seen.add(line.tag);
    }
    switch (line.tag) {
      case "EXT-X-VERSION": if (line.value !== "7") throw refused("mediaGrammar", "EXT-X-VERSION must be 7"); break;
      case "EXT-X-PLAYLIST-TYPE": if (line.value !== "VOD") throw refused("mediaGrammar", "EXT-X-PLAYLIST-TYPE must be VOD"); break;
      case "EXT-X-TARGETDURATION":
        if (!/^[1-9][0-9]{0,5}$/.test(line.value || "")) throw refused("mediaGrammar", "EXT-X-TARGETDURATION must be a positive integer");
        targetDuration = Number(line.value);
        break;
      case "EXT-X-MEDIA-SEQUENCE": if (line.value !== "0" || segments.length) throw refused("mediaGrammar", "EXT-X-MEDIA-SEQUENCE must be 0, before the first EXTINF"); break;
      case "EXT-X-INDEPENDENT-SEGMENTS": if (line.value !== null) throw refused("mediaGrammar", "EXT-X-INDEPENDENT-SEGMENTS takes no value"); break;
      case "EXT-X-KEY": {
        if (segments.length) throw refused("mediaGrammar", "EXT-X-KEY must precede the first EXTINF");
        let list;
        try { list = attributes(line.value); } catch (e) { throw refused("mediaGrammar", e.message); }
        exactNames(list, ["METHOD", "URI", "KEYFORMAT", "KEYFORMATVERSIONS"], ["IV"], "mediaGrammar", "EXT-X-KEY");
        if (!is(list, "METHOD", false, "SAMPLE-AES") || !is(list, "KEYFORMAT", true, "com.apple.streamingkeydelivery") || !is(list, "KEYFORMATVERSIONS", true, "1")) {
          throw refused("mediaGrammar", "EXT-X-KEY must be SAMPLE-AES with the FairPlay key format");
        }
        if (!is(list, "URI", true, `skd://${uuid}/${id}`)) throw refused("mediaKeyURI", `the key URI is not skd://<policy uuid>/${id}`);
        if (list.has("IV") && (list.get("IV").quoted || list.get("IV").text.toLowerCase() !== `0x${hex(iv)}`)) throw refused("mediaIV", "the key IV differs from method.iv");
        key = true;
        break;
      }
      case "EXT-X-MAP": {
        if (segments.length) throw refused("mediaGrammar", "EXT-X-MAP must precede the first EXTINF");
        let list;
        try { list = attributes(line.value); } catch (e) { throw refused("mediaGrammar", e.message); }
        exactNames(list, ["URI"], [], "mediaGrammar", "EXT-X-MAP");
        if (!is(list, "URI", true, `${id}-init.mp4`)) throw refused("mediaSegments", `the map URI is not ${id}-init.mp4`);
        map = list.get("URI").text;
        break;
      }
      case "EXTINF": {
        if (!key || !map) throw refused("mediaGrammar", "EXT-X-KEY and EXT-X-MAP must precede the first EXTINF");
        const match = /^([0-9]+(\.[0-9]+)?),$/.exec(line.value || "");
        if (!match || Number(match[1]) <= 0) throw refused("mediaGrammar", "EXTINF must be a positive decimal followed by a comma");
        const next = lines[i + 1];
        if (!next || next.uri === undefined) throw refused("mediaGrammar", "EXTINF must be followed by its URI");
        if (next.uri !== `${id}-segment${segments.length}.m4s`) throw refused("mediaSegments", `segment ${segments.length} is not ${id}-segment${segments.length}.m4s`);
        if (segments.length >= 4093) throw refused("mediaGrammar", "more than 4,093 segments");
        segments.push({ uri: next.uri, duration: Number(match[1]) });
        i++;
        break;
      }
      case "EXT-X-ENDLIST": if (line.value !== null) throw refused("mediaGrammar", "EXT-X-ENDLIST takes no value"); ended = true; break;
      default: throw refused("mediaGrammar", `${line.tag.slice(0, 40)} is not allowed in an fps-v2 media playlist`);
    }
  }
  for (const required of ["EXT-X-VERSION", "EXT-X-TARGETDURATION", "EXT-X-PLAYLIST-TYPE", "EXT-X-KEY", "EXT-X-MAP"]) {
    if (!seen.has(required)) throw refused("mediaGrammar", `${required} is required`);
  }
  if (!ended || segments.length === 0) throw refused("mediaGrammar", "the playlist has no segments or no EXT-X-ENDLIST");
  if (segments.some((s) => Math.round(s.duration) > targetDuration)) throw refused("mediaGrammar", "a segment is longer than EXT-X-TARGETDURATION");
  return { targetDuration, segments, map };
}

/** A tdf-hls or plain playlist, read leniently: a master's variants, audio and subtitle renditions, or a
 * media playlist's map and segments (each URI resolved against `base`). A segment or map given as
 * a byte range (`EXT-X-BYTERANGE`, `EXT-X-MAP` `BYTERANGE`) has `range` {start, length}; `keys`
 * lists the EXT-X-KEY lines ({method, keyFormat, kid: the ClearKey key id or null}). */
export function readLenient(text, base) {
  const lines = playlistLines(text, { lenient: true });
  const resolve = (uri) => resolveURL(uri, base);
  const result = { profile: null, variants: [], audio: [], subtitles: [], map: null, mapRange: null, segments: [], keys: [], ended: false };
  let duration = null, range = null;
  const ends = new Map();   // URI -> the byte after its last range, for a range without an offset
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.uri !== undefined) {
      if (duration === null) throw malformed("a media playlist URI without EXTINF");
      if (result.segments.length >= MAX_SEGMENTS) throw malformed("a playlist with more than 100,000 segments");
      const url = resolve(line.uri);
      const segment = { url, duration };
      if (range) {
        segment.range = byteRange(range, ends.get(url));
        ends.set(url, segment.range.start + segment.range.length);
      }
      result.segments.push(segment);
      duration = null;
      range = null;
      continue;
    }
    const list = () => attributes(line.value);
    if (line.tag === "EXT-X-SESSION-DATA" && list().get("DATA-ID")?.text === "net.arkavo.profile") result.profile = list().get("VALUE")?.text ?? null;
    else if (line.tag === "EXT-X-DEFINE" && list().get("NAME")?.text === "net-arkavo-profile") result.profile = list().get("VALUE")?.text ?? null;
    else if (line.tag === "EXT-X-STREAM-INF") {
      const next = lines[++i];
      if (!next || next.uri === undefined) throw malformed("EXT-X-STREAM-INF without its URI");
      const a = list();
      const res = /^(\d+)x(\d+)$/.exec(a.get("RESOLUTION")?.text || "");
      result.variants.push({ url: resolve(next.uri), codecs: (a.get("CODECS")?.text || "").split(","), audioGroup: a.get("AUDIO")?.text ?? null, subtitleGroup: a.get("SUBTITLES")?.text ?? null,
        bandwidth: Number(a.get("BANDWIDTH")?.text || 0), width: res ? Number(res[1]) : null, height: res ? Number(res[2]) : null });
    } else if (line.tag === "EXT-X-MEDIA") {
      const a = list();
      const rendition = () => ({ url: resolve(a.get("URI").text), group: a.get("GROUP-ID")?.text, isDefault: a.get("DEFAULT")?.text === "YES",
        language: a.get("LANGUAGE")?.text ?? null, name: a.get("NAME")?.text ?? null });
      if (a.get("TYPE")?.text === "AUDIO" && a.get("URI")) result.audio.push(rendition());
      if (a.get("TYPE")?.text === "SUBTITLES" && a.get("URI")) result.subtitles.push(rendition());
    } else if (line.tag === "EXT-X-MAP") {
      const a = list();
      const uri = a.get("URI")?.text;
      if (!uri) throw malformed("EXT-X-MAP without a URI");
      result.map = resolve(uri);
      // RFC 8216 §4.3.2.5: a map's BYTERANGE without an offset starts at byte 0.
      if (a.has("BYTERANGE")) result.mapRange = byteRange(a.get("BYTERANGE").text, 0);
    } else if (line.tag === "EXT-X-BYTERANGE") {
      range = line.value;
    } else if (line.tag === "EXT-X-KEY") {
      const a = list();
      if (result.keys.length >= MAX_KEYS) throw malformed("a playlist with more than 64 keys");
      result.keys.push({ method: a.get("METHOD")?.text ?? null, keyFormat: a.get("KEYFORMAT")?.text ?? "identity", kid: clearKeyID(a) });
    } else if (line.tag === "EXTINF") {
      const value = Number((line.value || "").split(",")[0]);
      if (!(value > 0 && value < 86400)) throw malformed("an EXTINF duration is not a positive number");
      duration = value;
    } else if (line.tag === "EXT-X-ENDLIST") {
      result.ended = true;
    }
  }
  return result;
}

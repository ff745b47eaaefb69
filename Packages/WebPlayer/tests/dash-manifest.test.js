// The DASH MPD reader (dash-manifest.js) on the packager's MPD and on SegmentList, SegmentBase
// and $Number$/duration forms; one malformed field at a time refused with `malformed`; the sidx
// reader (mp4-segment-index.js); the byte ranges and ClearKey keys of the lenient HLS reader.
import { test } from "node:test";
import assert from "node:assert/strict";
import { utf8 } from "../player/bytes.js";
import { MAX_MPD_BYTES, parseDuration, readMPD, readXML } from "../player/dash-manifest.js";
import { PlayerError } from "../player/errors.js";
import { readLenient } from "../player/hls-playlist.js";
import { readSegmentIndex } from "../player/mp4-segment-index.js";
import { readBytes, readText } from "./support.js";

const BASE = "https://origin.example/talk/manifest.mpd";
const seed = (name) => readText(`Packages/WebPlayer/tests/corpus/mpd/${name}`);

/** Asserts that `run` throws a PlayerError with `code` "malformed". */
function malformedBy(run, what) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof PlayerError, `${what}: ${error?.name}: ${error?.message}`);
    assert.equal(error.code, "malformed", what);
    return true;
  }, what);
}

test("the packager's MPD: sets, key ids, SegmentTemplate with a SegmentTimeline", () => {
  const mpd = readMPD(seed("cmaf-segment-template.mpd"), BASE);
  assert.equal(mpd.duration, 3);
  const [video, audio] = mpd.sets;
  assert.equal(video.contentType, "video");
  const v = video.representations[0];
  assert.deepEqual([v.id, v.bandwidth, v.codecs, v.width, v.height, v.kid], ["video", 148336, "avc1.64000B", 160, 90, "843837b530e5578d5d847b95e2d1774b"]);
  assert.deepEqual(v.init, { url: "https://origin.example/talk/video/init.mp4", range: null });
  assert.deepEqual(v.segments.map((s) => [s.url.split("/talk/")[1], s.start, s.duration]), [["video/1.m4s", 0, 1], ["video/2.m4s", 1, 1], ["video/3.m4s", 2, 1]]);
  assert.equal(audio.language, "und");
  assert.deepEqual(audio.representations[0].segments.map((s) => Math.round(s.start * 48000)), [0, 49152, 97280]);
  assert.equal(audio.representations[0].kid, "dc99eab3d53210cf410eb516dbc6f155");
});

test("an fps-v2 view's SegmentList: inclusive ranges into one file, its URL's & decoded", () => {
  const [video, audio] = readMPD(seed("view-segment-list.mpd"), BASE).sets;
  const v = video.representations[0];
  const file = "https://origin.example/talk/talk.tdf?md5=x&expires=1";
  assert.deepEqual(v.init, { url: file, range: { start: 120, length: 780 } });
  assert.deepEqual(v.segments, [{ url: file, range: { start: 960, length: 20000 }, start: 0, duration: 1 },
    { url: file, range: { start: 21020, length: 20000 }, start: 1, duration: 1 }]);
  assert.deepEqual(audio.representations[0].segments.map((s) => [s.start, s.duration, s.range.start]), [[0, 1, 41760], [1, 1, 57820]]);
});

test("SegmentBase: the init range and the index range in the Representation's BaseURL", () => {
  const v = readMPD(seed("segment-base.mpd"), BASE).sets[0].representations[0];
  assert.deepEqual(v.init, { url: "https://origin.example/talk/video-v1.mp4", range: { start: 0, length: 800 } });
  assert.deepEqual(v.index, { url: "https://origin.example/talk/video-v1.mp4", range: { start: 800, length: 68 } });
  assert.deepEqual(v.segments, []);
});

test("$Number%05d$, $Bandwidth$ and $RepresentationID$ over a duration; $Time$ over an r=-1 timeline", () => {
  const [video, text] = readMPD(seed("number-duration.mpd"), BASE).sets;
  const high = video.representations[1];
  assert.deepEqual([high.width, high.height, video.representations[0].width], [1280, 720, 640]);
  assert.deepEqual(high.segments.map((s) => s.url.split("/talk/")[1]), ["media/high/seg-00000-1200000.m4s", "media/high/seg-00001-1200000.m4s", "media/high/seg-00002-1200000.m4s"]);
  assert.equal(high.init.url, "https://origin.example/talk/media/high/init.mp4");
  assert.deepEqual(text.representations[0].segments.map((s) => s.url.split("/talk/")[1]), ["media/subtitles-fr/0.vtt", "media/subtitles-fr/2000.vtt", "media/subtitles-fr/4000.vtt"]);
  assert.equal(text.language, "fr");
});

test("xs:duration values", () => {
  assert.equal(parseDuration("PT1M4.5S"), 64.5);
  assert.equal(parseDuration("P1DT1H"), 90000);
  for (const text of ["P1Y", "P1M", "PT", "P", "1S", "PT-1S", "PT1.S"]) malformedBy(() => parseDuration(text), text);
});

test("one malformed MPD field at a time is refused as malformed", () => {
  const view = seed("view-segment-list.mpd");
  const cases = {
    "a DOCTYPE (and so an entity)": view.replace("<MPD", '<!DOCTYPE MPD [<!ENTITY x "y">]><MPD'),
    "a bare &": view.replace("&amp;expires", "&expires"),
    "a reference to NUL": view.replace("&amp;", "&#0;"),
    "a reference past Unicode": view.replace("&amp;", "&#x110000;"),
    "an unclosed element": view.replace("</MPD>", ""),
    "an end tag of another element": view.replace("</Period>", "</Perio>"),
    "text outside the root": `${view}trailing`,
    "two roots": `${view}<MPD/>`,
    "a repeated attribute": view.replace('bandwidth="500000"', 'bandwidth="500000" bandwidth="1"'),
    "an unquoted attribute": view.replace('bandwidth="500000"', "bandwidth=500000"),
    "a reversed mediaRange": view.replace('mediaRange="960-20959"', 'mediaRange="20959-960"'),
    "a mediaRange without its last byte": view.replace('mediaRange="960-20959"', 'mediaRange="960-"'),
    "a negative number": view.replace('timescale="1000"', 'timescale="-1000"'),
    "no bandwidth": view.replace('bandwidth="500000" ', ""),
    "a dynamic MPD": view.replace('type="static"', 'type="dynamic"'),
    "two Periods": view.replace("</Period>", "</Period><Period/>"),
    "no duration": view.replace(' mediaPresentationDuration="PT2.000S"', ""),
    "a duration in months": view.replace("PT2.000S", "P1M"),
    "a default_KID that is not a UUID": view.replace("843837b5-30e5", "843837b5-30g5"),
    "a timeline of more than 100,000 segments": view.replace('r="1"', 'r="100000"'),
    "a timeline and SegmentURLs that differ in number": view.replace('r="1"', 'r="2"'),
    "both a SegmentTemplate and a SegmentList": view.replace("<SegmentList timescale=\"1000\">", '<SegmentTemplate media="x"/><SegmentList timescale="1000">'),
    "a SegmentURL with a URI that does not parse": view.replace('media="talk.tdf?md5=x&amp;expires=1" mediaRange="960-20959"', 'media="http://[" mediaRange="960-20959"'),
    "an element nested 17 deep": view.replace("<Period>", `<Period>${"<X>".repeat(15)}${"</X>".repeat(15)}`),
    "65 attributes": view.replace("<Period>", `<Period ${Array.from({ length: 65 }, (_, i) => `a${i}="1"`).join(" ")}>`),
  };
  for (const [what, text] of Object.entries(cases)) malformedBy(() => readMPD(text, BASE), what);
  const template = seed("number-duration.mpd");
  malformedBy(() => readMPD(template.replace("$Number%05d$", "$Numbr$"), BASE), "an unknown template identifier");
  malformedBy(() => readMPD(template.replace("seg-$Number", "seg-$$$Number"), BASE), "an unpaired $");
  malformedBy(() => readMPD(template.replace("$RepresentationID$/init.mp4", "$Number$/init.mp4"), BASE), "$Number$ in the initialization");
  malformedBy(() => readMPD(template.replace('duration="180000"', 'duration="1"'), BASE), "a segment duration making more than 100,000 segments");
  malformedBy(() => readXML(`<MPD>${" ".repeat(MAX_MPD_BYTES)}</MPD>`), "an MPD larger than 4 MiB");
  assert.equal(readMPD(view.replace("<Period>", `<Period>${"<X>".repeat(14)}${"</X>".repeat(14)}`), BASE).sets.length, 2, "16 deep is read");
});

/** A sidx box of version 0 with `references` [[size, duration]] at timescale 1000, first offset `gap`. */
function sidx(references, { gap = 0, type = 0, count = references.length } = {}) {
  const body = new DataView(new ArrayBuffer(24 + references.length * 12));
  body.setUint32(4, 1); body.setUint32(8, 1000); body.setUint32(12, 500); body.setUint32(16, gap); body.setUint16(22, count);
  references.forEach(([size, duration], n) => { body.setUint32(24 + n * 12, size | (type << 31)); body.setUint32(28 + n * 12, duration); });
  const box = new Uint8Array(8 + body.byteLength);
  new DataView(box.buffer).setUint32(0, box.length);
  box.set(utf8.encode("sidx"), 4);
  box.set(new Uint8Array(body.buffer), 8);
  return box;
}

test("a sidx: each reference's bytes follow the box (and its first offset), times from the earliest", () => {
  const box = sidx([[100, 1000], [50, 500]], { gap: 10 });
  assert.deepEqual(readSegmentIndex(box, 800), [
    { start: 0.5, duration: 1, range: { start: 800 + box.length + 10, length: 100 } },
    { start: 1.5, duration: 0.5, range: { start: 800 + box.length + 110, length: 50 } }]);
  assert.equal(readSegmentIndex(readBytes("Packages/WebPlayer/tests/corpus/sidx/version1.sidx"), 0).length, 2, "version 1");
  malformedBy(() => readSegmentIndex(sidx([[100, 1000]], { type: 1 }), 0), "a reference to another sidx");
  malformedBy(() => readSegmentIndex(sidx([[100, 1000]], { count: 2 }), 0), "more references than the box holds");
  malformedBy(() => readSegmentIndex(sidx([[0, 1000]]), 0), "a reference of no bytes");
  malformedBy(() => readSegmentIndex(sidx([]), 0), "no reference");
  const moof = sidx([[100, 1000]]);
  moof.set(utf8.encode("moof"), 4);
  malformedBy(() => readSegmentIndex(moof, 0), "another box");
  malformedBy(() => readSegmentIndex(sidx([[100, 1000]]).subarray(0, 30), 0), "a truncated box");
});

test("HLS byte ranges: EXT-X-MAP BYTERANGE, EXT-X-BYTERANGE with and without an offset; ClearKey key ids", () => {
  const playlist = readLenient(readText("Packages/WebPlayer/tests/corpus/hls-byterange/view-video.m3u8"), "https://origin.example/talk/video.m3u8");
  assert.deepEqual(playlist.mapRange, { start: 120, length: 780 });
  assert.deepEqual(playlist.segments.map((s) => s.range), [{ start: 960, length: 20000 }, { start: 21020, length: 20000 }, { start: 41020, length: 9000 }]);
  assert.deepEqual(playlist.keys.map((k) => [k.keyFormat, k.kid]), [["com.apple.streamingkeydelivery", null], ["org.w3.clearkey", "843837b530e5578d5d847b95e2d1774b"]]);
  const head = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n";
  assert.deepEqual(readLenient(`${head}#EXT-X-MAP:URI="a.tdf",BYTERANGE="10"\n`, BASE).mapRange, { start: 0, length: 10 });
  const cases = {
    "a first range without an offset": `${head}#EXTINF:1,\n#EXT-X-BYTERANGE:10\na.tdf\n`,
    "a range without an offset after another URI's": `${head}#EXTINF:1,\n#EXT-X-BYTERANGE:10@0\nb.tdf\n#EXTINF:1,\n#EXT-X-BYTERANGE:10\na.tdf\n`,
    "a range of no bytes": `${head}#EXTINF:1,\n#EXT-X-BYTERANGE:0@5\na.tdf\n`,
    "a range that is not a number": `${head}#EXTINF:1,\n#EXT-X-BYTERANGE:ten@5\na.tdf\n`,
    "a map range with 16 digits": `${head}#EXT-X-MAP:URI="a.tdf",BYTERANGE="1234567890123456@0"\n`,
    "a ClearKey URI of 15 bytes": `${head}#EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,AAECAwQFBgcICQoLDA0O",KEYFORMAT="org.w3.clearkey"\n`,
    "a ClearKey URI that is not a data: URI": `${head}#EXT-X-KEY:METHOD=SAMPLE-AES,URI="https://keys.example/k",KEYFORMAT="org.w3.clearkey"\n`,
    "a URI that does not parse": `${head}#EXTINF:1,\nhttp://[\n`,
  };
  for (const [what, text] of Object.entries(cases)) malformedBy(() => readLenient(text, BASE), what);
});

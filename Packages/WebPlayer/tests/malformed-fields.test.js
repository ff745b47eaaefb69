// One malformed field at a time, each refused with the typed error and, for the fps-v2 checks,
// the check identifier the Swift reader gives (docs/fps-v2-admission.md).
import { test } from "node:test";
import assert from "node:assert/strict";
import { utf8 } from "../player/bytes.js";
import { PlayerError } from "../player/errors.js";
import { checkManifest } from "../player/fps-v2-manifest.js";
import { checkMaster, checkMedia, readLenient } from "../player/hls-playlist.js";
import { checkInit } from "../player/mp4-init.js";
import { parseStrictJSON } from "../player/strict-json.js";
import { TDFArchive } from "../player/tdf-archive.js";
import { readCentralDirectory, readEndRecord } from "../player/zip-directory.js";
import { KEY_SERVICE, readArchive } from "./parser-targets.js";
import { readBytes, readText } from "./support.js";

/** Asserts that `run` throws a PlayerError with these fields (`code`, and `check` if given). */
function refusedWith(run, expected) {
  assert.throws(run, (error) => {
    assert.ok(error instanceof PlayerError, `${error?.name}: ${error?.message}`);
    for (const [key, value] of Object.entries(expected)) assert.equal(error[key], value, error.message);
    return true;
  });
}

test("strict JSON refuses duplicate keys, bad escapes, trailing text and deep nesting", () => {
  for (const text of ['{"a":1,"a":2}', '{"a":{"b":1,"\\u0062":2}}', '"\\x"', "[1] 2", "[".repeat(70) + "]".repeat(70),
    '{"a":1', '"abc', "01", "-", "[1,]", '{"a" 1}', "\u0000", ""]) {
    refusedWith(() => parseStrictJSON(text), { code: "malformed" });
  }
  assert.deepEqual({ ...parseStrictJSON('{"a":[1,-2.5e3,"\\u00e9",true,null]}') }, { a: [1, -2500, "é", true, null] });
});

const PACKAGE = readArchive(readBytes("Tests/Fuzz/corpus/fpsv2-admission/av.tdf"));
const MANIFEST_TEXT = utf8.decode(PACKAGE.get("manifest.json"));
const MANIFEST = checkManifest(PACKAGE.get("manifest.json"), [KEY_SERVICE]);

test("the fps-v2 manifest: each malformed field names its check", () => {
  const edit = (change) => { const m = JSON.parse(MANIFEST_TEXT); change(m); return utf8.encode(JSON.stringify(m)); };
  const cases = [
    [(m) => { m.extra = 1; }, "manifestSchema"],
    [(m) => { delete m.encryptionInformation.keyAccess; }, "manifestSchema"],
    [(m) => { m.encryptionInformation.policy = "not base64!"; }, "policyEncoding"],
    [(m) => { m.encryptionInformation.method.iv = "AAAA"; }, "methodIV"],
    [(m) => { m.encryptionInformation.keyAccess[0].url = "https://other.example"; }, "keyAccessURL"],
    [(m) => { m.encryptionInformation.keyAccess[0].url = "http://127.0.0.1:8443/path"; }, "keyAccessURL"],
    [(m) => { m.encryptionInformation.keyAccess.pop(); }, "keyAccessCount"],
    [(m) => { m.encryptionInformation.keyAccess[0].policyBinding.alg = "HS512"; }, "policyBindingForm"],
    [(m) => { m.encryptionInformation.keyAccess[0].type = "remote"; }, "keyAccessShape"],
  ];
  for (const [change, check] of cases) refusedWith(() => checkManifest(edit(change), [KEY_SERVICE]), { code: "refused", check });
  refusedWith(() => checkManifest(utf8.encode(MANIFEST_TEXT.slice(0, -1)), [KEY_SERVICE]), { code: "refused", check: "manifestJSON" });
  refusedWith(() => checkManifest(new Uint8Array([0xff, 0xfe]), [KEY_SERVICE]), { code: "refused", check: "manifestJSON" });
});

test("fps-v2 playlists: each malformed line names its check", () => {
  const master = utf8.decode(PACKAGE.get("master.m3u8"));
  const video = utf8.decode(PACKAGE.get("video.m3u8"));
  assert.equal(checkMaster(master).width, 96);
  refusedWith(() => checkMaster(master.replace("#EXT-X-VERSION:7", "#EXT-X-VERSION:6")), { check: "masterGrammar" });
  refusedWith(() => checkMaster(master.replace("\n", "\r\n")), { check: "masterGrammar" });
  refusedWith(() => checkMaster(master.replace(/CODECS="[^"]*"/, 'CODECS="hvc1.1.6.L93.B0,mp4a.40.2"')), { check: "masterGrammar" });
  refusedWith(() => checkMaster(master.replace(/,AUDIO="audio"/, "")), { check: "masterComponents" });
  refusedWith(() => checkMedia(video.replace("/video\"", "/audio\""), "video", MANIFEST), { check: "mediaKeyURI" });
  refusedWith(() => checkMedia(video.replace("video-segment1.m4s", "video-segment7.m4s"), "video", MANIFEST), { check: "mediaSegments" });
  refusedWith(() => checkMedia(video.replace("#EXT-X-ENDLIST", ""), "video", MANIFEST), { check: "mediaGrammar" });
  refusedWith(() => checkMedia(video.replace(/IV=0x[0-9A-F]+/i, "IV=0x00000000000000000000000000000000"), "video", MANIFEST), { check: "mediaIV" });
});

test("lenient HLS: a stream's playlists read; broken structure is malformed", () => {
  const master = readLenient(readText("Tests/Fuzz/corpus/hls/shaka-master.m3u8"), "https://origin.example/s/master.m3u8");
  assert.ok(master.variants.length >= 1);
  assert.ok(master.variants.every((v) => v.url.startsWith("https://origin.example/s/")));
  for (const text of ["", "#EXTM3\n", "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n", "#EXTM3U\nseg.ts\n", "#EXTM3U\n#EXTINF:-1,\nseg.ts\n",
    "#EXTM3U\n#EXT-X-MAP:BYTERANGE=1\n", '#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,BANDWIDTH=2\nv.m3u8\n']) {
    refusedWith(() => readLenient(text, "https://origin.example/"), { code: "malformed" });
  }
});

test("MP4 init: a box past its parent, a missing tenc IV, the wrong track kind", () => {
  const init = PACKAGE.get("video-init.mp4");
  assert.match(checkInit(init, "video", MANIFEST.iv).codec, /^avc1\.[0-9A-F]{6}$/);
  refusedWith(() => checkInit(init, "audio", MANIFEST.iv), { code: "refused", check: "initTrack" });
  refusedWith(() => checkInit(init, "video", new Uint8Array(16)), { check: "initTrackEncryption" });
  const grown = init.slice();
  new DataView(grown.buffer).setUint32(0, init.length + 100);   // the first box claims more than the file
  refusedWith(() => checkInit(grown, "video", MANIFEST.iv), { check: "initBoxTree" });
  refusedWith(() => checkInit(init.subarray(0, 7), "video", MANIFEST.iv), { check: "initBoxTree" });
});

test("ZIP directory: a comment, ZIP64 markers and a directory past its end are refused with their checks", () => {
  const bytes = readBytes("Tests/Fuzz/corpus/fpsv2-admission/av.tdf");
  const at = bytes.length - 22;
  const set16 = (b, offset, value) => { const c = b.slice(); new DataView(c.buffer).setUint16(offset, value, true); return c; };
  const set32 = (b, offset, value) => { const c = b.slice(); new DataView(c.buffer).setUint32(offset, value, true); return c; };
  refusedWith(() => readEndRecord(set16(bytes, at + 20, 1), 0, bytes.length), { check: "exactLayout" });
  refusedWith(() => readEndRecord(set32(bytes, at + 16, 0xffffffff), 0, bytes.length), { check: "zip32" });
  refusedWith(() => readEndRecord(set32(bytes, at + 16, 1), 0, bytes.length), { check: "endRecord" });
  refusedWith(() => readEndRecord(bytes.subarray(0, 10), 0, 10), { check: "endRecord" });
  const end = readEndRecord(bytes, 0, bytes.length);
  const directory = bytes.subarray(end.cdOffset, end.cdOffset + end.cdSize);
  refusedWith(() => readCentralDirectory(directory.subarray(0, 40), end), { check: "endRecord" });
  refusedWith(() => readCentralDirectory(set16(directory, 28, 0), end), { check: "safeNames" });
});

test("TDF archive: not a ZIP, entries missing, a key that is not its own", async () => {
  const bytes = readBytes("Tests/Fuzz/corpus/tdf-archive/tdf-hls-segment.tdf");
  refusedWith(() => new TDFArchive(new Uint8Array(10)), { code: "malformed" });
  refusedWith(() => new TDFArchive(bytes.subarray(0, bytes.length - 1)), { code: "malformed" });
  const renamed = bytes.slice();
  const name = utf8.encode("0.payload");
  for (let i = 0; i + name.length <= renamed.length; i++) {
    if (name.every((b, k) => renamed[i + k] === b)) renamed[i] = 0x31;   // "1.payload", in both headers
  }
  refusedWith(() => new TDFArchive(renamed), { code: "malformed" });
  await assert.rejects(new TDFArchive(bytes).decrypt(new Uint8Array(32)), (error) => error instanceof PlayerError && error.code === "integrity");
});

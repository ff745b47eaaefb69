// clear-key-stream.js over an origin in memory: an HLS view and a DASH SegmentList view of one
// file (byte ranges), a SegmentBase whose segments come from its sidx, and the cmaf package's
// own MPD and playlists; the key ids a licence may name; the licence route's refusals
// (key-service.js) carrying the KAS's reason and never the licence URL's signature, a 429 asked
// again after its Retry-After; a licence holding other keys than those asked for kept from the CDM.
import { test } from "node:test";
import assert from "node:assert/strict";
import { utf8 } from "../player/bytes.js";
import { ClearKeyCDM } from "../player/clear-key-cdm.js";
import { ClearKeyStream } from "../player/clear-key-stream.js";
import { PlayerError } from "../player/errors.js";
import { KeyService } from "../player/key-service.js";
import { DEFAULT_CONFIGURATION } from "../player/configuration.js";
import { withRetryAfter } from "../player/rate-limit-wait.js";
import { rangeFetch, readText } from "./support.js";

const ORIGIN = "https://origin.example/talk/";
// A stand-in for a package: every byte is its offset's low byte, so a range read shows its place.
const FILE = Uint8Array.from({ length: 80000 }, (_, i) => i & 0xff);
const slice = (start, length) => FILE.subarray(start, start + length);
const KID_VIDEO = "843837b530e5578d5d847b95e2d1774b", KID_AUDIO = "dc99eab3d53210cf410eb516dbc6f155";
const KEY_IDS = { video: KID_VIDEO, audio: KID_AUDIO };

/** Runs `body` with `fetch` answering `files` (URL -> text or bytes), Range requests included. */
async function withOrigin(files, body) {
  const saved = globalThis.fetch;
  globalThis.fetch = rangeFetch(new Map(Object.entries(files).map(([url, v]) => [url, typeof v === "string" ? utf8.encode(v) : v])));
  try {
    return await body();
  } finally {
    globalThis.fetch = saved;
  }
}

const open = (url, options = {}) => ClearKeyStream.open(url, { isTypeSupported: () => true, ...options });

const MASTER = `#EXTM3U
#EXT-X-VERSION:6
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="English",LANGUAGE="en",DEFAULT=YES,URI="view-audio.m3u8"
#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Español",LANGUAGE="es",URI="view-audio-es.m3u8"
#EXT-X-STREAM-INF:BANDWIDTH=600000,CODECS="avc1.64000D,mp4a.40.2",RESOLUTION=320x180,AUDIO="audio"
view-video.m3u8
`;
const audioPlaylist = (offset) => `#EXTM3U
#EXT-X-KEY:METHOD=SAMPLE-AES,URI="data:text/plain;base64,3Jnqs9UyEM9BDrUW28bxVQ==",KEYFORMAT="org.w3.clearkey"
#EXT-X-MAP:URI="talk.tdf",BYTERANGE="500@${offset}"
#EXTINF:1.0,
#EXT-X-BYTERANGE:4000@${offset + 600}
talk.tdf
#EXTINF:1.0,
#EXT-X-BYTERANGE:4000
talk.tdf
#EXTINF:0.5,
#EXT-X-BYTERANGE:2000
talk.tdf
#EXT-X-ENDLIST
`;
const VIEW = {
  [`${ORIGIN}view.m3u8`]: MASTER,
  [`${ORIGIN}view-video.m3u8`]: readText("Packages/WebPlayer/tests/corpus/hls-byterange/view-video.m3u8"),
  [`${ORIGIN}view-audio.m3u8`]: audioPlaylist(60000),
  [`${ORIGIN}view-audio-es.m3u8`]: audioPlaylist(70000),
  [`${ORIGIN}talk.tdf?md5=x&expires=1`]: FILE,
  "https://origin.example/talk.tdf?md5=x&expires=1": FILE,
  [`${ORIGIN}talk.tdf`]: FILE,
};

test("an HLS view: the init and every segment are the byte ranges the playlists name", async () => {
  await withOrigin(VIEW, async () => {
    const stream = await open(`${ORIGIN}view.m3u8`);
    assert.equal(stream.profile, "hls");
    assert.equal(stream.duration, 2.5);
    const [video, audio] = stream.renditions;
    assert.deepEqual(video.init, slice(120, 780));
    assert.deepEqual(await stream.segment(video, 2), slice(41020, 9000));
    assert.deepEqual(audio.init, slice(60000, 500));
    assert.deepEqual(await stream.segment(audio, 1), slice(64600, 4000));
    assert.deepEqual(stream.audioTracks.map((t) => t.language), ["en", "es"]);
    assert.equal(stream.audioLanguage, "en");
    assert.deepEqual(stream.codecs, { videoCodec: "avc1.64000D", audioCodec: "mp4a.40.2" });
    assert.deepEqual(stream.keysFor(KEY_IDS), [{ component: "video", kid: KID_VIDEO }, { component: "audio", kid: KID_AUDIO }]);
    const spanish = await open(`${ORIGIN}view.m3u8`, { audioLanguage: "es" });
    assert.equal(spanish.audioLanguage, "es");
    assert.deepEqual(spanish.renditions[1].init, slice(70000, 500));
  });
});

test("a DASH SegmentList view reads the same ranges (mediaRange inclusive)", async () => {
  const mpd = readText("Packages/WebPlayer/tests/corpus/mpd/view-segment-list.mpd");
  await withOrigin({ ...VIEW, [`${ORIGIN}manifest.mpd`]: mpd }, async () => {
    const stream = await open(`${ORIGIN}manifest.mpd`);
    assert.equal(stream.profile, "dash");
    assert.equal(stream.duration, 2);
    const [video, audio] = stream.renditions;
    assert.deepEqual(video.init, slice(120, 780));
    assert.deepEqual(await stream.segment(video, 1), slice(21020, 20000));
    assert.deepEqual(await stream.segment(audio, 0), slice(41760, 16000));
    assert.deepEqual(stream.audioTracks, [{ language: "en", name: "en" }]);
  });
});

test("SegmentBase: the segments are the sidx's references", async () => {
  const sidx = new Uint8Array(44);
  const view = new DataView(sidx.buffer);
  view.setUint32(0, 44); sidx.set(utf8.encode("sidx"), 4); view.setUint32(16, 1000); view.setUint16(30, 1);
  view.setUint32(32, 5000); view.setUint32(36, 3000);
  const file = new Uint8Array(6000);
  file.set(sidx, 800);
  file.fill(7, 844, 5844);
  const mpd = readText("Packages/WebPlayer/tests/corpus/mpd/segment-base.mpd").replace('indexRange="800-867"', 'indexRange="800-843"');
  await withOrigin({ [`${ORIGIN}manifest.mpd`]: mpd, [`${ORIGIN}video-v1.mp4`]: file }, async () => {
    const stream = await open(`${ORIGIN}manifest.mpd`);
    const [video] = stream.renditions;
    assert.equal(video.init.length, 800);
    assert.deepEqual(video.segments.map((s) => [s.start, s.duration, s.range.start, s.range.length]), [[0, 3, 844, 5000]]);
    assert.deepEqual(await stream.segment(video, 0), file.subarray(844, 5844));
  });
});

test("a DASH text/vtt AdaptationSet is a subtitle track of its segments; a ladder is ordered by bandwidth", async () => {
  const mpd = readText("Packages/WebPlayer/tests/corpus/mpd/number-duration.mpd");
  const files = { [`${ORIGIN}manifest.mpd`]: mpd, [`${ORIGIN}media/low/init.mp4`]: slice(0, 10), [`${ORIGIN}media/high/init.mp4`]: slice(10, 10) };
  await withOrigin(files, async () => {
    const stream = await open(`${ORIGIN}manifest.mpd`);
    assert.deepEqual(stream.subtitleTracks.map((t) => [t.language, t.segments.length, t.segments[1]]), [["fr", 3, `${ORIGIN}media/subtitles-fr/2000.vtt`]]);
    assert.deepEqual(stream.video.variants.map((v) => [v.bandwidth, v.height]), [[400000, 360], [1200000, 720]]);
    assert.equal(stream.renditions.length, 1, "no audio");
  });
});

test("the cmaf package's MPD: the key ids it names must be the playback's", async () => {
  const mpd = readText("Packages/WebPlayer/tests/corpus/mpd/cmaf-segment-template.mpd");
  const files = { [`${ORIGIN}manifest.mpd`]: mpd, [`${ORIGIN}video/init.mp4`]: slice(0, 100), [`${ORIGIN}audio/init.mp4`]: slice(100, 100) };
  await withOrigin(files, async () => {
    const stream = await open(`${ORIGIN}manifest.mpd`);
    assert.deepEqual(stream.keysFor({ audio: KID_AUDIO, video: KID_VIDEO.toUpperCase() }).map((k) => k.component), ["video", "audio"]);
    assert.throws(() => stream.keysFor({ video: KID_VIDEO }), (error) => error instanceof PlayerError && error.code === "malformed");
  });
});

test("a presentation the browser cannot play, a tdf-hls master and an origin ignoring Range are refused", async () => {
  const mpd = readText("Packages/WebPlayer/tests/corpus/mpd/cmaf-segment-template.mpd");
  await withOrigin({ [`${ORIGIN}manifest.mpd`]: mpd }, async () => {
    await assert.rejects(open(`${ORIGIN}manifest.mpd`, { isTypeSupported: () => false }), { code: "unsupported", reason: "codec_unsupported" });
  });
  await withOrigin({ [`${ORIGIN}master.m3u8`]: '#EXTM3U\n#EXT-X-SESSION-DATA:DATA-ID="net.arkavo.profile",VALUE="tdf-hls"\n' }, async () => {
    await assert.rejects(open(`${ORIGIN}master.m3u8`), { code: "malformed" });
  });
  const saved = globalThis.fetch;
  globalThis.fetch = async (url) => new Response(VIEW[url] ?? FILE, { status: 200 });
  try {
    await assert.rejects(open(`${ORIGIN}view.m3u8`), { code: "transport", status: 200 });
  } finally {
    globalThis.fetch = saved;
  }
});

test("an error about a per-playback manifest names neither the playback id nor the signature", async () => {
  const saved = globalThis.fetch;
  globalThis.fetch = async () => new Response("", { status: 403 });
  try {
    const error = await open("https://kas.example/media/v1/playback/SECRETPLAYBACK/manifest.mpd?expires=1&sig=SECRETSIG").catch((e) => e);
    assert.deepEqual([error.code, error.status], ["transport", 403]);
    assert.ok(!/SECRET/.test(error.message), error.message);
  } finally {
    globalThis.fetch = saved;
  }
});

test("the licence route's refusal keeps the KAS's reason, and no error names the licence URL", async () => {
  const url = "https://kas.example/media/v1/playback/Yb1/clearkey?expires=1796148084&sig=SECRETSIGNATURE";
  const saved = globalThis.fetch;
  const sent = [];
  globalThis.fetch = async (target, init) => {
    sent.push({ target, init });
    return new Response(JSON.stringify({ error: "licence refused", reason: "key_id_unknown" }), { status: 403 });
  };
  try {
    const service = new KeyService("https://kas.example", "token-value");
    const error = await service.licence(url, utf8.encode('{"kids":["AAAAAAAAAAAAAAAAAAAAAA"],"type":"temporary"}')).catch((e) => e);
    assert.ok(error instanceof PlayerError);
    assert.deepEqual([error.code, error.reason, error.status], ["denied", "key_id_unknown", 403]);
    assert.ok(!error.message.includes("SECRETSIGNATURE"), error.message);
    assert.equal(sent[0].target, url);
    assert.equal(sent[0].init.headers.Authorization, undefined, "the licence URL is its own authorization: no bearer");
  } finally {
    globalThis.fetch = saved;
  }
});

test("a licence answered 429 with Retry-After is asked again once the wait is over", async () => {
  const saved = globalThis.fetch;
  const answers = [new Response(JSON.stringify({ error: "rate limit" }), { status: 429, headers: { "Retry-After": "1" } }),
    new Response(JSON.stringify({ keys: [], type: "temporary" }), { status: 200 })];
  globalThis.fetch = async () => answers.shift();
  const events = [];
  try {
    const service = new KeyService("https://kas.example", "token-value");
    const answer = await withRetryAfter(() => service.licence("https://kas.example/licence?sig=x", "{}"),
      { retry: DEFAULT_CONFIGURATION.retry, onRateLimited: (wait) => events.push(wait) });
    assert.deepEqual(events, [{ retryAfter: 1, attempt: 1 }]);
    assert.deepEqual(answer.keys, []);
    assert.equal(answers.length, 0, "sent twice");
  } finally {
    globalThis.fetch = saved;
  }
});

/** A MediaKeys stand-in: sessions whose generateRequest answers with EME ClearKey's licence
 * request (the JSON of the key ids) and which record what update() was given. */
function fakeMediaKeys(updates) {
  return {
    createSession: () => {
      const target = new EventTarget();
      return Object.assign(target, {
        generateRequest: async (type, initData) => {
          assert.equal(type, "keyids");
          const { kids } = JSON.parse(utf8.decode(initData));
          queueMicrotask(() => target.dispatchEvent(Object.assign(new Event("message"), { message: utf8.encode(JSON.stringify({ kids, type: "temporary" })).buffer })));
        },
        update: async (licence) => { updates.push(JSON.parse(utf8.decode(licence))); },
        close: async () => {},
      });
    },
  };
}

test("a licence must hold exactly the keys asked for before the CDM gets it", async () => {
  const kid = (n) => new Uint8Array(16).fill(n);
  const b64 = (bytes) => Buffer.from(bytes).toString("base64url");
  const key = (n, k = b64(new Uint8Array(16).fill(0x40 + n))) => ({ kty: "oct", kid: b64(kid(n)), k });
  const updates = [];
  const cdm = new ClearKeyCDM({}, fakeMediaKeys(updates));
  const asked = [];
  await cdm.requestLicence([kid(1), kid(2)], async (message) => { asked.push(JSON.parse(utf8.decode(message))); return { keys: [key(2), key(1)] }; });
  assert.deepEqual(asked, [{ kids: [b64(kid(1)), b64(kid(2))], type: "temporary" }], "the CDM's request posted as it is");
  assert.deepEqual(updates, [{ keys: [key(2), key(1)], type: "temporary" }]);
  for (const [what, keys] of Object.entries({
    "a key missing": [key(1)],
    "another key beside": [key(1), key(2), key(3)],
    "a key of 15 bytes": [key(1), key(2, b64(new Uint8Array(15)))],
    "a key of another type": [key(1), { ...key(2), kty: "RSA" }],
    "another key in place of one": [key(1), key(3)],
  })) {
    await assert.rejects(cdm.requestLicence([kid(1), kid(2)], async () => ({ keys })), { code: "malformed" }, what);
  }
  assert.equal(updates.length, 1, "no refused licence reached update()");
});

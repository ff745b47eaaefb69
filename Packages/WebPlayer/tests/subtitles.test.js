// The subtitle segments' reader: cues onto the media timeline by X-TIMESTAMP-MAP, bounded, and
// a segment that is not WebVTT refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseWebVTT } from "../player/subtitles.js";

test("cues are read with their times moved by the segment's X-TIMESTAMP-MAP", () => {
  const text = "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:900000,LOCAL:00:00:00.000\n\nNOTE a note --- no timing\n\n1\n00:00:01.000 --> 00:00:02.500 line:90%\nHello\nworld\n\n01:00:00.000 --> 01:00:01.000\nLate\n";
  assert.deepEqual(parseWebVTT(text), [
    { start: 11, end: 12.5, text: "Hello\nworld" },
    { start: 3610, end: 3611, text: "Late" },
  ]);
  assert.deepEqual(parseWebVTT("\uFEFFWEBVTT\r\n\r\n00:01.000 --> 00:02.000\r\nA\r\n"), [{ start: 1, end: 2, text: "A" }]);
});

test("a segment that is not WebVTT, or a cue that cannot be timed, is refused", () => {
  assert.throws(() => parseWebVTT("WEBVTX\n"), { code: "malformed" });
  assert.throws(() => parseWebVTT("WEBVTT\n\n00:02.000 --> 00:01.000\nBackwards\n"), { code: "malformed" });
  assert.throws(() => parseWebVTT("WEBVTT\n\n00:0x.000 --> 00:01.000\nBad\n"), { code: "malformed" });
});

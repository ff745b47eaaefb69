// The support floor's checks (browser-support.js): a missing API is refused by name with
// browser_unsupported; AbortSignal.any is replaced by hand where the browser lacks it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { anySignal, missingBrowserAPIs, requireBrowserAPIs } from "../player/browser-support.js";
import "./support.js";

const browserLike = () => ({ ...globalThis, MediaSource: class {}, crypto: globalThis.crypto, ReadableStream, AbortController, TextDecoder });

test("a browser with every required API passes", () => {
  assert.deepEqual(missingBrowserAPIs(browserLike()), []);
});

test("a missing API is refused with browser_unsupported, naming it", () => {
  for (const name of ["MediaSource", "crypto.subtle"]) {
    const scope = browserLike();
    if (name === "crypto.subtle") scope.crypto = {}; else delete scope[name];
    assert.throws(() => requireBrowserAPIs(scope), (error) =>
      error.code === "unsupported" && error.reason === "browser_unsupported" && error.message.includes(name));
  }
});

for (const [label, scope] of [["AbortSignal.any", globalThis], ["by hand", { AbortSignal: {} }]]) {
  test(`anySignal (${label}) aborts with the first signal's reason`, () => {
    const a = new AbortController(), b = new AbortController();
    const combined = anySignal([a.signal, undefined, b.signal], scope);
    assert.equal(combined.aborted, false);
    b.abort("seek");
    assert.equal(combined.aborted, true);
    assert.equal(combined.reason, "seek");
    a.abort("destroy");
    assert.equal(combined.reason, "seek");
  });

  test(`anySignal (${label}) of an already aborted signal is aborted`, () => {
    const a = new AbortController();
    a.abort("gone");
    assert.equal(anySignal([a.signal, new AbortController().signal], scope).aborted, true);
  });
}

test("anySignal of one signal is that signal, of none undefined", () => {
  const a = new AbortController();
  assert.equal(anySignal([a.signal, undefined]), a.signal);
  assert.equal(anySignal([undefined, undefined]), undefined);
});

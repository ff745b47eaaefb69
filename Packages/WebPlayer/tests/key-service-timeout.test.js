// network.keyServiceTimeoutSeconds: a KAS call that never answers fails with transport/timeout
// (the configuration's value, not a constant), and the token never reaches the message.
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEFAULT_CONFIGURATION, mergeConfiguration } from "../player/configuration.js";
import { KeyService } from "../player/key-service.js";

test("a key-service call without an answer fails with the timeout reason after the configured time", async () => {
  const saved = globalThis.fetch;
  const asked = [];
  globalThis.fetch = (url, init) => { asked.push({ url, init }); return new Promise(() => {}); };
  try {
    const { network } = mergeConfiguration(DEFAULT_CONFIGURATION, { network: { keyServiceTimeoutSeconds: 1 } });
    const service = new KeyService("https://kas.example", "secret.token.value", { network });
    await assert.rejects(service.startSession({ assetId: "a", component: "video", playbackId: "p" }), (error) => {
      assert.equal(error.code, "transport");
      assert.equal(error.reason, "timeout");
      assert.match(error.message, /did not answer session start within 1 s/);
      assert.doesNotMatch(error.message, /secret/);
      return true;
    });
    assert.equal(asked.length, 1);
    assert.equal(asked[0].init.headers.Authorization, "Bearer secret.token.value");
  } finally {
    globalThis.fetch = saved;
  }
});

// The error codes and reason codes: the tables of errors.js hold every code the modules raise,
// and docs/web.md names every one of them.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ERROR_CODES, PAGE_REASONS } from "../player/errors.js";
import { PLAYER, readText } from "./support.js";

const sources = readdirSync(PLAYER).filter((f) => f.endsWith(".js")).map((f) => ({ file: f, text: readFileSync(join(PLAYER, f), "utf8") }));
const literals = (pattern) => sources.flatMap(({ file, text }) => [...text.matchAll(pattern)].map((m) => ({ file, value: m[1] })));

test("every PlayerError code the modules raise is in ERROR_CODES", () => {
  const raised = literals(/new PlayerError\(\s*"([a-z_]+)"/g);
  assert.ok(raised.length > 10);
  for (const { file, value } of raised) assert.ok(value in ERROR_CODES, `${file} raises the code ${value}`);
});

test("every reason the page gives or derives is in PAGE_REASONS", () => {
  const given = literals(/reason: "([a-z_]+)"/g);
  // The reasons derived from a status (key-service.js) or a rewrap result's text (tdf-hls.js).
  const derived = sources.filter(({ file }) => file === "key-service.js" || file === "tdf-hls.js").flatMap(({ file, text }) => {
    const body = /function derivedReason[\s\S]*?\n}\n|static refusal[\s\S]*?\n {2}}\n/.exec(text)?.[0] ?? "";
    return [...body.matchAll(/(?:return |\? |: )"([a-z_]+)"/g)].map((m) => ({ file, value: m[1] }));
  });
  assert.ok(derived.length >= 10, "the derived reasons were found");
  for (const { file, value } of [...given, ...derived]) assert.ok(value in PAGE_REASONS, `${file} gives the reason ${value}`);
});

test("docs/web.md names every error code and every page reason", () => {
  const doc = readText("docs/web.md");
  for (const code of [...Object.keys(ERROR_CODES), ...Object.keys(PAGE_REASONS)]) assert.ok(doc.includes(`\`${code}\``), `docs/web.md lacks ${code}`);
});

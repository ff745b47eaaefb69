// Strict JSON for manifests, policies and KAS answers (docs/formats.md "Strict JSON"): the
// RFC 8259 grammar exactly, duplicate object keys refused at every depth (after unescaping),
// bounded depth and size. `JSON.parse` keeps one of two duplicate keys silently, so it cannot
// decide admission: a duplicate could make this reader and the KAS see different values.
import { malformed } from "./errors.js";

const MAX_DEPTH = 64;
export const MAX_JSON_BYTES = 1 << 20;

/** Parses `text` (a string) or throws a PlayerError naming the problem. */
export function parseStrictJSON(text, what = "JSON") {
  if (text.length > MAX_JSON_BYTES * 2) throw malformed(`${what} is larger than the limit`);
  let at = 0;
  const fail = (problem) => { throw malformed(`${what} is not strict JSON: ${problem} at character ${at}`); };
  const ws = () => { while (at < text.length && " \t\n\r".includes(text[at])) at++; };
  const value = (depth) => {
    if (depth > MAX_DEPTH) fail("nesting too deep");
    ws();
    const c = text[at];
    if (c === "{") return object(depth);
    if (c === "[") return array(depth);
    if (c === '"') return string();
    if (c === "t") return literal("true", true);
    if (c === "f") return literal("false", false);
    if (c === "n") return literal("null", null);
    return number();
  };
  const literal = (word, result) => {
    if (text.startsWith(word, at)) { at += word.length; return result; }
    return fail("an unknown literal");
  };
  const number = () => {
    const match = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(text.slice(at, at + 400));
    if (!match) fail("an unexpected character");
    at += match[0].length;
    return Number(match[0]);
  };
  const string = () => {
    at++;
    let out = "";
    for (;;) {
      if (at >= text.length) fail("an unterminated string");
      const c = text[at];
      if (c === '"') { at++; return out; }
      if (c < " ") fail("a control character in a string");
      if (c === "\\") {
        const e = text[at + 1];
        const simple = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" }[e];
        if (simple !== undefined) { out += simple; at += 2; continue; }
        if (e === "u" && /^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) {
          out += String.fromCharCode(parseInt(text.slice(at + 2, at + 6), 16));
          at += 6;
          continue;
        }
        fail("a bad escape");
      }
      out += c;
      at++;
    }
  };
  const array = (depth) => {
    at++;
    const out = [];
    ws();
    if (text[at] === "]") { at++; return out; }
    for (;;) {
      out.push(value(depth + 1));
      ws();
      if (text[at] === ",") { at++; continue; }
      if (text[at] === "]") { at++; return out; }
      fail("a missing comma or bracket");
    }
  };
  const object = (depth) => {
    at++;
    const out = Object.create(null);
    const keys = new Set();
    ws();
    if (text[at] === "}") { at++; return out; }
    for (;;) {
      ws();
      if (text[at] !== '"') fail("a key that is not a string");
      const key = string();
      if (keys.has(key)) fail(`the duplicate key "${key.slice(0, 40)}"`);
      keys.add(key);
      ws();
      if (text[at] !== ":") fail("a missing colon");
      at++;
      out[key] = value(depth + 1);
      ws();
      if (text[at] === ",") { at++; continue; }
      if (text[at] === "}") { at++; return out; }
      fail("a missing comma or brace");
    }
  };
  const result = value(0);
  ws();
  if (at !== text.length) fail("text after the value");
  return result;
}

export const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

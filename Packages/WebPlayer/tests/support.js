// What the Node tests and the fuzz harness share: the repository's paths, its corpora, and the
// browser globals Node 18 lacks or that a test replaces (WebCrypto as `crypto`, `fetch` of a
// file held in memory, answering Range requests as the package origin does).
import { readFileSync, readdirSync, statSync } from "node:fs";
import { webcrypto } from "node:crypto";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const PLAYER = join(ROOT, "Packages", "WebPlayer", "player");

// Node 18 has WebCrypto only as node:crypto's webcrypto; Node 19 and later also as `crypto`.
globalThis.crypto ??= webcrypto;

/** The files of the repository folders `folders` (relative to the root), sorted:
 * [{name, path, bytes}]. */
export function corpusFiles(folders) {
  return folders.flatMap((folder) => {
    const dir = join(ROOT, folder);
    return readdirSync(dir).sort().map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile())
      .map((path) => ({ name: `${folder}/${path.slice(dir.length + 1)}`, path, bytes: new Uint8Array(readFileSync(path)) }));
  });
}

export const readBytes = (relative) => new Uint8Array(readFileSync(join(ROOT, relative)));
export const readText = (relative) => readFileSync(join(ROOT, relative), "utf8");

/** A `fetch` that answers `Range: bytes=a-b` and `bytes=-n` on the files of `files` (URL ->
 * bytes) with 206 and Content-Range, as the package origin does (docs/web.md). */
export function rangeFetch(files) {
  return async (url, { headers = {} } = {}) => {
    const bytes = files.get(String(url));
    if (!bytes) return new Response("", { status: 404 });
    const range = /^bytes=(\d*)-(\d*)$/.exec(headers.Range || "");
    if (!range) return new Response(bytes, { status: 200 });
    let first, last;
    if (range[1] === "") { first = Math.max(0, bytes.length - Number(range[2])); last = bytes.length - 1; }
    else { first = Number(range[1]); last = Math.min(Number(range[2] || bytes.length - 1), bytes.length - 1); }
    if (first > last) return new Response("", { status: 416 });
    return new Response(bytes.slice(first, last + 1), { status: 206,
      headers: { "Content-Range": `bytes ${first}-${last}/${bytes.length}` } });
  };
}

// The sentences the viewer page shows for a failure (docs/web.md "Refusals in words"): the KAS
// refusal codes' words from refusals.json (generated from the Swift client's table by `player
// refusals`), the page's own reasons' and the error codes' from errors.js. The code itself is
// shown beside them, for support.
import { ERROR_CODES, PAGE_REASONS } from "./errors.js";
import { isObject, parseStrictJSON } from "./strict-json.js";

/** A fragment as a sentence: its first letter upper case, a full stop at the end. */
function sentence(text) {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The refusal table of `refusals.json` (its `refusals` member), read strictly. */
export function readRefusalTable(text) {
  const table = parseStrictJSON(text, "refusals.json");
  if (!isObject(table) || table.version !== 1 || !isObject(table.refusals)) throw new TypeError("refusals.json is not a version 1 refusal table");
  for (const [code, entry] of Object.entries(table.refusals)) {
    if (!isObject(entry) || typeof entry.explanation !== "string" || (entry.nextStep !== undefined && typeof entry.nextStep !== "string")) {
      throw new TypeError(`refusals.json: the words of ${code} are not {explanation, nextStep}`);
    }
  }
  return table.refusals;
}

/** Fetches and reads the refusal table beside this module. */
export async function loadRefusalTable() {
  const response = await fetch(new URL("./refusals.json", import.meta.url), { credentials: "omit" });
  if (!response.ok) throw new TypeError(`refusals.json answered ${response.status}`);
  return readRefusalTable(await response.text());
}

/** What to show for `failure` (a PlayerError, or {code, reason}): {code, explanation, nextStep}.
 * `refusals`: the refusal table (an empty object when it could not be loaded: the page's own
 * words for the error's code then stand in). */
export function describeFailure(failure, refusals) {
  const code = failure?.reason ?? failure?.code ?? "internal";
  const table = refusals?.[code];
  if (table) return { code, explanation: sentence(table.explanation), nextStep: table.nextStep ?? "" };
  const own = PAGE_REASONS[code]?.explanation ? PAGE_REASONS[code] : ERROR_CODES[failure?.code] ?? ERROR_CODES.internal;
  return { code, explanation: own.explanation, nextStep: own.nextStep };
}

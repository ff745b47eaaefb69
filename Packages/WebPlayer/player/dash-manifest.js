// DASH MPDs (ISO/IEC 23009-1) as the player plays them: a static presentation of one Period whose
// Representations address CMAF fragments by `SegmentTemplate` (`$Number$`, `$Time$`,
// `$RepresentationID$`, `$Bandwidth$`, with or without a `SegmentTimeline`), by `SegmentList`
// (`Initialization` `range`, `SegmentURL` `media`/`mediaRange`: ranges are inclusive, RFC 9110
// §14.1.1) or by `SegmentBase` (`Initialization` `range` and a `sidx` at `indexRange`, read by
// mp4-segment-index.js). The XML is read by our own bounded reader of the subset an MPD uses
// (elements, attributes, text, comments, the XML declaration, CDATA and the predefined and
// numeric character references; a DOCTYPE and so any other entity is refused), so the same code
// runs in the page and under Node. Every size and count is checked before it is used.
import { malformed } from "./errors.js";
import { MAX_SEGMENTS, resolveURL } from "./hls-playlist.js";

export const MAX_MPD_BYTES = 4 << 20;
const MAX_DEPTH = 16;
const MAX_ELEMENTS = 200000;
const MAX_ATTRIBUTES = 64;
const NAME = "[A-Za-z_][A-Za-z0-9_.:-]{0,127}";
const START_TAG = new RegExp(`<(${NAME})((?:\\s+${NAME}\\s*=\\s*(?:"[^"<]*"|'[^'<]*'))*)\\s*(/?)>`, "y");
const ATTRIBUTE = new RegExp(`(${NAME})\\s*=\\s*(?:"([^"<]*)"|'([^'<]*)')`, "g");
const END_TAG = new RegExp(`</(${NAME})\\s*>`, "y");
const REFERENCE = /&(?:(amp|lt|gt|quot|apos)|#([0-9]{1,7})|#x([0-9A-Fa-f]{1,6}));/y;
const PREDEFINED = { amp: "&", lt: "<", gt: ">", quot: "\"", apos: "'" };
// A decimal attribute the MPD gives as an integer: at most 15 digits, so it stays exact.
const INTEGER = /^[0-9]{1,15}$/;

/** Text with its character references replaced; a bare `&` or a reference to a character XML
 * cannot carry is refused. */
function decode(text) {
  if (!text.includes("&")) return text;
  let out = "";
  let at = 0;
  for (let amp = text.indexOf("&"); amp >= 0; amp = text.indexOf("&", at)) {
    out += text.slice(at, amp);
    REFERENCE.lastIndex = amp;
    const match = REFERENCE.exec(text);
    if (!match) throw malformed("an MPD has an & that is not a character reference");
    if (match[1]) out += PREDEFINED[match[1]];
    else {
      const code = match[2] !== undefined ? Number(match[2]) : parseInt(match[3], 16);
      if (code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)) throw malformed("an MPD refers to a character XML cannot carry");
      out += String.fromCodePoint(code);
    }
    at = REFERENCE.lastIndex;
  }
  return out + text.slice(at);
}

/** The element tree of an XML document: {name, attributes: Map, children, text} for the root
 * element. Throws `malformed` for anything outside the subset or past the limits. */
export function readXML(text) {
  if (text.length > MAX_MPD_BYTES) throw malformed("an MPD is larger than 4 MiB");
  const document = { name: "#document", attributes: new Map(), children: [], text: "" };
  const stack = [document];
  let elements = 0;
  let at = text.startsWith("\uFEFF") ? 1 : 0;
  const addText = (raw) => {
    const top = stack[stack.length - 1];
    if (top === document) {
      if (raw.trim() !== "") throw malformed("an MPD has text outside its root element");
    } else {
      top.text += raw;
    }
  };
  const skipTo = (marker, from, what) => {
    const end = text.indexOf(marker, from);
    if (end < 0) throw malformed(`an MPD's ${what} is not closed`);
    return end + marker.length;
  };
  while (at < text.length) {
    const lt = text.indexOf("<", at);
    if (lt < 0) { addText(decode(text.slice(at))); break; }
    if (lt > at) addText(decode(text.slice(at, lt)));
    if (text.startsWith("<?", lt)) { at = skipTo("?>", lt + 2, "declaration"); continue; }
    if (text.startsWith("<!--", lt)) { at = skipTo("-->", lt + 4, "comment"); continue; }
    if (text.startsWith("<![CDATA[", lt)) {
      at = skipTo("]]>", lt + 9, "CDATA section");
      addText(text.slice(lt + 9, at - 3));
      continue;
    }
    if (text.startsWith("<!", lt)) throw malformed("an MPD has a DOCTYPE or another markup declaration");
    if (text.startsWith("</", lt)) {
      END_TAG.lastIndex = lt;
      const match = END_TAG.exec(text);
      const top = stack[stack.length - 1];
      if (!match || top === document || match[1] !== top.name) throw malformed("an MPD's end tag does not close the open element");
      stack.pop();
      at = END_TAG.lastIndex;
      continue;
    }
    START_TAG.lastIndex = lt;
    const match = START_TAG.exec(text);
    if (!match) throw malformed("an MPD has a tag that cannot be read");
    if (++elements > MAX_ELEMENTS) throw malformed("an MPD has more than 200,000 elements");
    const parent = stack[stack.length - 1];
    if (parent === document && document.children.length) throw malformed("an MPD has more than one root element");
    const element = { name: match[1], attributes: new Map(), children: [], text: "" };
    for (const attribute of match[2].matchAll(ATTRIBUTE)) {
      if (element.attributes.has(attribute[1])) throw malformed(`an MPD element repeats the attribute ${attribute[1]}`);
      if (element.attributes.size >= MAX_ATTRIBUTES) throw malformed("an MPD element has more than 64 attributes");
      element.attributes.set(attribute[1], decode(attribute[2] ?? attribute[3]));
    }
    parent.children.push(element);
    if (match[3] !== "/") {
      if (stack.length > MAX_DEPTH) throw malformed("an MPD nests elements more than 16 deep");
      stack.push(element);
    }
    at = START_TAG.lastIndex;
  }
  if (stack.length !== 1) throw malformed("an MPD ends inside an element");
  if (document.children.length !== 1) throw malformed("an MPD has no root element");
  return document.children[0];
}

const localName = (name) => name.slice(name.indexOf(":") + 1);
const childrenNamed = (element, name) => (element ? element.children.filter((c) => localName(c.name) === name) : []);
const childNamed = (element, name) => childrenNamed(element, name)[0] ?? null;
/** An attribute by its local name (`cenc:default_KID` as `default_KID`). */
const attribute = (element, name) => {
  if (!element) return undefined;
  if (element.attributes.has(name)) return element.attributes.get(name);
  for (const [key, value] of element.attributes) if (localName(key) === name) return value;
  return undefined;
};

/** A non-negative integer attribute, `fallback` when absent (required without one). */
function integer(element, name, fallback) {
  return wholeNumber(attribute(element, name), name, fallback);
}

function wholeNumber(text, name, fallback) {
  if (text === undefined) {
    if (fallback === undefined) throw malformed(`an MPD element has no ${name}`);
    return fallback;
  }
  if (!INTEGER.test(text)) throw malformed(`an MPD ${name} is not a whole number`);
  return Number(text);
}

/** Seconds of an xs:duration (`PT1M4.5S`, `P1DT2H`); years and months, which have no fixed
 * length, are refused. */
export function parseDuration(text) {
  const match = /^P(?:([0-9]{1,6})D)?(?:T(?:([0-9]{1,6})H)?(?:([0-9]{1,6})M)?(?:([0-9]{1,9}(?:\.[0-9]{1,9})?)S)?)?$/.exec(text ?? "");
  if (!match || text === "P" || text.endsWith("T")) throw malformed("an MPD duration is not an xs:duration of days, hours, minutes and seconds");
  const [days, hours, minutes, seconds] = match.slice(1).map((part) => Number(part ?? 0));
  return ((days * 24 + hours) * 60 + minutes) * 60 + seconds;
}

/** An inclusive byte range `a-b` as {start, length}. */
export function parseRange(text) {
  const match = /^([0-9]{1,15})-([0-9]{1,15})$/.exec(text ?? "");
  if (!match || Number(match[2]) < Number(match[1])) throw malformed("an MPD byte range is not first-last with last not before first");
  return { start: Number(match[1]), length: Number(match[2]) - Number(match[1]) + 1 };
}

/** The URL an element's BaseURL child makes of `base`. */
function baseOf(element, base) {
  const child = childNamed(element, "BaseURL");
  return child ? resolveURL(child.text.trim(), base) : base;
}

/** `$RepresentationID$`, `$Number$`, `$Time$`, `$Bandwidth$` (with an optional `%0<w>d`) and
 * `$$` of a SegmentTemplate attribute filled in from `values`. */
function fillTemplate(template, values) {
  if ((template.match(/\$/g)?.length ?? 0) % 2) throw malformed("an MPD template has an unpaired $");
  return template.replace(/\$([^$]*)\$/g, (_, inner) => {
    if (inner === "") return "$";
    const match = /^(RepresentationID|Number|Time|Bandwidth)(?:%0([0-9]{1,2})d)?$/.exec(inner);
    if (!match || values[match[1]] === undefined || (match[1] === "RepresentationID" && match[2])) {
      throw malformed(`an MPD template has an identifier it cannot fill ($${inner.slice(0, 20)}$)`);
    }
    return String(values[match[1]]).padStart(Number(match[2] ?? 0), "0");
  });
}

/** The segments' times of a SegmentTimeline (S t, d, r; r = -1 repeats to the period's end) in
 * timescale units: [{time, duration}]. */
function timeline(element, periodEnd) {
  const out = [];
  const entries = childrenNamed(element, "S");
  let next = 0;
  entries.forEach((s, i) => {
    const time = integer(s, "t", next);
    const duration = integer(s, "d");
    if (duration === 0) throw malformed("an MPD timeline entry has no duration");
    const r = attribute(s, "r");
    let repeats;
    if (r === "-1") {
      const end = i + 1 < entries.length ? integer(entries[i + 1], "t") : periodEnd;
      repeats = Math.ceil((end - time) / duration) - 1;
    } else {
      repeats = integer(s, "r", 0);
    }
    if (out.length + repeats + 1 > MAX_SEGMENTS) throw malformed("an MPD Representation has more than 100,000 segments");
    for (let n = 0; n <= repeats; n++) out.push({ time: time + n * duration, duration });
    next = time + (repeats + 1) * duration;
  });
  return out;
}

/** The segment times of a multiple-segment element: its timeline, or `duration` repeated over
 * the period (`count` segments when the list gives their number). */
function segmentTimes(element, timescale, periodSeconds, count) {
  const list = childNamed(element.timeline, "SegmentTimeline") ?? childNamed(element.own, "SegmentTimeline");
  if (list) return timeline(list, Math.round(periodSeconds * timescale));
  const duration = attribute(element.own, "duration") ?? attribute(element.inherited, "duration");
  if (duration === undefined) {
    if (count === 1) return [{ time: 0, duration: Math.round(periodSeconds * timescale) }];
    throw malformed("an MPD segment list has neither a SegmentTimeline nor a duration");
  }
  if (!INTEGER.test(duration) || Number(duration) === 0) throw malformed("an MPD segment duration is not a positive whole number");
  const total = count ?? Math.ceil((periodSeconds * timescale) / Number(duration));
  if (total > MAX_SEGMENTS) throw malformed("an MPD Representation has more than 100,000 segments");
  return Array.from({ length: total }, (_, n) => ({ time: n * Number(duration), duration: Number(duration) }));
}

/** The segment-addressing element `name` for a Representation: its own, else its AdaptationSet's,
 * else the Period's; attributes of the nearer one win. {own, inherited, timeline} or null. */
function addressing(name, representation, set, period) {
  const levels = [representation, set, period].map((e) => childNamed(e, name)).filter(Boolean);
  if (!levels.length) return null;
  const merged = { name, attributes: new Map(), children: [], text: "" };
  for (const level of [...levels].reverse()) for (const [key, value] of level.attributes) merged.attributes.set(key, value);
  return { own: merged, inherited: levels[levels.length - 1], timeline: levels.find((l) => childNamed(l, "SegmentTimeline")) ?? null, levels };
}

/** {init, segments, index} of one Representation: init and segments as {url, range}, segments
 * with `start` and `duration` in seconds; `index` ({url, range}) for SegmentBase, whose segments
 * come from the `sidx` it addresses (mp4-segment-index.js). */
function representationSegments(representation, set, period, base, periodSeconds) {
  const values = { RepresentationID: attribute(representation, "id"), Bandwidth: attribute(representation, "bandwidth") };
  const template = addressing("SegmentTemplate", representation, set, period);
  const list = addressing("SegmentList", representation, set, period);
  const single = addressing("SegmentBase", representation, set, period);
  if ([template, list, single].filter(Boolean).length !== 1) throw malformed("an MPD Representation is addressed by other than one of SegmentTemplate, SegmentList and SegmentBase");
  const seconds = (times, timescale, offset) => times.map(({ time, duration }) => ({ start: (time - offset) / timescale, duration: duration / timescale }));
  if (template) {
    const timescale = integer(template.own, "timescale", 1) || 1;
    const offset = integer(template.own, "presentationTimeOffset", 0);
    const startNumber = integer(template.own, "startNumber", 1);
    const media = attribute(template.own, "media");
    if (media === undefined) throw malformed("an MPD SegmentTemplate has no media");
    const initialization = attribute(template.own, "initialization");
    const times = segmentTimes(template, timescale, periodSeconds);
    return {
      init: initialization === undefined ? null : { url: resolveURL(fillTemplate(initialization, values), base), range: null },
      segments: seconds(times, timescale, offset).map((s, n) => ({ ...s, range: null,
        url: resolveURL(fillTemplate(media, { ...values, Number: startNumber + n, Time: times[n].time }), base) })),
      index: null,
    };
  }
  if (list) {
    const timescale = integer(list.own, "timescale", 1) || 1;
    const offset = integer(list.own, "presentationTimeOffset", 0);
    const urls = childrenNamed(list.levels[0], "SegmentURL");
    if (!urls.length || urls.length > MAX_SEGMENTS) throw malformed("an MPD SegmentList has no SegmentURL or more than 100,000");
    const times = segmentTimes(list, timescale, periodSeconds, urls.length);
    if (times.length !== urls.length) throw malformed("an MPD SegmentList's timeline and its SegmentURLs differ in number");
    const init = list.levels.map((l) => childNamed(l, "Initialization")).find(Boolean);
    return {
      init: init ? addressed(init, "sourceURL", base) : null,
      segments: seconds(times, timescale, offset).map((s, n) => ({ ...s, ...addressed(urls[n], "media", base, "mediaRange") })),
      index: null,
    };
  }
  const init = single.levels.map((l) => childNamed(l, "Initialization")).find(Boolean);
  const indexRange = attribute(single.own, "indexRange");
  if (!init || indexRange === undefined) throw malformed("an MPD SegmentBase has no Initialization or no indexRange");
  return { init: addressed(init, "sourceURL", base), segments: [], index: { url: base, range: parseRange(indexRange) } };
}

/** {url, range} of an element naming a URL in `urlName` (else the base) and a range in `rangeName`. */
function addressed(element, urlName, base, rangeName = "range") {
  const url = attribute(element, urlName);
  const range = attribute(element, rangeName);
  return { url: url === undefined ? base : resolveURL(url, base), range: range === undefined ? null : parseRange(range) };
}

/** The key id (32 lower-case hex digits) of an element's `cenc:default_KID`, or null. */
function defaultKID(element) {
  for (const protection of childrenNamed(element, "ContentProtection")) {
    const kid = attribute(protection, "default_KID");
    if (kid === undefined) continue;
    if (!/^[0-9A-Fa-f]{8}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{4}-?[0-9A-Fa-f]{12}$/.test(kid)) throw malformed("an MPD default_KID is not a UUID");
    return kid.replace(/-/g, "").toLowerCase();
  }
  return null;
}

/** A static single-Period MPD, read against `base` (its URL): {duration, sets: [{contentType,
 * language, representations: [{id, bandwidth, codecs, mimeType, width, height, kid, init,
 * segments, index}]}]}. */
export function readMPD(text, base) {
  const mpd = readXML(text);
  if (localName(mpd.name) !== "MPD") throw malformed("the document is not an MPD");
  if ((attribute(mpd, "type") ?? "static") !== "static") throw malformed("the MPD is dynamic (live), which the player does not play");
  const periods = childrenNamed(mpd, "Period");
  if (periods.length !== 1) throw malformed("the MPD has other than one Period");
  const [period] = periods;
  const durationText = attribute(period, "duration") ?? attribute(mpd, "mediaPresentationDuration");
  if (durationText === undefined) throw malformed("the MPD has no duration");
  const duration = parseDuration(durationText) - (attribute(period, "start") ? parseDuration(attribute(period, "start")) : 0);
  if (!(duration > 0)) throw malformed("the MPD's duration is not positive");
  const periodBase = baseOf(period, baseOf(mpd, base));
  const sets = childrenNamed(period, "AdaptationSet").map((set) => {
    const setBase = baseOf(set, periodBase);
    const representations = childrenNamed(set, "Representation").map((representation) => {
      const id = attribute(representation, "id");
      if (!id || /[\s]/.test(id) || id.length > 128) throw malformed("an MPD Representation has no usable id");
      const bandwidth = integer(representation, "bandwidth");
      const size = (name) => wholeNumber(attribute(representation, name) ?? attribute(set, name), name, null);
      return {
        id, bandwidth, width: size("width"), height: size("height"),
        codecs: attribute(representation, "codecs") ?? attribute(set, "codecs") ?? null,
        mimeType: attribute(representation, "mimeType") ?? attribute(set, "mimeType") ?? null,
        kid: defaultKID(representation) ?? defaultKID(set),
        ...representationSegments(representation, set, period, baseOf(representation, setBase), duration),
      };
    });
    const contentType = attribute(set, "contentType") ?? (attribute(set, "mimeType") ?? representations[0]?.mimeType ?? "").split("/")[0];
    return { contentType, language: attribute(set, "lang") ?? null, representations };
  });
  return { duration, sets };
}

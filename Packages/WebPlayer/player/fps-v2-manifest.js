// The manifest and policy checks of fps-v2 admission (draft-arkavo-tdf-fairplay-01 §5, §6, §9.6;
// docs/fps-v2-admission.md), each failure named by the same check identifier as the Swift
// reader's `AdmissionCheck`. Pure: no network.
import { base64Decode, utf8 } from "./bytes.js";
import { refused } from "./errors.js";
import { isObject, parseStrictJSON } from "./strict-json.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KINDS = ["video", "audio"];

// The closed manifest schema: member -> required.
const ROOT = { encryptionInformation: true, payload: false, meta: false, schemaVersion: false };
const ENCRYPTION = { type: false, keyAccess: true, method: true, policy: true, integrityInformation: false };
const METHOD = { algorithm: false, iv: true, isStreamable: false };
const KEY_ACCESS = { type: true, url: true, wrappedKey: true, policyBinding: true, protocol: false, kid: false, encryptedMetadata: false, schemaVersion: false };

function closed(object, schema, where) {
  if (!isObject(object)) throw refused("manifestSchema", `${where} is not an object`);
  for (const key of Object.keys(object)) {
    if (!(key in schema)) throw refused("manifestSchema", `${where} has the unknown member ${JSON.stringify(key).slice(0, 60)}`);
    if (object[key] === null) throw refused("manifestSchema", `${where}.${key} is null`);
  }
  for (const [key, required] of Object.entries(schema)) {
    if (required && !(key in object)) throw refused("manifestSchema", `${where} has no ${key}`);
  }
}

const isString = (v) => typeof v === "string";

/** Checks manifest.json's bytes; returns what admission needs next. */
export function checkManifest(bytes, acceptedKeyServiceURLs) {
  let manifest;
  try { manifest = parseStrictJSON(utf8.decode(bytes), "manifest.json"); } catch (error) {
    throw refused("manifestJSON", error.message);
  }
  closed(manifest, ROOT, "the manifest");
  const info = manifest.encryptionInformation;
  closed(info, ENCRYPTION, "encryptionInformation");
  closed(info.method, METHOD, "method");
  if (!isString(info.policy) || !Array.isArray(info.keyAccess) || !isString(info.method.iv)) {
    throw refused("manifestSchema", "policy, keyAccess or method.iv has the wrong JSON type");
  }
  if (info.type !== undefined && !isString(info.type)) throw refused("manifestSchema", "encryptionInformation.type is not a string");
  info.keyAccess.forEach((access, index) => {
    closed(access, KEY_ACCESS, `keyAccess[${index}]`);
    for (const key of ["type", "url", "wrappedKey", "protocol", "kid"]) {
      if (key in access && !isString(access[key])) throw refused("manifestSchema", `keyAccess[${index}].${key} is not a string`);
    }
    const binding = access.policyBinding;
    if (!isString(binding)) {
      closed(binding, { alg: true, hash: true }, `keyAccess[${index}].policyBinding`);
      if (!isString(binding.alg) || !isString(binding.hash)) throw refused("manifestSchema", `keyAccess[${index}].policyBinding members are not strings`);
    }
  });

  // §6 policy
  const policyBytes = base64Decode(info.policy);
  if (!policyBytes) throw refused("policyEncoding", "the policy is not canonical standard base64");
  let policy;
  try { policy = parseStrictJSON(utf8.decode(policyBytes), "the policy"); } catch (error) {
    throw refused("policyEncoding", error.message);
  }
  if (!isObject(policy)) throw refused("policyEncoding", "the decoded policy is not a JSON object");
  if (!isString(policy.uuid) || !UUID.test(policy.uuid)) throw refused("policyUUID", "the policy uuid is not in canonical lowercase 8-4-4-4-12 form");
  const body = policy.body;
  if (!isObject(body) || !Array.isArray(body.dataAttributes) || body.dataAttributes.length === 0 ||
      !body.dataAttributes.every((a) => isObject(a) && isString(a.attribute) && a.attribute.length > 0)) {
    throw refused("policyDataAttributes", "body.dataAttributes is missing, empty or has an entry without an attribute");
  }
  if (body.dissem !== undefined && !(Array.isArray(body.dissem) && body.dissem.every(isString))) {
    throw refused("policyDataAttributes", "body.dissem is not an array of strings");
  }

  // §9.6, §5.3 components
  const list = policy["arkavo:components"];
  if (list === undefined) throw refused("profileVersion", "the policy has no arkavo:components: a profile version 1 package is unsupported");
  if (!Array.isArray(list) || list.length === 0 || list.length > 2) throw refused("componentList", "arkavo:components is not a list of video and optionally audio");
  const components = list.map((entry, index) => {
    if (!isObject(entry) || Object.keys(entry).sort().join() !== "id,keyBinding,kind" || ![entry.id, entry.kind, entry.keyBinding].every(isString)) {
      throw refused("componentList", `arkavo:components[${index}] does not have exactly the string members id, kind and keyBinding`);
    }
    if (entry.id !== KINDS[index] || entry.kind !== KINDS[index]) throw refused("componentList", `arkavo:components[${index}] must be {id:"${KINDS[index]}", kind:"${KINDS[index]}"}`);
    const binding = base64Decode(entry.keyBinding);
    if (!binding || binding.length !== 32) throw refused("keyBindingForm", `the keyBinding of ${entry.id} is not canonical standard base64 of 32 bytes`);
    return entry.id;
  });

  // §6.4 classification
  const c = policy["arkavo:classification"];
  const flagged = isObject(c) && Array.isArray(c.flagged) ? c.flagged : null;
  if (!isObject(c) || c.v !== 1 || c.filter !== "passed" || !flagged || new Set(flagged).size !== flagged.length ||
      !flagged.every((f) => f === "nudity" || f === "violence") || Object.keys(c).some((k) => !["v", "filter", "flagged"].includes(k))) {
    throw refused("classification", "the policy has no readable arkavo:classification");
  }

  // §5.2 key access
  if (info.keyAccess.length !== components.length) throw refused("keyAccessCount", `${info.keyAccess.length} keyAccess objects for ${components.length} components`);
  const urls = new Set();
  info.keyAccess.forEach((access, index) => {
    const wrapped = base64Decode(access.wrappedKey);
    if (access.type !== "wrapped" || access.url.length === 0 || !wrapped || wrapped.length === 0) {
      throw refused("keyAccessShape", `keyAccess[${index}] is not of type wrapped with a url, wrappedKey and policyBinding`);
    }
    const normalized = normalizeKeyServiceURL(access.url);
    if (!normalized) throw refused("keyAccessURL", `keyAccess[${index}].url is not an https origin with an empty path`);
    if (!acceptedKeyServiceURLs.map(normalizeKeyServiceURL).includes(normalized)) throw refused("keyAccessURL", `keyAccess[${index}].url names no accepted key service`);
    urls.add(access.url);
  });
  if (urls.size > 1) throw refused("keyAccessSameURL", "the keyAccess objects name different urls");
  info.keyAccess.forEach((access, index) => {
    const binding = access.policyBinding;
    if (!isString(binding) && binding.alg !== "HS256") throw refused("policyBindingForm", `keyAccess[${index}].policyBinding.alg is not HS256`);
    const hash = base64Decode(isString(binding) ? binding : binding.hash);
    if (!hash || hash.length !== 32) throw refused("policyBindingForm", `keyAccess[${index}].policyBinding hash is not canonical standard base64 of 32 bytes`);
  });
  const iv = base64Decode(info.method.iv);
  if (!iv || iv.length !== 16) throw refused("methodIV", "method.iv is not canonical standard base64 of 16 bytes");
  return { uuid: policy.uuid, components, iv, keyServiceURL: [...urls][0] };
}

/** §5.2: scheme and host lower-cased, default port dropped, empty path or "/", no user-info,
 * query or fragment; https, or http to a loopback host only. Null when not a key service origin. */
export function normalizeKeyServiceURL(text) {
  let url;
  try { url = new URL(text); } catch { return null; }
  const loopback = url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && loopback)) return null;
  if (url.username || url.password || url.search || url.hash || (url.pathname !== "/" && url.pathname !== "")) return null;
  if (/[?#]/.test(text) || /\/\/[^/]*@/.test(text)) return null;
  return `${url.protocol}//${url.host}`;
}

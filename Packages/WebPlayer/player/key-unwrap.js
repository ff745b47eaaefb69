// The open delivery path's key agreement (docs/protocol.md, docs/formats.md "Cryptographic
// conventions") with WebCrypto: a fresh P-256 key per request; the answer's key is sealed with
// AES-256-GCM (nonce ‖ ciphertext ‖ tag) under HKDF-SHA256(ECDH(KAS ephemeral, ours), salt
// SHA-256("TDF"), empty info, 32 bytes).
import { base64Decode, base64Encode, utf8 } from "./bytes.js";
import { requireBrowserAPIs } from "./browser-support.js";
import { malformed } from "./errors.js";

// WebCrypto exists only in a secure context (https, or localhost).
const subtle = () => {
  requireBrowserAPIs();
  return crypto.subtle;
};

const pem = (label, der) => `-----BEGIN ${label}-----\n${base64Encode(new Uint8Array(der)).match(/.{1,64}/g).join("\n")}\n-----END ${label}-----\n`;

function pemBody(text) {
  const match = /^-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/=\r\n]+)-----END PUBLIC KEY-----\r?\n?$/.exec(text);
  const der = match && base64Decode(match[1].replace(/[\r\n]/g, ""));
  if (!der || der.length > 512) throw malformed("the key service's session public key is not a PEM public key");
  return der;
}

/** A fresh ephemeral P-256 key pair: {privateKey, publicKeyPEM}. `signing` also makes the
 * ECDSA form of the same key (for a signed request token). */
export async function ephemeralKey({ signing = false } = {}) {
  const ecdh = await subtle().generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"]);
  const spki = await subtle().exportKey("spki", ecdh.publicKey);
  let signingKey = null;
  if (signing) {
    const jwk = await subtle().exportKey("jwk", ecdh.privateKey);
    signingKey = await subtle().importKey("jwk", { ...jwk, key_ops: ["sign"] }, { name: "ECDSA", namedCurve: "P-256" }, false, ["sign"]);
  }
  return { privateKey: ecdh.privateKey, publicKeyPEM: pem("PUBLIC KEY", spki), signingKey };
}

let tdfSalt = null;
/** Opens `wrapped` (base64 nonce ‖ ct ‖ tag) sent with `sessionPublicKeyPEM`; returns raw key bytes. */
export async function unwrapKey(wrappedBase64, sessionPublicKeyPEM, privateKey) {
  const wrapped = base64Decode(wrappedBase64);
  if (!wrapped || wrapped.length < 12 + 16 + 16 || wrapped.length > 1024) throw malformed("the wrapped key is not base64 of nonce, ciphertext and tag");
  let peer;
  try {
    peer = await subtle().importKey("spki", pemBody(sessionPublicKeyPEM), { name: "ECDH", namedCurve: "P-256" }, false, []);
  } catch { throw malformed("the key service's session public key is not a P-256 key"); }
  const shared = await subtle().deriveBits({ name: "ECDH", public: peer }, privateKey, 256);
  tdfSalt ??= await subtle().digest("SHA-256", utf8.encode("TDF"));
  const hkdf = await subtle().importKey("raw", shared, "HKDF", false, ["deriveKey"]);
  const aes = await subtle().deriveKey({ name: "HKDF", hash: "SHA-256", salt: tdfSalt, info: new Uint8Array(0) }, hkdf,
    { name: "AES-GCM", length: 256 }, false, ["decrypt"]);
  try {
    return new Uint8Array(await subtle().decrypt({ name: "AES-GCM", iv: wrapped.subarray(0, 12) }, aes, wrapped.subarray(12)));
  } catch { throw malformed("a wrapped key does not open with this request's key"); }
}

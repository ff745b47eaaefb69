#ifndef MEDIADRM_COPENSSL_SHIM_H
#define MEDIADRM_COPENSSL_SHIM_H
// OpenSSL 3 headers for Swift. Macros and variadic functions that Swift cannot import are
// wrapped here as static inline functions; nothing else belongs in this file.
#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/rand.h>
#include <openssl/hmac.h>
#include <openssl/kdf.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <openssl/pem.h>
#include <openssl/bio.h>
#include <openssl/rsa.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/x509.h>
#include <openssl/crypto.h>
#include <openssl/encoder.h>
#include <openssl/decoder.h>
#include <openssl/param_build.h>
#include <openssl/ecdsa.h>
#include <openssl/sha.h>

// ---- symmetric section (AES, HMAC, SHA-256, random) ----

// ---- asymmetric section (RSA, P-256, HKDF, PEM/DER) ----
// EVP_PKEY selections are macro expressions over other macros; OPENSSL_free and
// OPENSSL_clear_free are macros that pass __FILE__/__LINE__.
static inline int mdrm_asym_selection_public_key(void) { return EVP_PKEY_PUBLIC_KEY; }
static inline int mdrm_asym_selection_keypair(void) { return EVP_PKEY_KEYPAIR; }
static inline void mdrm_asym_clear_free(void *p, size_t n) { OPENSSL_clear_free(p, n); }

#endif

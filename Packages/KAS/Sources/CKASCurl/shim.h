#ifndef KAS_CKASCURL_SHIM_H
#define KAS_CKASCURL_SHIM_H
#include <curl/curl.h>
// The KAS's own view of libcurl, for the OpenID provider fetches (docs/kas.md "Issuers by discovery").
// The Client package has a module of its own over libcurl; SwiftPM refuses two modules of one name
// in one build (the end-to-end suite links both packages), hence the distinct name and prefix.
// curl_easy_setopt and curl_easy_getinfo are variadic; Swift calls these typed wrappers instead.
static inline CURLcode kas_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode kas_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode kas_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode kas_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode kas_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
static inline CURLcode kas_curl_getinfo_string(CURL *h, CURLINFO i, char **v) { return curl_easy_getinfo(h, i, v); }
// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import.
static inline CURLcode kas_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

// Callbacks: function pointers cannot pass through the void* setter from Swift.
typedef size_t (*kas_curl_data_callback)(char *data, size_t size, size_t count, void *context);
static inline CURLcode kas_curl_set_write_callback(CURL *h, kas_curl_data_callback cb, void *context) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cb);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_WRITEDATA, context);
}
static inline CURLcode kas_curl_set_header_callback(CURL *h, kas_curl_data_callback cb, void *context) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_HEADERDATA, context);
}
#endif

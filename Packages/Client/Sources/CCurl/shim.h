#ifndef MEDIADRM_CCURL_SHIM_H
#define MEDIADRM_CCURL_SHIM_H
#include <curl/curl.h>
// curl_easy_setopt and curl_easy_getinfo are variadic; Swift calls these typed wrappers instead.
static inline CURLcode mediadrm_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_off(CURL *h, CURLoption o, curl_off_t v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_curlu(CURL *h, CURLU *u) { return curl_easy_setopt(h, CURLOPT_CURLU, u); }
static inline CURLcode mediadrm_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
// CURLVERSION_NOW is a macro alias of the newest age constant.
static inline curl_version_info_data *mediadrm_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
// CURL_GLOBAL_DEFAULT is a macro expression Swift does not import.
static inline CURLcode mediadrm_curl_global_init(void) { return curl_global_init(CURL_GLOBAL_DEFAULT); }

// Callbacks: function pointers cannot pass through the void* setter from Swift.
typedef size_t (*mediadrm_curl_data_callback)(char *data, size_t size, size_t count, void *context);
typedef int (*mediadrm_curl_xferinfo_callback)(void *context, curl_off_t dltotal, curl_off_t dlnow,
                                               curl_off_t ultotal, curl_off_t ulnow);
static inline CURLcode mediadrm_curl_set_write_callback(CURL *h, mediadrm_curl_data_callback cb, void *context) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, cb);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_WRITEDATA, context);
}
static inline CURLcode mediadrm_curl_set_header_callback(CURL *h, mediadrm_curl_data_callback cb, void *context) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, cb);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_HEADERDATA, context);
}
static inline CURLcode mediadrm_curl_set_xferinfo_callback(CURL *h, mediadrm_curl_xferinfo_callback cb, void *context) {
    CURLcode rc = curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
    if (rc == CURLE_OK) rc = curl_easy_setopt(h, CURLOPT_XFERINFODATA, context);
    return rc != CURLE_OK ? rc : curl_easy_setopt(h, CURLOPT_NOPROGRESS, 0L);
}
// The CA bundle travels as bytes (libcurl copies them), so no file path is involved.
static inline CURLcode mediadrm_curl_set_cainfo_blob(CURL *h, const void *bytes, size_t length) {
    struct curl_blob blob;
    blob.data = (void *)bytes;
    blob.len = length;
    blob.flags = CURL_BLOB_COPY;
    return curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &blob);
}
// curl_url flags are macro expressions.
static inline unsigned int mediadrm_curlu_parse_flags(void) { return CURLU_DISALLOW_USER; }
#endif

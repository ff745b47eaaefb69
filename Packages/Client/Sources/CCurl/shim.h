#ifndef MEDIADRM_CCURL_SHIM_H
#define MEDIADRM_CCURL_SHIM_H
#include <curl/curl.h>
// curl_easy_setopt and curl_easy_getinfo are variadic; Swift calls these typed wrappers instead.
static inline CURLcode mediadrm_curl_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
static inline CURLcode mediadrm_curl_getinfo_long(CURL *h, CURLINFO i, long *v) { return curl_easy_getinfo(h, i, v); }
// CURLVERSION_NOW is a macro alias of the newest age constant.
static inline curl_version_info_data *mediadrm_curl_version_info(void) { return curl_version_info(CURLVERSION_NOW); }
#endif

#ifndef MEDIADRM_CZLIB_SHIM_H
#define MEDIADRM_CZLIB_SHIM_H
#include <zlib.h>
// deflateInit2/inflateInit2 are macros; Swift cannot call them.
static inline int mediadrm_inflateInit2(z_streamp strm, int windowBits) {
    return inflateInit2(strm, windowBits);
}
static inline int mediadrm_deflateInit2(z_streamp strm, int level, int method, int windowBits, int memLevel, int strategy) {
    return deflateInit2(strm, level, method, windowBits, memLevel, strategy);
}
#endif

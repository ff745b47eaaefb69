#ifndef MEDIADRM_CSQLITE_SHIM_H
#define MEDIADRM_CSQLITE_SHIM_H
#include <sqlite3.h>
// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy bound bytes.
static inline sqlite3_destructor_type mediadrm_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif

#ifndef QUIRE_CZLIB_SHIM_H
#define QUIRE_CZLIB_SHIM_H
#include <zlib.h>

/// deflateInit2 is a macro over deflateInit2_ (it passes the library's version and stream size);
/// Swift cannot call the macro, so this fixes gzip framing (window bits 15 + 16) at level 9.
static inline int quire_gzip_init(z_stream *stream) {
    return deflateInit2(stream, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
}
#endif

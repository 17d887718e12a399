#ifndef QUIRE_CCAIRO_SHIM_H
#define QUIRE_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
// zlib (a dependency of libcairo2-dev through libpng-dev): the drawing renderer writes its PNGs
// itself, at a faster compression level than cairo's PNG writer allows choosing.
#include <zlib.h>
#endif

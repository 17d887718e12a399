#ifndef QUIRE_CCAIRO_SHIM_H
#define QUIRE_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
// Text through Pango: font fallback per character (an emoji in a label is drawn from the emoji
// font, Debian's fonts-noto-color-emoji, in colour), shaping for every script.
#include <pango/pangocairo.h>
// zlib (a dependency of libcairo2-dev through libpng-dev): the drawing renderer writes its PNGs
// itself, at a faster compression level than cairo's PNG writer allows choosing.
#include <zlib.h>

// The stroke rasteriser's and the PNG encoder's inner loops (issue 42).
#include "raster.h"
#include "png.h"
#endif

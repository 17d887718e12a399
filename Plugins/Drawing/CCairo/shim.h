#ifndef QUIRE_CCAIRO_SHIM_H
#define QUIRE_CCAIRO_SHIM_H
#include <cairo.h>
#include <cairo-svg.h>
#endif

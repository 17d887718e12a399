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

// The stroke rasteriser's inner loop (Plugins/Drawing/Drawing/StrokeRasteriser.swift), four pixels
// at a time where SSE2 is there: `count` pixels of one row get the larger of their coverage and
// the segment's. A pixel centre's offset from the segment's start is (px + i, py); the segment is
// (dx, dy), `inverse` 1/|d|² (0 for a point), its half-width half0 at the start, half0 + dhalf at
// the end. Coverage: the pixel's span d ± 1/2 across the stroke's -half…half, at most 1.
#include <math.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
static inline void quire_cover_span(float *cover, int count, float px, float py, float dx, float dy,
                                    float inverse, float half0, float dhalf) {
    const float along = py * dy;
    int i = 0;
#if defined(__SSE2__)
    const __m128 vdx = _mm_set1_ps(dx), vdy = _mm_set1_ps(dy), valong = _mm_set1_ps(along);
    const __m128 vinverse = _mm_set1_ps(inverse), vpy = _mm_set1_ps(py), vhalf0 = _mm_set1_ps(half0);
    const __m128 vdhalf = _mm_set1_ps(dhalf), zero = _mm_setzero_ps(), one = _mm_set1_ps(1.0f), point5 = _mm_set1_ps(0.5f);
    __m128 x = _mm_add_ps(_mm_set1_ps(px), _mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f));
    const __m128 four = _mm_set1_ps(4.0f);
    for (; i + 4 <= count; i += 4) {
        __m128 t = _mm_mul_ps(_mm_add_ps(_mm_mul_ps(x, vdx), valong), vinverse);
        t = _mm_min_ps(_mm_max_ps(t, zero), one);
        __m128 ex = _mm_sub_ps(x, _mm_mul_ps(t, vdx)), ey = _mm_sub_ps(vpy, _mm_mul_ps(t, vdy));
        __m128 d = _mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(ex, ex), _mm_mul_ps(ey, ey)));
        __m128 half = _mm_add_ps(vhalf0, _mm_mul_ps(t, vdhalf));
        __m128 high = _mm_min_ps(half, _mm_add_ps(d, point5));
        __m128 low = _mm_max_ps(_mm_sub_ps(zero, half), _mm_sub_ps(d, point5));
        __m128 c = _mm_max_ps(_mm_sub_ps(high, low), _mm_loadu_ps(cover + i));
        _mm_storeu_ps(cover + i, _mm_min_ps(c, one));
        x = _mm_add_ps(x, four);
    }
#endif
    for (; i < count; i++) {
        float x1 = px + (float)i;
        float t = (x1 * dx + along) * inverse;
        t = t < 0.0f ? 0.0f : (t > 1.0f ? 1.0f : t);
        float ex = x1 - t * dx, ey = py - t * dy;
        float d = sqrtf(ex * ex + ey * ey);
        float half = half0 + t * dhalf;
        float high = d + 0.5f < half ? d + 0.5f : half;
        float low = d - 0.5f > -half ? d - 0.5f : -half;
        float c = high - low;
        if (c > cover[i]) cover[i] = c < 1.0f ? c : 1.0f;
    }
}
#endif

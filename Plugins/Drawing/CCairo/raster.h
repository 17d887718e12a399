#ifndef QUIRE_CCAIRO_RASTER_H
#define QUIRE_CCAIRO_RASTER_H
// The stroke rasteriser's inner loops (Plugins/Drawing/Drawing/StrokeRasteriser.swift), in C for
// SSE2 and loops without bounds checks.
#include <math.h>
#include <stdint.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

// The innermost loop, four pixels
// at a time where SSE2 is there: `count` pixels of one row get the larger of their coverage and
// the segment's. A pixel centre's offset from the segment's start is (px + i, py); the segment is
// (dx, dy), `inverse` 1/|d|² (0 for a point), its half-width half0 at the start, half0 + dhalf at
// the end. Coverage: the pixel's span d ± 1/2 across the stroke's -half…half, at most 1.
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

// ⌊v⌋ and ⌈v⌉ for pixel positions already clamped to a few thousand (no libm call).
static inline int quire_floor(double v) { return (int)(v + 8192.0) - 8192; }
static inline int quire_ceil(double v) { return 8192 - (int)(8192.0 - v); }

// One flattened segment a→b of a stroke (half-widths ahalf → bhalf) into `cover`, the stroke's
// own buffer for the pixels from (originX, originY) on, `stride` pixels a row: per row, only the pixels whose centres lie in the segment's rectangle — within
// `reach` (the larger half-width + 1/2) of its line, and along it from `before` pixels before a
// to `after` pixels past b — get quire_cover_span. A stroke's interior segments need no caps:
// a pixel beyond a segment's end is nearer to its neighbour, whose own rectangle holds it, but
// for the outer wedge of a join, which the caller passes as `before`; the stroke's ends get full
// caps. rowLo/rowHi widen to what was touched, *top/*bottom to its rows. Only pixels whose
// centres lie in the clip (clipX0…clipX1, clipY0…clipY1, within the buffer) are touched.
static inline void quire_cover_segment(float *cover, int stride, int originX, int originY, int *rowLo, int *rowHi,
                                       int clipX0, int clipX1, int clipY0, int clipY1,
                                       double ax, double ay, double ahalf, double bx, double by, double bhalf,
                                       double before, double after, int *top, int *bottom) {
    const double reach = (ahalf > bhalf ? ahalf : bhalf) + 0.5;
    const double dx = bx - ax, dy = by - ay, lengthSquared = dx * dx + dy * dy;
    if (!(lengthSquared < 1e18) || !(reach < 1e9) || !(ax == ax) || !(ay == ay)) return;
    const double length = sqrt(lengthSquared);
    const int line = lengthSquared > 1e-12;
    double ux = 0, uy = 0, s0 = -reach, s1 = reach;
    double minX = ax - reach, maxX = ax + reach, minY = ay - reach, maxY = ay + reach;
    if (line) {
        ux = dx / length;
        uy = dy / length;
        s0 = -before;
        s1 = length + after;
        const double ex = reach * fabs(uy), ey = reach * fabs(ux);
        const double xs0 = ax + ux * s0, xs1 = ax + ux * s1, ys0 = ay + uy * s0, ys1 = ay + uy * s1;
        minX = (xs0 < xs1 ? xs0 : xs1) - ex;
        maxX = (xs0 > xs1 ? xs0 : xs1) + ex;
        minY = (ys0 < ys1 ? ys0 : ys1) - ey;
        maxY = (ys0 > ys1 ? ys0 : ys1) + ey;
    }
    if (minX < -2) minX = -2;
    if (maxX > clipX1 + 3) maxX = clipX1 + 3;
    if (minY < -2) minY = -2;
    if (maxY > clipY1 + 3) maxY = clipY1 + 3;
    if (!(minX <= maxX) || !(minY <= maxY)) return;
    int y0 = quire_ceil(minY - 0.5), y1 = quire_floor(maxY - 0.5);
    if (y0 < clipY0) y0 = clipY0;
    if (y1 > clipY1) y1 = clipY1;
    if (y0 > y1) return;
    const int across = line && fabs(uy) > 1e-6, along = line && fabs(ux) > 1e-6;
    const float inverse = line ? (float)(1 / lengthSquared) : 0.0f;
    const float fdx = (float)dx, fdy = (float)dy, fhalf = (float)ahalf, fdhalf = (float)(bhalf - ahalf);
    // Each slab's x-interval on row y0 (less the half pixel to pixel centres), and how far it
    // moves a row: across, |(x − ax)·uy − cy·ux| ≤ reach; along, s0 ≤ (x − ax)·ux + cy·uy ≤ s1,
    // where cy = y + 1/2 − ay.
    const double cy0 = y0 + 0.5 - ay;
    double acrossLo = minX - 0.5, acrossHi = maxX - 0.5, acrossStep = 0;
    if (across) {
        double q0 = (cy0 * ux - reach) / uy, q1 = (cy0 * ux + reach) / uy;
        if (q0 > q1) { double t = q0; q0 = q1; q1 = t; }
        acrossLo = ax + q0 - 0.5;
        acrossHi = ax + q1 - 0.5;
        acrossStep = ux / uy;
    }
    double alongLo = minX - 0.5, alongHi = maxX - 0.5, alongStep = 0;
    if (along) {
        double q0 = (s0 - cy0 * uy) / ux, q1 = (s1 - cy0 * uy) / ux;
        if (q0 > q1) { double t = q0; q0 = q1; q1 = t; }
        alongLo = ax + q0 - 0.5;
        alongHi = ax + q1 - 0.5;
        alongStep = -uy / ux;
    }
    const double boxLo = minX - 0.5, boxHi = maxX - 0.5;
    int first = y1 + 1, last = y0 - 1;
    for (int y = y0; y <= y1; y++, acrossLo += acrossStep, acrossHi += acrossStep, alongLo += alongStep, alongHi += alongStep) {
        double lo = acrossLo > alongLo ? acrossLo : alongLo, hi = acrossHi < alongHi ? acrossHi : alongHi;
        if (lo < boxLo) lo = boxLo;
        if (hi > boxHi) hi = boxHi;
        if (!(lo <= hi)) continue;
        int x0 = quire_ceil(lo), reached = quire_floor(hi);
        if (x0 < clipX0) x0 = clipX0;
        if (reached > clipX1) reached = clipX1;
        if (x0 > reached) continue;
        // Whole groups of four where the clip allows (the inner loop's width): the extra pixels
        // get their true coverage of this segment, which costs less than a scalar tail.
        int x1 = x0 + ((reached - x0) | 3);
        if (x1 > clipX1) x1 = clipX1;
        if (x0 < rowLo[y]) rowLo[y] = x0;
        if (x1 > rowHi[y]) rowHi[y] = x1;
        if (y < first) first = y;
        last = y;
#if defined(__SSE2__)
        if (x1 - x0 == 3) {
            // Most rows of a short segment are one group of four: covered here, in line, without
            // the inner loop's setup (its constants reloaded around it for every row).
            float *c4 = cover + (long)(y - originY) * stride + (x0 - originX);
            const __m128 x = _mm_add_ps(_mm_set1_ps((float)(x0 + 0.5 - ax)), _mm_setr_ps(0.0f, 1.0f, 2.0f, 3.0f));
            const float py = (float)(y + 0.5 - ay);
            const __m128 vpy = _mm_set1_ps(py);
            __m128 t = _mm_mul_ps(_mm_add_ps(_mm_mul_ps(x, _mm_set1_ps(fdx)), _mm_set1_ps(py * fdy)), _mm_set1_ps(inverse));
            t = _mm_min_ps(_mm_max_ps(t, _mm_setzero_ps()), _mm_set1_ps(1.0f));
            __m128 ex = _mm_sub_ps(x, _mm_mul_ps(t, _mm_set1_ps(fdx))), ey = _mm_sub_ps(vpy, _mm_mul_ps(t, _mm_set1_ps(fdy)));
            __m128 d = _mm_sqrt_ps(_mm_add_ps(_mm_mul_ps(ex, ex), _mm_mul_ps(ey, ey)));
            __m128 h = _mm_add_ps(_mm_set1_ps(fhalf), _mm_mul_ps(t, _mm_set1_ps(fdhalf)));
            __m128 high = _mm_min_ps(h, _mm_add_ps(d, _mm_set1_ps(0.5f)));
            __m128 low = _mm_max_ps(_mm_sub_ps(_mm_setzero_ps(), h), _mm_sub_ps(d, _mm_set1_ps(0.5f)));
            __m128 c = _mm_max_ps(_mm_sub_ps(high, low), _mm_loadu_ps(c4));
            _mm_storeu_ps(c4, _mm_min_ps(c, _mm_set1_ps(1.0f)));
            continue;
        }
#endif
        quire_cover_span(cover + (long)(y - originY) * stride + (x0 - originX), x1 - x0 + 1, (float)(x0 + 0.5 - ax),
                         (float)(y + 0.5 - ay), fdx, fdy, inverse, fhalf, fdhalf);
    }
    if (first < *top) *top = first;
    if (last > *bottom) *bottom = last;
}
// x / 255, rounded, for x ≤ 255 × 255.
static inline uint32_t quire_divide255(uint32_t x) {
    uint32_t y = x + 128;
    return (y + (y >> 8)) >> 8;
}

// One row of a stroke composited (StrokeRasteriser.composite): `count` premultiplied ARGB pixels
// get the stroke's coverage `cover` (0…1, cleared to 0 as it is used) — OVER in the straight
// colour red/green/blue (0…255) at `alpha` (0…255), or, for an eraser, scaled by 1 − coverage.
// Four pixels at a time where SSE2 is there, in 16-bit lanes and without branches: with
// s = ⌊coverage × alpha + ½⌋, every channel becomes (source × s + destination × (255 − s)) / 255,
// rounded — s = 255 gives the opaque colour and s = 0 the destination exactly, and an eraser is the
// same with a transparent source at alpha 255 — so the four agree with the scalar loop bit for bit.
static inline void quire_composite_row(uint32_t *pixels, float *cover, int count, float alpha,
                                       uint32_t red, uint32_t green, uint32_t blue, int eraser) {
    const uint32_t opaque = 0xFF000000u | red << 16 | green << 8 | blue;
    int i = 0;
#if defined(__SSE2__)
    {
        const __m128 scale = _mm_set1_ps(eraser ? 255.0f : alpha), half = _mm_set1_ps(0.5f);
        // A pixel's bytes in memory are B, G, R, A (native-endian ARGB on a little-endian machine).
        const __m128i source = eraser ? _mm_setzero_si128()
            : _mm_setr_epi16((short)blue, (short)green, (short)red, 255, (short)blue, (short)green, (short)red, 255);
        const __m128i full = _mm_set1_epi16(255), round = _mm_set1_epi16(128), zero = _mm_setzero_si128();
        for (; i + 4 <= count; i += 4) {
            const __m128i s32 = _mm_cvttps_epi32(_mm_add_ps(_mm_mul_ps(_mm_loadu_ps(cover + i), scale), half));
            const __m128i s16 = _mm_unpacklo_epi16(_mm_packs_epi32(s32, s32), _mm_packs_epi32(s32, s32));
            const __m128i sLow = _mm_unpacklo_epi32(s16, s16), sHigh = _mm_unpackhi_epi32(s16, s16);
            const __m128i destination = _mm_loadu_si128((const __m128i *)(pixels + i));
            __m128i low = _mm_add_epi16(_mm_mullo_epi16(source, sLow),
                                        _mm_mullo_epi16(_mm_unpacklo_epi8(destination, zero), _mm_sub_epi16(full, sLow)));
            __m128i high = _mm_add_epi16(_mm_mullo_epi16(source, sHigh),
                                         _mm_mullo_epi16(_mm_unpackhi_epi8(destination, zero), _mm_sub_epi16(full, sHigh)));
            low = _mm_add_epi16(low, round);
            high = _mm_add_epi16(high, round);
            low = _mm_srli_epi16(_mm_add_epi16(low, _mm_srli_epi16(low, 8)), 8);
            high = _mm_srli_epi16(_mm_add_epi16(high, _mm_srli_epi16(high, 8)), 8);
            _mm_storeu_si128((__m128i *)(pixels + i), _mm_packus_epi16(low, high));
            _mm_storeu_ps(cover + i, _mm_setzero_ps());
        }
    }
#endif
    for (; i < count; i++) {
        const float c = cover[i];
        if (!(c > 0.0f)) continue;
        cover[i] = 0.0f;
        if (eraser) {
            const uint32_t keep = 255 - (uint32_t)(c * 255.0f + 0.5f), p = pixels[i];
            pixels[i] = quire_divide255((p >> 24) * keep) << 24 | quire_divide255((p >> 16 & 0xFF) * keep) << 16
                | quire_divide255((p >> 8 & 0xFF) * keep) << 8 | quire_divide255((p & 0xFF) * keep);
            continue;
        }
        const uint32_t s = (uint32_t)(c * alpha + 0.5f);
        if (s >= 255) { pixels[i] = opaque; continue; }
        if (s == 0) continue;
        // OVER: source (straight colour × s) + destination × (1 − s), premultiplied.
        const uint32_t inverse = 255 - s, d = pixels[i];
        pixels[i] = quire_divide255(255 * s + (d >> 24) * inverse) << 24
            | quire_divide255(red * s + (d >> 16 & 0xFF) * inverse) << 16
            | quire_divide255(green * s + (d >> 8 & 0xFF) * inverse) << 8
            | quire_divide255(blue * s + (d & 0xFF) * inverse);
    }
}
// Asks the cache for a stroke's box of pixels (x0…x1 of rows y0…y1, stride `width`) while its
// coverage is being computed, so that compositing finds them there rather than waiting on memory
// (a 1024×768 canvas is 3 MB, more than the L2 cache).
static inline void quire_prefetch_box(const uint32_t *pixels, int width, int x0, int x1, int y0, int y1) {
    for (int y = y0; y <= y1; y++) {
        const uint32_t *row = pixels + (long)y * width;
        for (int x = x0 & ~15; x <= x1; x += 16) __builtin_prefetch(row + x, 1, 3);
    }
}
#endif

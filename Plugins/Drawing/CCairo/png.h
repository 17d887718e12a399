#ifndef QUIRE_CCAIRO_PNG_H
#define QUIRE_CCAIRO_PNG_H
// The PNG encoder's inner loops (Plugins/Drawing/Drawing/PNGEncoder.swift), in C for loops
// without bounds checks: a row filtered, and deflated as runs.
#include <stddef.h>
#include <stdint.h>
#include <string.h>

// One row of premultiplied ARGB32 pixels (native-endian) as a PNG row of straight RGBA: the
// filter byte 1 (Sub), then each byte minus the same byte of the pixel to its left (a run of one
// colour becomes zeros). `out` holds 1 + 4 × width bytes. `reciprocals[a]` is ⌈2²⁴ / a⌉ (a = 1…255):
// unpremultiplying divides by alpha as a multiplication, exactly — (c·255 + a/2)·⌈2²⁴/a⌉ >> 24 is
// ⌊(c·255 + a/2) / a⌋ because the numerator (< 2¹⁶) times the rounding error (< a) stays under 2²⁴.
static inline void quire_png_sub_row(const uint32_t *argb, int width, uint8_t *out, const uint32_t *reciprocals) {
    out[0] = 1;
    uint8_t *o = out + 1;
    uint32_t left = 0;      // the previous pixel, straight RGBA packed R in the low byte
    uint32_t lastARGB = 0;  // … and as it was given
    for (int x = 0; x < width; x++, o += 4) {
        const uint32_t pixel = argb[x];
        if (pixel == lastARGB) {  // a run: the same pixel again, zeros under Sub
            o[0] = 0; o[1] = 0; o[2] = 0; o[3] = 0;
            continue;
        }
        const uint32_t alpha = pixel >> 24;
        uint32_t rgba = 0;
        if (alpha == 255) {
            rgba = (pixel >> 16 & 0xFF) | (pixel & 0xFF00) | (pixel & 0xFF) << 16 | 0xFF000000u;
        } else if (alpha != 0) {
            const uint64_t reciprocal = reciprocals[alpha];
            uint32_t r = (uint32_t)((((pixel >> 16 & 0xFF) * 255 + alpha / 2) * reciprocal) >> 24);
            uint32_t g = (uint32_t)((((pixel >> 8 & 0xFF) * 255 + alpha / 2) * reciprocal) >> 24);
            uint32_t b = (uint32_t)((((pixel & 0xFF) * 255 + alpha / 2) * reciprocal) >> 24);
            rgba = (r > 255 ? 255 : r) | (g > 255 ? 255 : g) << 8 | (b > 255 ? 255 : b) << 16 | alpha << 24;
        }
        // Sub, bytewise: each byte minus the same byte of the pixel to the left.
        const uint32_t sub = ((rgba | 0x80808080u) - (left & 0x7F7F7F7Fu)) ^ ((rgba ^ ~left) & 0x80808080u);
        o[0] = (uint8_t)sub; o[1] = (uint8_t)(sub >> 8); o[2] = (uint8_t)(sub >> 16); o[3] = (uint8_t)(sub >> 24);
        left = rgba;
        lastARGB = pixel;
    }
}

// A deflate bit stream being written: `buffer` holds `filled` bits not yet written at out[position].
typedef struct {
    uint64_t buffer;
    int filled;
    size_t position;
} quire_deflate_stream;

// `n` bytes coded into `stream` (a fixed-Huffman block already begun) as runs: each byte a
// literal, and a run of four or more equal bytes as the byte and matches at distance 1 (up to 258
// bytes each). `literals` (288 entries) and `matches` (259, by length) are deflate's fixed codes,
// bit-reversed for LSB-first packing, as code | bit count << 24. `out` has room for 9 bits a byte.
static inline void quire_deflate_runs(const uint8_t *in, size_t n, uint8_t *out, quire_deflate_stream *stream,
                                      const uint32_t *literals, const uint32_t *matches) {
    uint64_t buffer = stream->buffer;
    int filled = stream->filled;
    uint8_t *o = out + stream->position;
#define QUIRE_PUT(packed) do { \
        const uint32_t put_ = (packed); \
        buffer |= (uint64_t)(put_ & 0xFFFFFF) << filled; \
        filled += (int)(put_ >> 24); \
        if (filled >= 32) { \
            o[0] = (uint8_t)buffer; o[1] = (uint8_t)(buffer >> 8); o[2] = (uint8_t)(buffer >> 16); o[3] = (uint8_t)(buffer >> 24); \
            o += 4; buffer >>= 32; filled -= 32; \
        } \
    } while (0)
    size_t i = 0;
    while (i < n) {
        const uint8_t value = in[i];
        const uint32_t literal = literals[value];
        QUIRE_PUT(literal);
        size_t run = i + 1;
        if (run >= n || in[run] != value) {  // most bytes of a drawing's edges: a literal alone
            i = run;
            continue;
        }
        // The run's end, eight bytes at a time.
        const uint64_t splat = 0x0101010101010101ull * value;
        for (;;) {
            if (run + 8 > n) {
                while (run < n && in[run] == value) run++;
                break;
            }
            uint64_t word;
            memcpy(&word, in + run, 8);
            const uint64_t differ = word ^ splat;
            if (differ) {
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                run += (size_t)(__builtin_ctzll(differ) >> 3);
#else
                run += (size_t)(__builtin_clzll(differ) >> 3);
#endif
                break;
            }
            run += 8;
        }
        size_t length = run - i - 1;
        while (length >= 3) {
            const size_t match = length < 258 ? length : 258;
            QUIRE_PUT(matches[match]);
            length -= match;
        }
        while (length > 0) {
            QUIRE_PUT(literal);
            length--;
        }
        i = run;
    }
#undef QUIRE_PUT
    stream->buffer = buffer;
    stream->filled = filled;
    stream->position = (size_t)(o - out);
}
#endif

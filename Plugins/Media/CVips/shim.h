// Swift cannot call C variadic functions, and libvips takes optional arguments as a NULL-terminated
// varargs list. These static inline wrappers fix the arguments Quire uses.
#ifndef QUIRE_CVIPS_SHIM_H
#define QUIRE_CVIPS_SHIM_H

#include <vips/vips.h>

/// Opens an image from memory without decoding pixels (sequential access, fail on truncation).
static inline VipsImage *quire_vips_image_from_buffer(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, "fail", TRUE, NULL);
}

/// Thumbnail from memory: shrink-on-load, EXIF orientation applied. crop: a VipsInteresting value.
/// A truncated or damaged input fails rather than yielding a grey-filled thumbnail. thumbnail_buffer
/// ignores its own `fail_on` (libvips issue #5195) but hands `option_string` to the loader, so the
/// loader option goes there.
static inline int quire_vips_thumbnail_buffer(void *buf, size_t len, VipsImage **out, int width, int height, int crop) {
    return vips_thumbnail_buffer(buf, len, out, width, "height", height, "crop", crop, "size", VIPS_SIZE_DOWN,
                                 "option_string", "fail_on=truncated", NULL);
}

static inline int quire_vips_jpegsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

static inline int quire_vips_webpsave_buffer(VipsImage *in, void **buf, size_t *len, int quality) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

static inline int quire_vips_pngsave_buffer(VipsImage *in, void **buf, size_t *len) {
    return vips_pngsave_buffer(in, buf, len, "strip", TRUE, NULL);
}

static inline int quire_vips_autorot(VipsImage *in, VipsImage **out) {
    return vips_autorot(in, out, NULL);
}

/// Draws `overlay` over `base` (both the same size), alpha-blended.
static inline int quire_vips_composite_over(VipsImage *base, VipsImage *overlay, VipsImage **out) {
    return vips_composite2(base, overlay, out, VIPS_BLEND_MODE_OVER, NULL);
}

/// Opens an image from memory with random access, for operations that need the whole image.
static inline VipsImage *quire_vips_image_from_buffer_random(const void *buf, size_t len) {
    return vips_image_new_from_buffer(buf, len, "fail_on=truncated", NULL);
}

/// A rectangle of `in`, in pixels.
static inline int quire_vips_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}

/// Rotates by a multiple of 90° (angle: a VipsAngle value).
static inline int quire_vips_rot(VipsImage *in, VipsImage **out, int angle) {
    return vips_rot(in, out, (VipsAngle)angle, NULL);
}

/// Rotates by any angle (degrees, clockwise) about the centre; the canvas grows to hold the
/// corners, filled with black (a straighten crops them away after).
static inline int quire_vips_rotate(VipsImage *in, VipsImage **out, double angle) {
    return vips_rotate(in, out, angle, NULL);
}

/// Scales by `hscale` × `vscale` (high-quality kernel, lanczos3).
static inline int quire_vips_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}

/// Decodes every pixel once, streaming (no image held in memory), failing on truncated or damaged
/// data: 0 when the whole image reads. Shrink-on-load (thumbnails) can skip data a full decode
/// needs, so intake checks with this.
static inline int quire_vips_decode_all(const void *buf, size_t len) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL,
                                                  "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
    if (!image) return -1;
    double mean = 0;
    int status = vips_avg(image, &mean, NULL);
    g_object_unref(image);
    return status;
}

/// Opens an image file without decoding pixels (sequential access, fail on truncation): the
/// upload path, which never holds the file's bytes in memory.
static inline VipsImage *quire_vips_image_from_file(const char *path) {
    return vips_image_new_from_file(path, "access", VIPS_ACCESS_SEQUENTIAL, "fail_on", VIPS_FAIL_ON_TRUNCATED, NULL);
}

/// Thumbnail from a file: shrink-on-load (a JPEG decodes at 1/2, 1/4 or 1/8 size), EXIF orientation
/// applied, failing on truncated data (the loader option rides in the file name's [options]).
static inline int quire_vips_thumbnail_file(const char *path_with_options, VipsImage **out, int width, int height, int crop) {
    return vips_thumbnail(path_with_options, out, width, "height", height, "crop", crop, "size", VIPS_SIZE_DOWN, NULL);
}

/// ``quire_vips_decode_all`` on a file: every pixel once, streaming.
static inline int quire_vips_decode_all_file(const char *path) {
    VipsImage *image = quire_vips_image_from_file(path);
    if (!image) return -1;
    double mean = 0;
    int status = vips_avg(image, &mean, NULL);
    g_object_unref(image);
    return status;
}

/// libvips' own memory: no operation cache (by count, memory or open files), and `threads`
/// workers per image pipeline (each holds its own tile buffers).
static inline void quire_vips_limit_memory(int threads) {
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(threads);
}

static inline void quire_object_unref(void *object) {
    if (object) g_object_unref(object);
}

#endif

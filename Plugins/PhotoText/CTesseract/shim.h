// Tesseract's C API (tesseract/capi.h) and the few Leptonica calls that hand it an image. Swift sees
// only these wrappers' plain types: the image is decoded, checked and rotated here, and handed back
// as an opaque pointer.
#ifndef QUIRE_CTESSERACT_SHIM_H
#define QUIRE_CTESSERACT_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <tesseract/capi.h>
#include <leptonica/allheaders.h>

/// Leptonica prints every decoding complaint to stderr; the plugin reports its own errors instead.
static inline void quire_lept_quiet(void) {
    setMsgSeverity(L_SEVERITY_NONE);
}

/// The image's size from its header, without decoding pixels: 0 when Leptonica reads the header.
static inline int quire_lept_size(const uint8_t *data, size_t size, int *width, int *height) {
    l_int32 format = 0, w = 0, h = 0, bps = 0, spp = 0, iscmap = 0;
    if (pixReadHeaderMem(data, size, &format, &w, &h, &bps, &spp, &iscmap) != 0) return -1;
    *width = w;
    *height = h;
    return 0;
}

/// Decodes the image (PNG, JPEG, WebP, TIFF, GIF) and turns it `quads` quarter turns clockwise (its
/// EXIF orientation, so the text stands upright); NULL when it cannot be decoded.
static inline void *quire_lept_read(const uint8_t *data, size_t size, int quads) {
    PIX *pix = pixReadMem(data, size);
    if (!pix || quads % 4 == 0) return pix;
    PIX *turned = pixRotateOrth(pix, quads % 4);
    pixDestroy(&pix);
    return turned;
}

static inline void quire_lept_free(void *image) {
    PIX *pix = (PIX *)image;
    if (pix) pixDestroy(&pix);
}

/// Recognises the text of `image` in `languages` ("eng", "eng+deu") with the trained data in
/// `datapath` (NULL: Tesseract's own). Returns the text (free it with quire_tess_free_text) or NULL
/// with *status: -1 the languages cannot be loaded, -2 recognition failed. *confidence: the mean
/// word confidence, 0...100.
static inline char *quire_tess_recognise(void *image, const char *datapath, const char *languages, int *status, int *confidence) {
    TessBaseAPI *api = TessBaseAPICreate();
    *status = 0;
    *confidence = 0;
    if (!api) { *status = -2; return NULL; }
    if (TessBaseAPIInit3(api, datapath, languages) != 0) {
        TessBaseAPIDelete(api);
        *status = -1;
        return NULL;
    }
    // A phone photo rarely says its resolution; 300 dpi is what Tesseract is tuned for.
    TessBaseAPISetImage2(api, (struct Pix *)image);
    TessBaseAPISetSourceResolution(api, 300);
    char *text = TessBaseAPIGetUTF8Text(api);
    if (!text) {
        *status = -2;
    } else {
        *confidence = TessBaseAPIMeanTextConf(api);
    }
    TessBaseAPIEnd(api);
    TessBaseAPIDelete(api);
    return text;
}

static inline void quire_tess_free_text(char *text) {
    if (text) TessDeleteText(text);
}

static inline const char *quire_tess_version(void) {
    return TessVersion();
}
#endif

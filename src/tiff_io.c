/* TIFF through libtiff: the first page of gray, gray+alpha, RGB, RGBA and
 * palette images and any number of extra channels (ExtraSamples; up to
 * WT_MAX_CHANNELS, each an independent plane), of 1/8/16/32-bit unsigned,
 * 8/16/32-bit signed and 32/64-bit float samples (SampleFormat 1/2/3), in
 * strips or tiles, contiguous or planar, with any compression libtiff
 * decodes. 1/8/16-bit unsigned samples are held exactly (1-bit as 0/255);
 * the other types as float32 with their type remembered. Written as
 * deflate-compressed strips of the image's stored type (BigTIFF past 4 GB).
 *
 * The file is hostile: libtiff works on the bytes in memory (no file access of
 * its own), its single allocations are capped from --max-pixels, dimensions go
 * through the limits of every image read before the image is allocated, and its
 * messages are collected per file (never printed). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

#include "image_codec.h"
#include "input.h"

/* libtiff's single allocations at most: a strip or tile, a directory. */
#define TIFF_MIN_ALLOC ((tmsize_t)64 << 20)
/* A strip or tile's bytes beyond the image's own, at most. */
#define BLOCK_SLACK ((uint64_t)16 << 20)

/* The bytes libtiff reads or writes, and its last message. */
typedef struct tiff_memory {
    const char *name;
    uint8_t *data;
    uint64_t size, capacity, pos;
    int writable, failed;
    char error[256];
} tiff_memory;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t n)
{
    tiff_memory *m = h;
    uint64_t left = m->pos < m->size ? m->size - m->pos : 0;
    uint64_t len = n < 0 ? 0 : (uint64_t)n < left ? (uint64_t)n : left;
    memcpy(buf, m->data + m->pos, (size_t)len);
    m->pos += len;
    return (tmsize_t)len;
}

static int mem_reserve(tiff_memory *m, uint64_t end)
{
    if (end <= m->capacity)
        return 1;
    uint64_t cap = m->capacity ? m->capacity : 1 << 16;
    while (cap < end)
        cap = cap > UINT64_MAX / 2 ? end : cap * 2;
    uint8_t *grown = cap <= SIZE_MAX ? realloc(m->data, (size_t)cap) : NULL;
    if (!grown)
        return 0;
    m->data = grown;
    m->capacity = cap;
    return 1;
}

static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t n)
{
    tiff_memory *m = h;
    if (!m->writable || n < 0 || !mem_reserve(m, m->pos + (uint64_t)n)) {
        m->failed = 1;
        return -1;
    }
    if (m->pos > m->size) /* a seek past the end leaves a gap of zeros */
        memset(m->data + m->size, 0, (size_t)(m->pos - m->size));
    memcpy(m->data + m->pos, buf, (size_t)n);
    m->pos += (uint64_t)n;
    if (m->pos > m->size)
        m->size = m->pos;
    return n;
}

static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    tiff_memory *m = h;
    uint64_t base = whence == SEEK_CUR ? m->pos : whence == SEEK_END ? m->size : 0;
    if ((whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) ||
        off > UINT64_MAX - base)
        return (toff_t)-1;
    m->pos = base + off;
    return m->pos;
}

static int mem_close(thandle_t h)
{
    (void)h;
    return 0;
}

static toff_t mem_size(thandle_t h)
{
    return ((tiff_memory *)h)->size;
}

static int no_map(thandle_t h, void **base, toff_t *size)
{
    (void)h, (void)base, (void)size;
    return 0;
}

static void no_unmap(thandle_t h, void *base, toff_t size)
{
    (void)h, (void)base, (void)size;
}

/* libtiff's errors: the first one kept for the message; warnings ignored. */
static int on_tiff_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    tiff_memory *m = user;
    if (m->error[0])
        return 1;
    vsnprintf(m->error, sizeof m->error, fmt, ap);
    size_t len = strlen(m->name); /* some messages start with the file's name: once is enough */
    if (strncmp(m->error, m->name, len) == 0 && strncmp(m->error + len, ": ", 2) == 0)
        memmove(m->error, m->error + len + 2, strlen(m->error + len + 2) + 1);
    return 1;
}

static int on_tiff_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)user, (void)module, (void)fmt, (void)ap;
    return 1;
}

static TIFF *open_memory(tiff_memory *m, const char *mode, tmsize_t max_alloc)
{
    TIFFOpenOptions *opts = TIFFOpenOptionsAlloc();
    if (!opts)
        return NULL;
    TIFFOpenOptionsSetMaxSingleMemAlloc(opts, max_alloc);
    TIFFOpenOptionsSetErrorHandlerExtR(opts, on_tiff_error, m);
    TIFFOpenOptionsSetWarningHandlerExtR(opts, on_tiff_warning, m);
    TIFF *tif = TIFFClientOpenExt(m->name, mode, m, mem_read, mem_write, mem_seek, mem_close,
                                  mem_size, no_map, no_unmap, opts);
    TIFFOpenOptionsFree(opts);
    return tif;
}

/* ---- decoding --------------------------------------------------------------- */

/* What the first page holds, as read from its tags. */
typedef struct tiff_layout {
    uint32_t width, height;
    uint16_t spp, bps, format, photometric, planar;
    int channels, bit_depth; /* of the decoded image */
    wt_sample_type type;     /* of the stored samples (1-bit: uint 8) */
    uint16_t *palette[3];    /* Palette: the colour map */
} tiff_layout;

static wt_status corrupt_tiff(const tiff_memory *m)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: corrupt TIFF (%s)", m->name,
                        m->error[0] ? m->error : "unreadable");
}

static wt_status unsupported(const tiff_memory *m, const char *what)
{
    return wt_error_set(WT_ERR_UNSUPPORTED, "%s: unsupported TIFF (%s)", m->name, what);
}

/* SampleFormat and BitsPerSample: uint 1/8/16/32, int 8/16/32, float 32/64. */
static wt_status check_sample_type(const tiff_memory *m, tiff_layout *t)
{
    char what[96];
    if (t->format == SAMPLEFORMAT_VOID) /* "undefined": read as unsigned, as libtiff does */
        t->format = SAMPLEFORMAT_UINT;
    if (t->format != SAMPLEFORMAT_UINT && t->format != SAMPLEFORMAT_INT &&
        t->format != SAMPLEFORMAT_IEEEFP) {
        snprintf(what, sizeof what, "complex samples (SampleFormat %u)", t->format);
        return unsupported(m, what);
    }
    t->type.kind = t->format == SAMPLEFORMAT_UINT  ? WT_SAMPLE_UINT
                   : t->format == SAMPLEFORMAT_INT ? WT_SAMPLE_INT
                                                   : WT_SAMPLE_FLOAT;
    t->type.bits = t->bps == 1 && t->format == SAMPLEFORMAT_UINT ? 8 : t->bps;
    if (!wt_sample_type_known(t->type)) {
        snprintf(what, sizeof what, "%u-bit %s samples; uint 1/8/16/32, int 8/16/32 and "
                 "float 32/64 are read",
                 t->bps, t->format == SAMPLEFORMAT_UINT ? "unsigned"
                         : t->format == SAMPLEFORMAT_INT ? "signed" : "floating-point");
        return unsupported(m, what);
    }
    return WT_OK;
}

/* The sample layouts this reader maps onto 1-WT_MAX_CHANNELS planes. */
static wt_status check_samples(const tiff_memory *m, tiff_layout *t)
{
    char what[96];
    wt_status st = check_sample_type(m, t);
    if (st != WT_OK)
        return st;
    if (t->spp < 1 || t->spp > WT_MAX_CHANNELS) {
        snprintf(what, sizeof what, "%u samples per pixel; 1 to %d are read", t->spp,
                 WT_MAX_CHANNELS);
        return unsupported(m, what);
    }
    switch (t->photometric) {
    case PHOTOMETRIC_MINISBLACK:
        break;
    case PHOTOMETRIC_MINISWHITE:
        if (t->format != SAMPLEFORMAT_UINT)
            return unsupported(m, "MinIsWhite with signed or floating-point samples");
        break;
    case PHOTOMETRIC_RGB:
        if (t->spp < 3 || t->bps == 1)
            return unsupported(m, "RGB without 3 samples of 8 bits or more");
        break;
    case PHOTOMETRIC_PALETTE:
        if (t->spp != 1 || t->bps != 8 || t->format != SAMPLEFORMAT_UINT)
            return unsupported(m, "palette other than 8-bit indices");
        break;
    default:
        snprintf(what, sizeof what, "photometric interpretation %u (YCbCr, CMYK, Lab...)",
                 t->photometric);
        return unsupported(m, what);
    }
    t->channels = t->photometric == PHOTOMETRIC_PALETTE ? 3 : t->spp;
    t->bit_depth = wt_sample_type_depth(t->type);
    return WT_OK;
}

static wt_status read_layout(TIFF *tif, const tiff_memory *m, uint64_t max_pixels,
                             tiff_layout *t)
{
    memset(t, 0, sizeof *t);
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &t->width) ||
        !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &t->height))
        return corrupt_tiff(m);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &t->spp);
    TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &t->bps);
    TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &t->format);
    TIFFGetFieldDefaulted(tif, TIFFTAG_PLANARCONFIG, &t->planar);
    if (!TIFFGetField(tif, TIFFTAG_PHOTOMETRIC, &t->photometric))
        t->photometric = t->spp >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK;
    wt_status st = check_samples(m, t);
    if (st == WT_OK && t->photometric == PHOTOMETRIC_PALETTE &&
        !TIFFGetField(tif, TIFFTAG_COLORMAP, &t->palette[0], &t->palette[1], &t->palette[2]))
        st = corrupt_tiff(m);
    if (st == WT_OK)
        st = wt_check_dimensions(m->name, "TIFF", t->width, t->height, max_pixels);
    return st;
}

/* Sample @p i of a row of samples in host order (libtiff swaps them). */
static double sample_at(const tiff_layout *t, const uint8_t *row, uint64_t i)
{
    if (t->bps == 16 && t->format == SAMPLEFORMAT_UINT) {
        uint16_t v;
        memcpy(&v, row + 2 * i, 2);
        return v;
    }
    if (t->bps == 8 && t->format == SAMPLEFORMAT_UINT)
        return row[i];
    if (t->bps == 1)
        return (row[i / 8] >> (7 - i % 8)) & 1 ? 255 : 0;
    return wt_sample_load(row + i * (t->bps / 8), t->type, 0);
}

/* One decoded block (a strip or tile: @p rows x @p cols of samples, plane
 * @p plane or all planes) into the image at (@p x0, @p y0). */
static void place_block(const tiff_layout *t, const uint8_t *block, size_t row_bytes,
                        uint32_t x0, uint32_t y0, uint32_t rows, uint32_t cols, int plane,
                        wt_image *img)
{
    int per_pixel = plane < 0 ? t->spp : 1;
    uint32_t h = y0 + rows > t->height ? t->height - y0 : rows;
    uint32_t w = x0 + cols > t->width ? t->width - x0 : cols;
    double invert = t->photometric == PHOTOMETRIC_MINISWHITE ? ldexp(1.0, t->bit_depth) - 1 : 0;
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *src = block + (size_t)y * row_bytes;
        size_t out = ((size_t)(y0 + y) * t->width + x0) * (size_t)t->channels;
        for (uint32_t x = 0; x < w; x++)
            for (int s = 0; s < per_pixel; s++) {
                double v = sample_at(t, src, (uint64_t)x * per_pixel + s);
                int c = plane < 0 ? s : plane;
                size_t at = out + (size_t)x * t->channels;
                if (t->photometric == PHOTOMETRIC_PALETTE) {
                    for (int k = 0; k < 3; k++)
                        ((uint8_t *)img->pixels)[at + k] =
                            (uint8_t)(t->palette[k][(unsigned)v] >> 8);
                    continue;
                }
                if (invert > 0 && c == 0) /* MinIsWhite: 0 is white */
                    v = invert - v;
                wt_image_set_sample(img, at + (size_t)c, v);
            }
    }
}

/* Every strip or tile of the page, decoded by libtiff into one buffer. */
static wt_status read_blocks(TIFF *tif, const tiff_memory *m, const tiff_layout *t,
                             wt_image *img)
{
    int tiled = TIFFIsTiled(tif);
    uint32_t bw = t->width, bh = 0;
    if (tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &bw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &bh);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &bh);
        bh = bh > t->height ? t->height : bh;
    }
    tmsize_t block_size = tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    uint32_t blocks = tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (!bw || !bh || block_size <= 0 || !blocks)
        return corrupt_tiff(m);
    int planes = t->planar == PLANARCONFIG_SEPARATE ? t->spp : 1;
    size_t per_row = (size_t)bw * (planes > 1 ? 1 : t->spp);
    size_t row_bytes = t->bps == 1 ? (per_row + 7) / 8 : per_row * (t->bps / 8);
    if ((uint64_t)row_bytes * bh > (uint64_t)block_size)
        return corrupt_tiff(m);
    /* a tile may overhang the image, not dwarf it: hostile tile sizes are not allocated */
    uint64_t stored = (uint64_t)t->width * t->height * t->spp * (t->bps > 8 ? t->bps / 8 : 1);
    if ((uint64_t)block_size > stored + BLOCK_SLACK)
        return wt_error_set(WT_ERR_LIMIT, "%s: TIFF %s of %ux%u is too large for a %ux%u image",
                            m->name, tiled ? "tile" : "strip", bw, bh, t->width, t->height);
    uint8_t *block = _TIFFmalloc(block_size);
    if (!block)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory decoding TIFF", m->name);
    uint32_t across = (t->width + bw - 1) / bw, down = (t->height + bh - 1) / bh;
    wt_status st = WT_OK;
    for (int p = 0; p < planes && st == WT_OK; p++)
        for (uint32_t by = 0; by < down && st == WT_OK; by++)
            for (uint32_t bx = 0; bx < across && st == WT_OK; bx++) {
                uint32_t index = (uint32_t)p * across * down + by * across + bx;
                tmsize_t got = index >= blocks ? -1
                               : tiled ? TIFFReadEncodedTile(tif, index, block, block_size)
                                       : TIFFReadEncodedStrip(tif, index, block, block_size);
                if (got < 0)
                    st = corrupt_tiff(m);
                else
                    place_block(t, block, row_bytes, bx * bw, by * bh, bh, bw,
                                planes > 1 ? p : -1, img);
            }
    _TIFFfree(block);
    return st;
}

/* libtiff's single allocations: what an image of --max-pixels needs at most */
static tmsize_t max_alloc_for(uint64_t max_pixels)
{
    uint64_t bytes = wt_input_cap(max_pixels, 8, (uint64_t)1 << 62);
    return bytes > (uint64_t)TIFF_MIN_ALLOC ? (tmsize_t)bytes : TIFF_MIN_ALLOC;
}

wt_status wt_tiff_decode(const void *data, size_t size, const char *name,
                         const wt_load_options *opt, wt_image *img)
{
    tiff_memory m = {.name = name, .data = (uint8_t *)data, .size = size};
    memset(img, 0, sizeof *img);
    TIFF *tif = open_memory(&m, "rm", max_alloc_for(opt->max_pixels));
    if (!tif)
        return corrupt_tiff(&m);
    tiff_layout t;
    wt_status st = read_layout(tif, &m, opt->max_pixels, &t);
    if (st == WT_OK)
        st = wt_memory_check_samples(opt, name, t.width, t.height, t.channels,
                                     t.bit_depth == WT_DEPTH_F32 ? WT_MEMORY_PER_FLOAT_SAMPLE
                                                                 : WT_MEMORY_PER_SAMPLE);
    if (st == WT_OK)
        st = wt_image_alloc(img, t.width, t.height, t.channels, t.bit_depth);
    if (st == WT_OK) {
        img->color = (wt_color)t.channels;
        if (img->bit_depth == WT_DEPTH_F32)
            img->stored = t.type;
        st = read_blocks(tif, &m, &t, img);
    }
    TIFFClose(tif);
    if (st != WT_OK)
        wt_image_free(img);
    return st;
}

/* ---- encoding --------------------------------------------------------------- */

/* ExtraSamples of @p channels: 2 and 4 end in an alpha, more than 4 are RGB
 * and unspecified extra channels (independent planes). */
static int write_extra_samples(TIFF *tif, int channels)
{
    uint16_t extra[WT_MAX_CHANNELS];
    int n = channels >= 3 ? channels - 3 : channels - 1;
    for (int i = 0; i < n; i++)
        extra[i] = channels == 2 || channels == 4 ? EXTRASAMPLE_UNASSALPHA
                                                  : EXTRASAMPLE_UNSPECIFIED;
    return n <= 0 || TIFFSetField(tif, TIFFTAG_EXTRASAMPLES, (uint16_t)n, extra);
}

static int write_tags(TIFF *tif, const wt_image *img, wt_sample_type t)
{
    static const uint16_t formats[] = {SAMPLEFORMAT_UINT, SAMPLEFORMAT_INT, SAMPLEFORMAT_IEEEFP};
    int ok = TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, img->width) &&
             TIFFSetField(tif, TIFFTAG_IMAGELENGTH, img->height) &&
             TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)img->channels) &&
             TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)t.bits) &&
             TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, formats[t.kind]) &&
             TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG) &&
             TIFFSetField(tif, TIFFTAG_PHOTOMETRIC,
                          img->channels >= 3 ? PHOTOMETRIC_RGB : PHOTOMETRIC_MINISBLACK) &&
             TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE) &&
             /* floats unpredicted: readers without the floating-point predictor
                (tifffile without imagecodecs) read them */
             TIFFSetField(tif, TIFFTAG_PREDICTOR, t.kind == WT_SAMPLE_FLOAT
                                                      ? PREDICTOR_NONE
                                                      : PREDICTOR_HORIZONTAL) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    return ok && write_extra_samples(tif, img->channels);
}

static wt_status encode_rows(TIFF *tif, tiff_memory *m, const wt_image *img)
{
    wt_sample_type t = wt_image_stored(img);
    int as_held = wt_sample_type_depth(t) == img->bit_depth && img->bit_depth != WT_DEPTH_F32;
    size_t stride = (size_t)img->width * (size_t)img->channels * (size_t)(t.bits / 8);
    size_t held = (size_t)img->width * (size_t)img->channels * (size_t)(img->bit_depth / 8);
    uint8_t *row = malloc(stride ? stride : 1); /* libtiff's predictor changes the row it is given */
    if (!row)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", m->name);
    wt_status st = write_tags(tif, img, t) ? WT_OK : corrupt_tiff(m);
    for (uint32_t y = 0; y < img->height && st == WT_OK; y++) {
        if (as_held)
            memcpy(row, (const uint8_t *)img->pixels + (size_t)y * held, stride);
        else
            wt_image_store_row(img, t, 0, y, row); /* host order: libtiff swaps */
        if (TIFFWriteScanline(tif, row, y, 0) < 0)
            st = wt_error_set(WT_ERR_IO, "%s: cannot write TIFF (%s)", m->name,
                              m->error[0] ? m->error : "write failed");
    }
    free(row);
    return st;
}

wt_status wt_tiff_encode(FILE *fp, const char *name, const wt_image *img,
                         const wt_save_options *opt)
{
    (void)opt;
    wt_sample_type t = wt_image_stored(img);
    wt_status st = wt_image_check_writable(img, name, "TIFF");
    if (st != WT_OK)
        return st;
    tiff_memory m = {.name = name, .writable = 1};
    /* classic TIFF offsets are 32-bit: BigTIFF when the samples alone come near */
    uint64_t bytes = (uint64_t)img->width * img->height * (uint64_t)img->channels * (t.bits / 8);
    int big = bytes > ((uint64_t)3 << 30);
    TIFF *tif = open_memory(&m, big ? "w8" : "w", TIFF_MIN_ALLOC);
    st = tif ? encode_rows(tif, &m, img)
                       : wt_error_set(WT_ERR_NOMEM, "%s: cannot start a TIFF", name);
    if (tif) {
        if (st == WT_OK && !TIFFWriteDirectory(tif))
            st = wt_error_set(WT_ERR_IO, "%s: cannot write TIFF (%s)", name, m.error);
        TIFFClose(tif);
    }
    if (st == WT_OK && (m.failed || fwrite(m.data, 1, (size_t)m.size, fp) != m.size))
        st = wt_error_set(WT_ERR_IO, "%s: write error", name);
    free(m.data);
    return st;
}

/* ---- the registry's row ------------------------------------------------ */

/* Classic ("II*\0", "MM\0*") and BigTIFF ("II+\0", "MM\0+"). */
static int is_tiff(const uint8_t *data, size_t size)
{
    return wt_starts_like(data, size, "II*\0", 4) || wt_starts_like(data, size, "MM\0*", 4) ||
           wt_starts_like(data, size, "II+\0", 4) || wt_starts_like(data, size, "MM\0+", 4);
}

static const char *const tiff_extensions[] = {"tif", "tiff", NULL};

const wt_codec wt_codec_tiff = {
    {"TIFF", tiff_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, WT_MAX_CHANNELS, 1},
    is_tiff, 8, wt_tiff_decode, wt_tiff_encode,
};

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
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <unistd.h>

#include "image_codec.h"
#include "image_meta.h"
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
    int decoding, decode_failed; /* a block being decoded; a message came meanwhile */
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

/* libtiff's errors: the first one kept for the message. */
static int on_tiff_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    tiff_memory *m = user;
    m->decode_failed |= m->decoding;
    if (m->error[0])
        return 1;
    vsnprintf(m->error, sizeof m->error, fmt, ap);
    size_t len = strlen(m->name); /* some messages start with the file's name: once is enough */
    if (strncmp(m->error, m->name, len) == 0 && strncmp(m->error + len, ": ", 2) == 0)
        memmove(m->error, m->error + len + 2, strlen(m->error + len + 2) + 1);
    return 1;
}

/* Warnings about tags are ignored; one while a strip or tile decodes means
 * data libtiff did not find ("Improper JPEG strip/tile size", "Premature
 * end", "Not enough data"): an error, so a block is never used half filled. */
static int on_tiff_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    tiff_memory *m = user;
    return m->decoding ? on_tiff_error(tif, user, module, fmt, ap) : 1;
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

/* JPEG-compressed TIFF (Compression 6 and 7) is refused, whatever its
 * photometric: its samples are lossy (never exact), and libtiff's JPEG codec
 * turns a short or corrupt scan into warnings. A .jpg is read instead. */
static wt_status check_compression(TIFF *tif, const tiff_memory *m)
{
    uint16_t compression = COMPRESSION_NONE;
    TIFFGetFieldDefaulted(tif, TIFFTAG_COMPRESSION, &compression);
    if (compression == COMPRESSION_JPEG || compression == COMPRESSION_OJPEG)
        return unsupported(m, "JPEG compression; JPEG is read from .jpg files");
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
    if (st == WT_OK)
        st = check_compression(tif, m);
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

/* The bytes of a sample when a block's pixels are stored as the image holds
 * them (all channels interleaved, 8/16-bit unsigned, nothing to map), so
 * rows are copied; else 0. (Float32 samples go through doubles, which quiet
 * a signalling NaN: copied, they would differ in that bit.) */
static size_t as_held(const tiff_layout *t, int plane)
{
    int uint = t->format == SAMPLEFORMAT_UINT && (t->bps == 8 || t->bps == 16);
    if (plane >= 0 || t->spp != t->channels || !uint ||
        t->photometric == PHOTOMETRIC_PALETTE || t->photometric == PHOTOMETRIC_MINISWHITE)
        return 0;
    return (size_t)t->bps / 8;
}

/* One decoded block (a strip or tile: @p rows x @p cols of samples, plane
 * @p plane or all planes) into @p img, whose row 0 is the page's row @p top
 * (the whole page, or a band of its rows), at the page's (@p x0, @p y0). */
static void place_block(const tiff_layout *t, const uint8_t *block, size_t row_bytes,
                        uint32_t x0, uint32_t y0, uint32_t rows, uint32_t cols, int plane,
                        uint32_t top, wt_image *img)
{
    int per_pixel = plane < 0 ? t->spp : 1;
    uint32_t h = y0 + rows > t->height ? t->height - y0 : rows;
    uint32_t w = x0 + cols > t->width ? t->width - x0 : cols;
    double invert = t->photometric == PHOTOMETRIC_MINISWHITE ? ldexp(1.0, t->bit_depth) - 1 : 0;
    size_t item = as_held(t, plane);
    for (uint32_t y = 0; y < h; y++) {
        const uint8_t *src = block + (size_t)y * row_bytes;
        size_t out = ((size_t)(y0 - top + y) * t->width + x0) * (size_t)t->channels;
        if (item) { /* the samples as the image holds them */
            memcpy((uint8_t *)img->pixels + out * item, src, (size_t)w * t->channels * item);
            continue;
        }
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

/* Block @p index (a strip of @p rows rows, or a tile) decoded into @p block,
 * filled completely or refused: a block must have an offset past the header
 * and bytes (libtiff pads a short StripOffsets or TileOffsets array with
 * zeros, which would read the header as samples), decode without a message
 * and give every byte of its rows. */
static wt_status read_block(TIFF *tif, tiff_memory *m, int tiled, uint32_t index, uint32_t rows,
                            uint8_t *block, tmsize_t block_size)
{
    uint64_t offset = TIFFGetStrileOffset(tif, index);
    uint64_t bytes = TIFFGetStrileByteCount(tif, index);
    if (offset < 8 || !bytes || offset >= m->size || bytes > m->size - offset) {
        snprintf(m->error, sizeof m->error, "%s %u has no data in the file (offset %llu, "
                 "%llu bytes)", tiled ? "tile" : "strip", index, (unsigned long long)offset,
                 (unsigned long long)bytes);
        return corrupt_tiff(m);
    }
    tmsize_t want = tiled ? block_size : TIFFVStripSize(tif, rows);
    m->decoding = 1;
    m->decode_failed = 0;
    tmsize_t got = tiled ? TIFFReadEncodedTile(tif, index, block, block_size)
                         : TIFFReadEncodedStrip(tif, index, block, block_size);
    m->decoding = 0;
    if (got < 0 || m->decode_failed)
        return corrupt_tiff(m);
    if (got != want) {
        snprintf(m->error, sizeof m->error, "%s %u decodes to %lld of its %lld bytes",
                 tiled ? "tile" : "strip", index, (long long)got, (long long)want);
        return corrupt_tiff(m);
    }
    return WT_OK;
}

/* The strips or tiles of a page: a row of blocks (a strip, or a row of tiles
 * of every plane) at a time through one block buffer. */
typedef struct tiff_blocks {
    int tiled, planes;
    uint32_t bw, bh, across, down, count;
    size_t row_bytes;
    tmsize_t block_size;
    uint8_t *block;
} tiff_blocks;

/* The page's block layout checked and its block buffer allocated. */
static wt_status blocks_open(TIFF *tif, tiff_memory *m, const tiff_layout *t, tiff_blocks *b)
{
    memset(b, 0, sizeof *b);
    b->tiled = TIFFIsTiled(tif);
    b->bw = t->width;
    if (b->tiled) {
        TIFFGetField(tif, TIFFTAG_TILEWIDTH, &b->bw);
        TIFFGetField(tif, TIFFTAG_TILELENGTH, &b->bh);
    } else {
        TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &b->bh);
        b->bh = b->bh > t->height ? t->height : b->bh;
    }
    b->block_size = b->tiled ? TIFFTileSize(tif) : TIFFStripSize(tif);
    b->count = b->tiled ? TIFFNumberOfTiles(tif) : TIFFNumberOfStrips(tif);
    if (!b->bw || !b->bh || b->block_size <= 0 || !b->count)
        return corrupt_tiff(m);
    b->planes = t->planar == PLANARCONFIG_SEPARATE ? t->spp : 1;
    size_t per_row = (size_t)b->bw * (b->planes > 1 ? 1 : t->spp);
    b->row_bytes = t->bps == 1 ? (per_row + 7) / 8 : per_row * (t->bps / 8);
    if ((uint64_t)b->row_bytes * b->bh > (uint64_t)b->block_size)
        return corrupt_tiff(m);
    /* a tile may overhang the image, not dwarf it: hostile tile sizes are not allocated */
    uint64_t stored = (uint64_t)t->width * t->height * t->spp * (t->bps > 8 ? t->bps / 8 : 1);
    if ((uint64_t)b->block_size > stored + BLOCK_SLACK)
        return wt_error_set(WT_ERR_LIMIT, "%s: TIFF %s of %ux%u is too large for a %ux%u image",
                            m->name, b->tiled ? "tile" : "strip", b->bw, b->bh, t->width,
                            t->height);
    b->block = _TIFFmalloc(b->block_size);
    if (!b->block)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory decoding TIFF", m->name);
    b->across = (t->width + b->bw - 1) / b->bw;
    b->down = (t->height + b->bh - 1) / b->bh;
    return WT_OK;
}

/* Rows in row of blocks @p by (the last may be short). */
static uint32_t block_rows(const tiff_layout *t, const tiff_blocks *b, uint32_t by)
{
    return by * b->bh + b->bh > t->height ? t->height - by * b->bh : b->bh;
}

/* Row of blocks @p by (every plane) decoded into @p img, whose row 0 is the
 * page's row @p top. */
static wt_status read_block_row(TIFF *tif, tiff_memory *m, const tiff_layout *t,
                                tiff_blocks *b, uint32_t by, uint32_t top, wt_image *img)
{
    wt_status st = WT_OK;
    for (int p = 0; p < b->planes && st == WT_OK; p++)
        for (uint32_t bx = 0; bx < b->across && st == WT_OK; bx++) {
            uint32_t index = (uint32_t)p * b->across * b->down + by * b->across + bx;
            st = index >= b->count ? corrupt_tiff(m)
                                   : read_block(tif, m, b->tiled, index, block_rows(t, b, by),
                                                b->block, b->block_size);
            if (st == WT_OK)
                place_block(t, b->block, b->row_bytes, bx * b->bw, by * b->bh, b->bh, b->bw,
                            b->planes > 1 ? p : -1, top, img);
        }
    return st;
}

/* Every strip or tile of the page, decoded by libtiff into one buffer. */
static wt_status read_blocks(TIFF *tif, tiff_memory *m, const tiff_layout *t, wt_image *img)
{
    tiff_blocks b;
    wt_status st = blocks_open(tif, m, t, &b);
    for (uint32_t by = 0; st == WT_OK && by < b.down; by++)
        st = read_block_row(tif, m, t, &b, by, 0, img);
    _TIFFfree(b.block);
    return st;
}

/* The page's rows a row of blocks at a time into a band image of that many
 * rows, each band handed to @p fn: the memory of one row of blocks, not of
 * the page. */
static wt_status read_bands(TIFF *tif, tiff_memory *m, const tiff_layout *t, wt_rows_fn fn,
                            void *ctx)
{
    tiff_blocks b;
    wt_image band = {0};
    wt_status st = blocks_open(tif, m, t, &b);
    if (st == WT_OK)
        st = wt_image_alloc(&band, t->width, b.bh, t->channels, t->bit_depth);
    for (uint32_t by = 0; st == WT_OK && by < b.down; by++) {
        band.height = block_rows(t, &b, by);
        st = read_block_row(tif, m, t, &b, by, by * b.bh, &band);
        if (st == WT_OK)
            st = fn(ctx, &band, by * b.bh);
    }
    wt_image_free(&band);
    _TIFFfree(b.block);
    return st;
}

/* A description that tells the file's layout, not the image: tifffile's
 * ({"shape": ...}) and ImageJ's (ImageJ=...); an output need not share it. */
static int layout_description(const char *d)
{
    return strncmp(d, "{\"shape\":", 9) == 0 || strncmp(d, "ImageJ=", 7) == 0;
}

/* The page's resolution (XResolution, YResolution, ResolutionUnit), ICC
 * profile (tag 34675), XMP (tag 700) and ImageDescription (not a layout's)
 * attached to @p img; values that make no sense are left out. Exif lives in
 * an IFD of its own that libtiff does not hand back as bytes: not read. */
static void read_meta_tags(TIFF *tif, wt_image *img)
{
    wt_image_meta *m = calloc(1, sizeof *m);
    if (!m)
        return;
    float x = 0, y = 0;
    uint16_t unit = RESUNIT_INCH;
    if (TIFFGetField(tif, TIFFTAG_XRESOLUTION, &x) && TIFFGetField(tif, TIFFTAG_YRESOLUTION, &y) &&
        isfinite(x) && isfinite(y) && x > 0 && y > 0) {
        TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
        m->unit = unit == RESUNIT_CENTIMETER ? WT_RES_CM
                  : unit == RESUNIT_INCH     ? WT_RES_INCH
                                             : WT_RES_ASPECT;
        m->xres = x;
        m->yres = y;
    }
    uint32_t icc_size = 0;
    const uint8_t *icc = NULL;
    if (TIFFGetField(tif, TIFFTAG_ICCPROFILE, &icc_size, &icc) && icc && icc_size >= 128) {
        m->icc = wt_meta_copy(icc, icc_size); /* an ICC header is 128 bytes */
        m->icc_size = m->icc ? icc_size : 0;
    }
    uint32_t xmp_size = 0;
    const uint8_t *xmp = NULL;
    if (TIFFGetField(tif, TIFFTAG_XMLPACKET, &xmp_size, &xmp) && xmp) {
        m->xmp = wt_meta_copy(xmp, xmp_size);
        m->xmp_size = m->xmp ? xmp_size : 0;
    }
    const char *description = NULL; /* libtiff ends ASCII tags with a 0 */
    if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &description) && description &&
        !layout_description(description))
        m->description = wt_meta_text_copy((const uint8_t *)description, strlen(description));
    wt_meta_attach(img, m);
}

/* A file of several pages is a stack (wt_stack_open), never its first page alone. */
static wt_status refuse_stack(TIFF *tif, const tiff_memory *m)
{
    tdir_t pages = TIFFNumberOfDirectories(tif);
    if (pages <= 1)
        return WT_OK;
    return wt_error_set(WT_ERR_UNSUPPORTED,
                        "%s: a TIFF of %u pages is a stack: read it from a file (not a pipe), "
                        "page by page", m->name, (unsigned)pages);
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
        st = refuse_stack(tif, &m);
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
    if (st == WT_OK)
        read_meta_tags(tif, img);
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

static int write_tags(TIFF *tif, const wt_image *img, wt_sample_type t, int level)
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
             TIFFSetField(tif, TIFFTAG_ZIPQUALITY, level) &&
             /* floats unpredicted: readers without the floating-point predictor
                (tifffile without imagecodecs) read them */
             TIFFSetField(tif, TIFFTAG_PREDICTOR, t.kind == WT_SAMPLE_FLOAT
                                                      ? PREDICTOR_NONE
                                                      : PREDICTOR_HORIZONTAL) &&
             TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, TIFFDefaultStripSize(tif, 0));
    return ok && write_extra_samples(tif, img->channels);
}

/* Resolution, ICC profile, XMP and description of @p m (Exif would need its
 * own IFD: left out). */
static int write_meta_tags(TIFF *tif, const wt_image_meta *m)
{
    static const uint16_t units[] = {RESUNIT_NONE, RESUNIT_NONE, RESUNIT_INCH,
                                     RESUNIT_CENTIMETER};
    int ok = 1;
    if (m && m->unit != WT_RES_NONE)
        ok = TIFFSetField(tif, TIFFTAG_XRESOLUTION, (float)m->xres) &&
             TIFFSetField(tif, TIFFTAG_YRESOLUTION, (float)m->yres) &&
             TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, units[m->unit]);
    if (ok && m && m->icc)
        ok = TIFFSetField(tif, TIFFTAG_ICCPROFILE, (uint32_t)m->icc_size, m->icc);
    if (ok && m && m->xmp)
        ok = TIFFSetField(tif, TIFFTAG_XMLPACKET, (uint32_t)m->xmp_size, m->xmp);
    if (ok && m && m->description)
        ok = TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, m->description);
    return ok;
}

static wt_status encode_rows(TIFF *tif, tiff_memory *m, const wt_image *img, int level,
                             const wt_image_meta *meta)
{
    wt_sample_type t = wt_image_stored(img);
    int as_held = wt_sample_type_depth(t) == img->bit_depth && img->bit_depth != WT_DEPTH_F32;
    size_t stride = (size_t)img->width * (size_t)img->channels * (size_t)(t.bits / 8);
    size_t held = (size_t)img->width * (size_t)img->channels * (size_t)(img->bit_depth / 8);
    uint8_t *row = malloc(stride ? stride : 1); /* libtiff's predictor changes the row it is given */
    if (!row)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", m->name);
    wt_status st = write_tags(tif, img, t, level) && write_meta_tags(tif, meta) ? WT_OK
                                                                              : corrupt_tiff(m);
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
    wt_sample_type t = wt_image_stored(img);
    wt_status st = wt_image_check_writable(img, name, "TIFF");
    if (st != WT_OK)
        return st;
    tiff_memory m = {.name = name, .writable = 1};
    /* classic TIFF offsets are 32-bit: BigTIFF when the samples alone come near */
    uint64_t bytes = (uint64_t)img->width * img->height * (uint64_t)img->channels * (t.bits / 8);
    int big = bytes > ((uint64_t)3 << 30);
    TIFF *tif = open_memory(&m, big ? "w8" : "w", TIFF_MIN_ALLOC);
    st = tif ? encode_rows(tif, &m, img, wt_save_option_value(&wt_codec_tiff, "level", opt),
                           wt_meta_to_write(img, opt))
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


static uint64_t tiff_probe(const uint8_t *head, size_t size, const char *path);


/* ---- pages: a file read one page at a time ---------------------------------
 * A regular file is read through pread (libtiff keeps one strip or tile of it),
 * never whole: a stack of any length, or one huge page, takes the memory of a
 * page. Every page must have the first page's size and sample layout. */

typedef struct wt_tiff_pages wt_tiff_pages;
static void wt_tiff_pages_close(wt_tiff_pages *t);

struct wt_tiff_pages {
    tiff_memory m;
    int fd;
    TIFF *tif;
    size_t count;
    tiff_layout first;
    uint64_t max_pixels;
};

static tmsize_t fd_read(thandle_t h, void *buf, tmsize_t n)
{
    wt_tiff_pages *t = (wt_tiff_pages *)h;
    uint64_t left = t->m.pos < t->m.size ? t->m.size - t->m.pos : 0;
    size_t want = n < 0 ? 0 : (uint64_t)n < left ? (size_t)n : (size_t)left, got = 0;
    while (got < want) {
        ssize_t r = pread(t->fd, (uint8_t *)buf + got, want - got, (off_t)(t->m.pos + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    t->m.pos += got;
    return (tmsize_t)got;
}

static tmsize_t fd_no_write(thandle_t h, void *buf, tmsize_t n)
{
    (void)h, (void)buf, (void)n;
    return -1;
}

static toff_t fd_seek(thandle_t h, toff_t off, int whence)
{
    return mem_seek(&((wt_tiff_pages *)h)->m, off, whence);
}

static toff_t fd_size(thandle_t h)
{
    return ((wt_tiff_pages *)h)->m.size;
}

/* "64x48, 1 unsigned sample of 8 bits, MinIsBlack" for messages about pages
 * that differ: every field same_layout compares is named. */
static void describe_layout(const tiff_layout *t, char *out, size_t cap)
{
    static const char *const photometric[] = {"MinIsWhite", "MinIsBlack", "RGB", "palette"};
    const char *format = t->format == SAMPLEFORMAT_INT      ? "signed"
                         : t->format == SAMPLEFORMAT_IEEEFP ? "floating-point"
                                                            : "unsigned";
    snprintf(out, cap, "%ux%u, %u %s sample%s of %u bits, %s", t->width, t->height, t->spp,
             format, t->spp == 1 ? "" : "s", t->bps,
             t->photometric <= PHOTOMETRIC_PALETTE ? photometric[t->photometric] : "?");
}

static int same_layout(const tiff_layout *a, const tiff_layout *b)
{
    return a->width == b->width && a->height == b->height && a->spp == b->spp &&
           a->bps == b->bps && a->format == b->format && a->photometric == b->photometric &&
           a->channels == b->channels && a->bit_depth == b->bit_depth;
}

/* Page @p k's message: "NAME: page K: REASON" (the reason without the name). */
static wt_status page_error(const wt_tiff_pages *t, size_t k, wt_status st)
{
    char reason[768];
    const char *msg = wt_error_message();
    size_t len = strlen(t->m.name);
    if (strncmp(msg, t->m.name, len) == 0 && strncmp(msg + len, ": ", 2) == 0)
        msg += len + 2;
    snprintf(reason, sizeof reason, "%s", msg);
    return wt_error_set(st, "%s: page %zu: %s", t->m.name, k, reason);
}

/* Walk the directories: count the pages, each checked against the first. */
static wt_status count_pages(wt_tiff_pages *t)
{
    t->count = 1;
    for (;;) {
        t->m.error[0] = '\0';
        if (TIFFLastDirectory(t->tif))
            return WT_OK; /* no next directory */
        if (!TIFFReadDirectory(t->tif)) { /* a next one that does not read: an IFD loop... */
            if (!t->m.error[0])
                snprintf(t->m.error, sizeof t->m.error,
                         "its directory does not read: an IFD loop or a bad offset");
            return page_error(t, t->count, corrupt_tiff(&t->m));
        }
        tiff_layout next;
        wt_status st = read_layout(t->tif, &t->m, t->max_pixels, &next);
        if (st != WT_OK)
            return page_error(t, t->count, st);
        if (!same_layout(&next, &t->first)) {
            char a[128], b[128];
            describe_layout(&next, a, sizeof a);
            describe_layout(&t->first, b, sizeof b);
            return wt_error_set(WT_ERR_UNSUPPORTED,
                                "%s: page %zu is %s; page 0 is %s: the pages of a stack must "
                                "have one size, sample type and photometric",
                                t->m.name, t->count, a, b);
        }
        t->count++;
    }
}

static wt_status wt_tiff_pages_open(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                             wt_tiff_pages **out, size_t *count, wt_image *layout)
{
    *out = NULL;
    wt_tiff_pages *t = calloc(1, sizeof *t);
    if (!t)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    t->m.name = name;
    t->m.size = size;
    t->fd = fd;
    t->max_pixels = opt->max_pixels;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (o) {
        TIFFOpenOptionsSetMaxSingleMemAlloc(o, max_alloc_for(opt->max_pixels));
        TIFFOpenOptionsSetErrorHandlerExtR(o, on_tiff_error, &t->m);
        TIFFOpenOptionsSetWarningHandlerExtR(o, on_tiff_warning, &t->m);
        t->tif = TIFFClientOpenExt(name, "rm", t, fd_read, fd_no_write, fd_seek, mem_close,
                                   fd_size, no_map, no_unmap, o);
        TIFFOpenOptionsFree(o);
    }
    wt_status st = t->tif ? read_layout(t->tif, &t->m, opt->max_pixels, &t->first)
                          : corrupt_tiff(&t->m);
    if (st == WT_OK)
        st = count_pages(t);
    if (st != WT_OK) {
        wt_tiff_pages_close(t);
        return st;
    }
    memset(layout, 0, sizeof *layout);
    layout->width = t->first.width;
    layout->height = t->first.height;
    layout->channels = t->first.channels;
    layout->bit_depth = t->first.bit_depth;
    layout->color = (wt_color)t->first.channels;
    if (layout->bit_depth == WT_DEPTH_F32)
        layout->stored = t->first.type;
    *count = t->count;
    *out = t;
    return WT_OK;
}

/* Make page @p k current: the next directory when pages are read in order
 * (TIFFSetDirectory walks the chain from the first: quadratic over a stack). */
static int go_to_page(wt_tiff_pages *t, size_t k)
{
    tdir_t current = TIFFCurrentDirectory(t->tif);
    if ((size_t)current == k)
        return 1;
    if ((size_t)current + 1 == k)
        return TIFFReadDirectory(t->tif);
    return TIFFSetDirectory(t->tif, (tdir_t)k);
}

/* Page @p k made current and its layout checked against page 0's. */
static wt_status page_layout(wt_tiff_pages *t, size_t k, tiff_layout *l)
{
    t->m.error[0] = '\0';
    if (k >= t->count || !go_to_page(t, k))
        return page_error(t, k, corrupt_tiff(&t->m));
    wt_status st = read_layout(t->tif, &t->m, t->max_pixels, l);
    if (st == WT_OK && !same_layout(l, &t->first))
        st = wt_error_set(WT_ERR_FORMAT, "%s: changed while read", t->m.name);
    return st;
}

static wt_status wt_tiff_pages_read(wt_tiff_pages *t, size_t k, const wt_load_options *opt,
                             wt_image *img)
{
    memset(img, 0, sizeof *img);
    tiff_layout l;
    wt_status st = page_layout(t, k, &l);
    if (st == WT_OK)
        st = wt_memory_check_samples(opt, t->m.name, l.width, l.height, l.channels,
                                     l.bit_depth == WT_DEPTH_F32 ? WT_MEMORY_PER_FLOAT_SAMPLE
                                                                 : WT_MEMORY_PER_SAMPLE);
    if (st == WT_OK)
        st = wt_image_alloc(img, l.width, l.height, l.channels, l.bit_depth);
    if (st == WT_OK) {
        img->color = (wt_color)l.channels;
        if (img->bit_depth == WT_DEPTH_F32)
            img->stored = l.type;
        st = read_blocks(t->tif, &t->m, &l, img);
    }
    if (st == WT_OK)
        read_meta_tags(t->tif, img);
    if (st != WT_OK) {
        wt_image_free(img);
        return t->count > 1 ? page_error(t, k, st) : st;
    }
    return WT_OK;
}

static wt_status wt_tiff_pages_read_rows(wt_tiff_pages *t, size_t k, wt_rows_fn fn, void *ctx)
{
    tiff_layout l;
    wt_status st = page_layout(t, k, &l);
    if (st == WT_OK)
        st = read_bands(t->tif, &t->m, &l, fn, ctx);
    return st != WT_OK && t->count > 1 ? page_error(t, k, st) : st;
}

static void wt_tiff_pages_close(wt_tiff_pages *t)
{
    if (!t)
        return;
    if (t->tif)
        TIFFClose(t->tif);
    free(t);
}

/* ---- pages written one at a time ------------------------------------------
 * A multi-page TIFF written straight into an open file (the temporary output):
 * one directory per page, nothing kept between pages. */

typedef struct wt_tiff_page_writer {
    tiff_memory m; /* name, position, size, last message */
    int fd;
    TIFF *tif;
} wt_tiff_page_writer;

static tmsize_t fdw_read(thandle_t h, void *buf, tmsize_t n)
{
    wt_tiff_page_writer *w = (wt_tiff_page_writer *)h;
    ssize_t r = n < 0 ? -1 : pread(w->fd, buf, (size_t)n, (off_t)w->m.pos);
    if (r > 0)
        w->m.pos += (uint64_t)r;
    return (tmsize_t)r;
}

static tmsize_t fdw_write(thandle_t h, void *buf, tmsize_t n)
{
    wt_tiff_page_writer *w = (wt_tiff_page_writer *)h;
    size_t done = 0;
    while (n >= 0 && done < (size_t)n) {
        ssize_t r = pwrite(w->fd, (uint8_t *)buf + done, (size_t)n - done,
                           (off_t)(w->m.pos + done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            w->m.failed = 1;
            return -1;
        }
        done += (size_t)r;
    }
    w->m.pos += done;
    if (w->m.pos > w->m.size)
        w->m.size = w->m.pos;
    return n;
}

static toff_t fdw_seek(thandle_t h, toff_t off, int whence)
{
    return mem_seek(&((wt_tiff_page_writer *)h)->m, off, whence);
}

static toff_t fdw_size(thandle_t h)
{
    return ((wt_tiff_page_writer *)h)->m.size;
}

static wt_status wt_tiff_page_writer_open(int fd, const char *name, uint64_t total_bytes,
                                   wt_tiff_page_writer **out)
{
    wt_tiff_page_writer *w = calloc(1, sizeof *w);
    *out = NULL;
    if (!w)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    w->m.name = name;
    w->m.writable = 1;
    w->fd = fd;
    TIFFOpenOptions *o = TIFFOpenOptionsAlloc();
    if (o) {
        TIFFOpenOptionsSetMaxSingleMemAlloc(o, TIFF_MIN_ALLOC);
        TIFFOpenOptionsSetErrorHandlerExtR(o, on_tiff_error, &w->m);
        TIFFOpenOptionsSetWarningHandlerExtR(o, on_tiff_warning, &w->m);
        /* classic TIFF offsets are 32-bit: BigTIFF when the samples alone come near */
        w->tif = TIFFClientOpenExt(name, total_bytes > ((uint64_t)3 << 30) ? "w8" : "w", w,
                                   fdw_read, fdw_write, fdw_seek, mem_close, fdw_size, no_map,
                                   no_unmap, o);
        TIFFOpenOptionsFree(o);
    }
    if (!w->tif) {
        free(w);
        return wt_error_set(WT_ERR_IO, "%s: cannot start a TIFF", name);
    }
    *out = w;
    return WT_OK;
}

static wt_status wt_tiff_page_writer_add(wt_tiff_page_writer *w, const wt_image *img)
{
    wt_sample_type t = wt_image_stored(img);
    if (img->channels < 1 || img->channels > WT_MAX_CHANNELS || !wt_sample_type_known(t) ||
        (img->bit_depth != 8 && img->bit_depth != 16 && img->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels of %d bits as TIFF",
                            w->m.name, img->channels, img->bit_depth);
    /* each page with its own metadata (the caller drops it for --strip) */
    wt_status st = encode_rows(w->tif, &w->m, img, wt_save_option_value(&wt_codec_tiff, "level", NULL),
                               img->meta);
    if (st == WT_OK && (!TIFFWriteDirectory(w->tif) || w->m.failed))
        st = wt_error_set(WT_ERR_IO, "%s: cannot write TIFF (%s)", w->m.name,
                          w->m.error[0] ? w->m.error : "write failed");
    return st;
}

static wt_status wt_tiff_page_writer_close(wt_tiff_page_writer *w)
{
    if (!w)
        return WT_OK;
    TIFFClose(w->tif);
    wt_status st = w->m.failed ? wt_error_set(WT_ERR_IO, "%s: write error", w->m.name) : WT_OK;
    free(w);
    return st;
}

static void wt_tiff_page_writer_discard(wt_tiff_page_writer *w)
{
    if (!w)
        return;
    TIFFClose(w->tif);
    free(w);
}

static wt_status wt_tiff_load_file(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                            wt_image *img)
{
    wt_tiff_pages *t = NULL;
    wt_image layout;
    size_t count = 0;
    memset(img, 0, sizeof *img);
    wt_status st = wt_tiff_pages_open(fd, size, name, opt, &t, &count, &layout);
    if (st == WT_OK && count > 1)
        st = wt_error_set(WT_ERR_UNSUPPORTED,
                          "%s: a TIFF of %zu pages is a stack (read it with wt_stack_open)",
                          name, count);
    if (st == WT_OK)
        st = wt_tiff_pages_read(t, 0, opt, img);
    wt_tiff_pages_close(t);
    return st;
}

/* ---- the registry's row: one image, pages read and written one at a time -- */

static wt_status pages_open(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                            void **state, size_t *count)
{
    wt_image layout;
    if (size < wt_codec_tiff.magic_size)
        return WT_OK; /* wt_image_load says it is truncated */
    return wt_tiff_pages_open(fd, size, name, opt, (wt_tiff_pages **)state, count, &layout);
}

static wt_status pages_read(void *state, size_t k, const wt_load_options *opt, wt_image *img)
{
    return wt_tiff_pages_read(state, k, opt, img);
}

static void pages_close(void *state)
{
    wt_tiff_pages_close(state);
}

static wt_status pages_read_rows(void *state, size_t k, wt_rows_fn fn, void *ctx)
{
    return wt_tiff_pages_read_rows(state, k, fn, ctx);
}

/* The pages go through the file's descriptor: what @p fp holds is flushed first. */
static wt_status writer_start(FILE *fp, const char *name, const wt_image *first, size_t pages,
                              void **state)
{
    if (fflush(fp) != 0)
        return wt_error_set(WT_ERR_IO, "%s: %s", name, strerror(errno));
    uint64_t total = (uint64_t)wt_image_bytes(first) * pages;
    return wt_tiff_page_writer_open(fileno(fp), name, total, (wt_tiff_page_writer **)state);
}

static wt_status writer_add(void *state, FILE *fp, const char *name, const wt_image *page)
{
    (void)fp, (void)name;
    return wt_tiff_page_writer_add(state, page);
}

static wt_status writer_finish(void *state)
{
    return wt_tiff_page_writer_close(state);
}

static void writer_discard(void *state)
{
    wt_tiff_page_writer_discard(state);
}

static const wt_page_reader tiff_pages_in = {pages_open, pages_read, pages_close,
                                            pages_read_rows};
static const wt_page_writer tiff_pages_out = {writer_start, writer_add, writer_finish,
                                              writer_discard, 1};

static const char *const tiff_extensions[] = {"tif", "tiff", NULL};

static const wt_save_option_info tiff_options[] = {
    {"level", "TIFF deflate level (zlib)", 1, 9, 6, offsetof(wt_save_options, tiff_level)},
    {NULL, NULL, 0, 0, 0, 0},
};

const wt_codec wt_codec_tiff = {
    {"TIFF", tiff_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, WT_MAX_CHANNELS, 1, tiff_options,
     WT_META_RESOLUTION | WT_META_ICC | WT_META_XMP | WT_META_DESCRIPTION},
    is_tiff, 8, wt_tiff_decode, wt_tiff_encode,
    wt_tiff_load_file, &tiff_pages_in, &tiff_pages_out, tiff_probe,
};

/* Every page's samples, from the directories alone (no strip is read). */
static uint64_t tiff_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)head;
    (void)size;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0)
        return 0;
    uint64_t samples = 0;
    if (fstat(fd, &sb) == 0) {
        wt_load_options opt = {.max_pixels = WT_DEFAULT_MAX_PIXELS};
        wt_tiff_pages *t = NULL;
        wt_image layout;
        size_t pages = 0;
        if (wt_tiff_pages_open(fd, (uint64_t)sb.st_size, path, &opt, &t, &pages, &layout) == WT_OK)
            samples = (uint64_t)layout.width * layout.height * (uint64_t)layout.channels * pages;
        wt_tiff_pages_close(t);
        wt_warning_clear(); /* the decode that follows says what it has to say */
    }
    close(fd);
    return samples;
}

/* Netpbm PGM and PPM (netpbm.sourceforge.net/doc/pgm.html, ppm.html): gray
 * (P2 plain, P5 raw) and RGB (P3 plain, P6 raw), maxval 1-65535, comments
 * ('#' to the end of the line) between header tokens and plain samples.
 *
 * Read: maxval 255 and 65535 as they are (8 and 16 bits); any other maxval M
 * is scaled to the enclosing depth D (8 bits up to 255, else 16) as netpbm's
 * pamdepth does, (v * (2^D - 1) + floor(M / 2)) / M in integers: rounded to
 * nearest, halves up. A sample above maxval, a number that is not one, a
 * header past its limits or data that ends early refuse the file.
 * Write: P5 (1 channel) or P6 (3), maxval 255 or 65535 (16-bit samples
 * big-endian, as netpbm); alpha is dropped, as the JPEG writer drops it. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_codec.h"
#include "input.h"

#define PNM_MAX_MAXVAL 65535u
/* Width, height or maxval above this are refused while they are read. */
#define PNM_MAX_NUMBER 0xffffffffu

typedef struct pnm_reader {
    const uint8_t *data;
    size_t size, pos;
    const char *name;
} pnm_reader;

typedef struct pnm_header {
    int plain;    /* P2, P3: decimal samples */
    int channels; /* 1 (PGM) or 3 (PPM) */
    uint32_t width, height;
    unsigned maxval;
} pnm_header;

static int is_space(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Past whitespace and comments. */
static void skip_space(pnm_reader *r)
{
    while (r->pos < r->size) {
        uint8_t c = r->data[r->pos];
        if (c == '#')
            while (r->pos < r->size && r->data[r->pos] != '\n' && r->data[r->pos] != '\r')
                r->pos++;
        else if (is_space(c))
            r->pos++;
        else
            return;
    }
}

/* A decimal number after whitespace and comments, at most @p limit;
 * @p what names it in the message ("width", "a sample"). */
static wt_status read_number(pnm_reader *r, const char *what, uint32_t limit, uint32_t *value)
{
    skip_space(r);
    if (r->pos == r->size)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated Netpbm data (%s missing)", r->name,
                            what);
    uint64_t v = 0;
    size_t start = r->pos;
    while (r->pos < r->size && r->data[r->pos] >= '0' && r->data[r->pos] <= '9') {
        v = v * 10 + (uint64_t)(r->data[r->pos++] - '0');
        if (v > limit)
            return wt_error_set(WT_ERR_FORMAT, "%s: Netpbm %s above %lu", r->name, what,
                                (unsigned long)limit);
    }
    if (r->pos == start || (r->pos < r->size && !is_space(r->data[r->pos]) &&
                            r->data[r->pos] != '#'))
        return wt_error_set(WT_ERR_FORMAT, "%s: corrupt Netpbm data (%s is not a number)",
                            r->name, what);
    *value = (uint32_t)v;
    return WT_OK;
}

static wt_status read_header(pnm_reader *r, pnm_header *h)
{
    uint8_t kind = r->data[1];
    uint32_t maxval = 0;
    h->plain = kind == '2' || kind == '3';
    h->channels = kind == '3' || kind == '6' ? 3 : 1;
    r->pos = 2;
    wt_status st = read_number(r, "width", PNM_MAX_NUMBER, &h->width);
    if (st == WT_OK)
        st = read_number(r, "height", PNM_MAX_NUMBER, &h->height);
    if (st == WT_OK)
        st = read_number(r, "maxval", PNM_MAX_MAXVAL, &maxval);
    if (st == WT_OK && maxval == 0)
        st = wt_error_set(WT_ERR_FORMAT, "%s: Netpbm maxval %lu (1 to %u)", r->name,
                          (unsigned long)maxval, PNM_MAX_MAXVAL);
    h->maxval = maxval;
    if (st != WT_OK || h->plain)
        return st;
    if (r->pos == r->size) /* one whitespace character, then the raster */
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated Netpbm data", r->name);
    if (!is_space(r->data[r->pos]))
        return wt_error_set(WT_ERR_FORMAT, "%s: corrupt Netpbm data (no whitespace after maxval)",
                            r->name);
    r->pos++;
    return WT_OK;
}

/* @p v of maxval @p maxval at the image's depth: netpbm's scaling (pamdepth). */
static unsigned scaled(unsigned v, unsigned maxval, unsigned top)
{
    return maxval == top ? v : (unsigned)(((uint64_t)v * top + maxval / 2) / maxval);
}

static void store(wt_image *img, size_t i, unsigned v)
{
    if (img->bit_depth == 8)
        ((uint8_t *)img->pixels)[i] = (uint8_t)v;
    else
        ((uint16_t *)img->pixels)[i] = (uint16_t)v;
}

static wt_status above_maxval(const pnm_reader *r, unsigned v, unsigned maxval)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: corrupt Netpbm data (sample %u above maxval %u)",
                        r->name, v, maxval);
}

/* P2, P3: every sample a decimal number. */
static wt_status read_plain(pnm_reader *r, const pnm_header *h, size_t samples, wt_image *img)
{
    unsigned top = img->bit_depth == 8 ? 255 : 65535;
    for (size_t i = 0; i < samples; i++) {
        uint32_t v;
        wt_status st = read_number(r, "a sample", PNM_MAX_NUMBER, &v);
        if (st != WT_OK)
            return st;
        if (v > h->maxval)
            return above_maxval(r, v, h->maxval);
        store(img, i, scaled(v, h->maxval, top));
    }
    return WT_OK;
}

/* Bytes a raw sample takes: one up to maxval 255, else two. */
static size_t raw_bytes(const pnm_header *h)
{
    return h->maxval > 255 ? 2 : 1;
}

/* The data left can hold the samples (raw: their bytes; plain: a digit and a
 * separator each), checked before the image is allocated. */
static wt_status check_data_size(const pnm_reader *r, const pnm_header *h, size_t samples)
{
    size_t left = r->size - r->pos;
    size_t need = h->plain ? 2 : raw_bytes(h);
    if (left / need < samples - (h->plain ? 1 : 0))
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated Netpbm data", r->name);
    return WT_OK;
}

/* P5, P6: one or two bytes a sample, most significant first. */
static wt_status read_raw(pnm_reader *r, const pnm_header *h, size_t samples, wt_image *img)
{
    unsigned top = img->bit_depth == 8 ? 255 : 65535;
    size_t bytes = raw_bytes(h);
    const uint8_t *p = r->data + r->pos;
    for (size_t i = 0; i < samples; i++, p += bytes) {
        unsigned v = bytes == 1 ? p[0] : (unsigned)p[0] << 8 | p[1];
        if (v > h->maxval)
            return above_maxval(r, v, h->maxval);
        store(img, i, scaled(v, h->maxval, top));
    }
    return WT_OK;
}

static wt_status pnm_decode(const void *data, size_t size, const char *name,
                            const wt_load_options *opt, wt_image *img)
{
    pnm_reader r = {data, size, 0, name};
    pnm_header h = {0};
    memset(img, 0, sizeof *img);
    wt_status st = read_header(&r, &h);
    if (st == WT_OK)
        st = wt_check_dimensions(name, "Netpbm", h.width, h.height, opt->max_pixels);
    /* each side below 2^24: no overflow */
    size_t samples = (size_t)h.width * h.height * (size_t)h.channels;
    if (st == WT_OK)
        st = check_data_size(&r, &h, samples);
    if (st == WT_OK)
        st = wt_memory_check(opt, name, h.width, h.height, h.channels);
    if (st == WT_OK)
        st = wt_image_alloc(img, h.width, h.height, h.channels, h.maxval > 255 ? 16 : 8);
    if (st != WT_OK)
        return st;
    img->color = h.channels == 3 ? WT_COLOR_RGB : WT_COLOR_GRAY;
    st = h.plain ? read_plain(&r, &h, samples, img) : read_raw(&r, &h, samples, img);
    if (st != WT_OK)
        wt_image_free(img);
    return st;
}

/* ---- encoding --------------------------------------------------------------- */

/* Row @p y's gray or RGB samples (alpha dropped), 16-bit ones big-endian. */
static void raw_row(const wt_image *img, int out_channels, uint32_t y, uint8_t *row)
{
    size_t at = (size_t)y * img->width * (size_t)img->channels;
    uint8_t *o = row;
    for (uint32_t x = 0; x < img->width; x++, at += (size_t)img->channels)
        for (int c = 0; c < out_channels; c++) {
            if (img->bit_depth == 8) {
                *o++ = ((const uint8_t *)img->pixels)[at + (size_t)c];
            } else {
                uint16_t v = ((const uint16_t *)img->pixels)[at + (size_t)c];
                *o++ = (uint8_t)(v >> 8);
                *o++ = (uint8_t)v;
            }
        }
}

static wt_status pnm_encode(FILE *fp, const char *name, const wt_image *img,
                            const wt_save_options *opt)
{
    (void)opt;
    if ((img->bit_depth != 8 && img->bit_depth != 16) || img->channels < 1 || img->channels > 4)
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels of %d bits as Netpbm",
                            name, img->channels, img->bit_depth);
    int out_channels = img->channels <= 2 ? 1 : 3;
    size_t row_bytes = (size_t)img->width * (size_t)out_channels * (size_t)(img->bit_depth / 8);
    uint8_t *row = malloc(row_bytes ? row_bytes : 1);
    if (!row)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    int ok = fprintf(fp, "P%c\n%u %u\n%u\n", out_channels == 1 ? '5' : '6', img->width,
                     img->height, img->bit_depth == 8 ? 255u : 65535u) > 0;
    for (uint32_t y = 0; ok && y < img->height; y++) {
        raw_row(img, out_channels, y, row);
        ok = fwrite(row, 1, row_bytes, fp) == row_bytes;
    }
    free(row);
    return ok ? WT_OK : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

/* ---- the registry's row ------------------------------------------------ */

/* "P2" ... "P6" (no P1/P4 bitmaps, no P7 PAM) and a whitespace character. */
static int is_pnm(const uint8_t *data, size_t size)
{
    return size >= 1 && data[0] == 'P' &&
           (size < 2 || data[1] == '2' || data[1] == '3' || data[1] == '5' || data[1] == '6') &&
           (size < 3 || is_space(data[2]));
}

/* The samples the header declares (width x height x channels). */
static uint64_t pnm_probe(const uint8_t *head, size_t size, const char *path)
{
    pnm_reader r = {head, size, 0, path};
    pnm_header h = {0};
    uint64_t samples = 0;
    if (size >= 2 && read_header(&r, &h) == WT_OK)
        samples = (uint64_t)h.width * h.height * (uint64_t)h.channels;
    wt_error_clear(); /* the decode that follows says what is wrong */
    return samples;
}

static const char *const pnm_extensions[] = {"pgm", "ppm", "pnm", NULL};

/* Gray or RGB; alpha is dropped when written. */
const wt_codec wt_codec_pnm = {
    {"Netpbm", pnm_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, 3, 0, NULL, 0},
    is_pnm, 3, pnm_decode, pnm_encode, NULL, NULL, NULL, pnm_probe,
};

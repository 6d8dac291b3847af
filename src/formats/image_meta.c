/* Metadata read from a PNG or JPEG file's bytes (the pixels are the codecs'
 * business): resolution, ICC profile and Exif, kept on the images of the
 * input (wt_image.meta). Bad or odd metadata is left out, never an error: the
 * image decoded. */
#include "image_meta.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static uint32_t be32(const uint8_t *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint16_t be16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

uint8_t *wt_meta_copy(const uint8_t *p, size_t n)
{
    uint8_t *c = n && n <= META_MAX_BYTES ? malloc(n) : NULL;
    if (c)
        memcpy(c, p, n);
    return c;
}

/* Exif bytes start with a TIFF header. */
static int tiff_structured(const uint8_t *p, size_t n)
{
    return n >= 8 && (memcmp(p, "II*\0", 4) == 0 || memcmp(p, "MM\0*", 4) == 0);
}

/* ---- PNG ------------------------------------------------------------------- */

static void png_phys(const uint8_t *d, uint32_t n, wt_image_meta *m)
{
    if (n != 9 || !be32(d) || !be32(d + 4) || d[8] > 1)
        return;
    m->unit = d[8] == 1 ? WT_RES_CM : WT_RES_ASPECT;
    double per = d[8] == 1 ? 100.0 : 1.0; /* pixels per metre -> per centimetre */
    m->xres = be32(d) / per;
    m->yres = be32(d + 4) / per;
}

/* iCCP: a name (1-79 bytes), 0, method 0, the zlib stream of the profile. */
static void png_iccp(const uint8_t *d, uint32_t n, wt_image_meta *m)
{
    const uint8_t *end = memchr(d, 0, n < 80 ? n : 80);
    if (!end || end == d || (size_t)(end - d) + 2 >= n || end[1] != 0)
        return;
    const uint8_t *z = end + 2;
    uLongf size = 1u << 16;
    uint8_t *icc = NULL;
    int rc = Z_BUF_ERROR;
    while (rc == Z_BUF_ERROR && size <= META_MAX_BYTES) {
        uint8_t *grown = realloc(icc, size);
        if (!grown)
            break;
        icc = grown;
        uLongf got = size;
        rc = uncompress(icc, &got, z, (uLong)(n - (uint32_t)(z - d)));
        if (rc == Z_OK && got >= 128) { /* an ICC header is 128 bytes */
            m->icc = icc;
            m->icc_size = got;
            return;
        }
        size *= 4;
    }
    free(icc);
}

static void png_meta(const uint8_t *data, size_t size, wt_image_meta *m)
{
    size_t pos = 8;
    while (pos + 12 <= size) {
        uint32_t n = be32(data + pos);
        const uint8_t *type = data + pos + 4, *body = data + pos + 8;
        if (n > size - pos - 12 || memcmp(type, "IDAT", 4) == 0 || memcmp(type, "IEND", 4) == 0)
            return; /* metadata before the pixels only (eXIf after IDAT is rare) */
        if (memcmp(type, "pHYs", 4) == 0)
            png_phys(body, n, m);
        else if (memcmp(type, "iCCP", 4) == 0 && !m->icc)
            png_iccp(body, n, m);
        else if (memcmp(type, "eXIf", 4) == 0 && !m->exif && tiff_structured(body, n)) {
            m->exif = wt_meta_copy(body, n);
            m->exif_size = m->exif ? n : 0;
        }
        pos += 12 + (size_t)n;
    }
}

/* ---- JPEG ------------------------------------------------------------------ */

static void jfif_density(const uint8_t *d, size_t n, wt_image_meta *m)
{
    if (n < 12 || memcmp(d, "JFIF\0", 5) != 0 || d[7] > 2 || !be16(d + 8) || !be16(d + 10))
        return;
    static const wt_res_unit units[3] = {WT_RES_ASPECT, WT_RES_INCH, WT_RES_CM};
    m->unit = units[d[7]];
    m->xres = be16(d + 8);
    m->yres = be16(d + 10);
}

/* APP2 "ICC_PROFILE\0", sequence number (1..count), count, a piece. */
typedef struct icc_pieces {
    const uint8_t *piece[256];
    size_t size[256];
    int count;
} icc_pieces;

static void icc_piece(const uint8_t *d, size_t n, icc_pieces *p)
{
    if (n < 14 || memcmp(d, "ICC_PROFILE\0", 12) != 0 || !d[12] || d[12] > d[13])
        return;
    p->count = d[13];
    p->piece[d[12] - 1] = d + 14;
    p->size[d[12] - 1] = n - 14;
}

static void icc_join(const icc_pieces *p, wt_image_meta *m)
{
    size_t total = 0;
    for (int i = 0; i < p->count; i++) {
        if (!p->piece[i])
            return; /* a piece missing: left out */
        total += p->size[i];
    }
    uint8_t *icc = total >= 128 && total <= META_MAX_BYTES ? malloc(total) : NULL;
    if (!icc)
        return;
    for (int i = 0, at = 0; i < p->count; at += (int)p->size[i], i++)
        memcpy(icc + at, p->piece[i], p->size[i]);
    m->icc = icc;
    m->icc_size = total;
}

static void jpeg_meta(const uint8_t *data, size_t size, wt_image_meta *m)
{
    icc_pieces icc;
    memset(&icc, 0, sizeof icc);
    size_t pos = 2;
    while (pos + 4 <= size && data[pos] == 0xFF) {
        int marker = data[pos + 1];
        size_t n = be16(data + pos + 2);
        if (marker == 0xDA || marker == 0xD9 || n < 2 || n > size - pos - 2)
            break; /* start of scan: the markers before it are read */
        const uint8_t *d = data + pos + 4;
        if (marker == 0xE0)
            jfif_density(d, n - 2, m);
        else if (marker == 0xE1 && n - 2 > 6 && memcmp(d, "Exif\0\0", 6) == 0 && !m->exif &&
                 tiff_structured(d + 6, n - 8)) {
            m->exif = wt_meta_copy(d + 6, n - 8);
            m->exif_size = m->exif ? n - 8 : 0;
        } else if (marker == 0xE2)
            icc_piece(d, n - 2, &icc);
        pos += 2 + n;
    }
    if (icc.count)
        icc_join(&icc, m);
}

/* ---- the image's reference ------------------------------------------------- */

void wt_meta_read(const wt_codec *c, const uint8_t *data, size_t size, wt_image *img)
{
    wt_image_meta *m = calloc(1, sizeof *m);
    if (!m)
        return;
    if (c == &wt_codec_png)
        png_meta(data, size, m);
    else if (c == &wt_codec_jpeg)
        jpeg_meta(data, size, m);
    wt_meta_attach(img, m);
}

void wt_meta_attach(wt_image *img, wt_image_meta *m)
{
    if (m->unit == WT_RES_NONE && !m->icc && !m->exif) {
        free(m);
        return;
    }
    m->refs = 1; /* a decoded image has no metadata yet */
    img->meta = m;
}

const wt_image_meta *wt_meta_to_write(const wt_image *img, const wt_save_options *opt)
{
    return opt && opt->strip ? NULL : img->meta;
}

/* Metadata read from a PNG or JPEG file's bytes (the pixels are the codecs'
 * business): resolution, ICC profile, Exif, XMP, text, kept on the images of
 * the input (wt_image.meta). Bad, odd or oversized metadata is left out, never
 * an error: the image decoded. */
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

char *wt_meta_text_copy(const uint8_t *p, size_t n)
{
    while (n && !p[n - 1]) /* trailing NULs, as some JPEG comments have */
        n--;
    char *c = n && n <= META_TEXT_MAX && !memchr(p, 0, n) ? malloc(n + 1) : NULL;
    if (c) {
        memcpy(c, p, n);
        c[n] = 0;
    }
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

/* The zlib stream @p z (@p n bytes) inflated into *@p size bytes, or NULL
 * when corrupt, over @p max bytes or out of memory. */
static uint8_t *inflate_bounded(const uint8_t *z, size_t n, size_t max, size_t *size)
{
    z_stream s;
    memset(&s, 0, sizeof s);
    if (n > UINT32_MAX || inflateInit(&s) != Z_OK)
        return NULL;
    s.next_in = (Bytef *)(uintptr_t)z;
    s.avail_in = (uInt)n;
    uint8_t *out = NULL;
    int rc = Z_OK;
    while (rc == Z_OK) {
        if (!s.avail_out) { /* full: doubled, up to max */
            size_t cap = s.total_out ? 2 * s.total_out : 4096;
            uint8_t *grown = s.total_out < max ? realloc(out, cap < max ? cap : max) : NULL;
            if (!grown)
                break;
            out = grown;
            s.next_out = out + s.total_out;
            s.avail_out = (uInt)((cap < max ? cap : max) - s.total_out);
        }
        rc = inflate(&s, Z_NO_FLUSH);
    }
    *size = s.total_out;
    inflateEnd(&s);
    if (rc != Z_STREAM_END) {
        free(out);
        return NULL;
    }
    return out;
}

/* iCCP: a name (1-79 bytes), 0, method 0, the zlib stream of the profile. */
static void png_iccp(const uint8_t *d, uint32_t n, wt_image_meta *m)
{
    const uint8_t *end = memchr(d, 0, n < 80 ? n : 80);
    if (!end || end == d || (size_t)(end - d) + 2 >= n || end[1] != 0)
        return;
    const uint8_t *z = end + 2;
    size_t got = 0;
    uint8_t *icc = inflate_bounded(z, n - (size_t)(z - d), META_MAX_BYTES, &got);
    if (icc && got >= 128) { /* an ICC header is 128 bytes */
        m->icc = icc;
        m->icc_size = got;
    } else
        free(icc);
}

static int is_key(const uint8_t *key, size_t len, const char *name)
{
    return len == strlen(name) && memcmp(key, name, len) == 0;
}

static int is_ascii(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] >= 0x80)
            return 0;
    return 1;
}

/* A record of @p m->text (see wt_image_meta), left out past META_TEXT_MAX in all. */
static void text_append(wt_image_meta *m, int utf8, const uint8_t *key, size_t key_len,
                        const uint8_t *text, size_t len)
{
    size_t need = key_len + len + 3;
    if (memchr(text, 0, len) || need > META_TEXT_MAX - m->text_size)
        return;
    uint8_t *grown = realloc(m->text, m->text_size + need);
    if (!grown)
        return;
    uint8_t *at = grown + m->text_size;
    *at++ = (uint8_t)utf8;
    memcpy(at, key, key_len);
    at[key_len] = 0;
    memcpy(at + key_len + 1, text, len);
    at[key_len + 1 + len] = 0;
    m->text = grown;
    m->text_size += need;
}

/* A PNG text's keyword and text: XMP (iTXt "XML:com.adobe.xmp"), the
 * description (tEXt "Description" in ASCII, or iTXt), or one of the others. */
static void png_keep_text(wt_image_meta *m, int utf8, const uint8_t *key, size_t key_len,
                          const uint8_t *text, size_t len)
{
    if (utf8 && is_key(key, key_len, "XML:com.adobe.xmp")) {
        if (!m->xmp) {
            m->xmp = wt_meta_copy(text, len);
            m->xmp_size = m->xmp ? len : 0;
        }
    } else if (is_key(key, key_len, "Description") && !m->description &&
               (utf8 || is_ascii(text, len)))
        m->description = wt_meta_text_copy(text, len);
    else
        text_append(m, utf8, key, key_len, text, len);
}

/* tEXt: keyword (1-79 bytes), 0, text; zTXt: keyword, 0, method 0, zlib
 * stream; iTXt: keyword, 0, compressed (0/1), method 0, language, 0,
 * translated keyword, 0, text (zlib stream when compressed). */
static void png_text(const uint8_t *type, const uint8_t *d, uint32_t n, wt_image_meta *m)
{
    const uint8_t *key_end = memchr(d, 0, n < 80 ? n : 80), *end = d + n;
    if (!key_end || key_end == d)
        return;
    const uint8_t *p = key_end + 1;
    int utf8 = type[0] == 'i', compressed = type[0] == 'z';
    if (compressed && (p == end || *p++ != 0))
        return;
    if (utf8) {
        if (end - p < 2 || p[0] > 1 || p[1] != 0)
            return;
        compressed = p[0];
        p += 2;
        for (int skip = 0; skip < 2 && p; skip++) { /* language tag, translated keyword */
            p = memchr(p, 0, (size_t)(end - p));
            p = p ? p + 1 : NULL;
        }
        if (!p)
            return;
    }
    size_t key_len = (size_t)(key_end - d), len = (size_t)(end - p);
    int xmp = utf8 && is_key(d, key_len, "XML:com.adobe.xmp");
    uint8_t *inflated = compressed ? inflate_bounded(p, len, xmp ? META_MAX_BYTES : META_TEXT_MAX,
                                                     &len)
                                   : NULL;
    if (!compressed || inflated)
        png_keep_text(m, utf8, d, key_len, inflated ? inflated : p, len);
    free(inflated);
}

static int is_text_chunk(const uint8_t *type)
{
    return memcmp(type, "tEXt", 4) == 0 || memcmp(type, "zTXt", 4) == 0 ||
           memcmp(type, "iTXt", 4) == 0;
}

/* pHYs, iCCP or eXIf (before IDAT only: eXIf after IDAT is rare). */
static void png_image_chunk(const uint8_t *type, const uint8_t *body, uint32_t n,
                            wt_image_meta *m)
{
    if (memcmp(type, "pHYs", 4) == 0)
        png_phys(body, n, m);
    else if (memcmp(type, "iCCP", 4) == 0 && !m->icc)
        png_iccp(body, n, m);
    else if (memcmp(type, "eXIf", 4) == 0 && !m->exif && tiff_structured(body, n)) {
        m->exif = wt_meta_copy(body, n);
        m->exif_size = m->exif ? n : 0;
    }
}

static void png_meta(const uint8_t *data, size_t size, wt_image_meta *m)
{
    int pixels = 0; /* past the first IDAT: text chunks only */
    for (size_t pos = 8; pos + 12 <= size;) {
        uint32_t n = be32(data + pos);
        const uint8_t *type = data + pos + 4, *body = data + pos + 8;
        if (n > size - pos - 12 || memcmp(type, "IEND", 4) == 0)
            return;
        if (memcmp(type, "IDAT", 4) == 0)
            pixels = 1;
        else if (is_text_chunk(type))
            png_text(type, body, n, m);
        else if (!pixels)
            png_image_chunk(type, body, n, m);
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
        } else if (marker == 0xE1 && n - 2 > XMP_ID_SIZE && memcmp(d, XMP_ID, XMP_ID_SIZE) == 0 &&
                   !m->xmp) {
            m->xmp = wt_meta_copy(d + XMP_ID_SIZE, n - 2 - XMP_ID_SIZE);
            m->xmp_size = m->xmp ? n - 2 - XMP_ID_SIZE : 0;
        } else if (marker == 0xE2)
            icc_piece(d, n - 2, &icc);
        else if (marker == 0xFE && !m->description)
            m->description = wt_meta_text_copy(d, n - 2);
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
    if (m->unit == WT_RES_NONE && !m->icc && !m->exif && !m->xmp && !m->text && !m->description) {
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

/* PNG encoding without libpng: rows filtered as the PNG specification says,
 * compressed in one call, and written as signature, IHDR, IDAT chunks of
 * 1 MiB, IEND. Level 1 of 8-bit images goes through our own run-length
 * deflate (png_fastz.c: about 2.5x faster than libdeflate's level 1 on RGB
 * mosaics, 11% larger), other levels and 16-bit images through libdeflate
 * (itself 1.4x faster than zlib's level 1 with Z_RLE and 11% smaller):
 * docs/performance.md, "PNG encoding".
 *
 * Both compress whole buffers only, so an image whose filtered rows
 * take more than WHOLE_MAX bytes (or the environment's WT_PNG_WHOLE_MAX) is
 * streamed through zlib's deflate in slabs of rows instead: memory then stays
 * at a slab, as it was with libpng. Both give the same pixels.
 *
 * Filter: one serves the whole image, picked by the order-0 entropy of its
 * residuals over a sample of rows (mosaics, mostly noise-like detail bands,
 * compress best unfiltered; photographs with a predicting filter). libpng's
 * per-row choice (smallest sum of |residual|) made mosaics 23-30% larger at
 * every level. Level 0 stores, unfiltered. */
#include <errno.h>
#include <libdeflate.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "image_codec.h"
#include "image_meta.h"
#include "png_fastz.h"
#include "wavetool_hooks.h"

#define WHOLE_MAX ((size_t)256 << 20) /* filtered bytes compressed in one libdeflate call */
#define IDAT_CHUNK ((size_t)1 << 20)
#define SLAB_BYTES ((size_t)4 << 20) /* filtered bytes per zlib step when streaming */

enum { FILTER_NONE, FILTER_SUB, FILTER_UP, FILTER_AVG, FILTER_PAETH, FILTER_COUNT };

/* ---- filtering ------------------------------------------------------------ */

typedef struct png_rows {
    const wt_image *img;
    size_t bpp;    /* bytes per pixel */
    size_t stride; /* bytes per row, without the filter byte */
    int swap;      /* 16-bit samples on a little-endian host */
} png_rows;

static png_rows png_rows_of(const wt_image *img)
{
    size_t bpp = (size_t)img->channels * (size_t)(img->bit_depth / 8);
    return (png_rows){img, bpp, bpp * img->width, img->bit_depth == 16 && wt_host_little_endian()};
}

/* @p n bytes of row @p y from byte @p x0 in PNG's byte order (16-bit samples
 * big-endian; @p x0 and @p n even then): the image's own row or @p scratch. */
static const uint8_t *png_order_bytes(const png_rows *r, uint32_t y, size_t x0, size_t n,
                                      uint8_t *scratch)
{
    const uint8_t *p = (const uint8_t *)r->img->pixels + (size_t)y * r->stride + x0;
    if (!r->swap)
        return p;
    for (size_t i = 0; i + 1 < n; i += 2) {
        scratch[i] = p[i + 1];
        scratch[i + 1] = p[i];
    }
    return scratch;
}

static int paeth(int a, int b, int c)
{
    int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);
    return pa <= pb && pa <= pc ? a : (pb <= pc ? b : c);
}

/* The residual of filter @p f at byte i: x minus its prediction from a (left),
 * b (above) and c (above left). */
static inline uint8_t residual(int f, int x, int a, int b, int c)
{
    switch (f) {
    case FILTER_SUB: return (uint8_t)(x - a);
    case FILTER_UP: return (uint8_t)(x - b);
    case FILTER_AVG: return (uint8_t)(x - ((a + b) >> 1));
    case FILTER_PAETH: return (uint8_t)(x - paeth(a, b, c));
    default: return (uint8_t)x;
    }
}

/* ---- the filters 16 bytes at a time (GCC/Clang vector extensions: SSE2 on
 * x86-64, NEON on arm64). A filter's residuals depend on the row's own bytes,
 * not on residuals before them, so bytes [i, i + 16) are one step. The
 * scalar filter_row_bytes is the reference, and the tail of each row;
 * wt_png_filter_check compares the two. Photographs denoised take paeth
 * (40% of a denoised photo's PNG encoding was its byte loop). */

typedef uint8_t u8x16 __attribute__((vector_size(16)));

static u8x16 load16(const uint8_t *p)
{
    u8x16 v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* Paeth's prediction of 16 bytes (a left, b above, c above left) in bytes:
 * pa = |b - c|, pb = |a - c|, and pc = |(b - c) + (a - c)| is pa + pb when
 * b - c and a - c have the same sign (or one is 0), else |pa - pb|; pa + pb
 * saturates at 255, which compares with pa and pb (<= 255) as the sum does. */
#ifdef __SSE2__
static u8x16 paeth16(u8x16 a, u8x16 b, u8x16 c)
{
    const __m128i zero = _mm_setzero_si128();
    __m128i A = (__m128i)a, B = (__m128i)b, C = (__m128i)c;
    __m128i c_minus_b = _mm_subs_epu8(C, B), c_minus_a = _mm_subs_epu8(C, A);
    __m128i pa = _mm_or_si128(_mm_subs_epu8(B, C), c_minus_b);
    __m128i pb = _mm_or_si128(_mm_subs_epu8(A, C), c_minus_a);
    __m128i same = _mm_cmpeq_epi8(_mm_cmpeq_epi8(c_minus_b, zero),
                                  _mm_cmpeq_epi8(c_minus_a, zero)); /* b >= c as a >= c */
    __m128i pa_minus_pb = _mm_subs_epu8(pa, pb);
    __m128i diff = _mm_or_si128(pa_minus_pb, _mm_subs_epu8(pb, pa));
    __m128i pc = _mm_or_si128(_mm_and_si128(same, _mm_adds_epu8(pa, pb)),
                              _mm_andnot_si128(same, diff));
    __m128i take_a = _mm_and_si128(_mm_cmpeq_epi8(pa_minus_pb, zero),
                                   _mm_cmpeq_epi8(_mm_subs_epu8(pa, pc), zero));
    __m128i take_b = _mm_andnot_si128(take_a, _mm_cmpeq_epi8(_mm_subs_epu8(pb, pc), zero));
    __m128i take_c = _mm_andnot_si128(_mm_or_si128(take_a, take_b), C);
    return (u8x16)_mm_or_si128(_mm_or_si128(_mm_and_si128(take_a, A), _mm_and_si128(take_b, B)),
                               take_c);
}
#else
/* |x - y| of bytes. */
static u8x16 absdiff(u8x16 x, u8x16 y)
{
    u8x16 x_above = (u8x16)(x > y);
    return ((x - y) & x_above) | ((y - x) & ~x_above);
}

static u8x16 paeth16(u8x16 a, u8x16 b, u8x16 c)
{
    u8x16 pa = absdiff(b, c), pb = absdiff(a, c);
    u8x16 sum = pa + pb, carry = (u8x16)(sum < pa);
    u8x16 same = ~((u8x16)(b < c) ^ (u8x16)(a < c));
    u8x16 pc = ((sum | carry) & same) | (absdiff(pa, pb) & ~same);
    u8x16 take_a = (u8x16)(pa <= pb) & (u8x16)(pa <= pc);
    u8x16 take_b = ~take_a & (u8x16)(pb <= pc);
    return (a & take_a) | (b & take_b) | (c & ~take_a & ~take_b);
}
#endif

/* Bytes [from, n) of filter @p f, 16 at a time; returns the
 * first byte left to the scalar loop. @p from >= bpp for sub, avg, paeth. */
static size_t filter_vector(int f, const uint8_t *cur, const uint8_t *prev, size_t from,
                            size_t n, size_t bpp, uint8_t *out)
{
    size_t i = from;
    for (; i + 16 <= n; i += 16) {
        u8x16 x = load16(cur + i), r;
        if (f == FILTER_PAETH) {
            r = x - paeth16(load16(cur + i - bpp), load16(prev + i), load16(prev + i - bpp));
        } else if (f == FILTER_SUB) {
            r = x - load16(cur + i - bpp);
        } else if (f == FILTER_UP) {
            r = x - load16(prev + i);
        } else { /* avg: (a + b) >> 1 without a carry out of the byte */
            u8x16 a = load16(cur + i - bpp), b = load16(prev + i);
            r = x - ((a & b) + ((a ^ b) >> 1));
        }
        memcpy(out + i, &r, sizeof r);
    }
    return i;
}

/* Filter @p n bytes @p cur (above: @p prev, zeros for the first row) into
 * @p out from byte @p from (a byte at a time: the reference); one loop per
 * filter so each runs without a branch per byte. */
static void filter_row_bytes(int f, const uint8_t *cur, const uint8_t *prev, size_t from,
                             size_t n, size_t bpp, uint8_t *out)
{
    size_t head = n < bpp ? n : bpp; /* bytes without a left neighbour */
    size_t i = from;
    switch (f) {
    case FILTER_NONE: memcpy(out + from, cur + from, n - from); return;
    case FILTER_SUB:
        for (; i < head; i++)
            out[i] = cur[i];
        for (; i < n; i++)
            out[i] = (uint8_t)(cur[i] - cur[i - bpp]);
        return;
    case FILTER_UP:
        for (; i < n; i++)
            out[i] = (uint8_t)(cur[i] - prev[i]);
        return;
    case FILTER_AVG:
        for (; i < head; i++)
            out[i] = (uint8_t)(cur[i] - (prev[i] >> 1));
        for (; i < n; i++)
            out[i] = (uint8_t)(cur[i] - ((cur[i - bpp] + prev[i]) >> 1));
        return;
    default:
        for (; i < head; i++)
            out[i] = (uint8_t)(cur[i] - prev[i]); /* paeth(0, b, 0) = b */
        for (; i < n; i++)
            out[i] = (uint8_t)(cur[i] - paeth(cur[i - bpp], prev[i], prev[i - bpp]));
    }
}

/* filter_row_bytes of the whole row, its bulk by filter_vector. */
static void filter_row(int f, const uint8_t *cur, const uint8_t *prev, size_t n, size_t bpp,
                       uint8_t *out)
{
    size_t head = f == FILTER_NONE || f == FILTER_UP ? 0 : (n < bpp ? n : bpp);
    filter_row_bytes(f, cur, prev, 0, head, bpp, out);
    size_t done = f == FILTER_NONE ? head : filter_vector(f, cur, prev, head, n, bpp, out);
    filter_row_bytes(f, cur, prev, done, n, bpp, out);
}

int wt_png_filter_check(uint32_t seed)
{
    enum { MOST = 200 };
    uint8_t cur[MOST], prev[MOST], want[MOST], got[MOST];
    int bad = 0;
    for (size_t bpp = 1; bpp <= 8; bpp++)
        for (size_t n = 0; n <= MOST; n += 1 + n / 7)
            for (int f = FILTER_NONE; f < FILTER_COUNT; f++) {
                for (size_t i = 0; i < MOST; i++) { /* xorshift32 */
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    /* every other row of 0-3: ties of paeth's distances */
                    uint8_t mask = n % 2 ? 3 : 0xff;
                    cur[i] = (uint8_t)seed & mask;
                    prev[i] = (uint8_t)(seed >> 8) & mask;
                }
                memset(want, 0xa5, sizeof want);
                memset(got, 0xa5, sizeof got);
                filter_row_bytes(f, cur, prev, 0, n, bpp, want);
                filter_row(f, cur, prev, n, bpp, got);
                bad += memcmp(want, got, MOST) != 0;
            }
    return bad;
}

/* Bits of an order-0 code of a histogram (without the constant N log2 N). */
static double entropy_cost(const uint32_t *hist)
{
    double total = 0, sum = 0;
    for (int v = 0; v < 256; v++) {
        total += hist[v];
        sum += hist[v] ? hist[v] * log2((double)hist[v]) : 0.0;
    }
    return total * log2(total > 0 ? total : 1) - sum;
}

#define SAMPLE_BYTES (64u << 10) /* bytes looked at per filter, at most 1/16 of the image */
#define SAMPLE_WINDOW (16u << 10) /* at most this much of one row */

/* The filter whose residuals look cheapest over a sample of rows; ties go to
 * the cheaper filter (none, sub, up, avg, paeth), and paeth, the slowest to
 * apply, must win by 2%. */
static int choose_image_filter(const png_rows *r)
{
    const wt_image *img = r->img;
    size_t n = r->stride < SAMPLE_WINDOW ? r->stride : SAMPLE_WINDOW / r->bpp * r->bpp;
    size_t budget = r->stride * img->height / 16, rows; /* the image was allocated: no overflow */
    budget = budget < SAMPLE_BYTES ? budget : SAMPLE_BYTES;
    rows = budget / n ? budget / n : 1;
    uint8_t *scratch = malloc(2 * n);
    uint32_t(*hist)[256] = calloc(FILTER_COUNT, sizeof *hist);
    if (!hist || !scratch || img->height < 2) {
        free(scratch);
        free(hist);
        return FILTER_SUB; /* no sample: the usual choice for images */
    }
    rows = rows < img->height - 1 ? rows : img->height - 1;
    for (size_t k = 0; k < rows; k++) {
        /* rows spread over the height; windows of long rows across the width */
        uint32_t y = (uint32_t)(1 + k * (img->height - 1) / rows);
        size_t x0 = (r->stride - n) * k / rows / r->bpp * r->bpp;
        const uint8_t *prev = png_order_bytes(r, y - 1, x0, n, scratch + n);
        const uint8_t *cur = png_order_bytes(r, y, x0, n, scratch);
        for (size_t i = 0; i < n; i++) {
            int a = i >= r->bpp ? cur[i - r->bpp] : 0, c = i >= r->bpp ? prev[i - r->bpp] : 0;
            for (int f = 0; f < FILTER_COUNT; f++)
                hist[f][residual(f, cur[i], a, prev[i], c)]++;
        }
    }
    int best = FILTER_NONE;
    double best_cost = entropy_cost(hist[FILTER_NONE]);
    for (int f = FILTER_SUB; f < FILTER_COUNT; f++) {
        double cost = entropy_cost(hist[f]) * (f == FILTER_PAETH ? 1.02 : 1.0);
        if (cost < best_cost) {
            best = f;
            best_cost = cost;
        }
    }
    free(scratch);
    free(hist);
    return best;
}

/* The row filter across calls: its filter and the previous row. */
typedef struct png_filter {
    png_rows rows;
    int image_filter;
    uint8_t *cur, *prev; /* rows in PNG byte order (16-bit swapped) */
    const uint8_t *above; /* the row above: prev, or the image's own row (8-bit) */
} png_filter;

static void png_filter_free(png_filter *f)
{
    free(f->cur);
    free(f->prev);
}

static wt_status png_filter_init(png_filter *f, const wt_image *img, int level)
{
    *f = (png_filter){.rows = png_rows_of(img)};
    f->image_filter = level == 0 ? FILTER_NONE : choose_image_filter(&f->rows);
    f->cur = malloc(f->rows.stride);
    f->prev = calloc(f->rows.stride, 1);
    f->above = f->prev;
    if (f->cur && f->prev)
        return WT_OK;
    png_filter_free(f);
    return WT_ERR_NOMEM;
}

/* Rows [y0, y1) as PNG stores them (filter byte, residuals) into @p out. */
static void png_filter_rows(png_filter *f, uint32_t y0, uint32_t y1, uint8_t *out)
{
    size_t n = f->rows.stride;
    for (uint32_t y = y0; y < y1; y++, out += n + 1) {
        const uint8_t *own = png_order_bytes(&f->rows, y, 0, n, f->cur);
        out[0] = (uint8_t)f->image_filter;
        filter_row(f->image_filter, own, f->above, n, f->rows.bpp, out + 1);
        if (f->image_filter < FILTER_UP) /* none and sub do not look above */
            continue;
        if (own == f->cur) { /* swapped bytes: the scratch row is overwritten next */
            memcpy(f->prev, own, n);
            f->above = f->prev;
        } else {
            f->above = own;
        }
    }
}

/* ---- chunks ---------------------------------------------------------------- */

typedef struct png_writer {
    FILE *fp;
    const char *name;
    int write_errno;
} png_writer;

static void put_be32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void write_bytes(png_writer *w, const void *p, size_t n)
{
    if (!w->write_errno && n && fwrite(p, 1, n, w->fp) != n)
        w->write_errno = errno ? errno : EIO;
}

static void write_chunk(png_writer *w, const char type[4], const uint8_t *data, size_t n)
{
    uint8_t head[8], crc[4];
    put_be32(head, (uint32_t)n);
    memcpy(head + 4, type, 4);
    uint32_t sum = libdeflate_crc32(0, type, 4);
    if (n) /* a NULL buffer restarts libdeflate's CRC */
        sum = libdeflate_crc32(sum, data, n);
    put_be32(crc, sum);
    write_bytes(w, head, 8);
    write_bytes(w, data, n);
    write_bytes(w, crc, 4);
}

static void write_idat(png_writer *w, const uint8_t *z, size_t n)
{
    for (size_t at = 0; at < n; at += IDAT_CHUNK)
        write_chunk(w, "IDAT", z + at, n - at < IDAT_CHUNK ? n - at : IDAT_CHUNK);
}

static void write_header(png_writer *w, const wt_image *img)
{
    static const uint8_t signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    static const uint8_t color_type[5] = {0, 0, 4, 2, 6}; /* gray, gray+alpha, RGB, RGBA */
    uint8_t ihdr[13];
    put_be32(ihdr, img->width);
    put_be32(ihdr + 4, img->height);
    ihdr[8] = (uint8_t)img->bit_depth;
    ihdr[9] = color_type[img->channels];
    ihdr[10] = ihdr[11] = ihdr[12] = 0; /* deflate, adaptive filtering, no interlace */
    write_bytes(w, signature, sizeof signature);
    write_chunk(w, "IHDR", ihdr, sizeof ihdr);
}

/* tEXt (Latin-1) or uncompressed iTXt (@p utf8: no language) of @p key and
 * the @p n bytes of @p text; left out when out of memory. */
static void write_text_chunk(png_writer *w, const char *key, const void *text, size_t n,
                             int utf8)
{
    size_t key_size = strlen(key) + 1, head = key_size + (utf8 ? 4 : 0);
    uint8_t *chunk = malloc(head + n);
    if (!chunk)
        return;
    memcpy(chunk, key, key_size);
    memset(chunk + key_size, 0, head - key_size); /* flag, method, language, translated key */
    memcpy(chunk + head, text, n);
    write_chunk(w, utf8 ? "iTXt" : "tEXt", chunk, head + n);
    free(chunk);
}

/* XMP, the description (tEXt when ASCII, else iTXt) and the other texts of @p m. */
static void write_text_chunks(png_writer *w, const wt_image_meta *m)
{
    if (m->xmp)
        write_text_chunk(w, "XML:com.adobe.xmp", m->xmp, m->xmp_size, 1);
    if (m->description) {
        size_t n = strlen(m->description), i = 0;
        while (i < n && (uint8_t)m->description[i] < 0x80)
            i++;
        write_text_chunk(w, "Description", m->description, n, i < n);
    }
    for (size_t at = 0; at < m->text_size;) { /* records: kind, key, 0, text, 0 */
        const char *key = (const char *)m->text + at + 1, *text = key + strlen(key) + 1;
        size_t n = strlen(text);
        write_text_chunk(w, key, text, n, m->text[at]);
        at = (size_t)(text + n + 1 - (const char *)m->text);
    }
}

/* pHYs (pixels per metre, or an aspect ratio), iCCP, eXIf and text of @p m,
 * between IHDR and IDAT; a profile that does not compress is left out. */
static void write_metadata_chunks(png_writer *w, const wt_image_meta *m)
{
    if (!m)
        return;
    if (m->unit != WT_RES_NONE) {
        double per_metre = m->unit == WT_RES_INCH ? 100.0 / 2.54 : m->unit == WT_RES_CM ? 100.0 : 1.0;
        uint8_t phys[9];
        put_be32(phys, (uint32_t)lrint(m->xres * per_metre));
        put_be32(phys + 4, (uint32_t)lrint(m->yres * per_metre));
        phys[8] = m->unit != WT_RES_ASPECT; /* 1: metres */
        write_chunk(w, "pHYs", phys, sizeof phys);
    }
    if (m->icc) {
        static const char name[] = "ICC Profile"; /* then 0, method 0 */
        struct libdeflate_compressor *c = libdeflate_alloc_compressor(9);
        size_t bound = c ? libdeflate_zlib_compress_bound(c, m->icc_size) : 0;
        uint8_t *chunk = c ? malloc(sizeof name + 1 + bound) : NULL;
        size_t z = chunk ? libdeflate_zlib_compress(c, m->icc, m->icc_size, chunk + sizeof name + 1,
                                                    bound)
                         : 0;
        if (z) {
            memcpy(chunk, name, sizeof name);
            chunk[sizeof name] = 0;
            write_chunk(w, "iCCP", chunk, sizeof name + 1 + z);
        }
        free(chunk);
        libdeflate_free_compressor(c);
    }
    if (m->exif)
        write_chunk(w, "eXIf", m->exif, m->exif_size);
    write_text_chunks(w, m);
}

/* ---- compression ----------------------------------------------------------- */

static size_t whole_max(void)
{
    return wt_env_count(wt_env()->png_whole_max, WHOLE_MAX);
}

/* Level 1's compressor: the fast run-length deflate for 8-bit images (on
 * mosaics about 2.5x faster than libdeflate's level 1; 11% larger on RGB,
 * 3% smaller on gray), libdeflate for 16-bit ones (their samples repeat at
 * distances runs miss: a third larger), unless WT_PNG_DEFLATE names one.
 * docs/performance.md, "PNG encoding". */
static int use_fastz(const wt_image *img, int level)
{
    const char *v = wt_env()->png_deflate;
    if (level != 1)
        return 0;
    if (v && (strcmp(v, "fastz") == 0 || strcmp(v, "libdeflate") == 0))
        return strcmp(v, "fastz") == 0;
    return img->bit_depth == 8; /* 16-bit: 33% larger than libdeflate's (docs) */
}

/* Every filtered row in one buffer, compressed in one call: by the fast
 * run-length deflate (use_fastz) or libdeflate. */
static wt_status write_whole(png_writer *w, png_filter *f, size_t filtered, int level)
{
    int fast = use_fastz(f->rows.img, level);
    uint8_t *rows = malloc(filtered);
    struct libdeflate_compressor *c = fast ? NULL : libdeflate_alloc_compressor(level);
    size_t bound = fast ? wt_fastz_bound(filtered)
                        : c ? libdeflate_zlib_compress_bound(c, filtered) : 0;
    uint8_t *z = bound ? malloc(bound) : NULL;
    size_t n = 0;
    if (rows && z) {
        png_filter_rows(f, 0, f->rows.img->height, rows);
        n = fast ? wt_fastz_compress(rows, filtered, (unsigned)f->rows.img->bit_depth / 8,
                                     (unsigned)f->rows.bpp, z)
                 : libdeflate_zlib_compress(c, rows, filtered, z, bound);
        write_idat(w, z, n);
    }
    free(rows);
    free(z);
    libdeflate_free_compressor(c);
    return n ? WT_OK : WT_ERR_NOMEM;
}

/* Slabs of rows through zlib's deflate, IDAT chunks as the output fills. */
static wt_status write_streamed(png_writer *w, png_filter *f, int level)
{
    const wt_image *img = f->rows.img;
    uint32_t slab_rows = (uint32_t)(SLAB_BYTES / (f->rows.stride + 1));
    slab_rows = slab_rows ? slab_rows : 1;
    uint8_t *rows = malloc((size_t)slab_rows * (f->rows.stride + 1)), *z = malloc(IDAT_CHUNK);
    z_stream zs = {0};
    int ok = rows && z && deflateInit(&zs, level) == Z_OK;
    for (uint32_t y = 0; ok && y < img->height; y += slab_rows) {
        uint32_t y1 = img->height - y < slab_rows ? img->height : y + slab_rows;
        png_filter_rows(f, y, y1, rows);
        zs.next_in = rows;
        zs.avail_in = (uInt)((size_t)(y1 - y) * (f->rows.stride + 1));
        int flush = y1 == img->height ? Z_FINISH : Z_NO_FLUSH, rc;
        do {
            zs.next_out = z;
            zs.avail_out = (uInt)IDAT_CHUNK;
            rc = deflate(&zs, flush);
            write_idat(w, z, IDAT_CHUNK - zs.avail_out);
        } while (rc == Z_OK && (zs.avail_out == 0 || zs.avail_in));
        ok = flush == Z_FINISH ? rc == Z_STREAM_END : rc == Z_OK || rc == Z_BUF_ERROR;
    }
    deflateEnd(&zs);
    free(rows);
    free(z);
    return ok ? WT_OK : WT_ERR_NOMEM;
}

static wt_status check_encodable(const char *name, const wt_image *img)
{
    if (img->channels < 1 || img->channels > 4 || (img->bit_depth != 8 && img->bit_depth != 16))
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels of %d bits as PNG",
                            name, img->channels, img->bit_depth);
    if (!img->width || !img->height || img->width > 0x7fffffffu || img->height > 0x7fffffffu)
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write a %ux%u PNG", name, img->width,
                            img->height);
    return WT_OK;
}

wt_status wt_png_encode(FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt)
{
    wt_status st = check_encodable(name, img);
    if (st != WT_OK)
        return st;
    int level = wt_save_option_value(&wt_codec_png, "level", opt);
    png_filter f;
    if (png_filter_init(&f, img, level) != WT_OK)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    png_writer w = {fp, name, 0};
    write_header(&w, img);
    write_metadata_chunks(&w, wt_meta_to_write(img, opt));
    size_t filtered = (f.rows.stride + 1) * img->height; /* the image was allocated: no overflow */
    st = filtered <= whole_max() ? write_whole(&w, &f, filtered, level)
                                 : write_streamed(&w, &f, level);
    png_filter_free(&f);
    if (st != WT_OK)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory for the PNG encoder", name);
    write_chunk(&w, "IEND", NULL, 0);
    if (!w.write_errno && fflush(fp) != 0)
        w.write_errno = errno ? errno : EIO;
    if (w.write_errno)
        return wt_error_set(WT_ERR_IO, "%s: %s", name, strerror(w.write_errno));
    return WT_OK;
}

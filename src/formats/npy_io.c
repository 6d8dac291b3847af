/* NumPy .npy arrays as images: a 2-D array (H, W) is gray, a 3-D array
 * (H, W, C) with C = 1-WT_MAX_CHANNELS has C channels; uint8/16/32,
 * int8/16/32, float32/64, either byte order, C or Fortran order, format
 * versions 1-3 (the header through the shared parser, src/npy_header.c).
 * uint8 and uint16 are held exactly; the other types as float32 with their
 * type remembered. Written as version 1.0, C order, little-endian, of the
 * image's stored type ('|u1', '<u2', '<i2', '<f4', ...), as numpy.save writes.
 *
 * The file is hostile: the header is parsed within its declared length (at
 * most 64 KiB), the shape goes through the limits of every image read, and
 * the data must be exactly what the shape says before anything is allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "image_codec.h"
#include "input.h"
#include "npy_header.h"

#define NPY_HEADER_MAX (64u << 10)

/* The array as this codec reads it. */
typedef struct npy_array {
    wt_sample_type type;
    int swap;          /* stored in the byte order other than the host's */
    wt_npy_header h;
} npy_array;

static wt_status header_error(const char *name, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: bad .npy header (%s)", name, what);
}

static wt_status dtype_refused(const char *name, const char *descr, const char *why)
{
    return wt_error_set(WT_ERR_UNSUPPORTED,
                        "%s: .npy arrays of type '%s' are not read (%s; uint8/16/32, "
                        "int8/16/32, float32 and float64 are)",
                        name, descr, why);
}

/* descr through the shared dtype parser, under this codec's policy: the
 * sample types the image codecs know, a byte order for multi-byte types. */
static wt_status parse_descr(const char *name, const char *d, npy_array *a)
{
    wt_npy_dtype t;
    switch (wt_npy_parse_dtype(d, &t)) {
    case WT_DTYPE_OK: break;
    case WT_DTYPE_BOOL: return dtype_refused(name, d, "booleans are not samples");
    case WT_DTYPE_COMPLEX: return dtype_refused(name, d, "complex numbers are not samples");
    case WT_DTYPE_NOT_NUMERIC: return dtype_refused(name, d, "not a plain numeric type");
    }
    a->type.kind = t.kind == 'u' ? WT_SAMPLE_UINT : t.kind == 'i' ? WT_SAMPLE_INT : WT_SAMPLE_FLOAT;
    a->type.bits = 8 * t.itemsize;
    if (!wt_sample_type_known(a->type))
        return dtype_refused(name, d, t.itemsize == 8 ? "64-bit integers" : "an unsupported size");
    if (t.order == '|' && t.itemsize > 1)
        return header_error(name, "multi-byte type without a byte order");
    a->swap = t.swap;
    return WT_OK;
}

static wt_status read_header(const uint8_t *data, size_t size, const char *name, npy_array *a)
{
    memset(a, 0, sizeof *a);
    switch (wt_npy_parse_header(data, size, NPY_HEADER_MAX, &a->h)) {
    case WT_NPY_OK: break;
    case WT_NPY_NOT_NPY:
        return size >= 7 && (data[6] < 1 || data[6] > 3)
                   ? wt_error_set(WT_ERR_UNSUPPORTED, "%s: .npy format version %d", name, data[6])
                   : header_error(name, "no .npy magic");
    case WT_NPY_TRUNCATED: return wt_error_set(WT_ERR_FORMAT, "%s: truncated .npy header", name);
    case WT_NPY_BAD:
        return header_error(name, "not a dict of descr, fortran_order and shape");
    }
    return parse_descr(name, a->h.descr, a);
}

/* ---- decoding --------------------------------------------------------------- */

/* The image's channels from the shape: (H, W) or (H, W, C), C = 1-WT_MAX_CHANNELS. */
static wt_status image_shape(const char *name, const wt_npy_header *h, int *channels)
{
    *channels = h->ndim == 3 ? (int)(h->shape[2] > WT_MAX_CHANNELS ? 0 : h->shape[2]) : 1;
    if (h->ndim < 2 || h->ndim > 3 || !*channels)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: .npy array of %d dimensions%s is not an image (H x W, or "
                            "H x W x C with C = 1-%d; a 3-D stack of pages: --stack first|last)",
                            name, h->ndim, h->ndim == 3 ? " with that many channels" : "",
                            WT_MAX_CHANNELS);
    return WT_OK;
}

/* Byte offset of sample (y, x, ch) in the data, C or Fortran order. */
static size_t sample_offset(const npy_array *a, const wt_image *img, uint32_t y, uint32_t x,
                            int ch)
{
    size_t C = (size_t)img->channels, H = img->height, W = img->width;
    size_t i = a->h.fortran ? ((size_t)ch * W + x) * H + y
                            : ((size_t)y * W + x) * C + (size_t)ch;
    return i * (size_t)(a->type.bits / 8);
}

static void decode_samples(const uint8_t *base, const npy_array *a, wt_image *img)
{
    if (!a->h.fortran && !a->swap && wt_sample_type_is_exact(a->type)) { /* as held */
        memcpy(img->pixels, base, wt_image_bytes(img));
        return;
    }
    size_t at = 0;
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++)
            for (int ch = 0; ch < img->channels; ch++, at++)
                wt_image_set_sample(img, at,
                                    wt_sample_load(base + sample_offset(a, img, y, x, ch),
                                                   a->type, a->swap));
}

wt_status wt_npy_decode(const void *data, size_t size, const char *name,
                        const wt_load_options *opt, wt_image *img)
{
    npy_array a;
    int channels = 0, ok = 1;
    memset(img, 0, sizeof *img);
    wt_status st = read_header(data, size, name, &a);
    if (st == WT_OK)
        st = image_shape(name, &a.h, &channels);
    if (st == WT_OK)
        st = wt_check_dimensions(name, "NPY", a.h.shape[1], a.h.shape[0], opt->max_pixels);
    /* each side < 2^24 once checked, channels <= 64, items <= 8 bytes: no overflow */
    uint64_t need = st == WT_OK ? wt_npy_data_bytes(&a.h, (uint64_t)a.type.bits / 8, &ok) : 0;
    if (st == WT_OK && need != size - a.h.header_len)
        st = wt_error_set(WT_ERR_FORMAT, "%s: .npy data of %llu bytes, its shape says %llu",
                          name, (unsigned long long)(size - a.h.header_len),
                          (unsigned long long)need);
    if (st == WT_OK)
        st = wt_memory_check_samples(opt, name, (uint32_t)a.h.shape[1], (uint32_t)a.h.shape[0],
                                     channels, wt_sample_type_is_exact(a.type)
                                                   ? WT_MEMORY_PER_SAMPLE
                                                   : WT_MEMORY_PER_FLOAT_SAMPLE);
    if (st == WT_OK)
        st = wt_image_alloc(img, (uint32_t)a.h.shape[1], (uint32_t)a.h.shape[0], channels,
                            wt_sample_type_depth(a.type));
    if (st != WT_OK)
        return st;
    img->color = (wt_color)channels;
    if (img->bit_depth == WT_DEPTH_F32)
        img->stored = a.type;
    decode_samples((const uint8_t *)data + a.h.header_len, &a, img);
    return WT_OK;
}

/* ---- encoding --------------------------------------------------------------- */

/* numpy's descr of @p t, little-endian: '|u1', '<u2', '<i4', '<f8' */
static void descr_of(wt_sample_type t, char *out, size_t cap)
{
    snprintf(out, cap, "%c%c%d", t.bits == 8 ? '|' : '<',
             t.kind == WT_SAMPLE_FLOAT ? 'f' : t.kind == WT_SAMPLE_INT ? 'i' : 'u', t.bits / 8);
}

/* The version-1 header of an array of @p img's samples (type @p descr), C
 * order: (H, W[, C]), or (@p pages, H, W[, C]) when @p stacked. */
static int write_header(FILE *fp, const wt_image *img, const char *descr, int stacked,
                        size_t pages)
{
    uint64_t shape[4];
    int ndim = 0;
    char header[256];
    if (stacked)
        shape[ndim++] = pages;
    shape[ndim++] = img->height;
    shape[ndim++] = img->width;
    if (img->channels != 1)
        shape[ndim++] = (uint64_t)img->channels;
    size_t total = wt_npy_format_header(header, sizeof header, descr, shape, ndim);
    return total && fwrite(header, 1, total, fp) == total;
}

/* The samples as @p t, little-endian, a row at a time. */
static int write_samples(FILE *fp, const wt_image *img, wt_sample_type t)
{
    size_t per_row = (size_t)img->width * (size_t)img->channels, item = (size_t)t.bits / 8;
    int swap = !wt_host_little_endian(), ok = 1;
    uint8_t *row = malloc((per_row ? per_row : 1) * item);
    if (!row)
        return 0;
    for (uint32_t y = 0; ok && y < img->height; y++) {
        wt_image_store_row(img, t, swap, y, row);
        ok = fwrite(row, item, per_row, fp) == per_row;
    }
    free(row);
    return ok;
}

wt_status wt_npy_encode(FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt)
{
    (void)opt;
    wt_status st = wt_image_check_writable(img, name, ".npy");
    if (st != WT_OK)
        return st;
    wt_sample_type t = wt_image_stored(img);
    char descr[16];
    descr_of(t, descr, sizeof descr);
    int ok = write_header(fp, img, descr, 0, 0);
    if (ok && wt_sample_type_depth(t) == img->bit_depth && img->bit_depth != WT_DEPTH_F32 &&
        (img->bit_depth == 8 || wt_host_little_endian())) { /* uint8/16 as they are */
        size_t samples = (size_t)img->width * img->height * (size_t)img->channels;
        ok = fwrite(img->pixels, (size_t)img->bit_depth / 8, samples, fp) == samples;
    } else if (ok) {
        ok = write_samples(fp, img, t);
    }
    return ok ? WT_OK : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

static int is_npy(const uint8_t *data, size_t size)
{
    return wt_starts_like(data, size, WT_NPY_MAGIC, 6);
}

/* The product of the shape: every sample of every page and channel. */
static uint64_t npy_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)path;
    wt_npy_header h;
    if (wt_npy_parse_header(head, size, size, &h) != WT_NPY_OK)
        return 0;
    uint64_t samples = 1;
    for (int i = 0; i < h.ndim; i++)
        samples = h.shape[i] && samples > UINT64_MAX / h.shape[i] ? UINT64_MAX : samples * h.shape[i];
    return samples;
}

/* ---- pages: a 3-D array read one 2-D page at a time ------------------------
 * The file is mapped; a page's samples are gathered through the strides of
 * its layout and order, and the mapped part is released after each page, so
 * a stack takes the memory of one page (plus, for a pages-last or Fortran
 * layout, the file's pages the gather touched until they are released). */

typedef struct wt_npy_pages {
    const char *name;
    npy_array a;
    const uint8_t *map;
    size_t map_size;
    size_t count;
    uint32_t width, height;
    int channels;                                        /* (N, H, W, C): C; else 1 */
    uint64_t stride_page, stride_y, stride_x, stride_c; /* in elements */
} wt_npy_pages;

/* Strides of (page, y, x) for (N, H, W) or (H, W, N), C or Fortran order. */
static void page_strides(wt_npy_pages *n, int pages_first)
{
    uint64_t d0 = n->a.h.shape[0], d1 = n->a.h.shape[1], d2 = n->a.h.shape[2];
    /* element (i, j, k) of (d0, d1, d2): C (i d1 + j) d2 + k; Fortran i + d0 (j + d1 k) */
    uint64_t s0 = n->a.h.fortran ? 1 : d1 * d2, s1 = n->a.h.fortran ? d0 : d2,
             s2 = n->a.h.fortran ? d0 * d1 : 1;
    if (pages_first) {
        n->count = (size_t)d0;
        n->height = (uint32_t)d1, n->width = (uint32_t)d2;
        n->stride_page = s0, n->stride_y = s1, n->stride_x = s2;
    } else {
        n->count = (size_t)d2;
        n->height = (uint32_t)d0, n->width = (uint32_t)d1;
        n->stride_page = s2, n->stride_y = s0, n->stride_x = s1;
    }
}

/* (N, H, W, C): N pages of C channels, C or Fortran order. */
static wt_status channel_strides(wt_npy_pages *n, const wt_load_options *opt)
{
    const uint64_t *d = n->a.h.shape;
    if (opt->stack == WT_STACK_LAST || d[3] < 1 || d[3] > WT_MAX_CHANNELS)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: a 4-D .npy is read as (N, H, W, C) pages of C = 1-%d channels "
                            "(--stack first), not (%llu, %llu, %llu, %llu)%s",
                            n->name, WT_MAX_CHANNELS, (unsigned long long)d[0],
                            (unsigned long long)d[1], (unsigned long long)d[2],
                            (unsigned long long)d[3],
                            opt->stack == WT_STACK_LAST ? " with --stack last" : "");
    n->count = (size_t)d[0];
    n->height = (uint32_t)d[1], n->width = (uint32_t)d[2];
    n->channels = (int)d[3];
    if (n->a.h.fortran) {
        n->stride_page = 1, n->stride_y = d[0], n->stride_x = d[0] * d[1];
        n->stride_c = d[0] * d[1] * d[2];
    } else {
        n->stride_c = 1, n->stride_x = d[3], n->stride_y = d[2] * d[3];
        n->stride_page = d[1] * d[2] * d[3];
    }
    return WT_OK;
}

static wt_status page_shape(wt_npy_pages *n, const wt_load_options *opt)
{
    n->channels = 1;
    if (n->a.h.ndim == 4) {
        const uint64_t *d = n->a.h.shape;
        wt_status st = d[1] <= WT_MAX_SIDE && d[2] <= WT_MAX_SIDE
                           ? channel_strides(n, opt)
                           : wt_check_dimensions(n->name, "NPY", d[2], d[1], opt->max_pixels);
        if (st != WT_OK)
            return st;
    } else if (n->a.h.ndim == 2) { /* one page */
        n->a.h.shape[2] = n->a.h.shape[1], n->a.h.shape[1] = n->a.h.shape[0], n->a.h.shape[0] = 1;
        page_strides(n, 1);
        n->stride_page = 0;
        if (n->a.h.fortran) /* (H, W) Fortran: y + H x */
            n->stride_y = 1, n->stride_x = n->height;
    } else if (n->a.h.ndim == 3) {
        page_strides(n, opt->stack != WT_STACK_LAST);
    } else {
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: a .npy stack of %d dimensions (2 to 4 are read as pages)",
                            n->name, n->a.h.ndim);
    }
    if (n->count == 0)
        return wt_error_set(WT_ERR_FORMAT, "%s: a .npy stack of no pages", n->name);
    return wt_check_dimensions(n->name, "NPY", n->width, n->height, opt->max_pixels);
}

static void pages_close(void *state);

/* A 3-D array's pages under --stack first|last; otherwise (*state NULL) one image. */
static wt_status pages_open(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                            void **state, size_t *count)
{
    *state = NULL;
    if (opt->stack == WT_STACK_AUTO)
        return WT_OK;
    wt_npy_pages *n = calloc(1, sizeof *n);
    if (!n)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", name);
    n->name = name;
    wt_status st = size > 0 && size <= SIZE_MAX ? WT_OK
                                                 : wt_error_set(WT_ERR_FORMAT, "%s: empty file",
                                                                name);
    if (st == WT_OK) {
        n->map_size = (size_t)size;
        void *map = mmap(NULL, n->map_size, PROT_READ, MAP_PRIVATE, fd, 0);
        n->map = map == MAP_FAILED ? NULL : map;
        if (!n->map)
            st = wt_error_set(WT_ERR_IO, "%s: cannot map the file", name);
    }
    if (st == WT_OK)
        st = read_header(n->map, n->map_size, name, &n->a);
    if (st == WT_OK)
        st = page_shape(n, opt);
    /* the data must be exactly what the shape says (each factor checked above) */
    uint64_t item = (uint64_t)n->a.type.bits / 8;
    uint64_t need = st == WT_OK ? (uint64_t)n->count * n->width * n->height * item : 0;
    if (st == WT_OK && (double)n->count * n->width * n->height * item >= 0x1p63)
        st = wt_error_set(WT_ERR_LIMIT, "%s: a stack too large to address", name);
    if (st == WT_OK && (double)need * n->channels >= 0x1p63)
        st = wt_error_set(WT_ERR_LIMIT, "%s: a stack too large to address", name);
    need *= (uint64_t)n->channels;
    if (st == WT_OK && need != size - n->a.h.header_len)
        st = wt_error_set(WT_ERR_FORMAT, "%s: .npy data of %llu bytes, its shape says %llu",
                          name, (unsigned long long)(size - n->a.h.header_len),
                          (unsigned long long)need);
    if (st != WT_OK) {
        pages_close(n);
        return st;
    }
    *count = n->count;
    *state = n;
    return WT_OK;
}

/* Give the mapped file's pages back (they are read again from the page cache if needed). */
static void release_map(const wt_npy_pages *n)
{
    madvise((void *)(uintptr_t)n->map, n->map_size, MADV_DONTNEED);
}

/* Rows [@p y0, @p y0 + img's height) of page @p k into @p img (the page's
 * width and channels). */
static void copy_rows(const wt_npy_pages *n, size_t k, uint32_t y0, wt_image *img)
{
    const uint8_t *base = n->map + n->a.h.header_len;
    uint64_t item = (uint64_t)n->a.type.bits / 8;
    size_t at = 0;
    for (uint32_t y = y0; y < y0 + img->height; y++)
        for (uint32_t x = 0; x < n->width; x++)
            for (int c = 0; c < n->channels; c++, at++) {
                uint64_t i = k * n->stride_page + y * n->stride_y + x * n->stride_x +
                             (uint64_t)c * n->stride_c;
                wt_image_set_sample(img, at,
                                    wt_sample_load(base + i * item, n->a.type, n->a.swap));
            }
}

static wt_status pages_read(void *state, size_t k, const wt_load_options *opt, wt_image *img)
{
    const wt_npy_pages *n = state;
    memset(img, 0, sizeof *img);
    int depth = wt_sample_type_depth(n->a.type);
    wt_status st = k < n->count
                       ? wt_memory_check_samples(opt, n->name, n->width, n->height, n->channels,
                                                 depth == WT_DEPTH_F32 ? WT_MEMORY_PER_FLOAT_SAMPLE
                                                                       : WT_MEMORY_PER_SAMPLE)
                       : wt_error_set(WT_ERR_INVALID, "%s: no page %zu", n->name, k);
    if (st == WT_OK)
        st = wt_image_alloc(img, n->width, n->height, n->channels, depth);
    if (st != WT_OK)
        return st;
    img->color = (wt_color)n->channels;
    if (img->bit_depth == WT_DEPTH_F32)
        img->stored = n->a.type;
    copy_rows(n, k, 0, img);
    release_map(n);
    return WT_OK;
}

/* Rows of a page read again: bands of about a million samples. */
#define BAND_SAMPLES ((size_t)1 << 20)

static wt_status pages_read_rows(void *state, size_t k, wt_rows_fn fn, void *ctx)
{
    const wt_npy_pages *n = state;
    size_t per_row = (size_t)n->width * (size_t)n->channels;
    uint32_t rows = per_row < BAND_SAMPLES ? (uint32_t)(BAND_SAMPLES / per_row) : 1;
    rows = rows < n->height ? rows : n->height;
    wt_image band = {0};
    wt_status st = k < n->count ? wt_image_alloc(&band, n->width, rows, n->channels,
                                                 wt_sample_type_depth(n->a.type))
                                : wt_error_set(WT_ERR_INVALID, "%s: no page %zu", n->name, k);
    for (uint32_t y0 = 0; st == WT_OK && y0 < n->height; y0 += rows) {
        band.height = n->height - y0 < rows ? n->height - y0 : rows;
        copy_rows(n, k, y0, &band);
        release_map(n);
        st = fn(ctx, &band, y0);
    }
    wt_image_free(&band);
    return st;
}

static void pages_close(void *state)
{
    wt_npy_pages *n = state;
    if (!n)
        return;
    if (n->map)
        munmap((void *)(uintptr_t)n->map, n->map_size);
    free(n);
}

/* ---- pages written one at a time: (N, H, W) or (N, H, W, C), C order ----- */

static wt_status writer_start(FILE *fp, const char *name, const wt_image *page, size_t pages,
                              void **state)
{
    char descr[16];
    *state = NULL; /* the header says it all: each page is appended */
    descr_of(wt_image_stored(page), descr, sizeof descr);
    return write_header(fp, page, descr, 1, pages) ? WT_OK
                                                : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

static wt_status writer_add(void *state, FILE *fp, const char *name, const wt_image *page)
{
    (void)state;
    wt_sample_type t = wt_image_stored(page);
    if (!wt_sample_type_known(t))
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d-bit samples as .npy", name,
                            page->bit_depth);
    return write_samples(fp, page, t) ? WT_OK : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

/* ---- the registry's row ------------------------------------------------ */

static const wt_page_reader npy_pages_in = {pages_open, pages_read, pages_close,
                                           pages_read_rows};
static const wt_page_writer npy_pages_out = {writer_start, writer_add, NULL, NULL, 0};

static const char *const npy_extensions[] = {"npy", NULL};

const wt_codec wt_codec_npy = {
    {"NPY", npy_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, WT_MAX_CHANNELS, 1, NULL, 0},
    is_npy, 10, wt_npy_decode, wt_npy_encode,
    NULL, &npy_pages_in, &npy_pages_out, npy_probe,
};

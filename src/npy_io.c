/* NumPy .npy arrays as images: a 2-D array (H, W) is gray, a 3-D array
 * (H, W, C) with C = 1-4 has C channels; uint8 or uint16, either byte order,
 * C or Fortran order, format versions 1-3. Written as version 1.0, C order,
 * little-endian ('|u1' or '<u2'), exactly as numpy.save writes them.
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

#define NPY_MAGIC "\x93NUMPY"
#define NPY_HEADER_MAX (64u << 10)
#define NPY_ALIGN 64

/* What the header dictionary says. */
typedef struct npy_header {
    char order;        /* '<' '>' or '|' */
    int itemsize;      /* 1 or 2 */
    int fortran;       /* 1: column-major */
    uint64_t shape[3]; /* H, W, C (the first 3 of ndim) */
    int ndim;
    size_t data_offset;
} npy_header;

/* ---- the header dictionary, a Python literal ---------------------------- */

typedef struct cursor {
    const char *p, *end;
} cursor;

static void skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n'))
        c->p++;
}

static int accept(cursor *c, char ch)
{
    skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A quoted string ('...' or "...") into @p out (cut to @p cap). */
static int read_string(cursor *c, char *out, size_t cap)
{
    skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (n + 1 < cap)
            out[n++] = *c->p;
        c->p++;
    }
    out[n] = '\0';
    return c->p < c->end && *c->p++ == quote;
}

static int read_word(cursor *c, const char *word)
{
    size_t len = strlen(word);
    skip_space(c);
    if ((size_t)(c->end - c->p) < len || memcmp(c->p, word, len) != 0)
        return 0;
    c->p += len;
    return 1;
}

static int read_uint(cursor *c, uint64_t *v)
{
    skip_space(c);
    const char *start = c->p;
    *v = 0;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        if (*v > (UINT64_MAX - 9) / 10)
            return 0;
        *v = *v * 10 + (uint64_t)(*c->p++ - '0');
    }
    skip_space(c);
    if (c->p < c->end && *c->p == 'L') /* Python 2's longs */
        c->p++;
    return c->p > start;
}

/* (H, W) or (H, W, C); "(N,)" and "()" are read too (and refused later). */
static int read_shape(cursor *c, npy_header *h)
{
    if (!accept(c, '('))
        return 0;
    h->ndim = 0;
    while (!accept(c, ')')) {
        uint64_t v;
        if (h->ndim == 32 || !read_uint(c, &v)) /* numpy's most dimensions */
            return 0;
        if (h->ndim < 3)
            h->shape[h->ndim] = v;
        h->ndim++;
        if (!accept(c, ','))
            return accept(c, ')');
    }
    return 1;
}

/* descr: [<>|=]u1 or [<>|=]u2 ('=' is the host's order) */
static int parse_descr(const char *d, npy_header *h)
{
    char order = d[0];
    if (order != '<' && order != '>' && order != '|' && order != '=')
        return 0;
    if (order == '=')
        order = wt_host_little_endian() ? '<' : '>';
    if (d[1] != 'u' || (d[2] != '1' && d[2] != '2') || d[3])
        return 0;
    h->order = order;
    h->itemsize = d[2] - '0';
    return 1;
}

static wt_status header_error(const char *name, const char *what)
{
    return wt_error_set(WT_ERR_FORMAT, "%s: bad .npy header (%s)", name, what);
}

static wt_status parse_dict(const char *name, cursor *c, npy_header *h)
{
    char key[32], descr[32] = "";
    int seen = 0;
    if (!accept(c, '{'))
        return header_error(name, "no dictionary");
    while (!accept(c, '}')) {
        if (!read_string(c, key, sizeof key) || !accept(c, ':'))
            return header_error(name, "unreadable dictionary");
        int is_true = 0;
        if (!strcmp(key, "descr") && read_string(c, descr, sizeof descr)) {
            seen |= 1;
        } else if (!strcmp(key, "fortran_order") &&
                   ((is_true = read_word(c, "True")) || read_word(c, "False"))) {
            h->fortran = is_true;
            seen |= 2;
        } else if (!strcmp(key, "shape") && read_shape(c, h)) {
            seen |= 4;
        } else {
            return header_error(name, "unexpected key or value");
        }
        if (!accept(c, ','))
            break;
    }
    if (seen != 7)
        return header_error(name, "descr, fortran_order and shape are needed");
    if (!parse_descr(descr, h))
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: .npy arrays of type '%s' are not read (uint8 and uint16 are)",
                            name, descr);
    return WT_OK;
}

static wt_status read_header(const uint8_t *data, size_t size, const char *name, npy_header *h)
{
    memset(h, 0, sizeof *h);
    if (size < 10)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated .npy file", name);
    int major = data[6];
    size_t len_bytes = major == 1 ? 2 : 4, start = 8 + len_bytes;
    if (major < 1 || major > 3)
        return wt_error_set(WT_ERR_UNSUPPORTED, "%s: .npy format version %d", name, major);
    if (size < start)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated .npy file", name);
    uint64_t len = data[8] | (uint64_t)data[9] << 8;
    if (len_bytes == 4)
        len |= (uint64_t)data[10] << 16 | (uint64_t)data[11] << 24;
    if (len > NPY_HEADER_MAX || len > size - start)
        return wt_error_set(WT_ERR_FORMAT, "%s: truncated .npy header", name);
    cursor c = {(const char *)data + start, (const char *)data + start + len};
    h->data_offset = start + (size_t)len;
    return parse_dict(name, &c, h);
}

/* ---- decoding --------------------------------------------------------------- */

/* The image's channels from the shape: (H, W) or (H, W, C), C = 1-4. */
static wt_status image_shape(const char *name, const npy_header *h, int *channels)
{
    *channels = h->ndim == 3 ? (int)(h->shape[2] > 4 ? 0 : h->shape[2]) : 1;
    if (h->ndim < 2 || h->ndim > 3 || !*channels)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: .npy array of %d dimensions%s is not an image (H x W, or "
                            "H x W x C with C = 1-4; a 3-D stack of pages: --stack first|last)",
                            name, h->ndim, h->ndim == 3 ? " with more than 4 channels" : "");
    return WT_OK;
}

/* Sample (y, x, ch) of the array, as stored (order and byte order). */
static unsigned sample(const uint8_t *base, const npy_header *h, const wt_image *img, uint32_t y,
                       uint32_t x, int ch)
{
    size_t C = (size_t)img->channels, H = img->height, W = img->width;
    size_t i = h->fortran ? ((size_t)ch * W + x) * H + y : ((size_t)y * W + x) * C + (size_t)ch;
    if (h->itemsize == 1)
        return base[i];
    const uint8_t *p = base + 2 * i;
    return h->order == '>' ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
}

wt_status wt_npy_decode(const void *data, size_t size, const char *name,
                        const wt_load_options *opt, wt_image *img)
{
    npy_header h;
    int channels = 0;
    memset(img, 0, sizeof *img);
    wt_status st = read_header(data, size, name, &h);
    if (st == WT_OK)
        st = image_shape(name, &h, &channels);
    if (st == WT_OK)
        st = wt_check_dimensions(name, "NPY", h.shape[1], h.shape[0], opt->max_pixels);
    /* each side < 2^24 once checked: no overflow */
    uint64_t need = st == WT_OK ? h.shape[0] * h.shape[1] * (uint64_t)channels * (uint64_t)h.itemsize
                                : 0;
    if (st == WT_OK && need != size - h.data_offset)
        st = wt_error_set(WT_ERR_FORMAT, "%s: .npy data of %llu bytes, its shape says %llu",
                          name, (unsigned long long)(size - h.data_offset),
                          (unsigned long long)need);
    if (st == WT_OK)
        st = wt_memory_check(opt, name, (uint32_t)h.shape[1], (uint32_t)h.shape[0], channels);
    if (st == WT_OK)
        st = wt_image_alloc(img, (uint32_t)h.shape[1], (uint32_t)h.shape[0], channels,
                            8 * h.itemsize);
    if (st != WT_OK)
        return st;
    img->color = (wt_color)channels;
    const uint8_t *base = (const uint8_t *)data + h.data_offset;
    size_t at = 0;
    for (uint32_t y = 0; y < img->height; y++)
        for (uint32_t x = 0; x < img->width; x++)
            for (int ch = 0; ch < channels; ch++, at++) {
                unsigned v = sample(base, &h, img, y, x, ch);
                if (h.itemsize == 1)
                    ((uint8_t *)img->pixels)[at] = (uint8_t)v;
                else
                    ((uint16_t *)img->pixels)[at] = (uint16_t)v;
            }
    return WT_OK;
}

/* ---- encoding --------------------------------------------------------------- */

wt_status wt_npy_encode(FILE *fp, const char *name, const wt_image *img,
                        const wt_save_options *opt)
{
    (void)opt;
    if (img->channels < 1 || img->channels > 4 || (img->bit_depth != 8 && img->bit_depth != 16))
        return wt_error_set(WT_ERR_INVALID, "%s: cannot write %d channels of %d bits as .npy",
                            name, img->channels, img->bit_depth);
    char dict[160], header[256];
    if (img->channels == 1)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%u, %u), }",
                 img->bit_depth == 8 ? "|u1" : "<u2", img->height, img->width);
    else
        snprintf(dict, sizeof dict,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (%u, %u, %d), }",
                 img->bit_depth == 8 ? "|u1" : "<u2", img->height, img->width, img->channels);
    size_t len = strlen(dict), total = (10 + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memcpy(header, NPY_MAGIC "\x01\x00", 8);
    header[8] = (char)((total - 10) & 0xff);
    header[9] = (char)((total - 10) >> 8);
    memcpy(header + 10, dict, len);
    memset(header + 10 + len, ' ', total - 10 - len - 1);
    header[total - 1] = '\n';
    int ok = fwrite(header, 1, total, fp) == total;
    size_t samples = (size_t)img->width * img->height * (size_t)img->channels;
    if (img->bit_depth == 8 || wt_host_little_endian()) {
        ok = ok && fwrite(img->pixels, img->bit_depth / 8, samples, fp) == samples;
    } else {
        const uint16_t *s = img->pixels;
        for (size_t i = 0; ok && i < samples; i++) {
            uint8_t le[2] = {(uint8_t)s[i], (uint8_t)(s[i] >> 8)};
            ok = fwrite(le, 1, 2, fp) == 2;
        }
    }
    return ok ? WT_OK : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

/* ---- the registry's row ------------------------------------------------ */

static int is_npy(const uint8_t *data, size_t size)
{
    return wt_starts_like(data, size, NPY_MAGIC, 6);
}

static const char *const npy_extensions[] = {"npy", NULL};

const wt_codec wt_codec_npy = {
    {"NPY", npy_extensions, WT_HOLDS_IMAGE, 1u << 8 | 1u << 16, 4, 0},
    is_npy, 10, wt_npy_decode, wt_npy_encode,
};

/* ---- pages: a 3-D array read one 2-D page at a time ------------------------
 * The file is mapped; a page's samples are gathered through the strides of
 * its layout and order, and the mapped part is released after each page, so
 * a stack takes the memory of one page (plus, for a pages-last or Fortran
 * layout, the file's pages the gather touched until they are released). */

struct wt_npy_pages {
    const char *name;
    npy_header h;
    const uint8_t *map;
    size_t map_size;
    size_t count;
    uint32_t width, height;
    uint64_t stride_page, stride_y, stride_x; /* in elements */
};

/* Strides of (page, y, x) for (N, H, W) or (H, W, N), C or Fortran order. */
static void page_strides(wt_npy_pages *n, int pages_first)
{
    uint64_t d0 = n->h.shape[0], d1 = n->h.shape[1], d2 = n->h.shape[2];
    /* element (i, j, k) of (d0, d1, d2): C (i d1 + j) d2 + k; Fortran i + d0 (j + d1 k) */
    uint64_t s0 = n->h.fortran ? 1 : d1 * d2, s1 = n->h.fortran ? d0 : d2,
             s2 = n->h.fortran ? d0 * d1 : 1;
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

static wt_status page_shape(wt_npy_pages *n, const wt_load_options *opt)
{
    if (n->h.ndim == 2) { /* one page */
        n->h.shape[2] = n->h.shape[1], n->h.shape[1] = n->h.shape[0], n->h.shape[0] = 1;
        page_strides(n, 1);
        n->stride_page = 0;
        if (n->h.fortran) /* (H, W) Fortran: y + H x */
            n->stride_y = 1, n->stride_x = n->height;
    } else if (n->h.ndim == 3) {
        page_strides(n, opt->stack != WT_STACK_LAST);
    } else {
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: a .npy stack of %d dimensions (2 or 3 are read as pages)",
                            n->name, n->h.ndim);
    }
    if (n->count == 0)
        return wt_error_set(WT_ERR_FORMAT, "%s: a .npy stack of no pages", n->name);
    return wt_check_dimensions(n->name, "NPY", n->width, n->height, opt->max_pixels);
}

wt_status wt_npy_pages_open(int fd, uint64_t size, const char *name, const wt_load_options *opt,
                            wt_npy_pages **out, size_t *count, wt_image *layout)
{
    *out = NULL;
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
        st = read_header(n->map, n->map_size, name, &n->h);
    if (st == WT_OK)
        st = page_shape(n, opt);
    /* the data must be exactly what the shape says (each factor checked above) */
    uint64_t need = st == WT_OK ? (uint64_t)n->count * n->width * n->height * (uint64_t)n->h.itemsize
                                : 0;
    if (st == WT_OK && n->count > UINT64_MAX / ((uint64_t)1 << 48))
        st = wt_error_set(WT_ERR_LIMIT, "%s: too many pages", name);
    if (st == WT_OK && need != size - n->h.data_offset)
        st = wt_error_set(WT_ERR_FORMAT, "%s: .npy data of %llu bytes, its shape says %llu",
                          name, (unsigned long long)(size - n->h.data_offset),
                          (unsigned long long)need);
    if (st != WT_OK) {
        wt_npy_pages_close(n);
        return st;
    }
    memset(layout, 0, sizeof *layout);
    layout->width = n->width;
    layout->height = n->height;
    layout->channels = 1;
    layout->bit_depth = 8 * n->h.itemsize;
    layout->color = WT_COLOR_GRAY;
    *count = n->count;
    *out = n;
    return WT_OK;
}

/* Give the mapped file's pages back (they are read again from the page cache if needed). */
static void release_map(const wt_npy_pages *n)
{
    madvise((void *)(uintptr_t)n->map, n->map_size, MADV_DONTNEED);
}

wt_status wt_npy_pages_read(wt_npy_pages *n, size_t k, const wt_load_options *opt,
                            wt_image *img)
{
    memset(img, 0, sizeof *img);
    wt_status st = k < n->count ? wt_memory_check(opt, n->name, n->width, n->height, 1)
                                : wt_error_set(WT_ERR_INVALID, "%s: no page %zu", n->name, k);
    if (st == WT_OK)
        st = wt_image_alloc(img, n->width, n->height, 1, 8 * n->h.itemsize);
    if (st != WT_OK)
        return st;
    img->color = WT_COLOR_GRAY;
    const uint8_t *base = n->map + n->h.data_offset;
    int big = n->h.order == '>';
    size_t at = 0;
    for (uint32_t y = 0; y < n->height; y++)
        for (uint32_t x = 0; x < n->width; x++, at++) {
            uint64_t i = k * n->stride_page + y * n->stride_y + x * n->stride_x;
            if (n->h.itemsize == 1) {
                ((uint8_t *)img->pixels)[at] = base[i];
            } else {
                const uint8_t *p = base + 2 * i;
                ((uint16_t *)img->pixels)[at] =
                    (uint16_t)(big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0]);
            }
        }
    release_map(n);
    return WT_OK;
}

void wt_npy_pages_close(wt_npy_pages *n)
{
    if (!n)
        return;
    if (n->map)
        munmap((void *)(uintptr_t)n->map, n->map_size);
    free(n);
}

/* ---- pages written one at a time: (N, H, W) or (N, H, W, C), C order ----- */

wt_status wt_npy_write_stack_header(FILE *fp, const char *name, const wt_image *page,
                                    size_t pages)
{
    char dict[192], header[256];
    const char *descr = page->bit_depth == 8 ? "|u1" : "<u2";
    if (page->channels == 1)
        snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %u, %u), }",
                 descr, pages, page->height, page->width);
    else
        snprintf(dict, sizeof dict,
                 "{'descr': '%s', 'fortran_order': False, 'shape': (%zu, %u, %u, %d), }", descr,
                 pages, page->height, page->width, page->channels);
    size_t len = strlen(dict), total = (10 + len + 1 + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    memcpy(header, NPY_MAGIC "\x01\x00", 8);
    header[8] = (char)((total - 10) & 0xff);
    header[9] = (char)((total - 10) >> 8);
    memcpy(header + 10, dict, len);
    memset(header + 10 + len, ' ', total - 10 - len - 1);
    header[total - 1] = '\n';
    return fwrite(header, 1, total, fp) == total ? WT_OK
                                                 : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

wt_status wt_npy_write_stack_page(FILE *fp, const char *name, const wt_image *page)
{
    size_t samples = (size_t)page->width * page->height * (size_t)page->channels;
    int ok = 1;
    if (page->bit_depth == 8 || wt_host_little_endian()) {
        ok = fwrite(page->pixels, (size_t)page->bit_depth / 8, samples, fp) == samples;
    } else {
        const uint16_t *s = page->pixels;
        for (size_t i = 0; ok && i < samples; i++) {
            uint8_t le[2] = {(uint8_t)s[i], (uint8_t)(s[i] >> 8)};
            ok = fwrite(le, 1, 2, fp) == 2;
        }
    }
    return ok ? WT_OK : wt_error_set(WT_ERR_IO, "%s: write error", name);
}

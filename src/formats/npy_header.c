/* The .npy header: magic, version, length and the dict, a Python literal,
 * parsed within its declared length. */
#include "npy_header.h"

#include <stdio.h>
#include <string.h>

#include "image_codec.h" /* wt_host_little_endian */

#define NPY_ALIGN 64

typedef wt_text_cursor cursor;

void wt_cursor_skip_space(cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

int wt_cursor_accept_char(cursor *c, char ch)
{
    wt_cursor_skip_space(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

int wt_cursor_accept_word(cursor *c, const char *word)
{
    size_t n = strlen(word);
    wt_cursor_skip_space(c);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, word, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

/* A Python string literal without escapes ('<f4', 'shape'), shorter than @p cap. */
static int py_string(cursor *c, char *out, size_t cap)
{
    wt_cursor_skip_space(c);
    if (c->p >= c->end || (*c->p != '\'' && *c->p != '"'))
        return 0;
    char quote = *c->p++;
    size_t n = 0;
    while (c->p < c->end && *c->p != quote) {
        if (*c->p == '\\' || n + 1 >= cap)
            return 0;
        out[n++] = *c->p++;
    }
    out[n] = '\0';
    return c->p++ < c->end;
}

/* A non-negative decimal integer below 2^63 (Python 2's trailing L accepted). */
static int py_uint(cursor *c, uint64_t *v)
{
    wt_cursor_skip_space(c);
    *v = 0;
    const char *start = c->p;
    while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
        unsigned digit = (unsigned)(*c->p++ - '0');
        if (*v > ((UINT64_C(1) << 63) - 1 - digit) / 10)
            return 0;
        *v = *v * 10 + digit;
    }
    if (c->p > start && c->p < c->end && *c->p == 'L')
        c->p++;
    return c->p > start;
}

/* "()", "(3,)", "(3, 4)", "(3, 4,)" */
static int py_shape(cursor *c, wt_npy_header *h)
{
    if (!wt_cursor_accept_char(c, '('))
        return 0;
    h->ndim = 0;
    while (!wt_cursor_accept_char(c, ')')) {
        if (h->ndim == WT_NPY_MAX_DIMS || !py_uint(c, &h->shape[h->ndim++]))
            return 0;
        if (!wt_cursor_accept_char(c, ','))
            return wt_cursor_accept_char(c, ')');
    }
    return 1;
}

/* One "key: value" of the dict; @p seen's bits: 1 descr, 2 fortran_order, 4 shape. */
static int dict_pair(cursor *c, wt_npy_header *h, int *seen)
{
    char key[16];
    if (!py_string(c, key, sizeof key) || !wt_cursor_accept_char(c, ':'))
        return 0;
    if (strcmp(key, "descr") == 0 && !(*seen & 1)) {
        *seen |= 1;
        return py_string(c, h->descr, sizeof h->descr);
    }
    if (strcmp(key, "fortran_order") == 0 && !(*seen & 2)) {
        *seen |= 2;
        h->fortran = wt_cursor_accept_word(c, "True");
        return h->fortran || wt_cursor_accept_word(c, "False");
    }
    if (strcmp(key, "shape") == 0 && !(*seen & 4)) {
        *seen |= 4;
        return py_shape(c, h);
    }
    return 0;
}

static int parse_dict(cursor *c, wt_npy_header *h)
{
    int seen = 0;
    if (!wt_cursor_accept_char(c, '{'))
        return 0;
    while (!wt_cursor_accept_char(c, '}')) {
        if (!dict_pair(c, h, &seen))
            return 0;
        if (!wt_cursor_accept_char(c, ','))
            return wt_cursor_accept_char(c, '}') && seen == 7;
    }
    return seen == 7;
}

wt_npy_result wt_npy_parse_header(const uint8_t *data, size_t size, size_t max_dict,
                                  wt_npy_header *h)
{
    memset(h, 0, sizeof *h);
    if (size < 10 || memcmp(data, WT_NPY_MAGIC, 6) != 0)
        return size < 10 && memcmp(data, WT_NPY_MAGIC, size < 6 ? size : 6) == 0
                   ? WT_NPY_TRUNCATED
                   : WT_NPY_NOT_NPY;
    int major = data[6];
    if (major < 1 || major > 3 || data[7] != 0)
        return WT_NPY_NOT_NPY;
    size_t prefix = major == 1 ? 10 : 12; /* v2/v3: a 4-byte header length */
    if (size < prefix)
        return WT_NPY_TRUNCATED;
    uint64_t dict_len = (uint64_t)data[8] | (uint64_t)data[9] << 8;
    if (major > 1)
        dict_len |= (uint64_t)data[10] << 16 | (uint64_t)data[11] << 24;
    if (dict_len > max_dict || dict_len > size - prefix)
        return WT_NPY_TRUNCATED;
    cursor c = {(const char *)data + prefix, (const char *)data + prefix + dict_len};
    int parsed = parse_dict(&c, h);
    wt_cursor_skip_space(&c); /* the padding */
    if (!parsed || c.p != c.end)
        return WT_NPY_BAD;
    h->header_len = prefix + (size_t)dict_len;
    return WT_NPY_OK;
}

uint64_t wt_npy_data_bytes(const wt_npy_header *h, uint64_t itemsize, int *ok)
{
    uint64_t n = itemsize;
    *ok = 1;
    for (int i = 0; i < h->ndim; i++) {
        if (h->shape[i] && n > UINT64_MAX / h->shape[i]) {
            *ok = 0;
            return 0;
        }
        n *= h->shape[i];
    }
    return n;
}

wt_npy_dtype_result wt_npy_parse_dtype(const char *descr, wt_npy_dtype *d)
{
    memset(d, 0, sizeof *d);
    d->order = descr[0];
    if (d->order != '<' && d->order != '>' && d->order != '|' && d->order != '=')
        return WT_DTYPE_NOT_NUMERIC;
    d->kind = descr[1];
    if (d->kind == 'b' || d->kind == '?')
        return WT_DTYPE_BOOL;
    if (d->kind == 'c')
        return WT_DTYPE_COMPLEX;
    d->itemsize = descr[2] >= '1' && descr[2] <= '9' && !descr[3] ? descr[2] - '0' : 0;
    if ((d->kind != 'u' && d->kind != 'i' && d->kind != 'f') || !d->itemsize)
        return WT_DTYPE_NOT_NUMERIC;
    int little = d->order == '<' || (d->order == '=' && wt_host_little_endian());
    d->swap = d->itemsize > 1 && d->order != '|' && little != wt_host_little_endian();
    return WT_DTYPE_OK;
}

void wt_npy_shape_text(char *out, size_t cap, const uint64_t *shape, int ndim)
{
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < ndim && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%llu", i ? ", " : "",
                              (unsigned long long)shape[i]);
    if (ndim == 1 && n < cap)
        snprintf(out + n, cap - n, ",");
}

size_t wt_npy_format_header(char *buf, size_t cap, const char *descr, const uint64_t *shape,
                            int ndim)
{
    char dims[192], dict[256];
    wt_npy_shape_text(dims, sizeof dims, shape, ndim);
    int len = snprintf(dict, sizeof dict,
                       "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", descr, dims);
    if (len < 0 || (size_t)len >= sizeof dict)
        return 0;
    size_t total = 10 + (size_t)len + 1; /* magic, version, length, dict, '\n' */
    total = (total + NPY_ALIGN - 1) / NPY_ALIGN * NPY_ALIGN;
    if (total > cap)
        return 0;
    memcpy(buf, WT_NPY_MAGIC "\x01\x00", 8);
    buf[8] = (char)((total - 10) & 0xff);
    buf[9] = (char)((total - 10) >> 8);
    memcpy(buf + 10, dict, (size_t)len);
    memset(buf + 10 + len, ' ', total - 10 - (size_t)len - 1);
    buf[total - 1] = '\n';
    return total;
}

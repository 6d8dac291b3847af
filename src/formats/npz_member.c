/* The .npy members of a coefficient file: see zip_entry.h. */
#include "npz_member.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "image_codec.h"

char npz_host_order(void)
{
    return wt_host_little_endian() ? '<' : '>';
}

void npz_swap4(void *data, size_t count)
{
    uint8_t *p = data;
    for (size_t i = 0; i < count; i++, p += 4) {
        uint8_t a = p[0], b = p[1];
        p[0] = p[3];
        p[1] = p[2];
        p[2] = b;
        p[3] = a;
    }
}

size_t npz_array_header(char *buf, size_t cap, char kind, int itemsize, const uint64_t *shape,
                        int ndim)
{
    char descr[8];
    snprintf(descr, sizeof descr, "%c%c%d", itemsize == 1 ? '|' : npz_host_order(), kind,
             itemsize);
    return wt_npy_format_header(buf, cap, descr, shape, ndim);
}

void npz_write_array(zip_writer *w, const char *name, char kind, int itemsize,
                     const uint64_t *shape, int ndim, const void *data)
{
    char header[256];
    uint64_t bytes = (uint64_t)itemsize;
    for (int i = 0; i < ndim; i++)
        bytes *= shape[i];
    size_t header_len = npz_array_header(header, sizeof header, kind, itemsize, shape, ndim);
    zip_write_member(w, name, header, header_len, data, bytes);
}

/* This reader's dtypes: f, i or u of 1-8 bytes, any byte order. */
static int parse_descr(const char *descr, npy_array *a)
{
    wt_npy_dtype t;
    if (wt_npy_parse_dtype(descr, &t) != WT_DTYPE_OK || t.itemsize > 8)
        return 0;
    a->kind = t.kind;
    a->itemsize = t.itemsize;
    a->swap = t.swap;
    return t.order != '|' || a->itemsize == 1;
}

/* The shared parser's header under this reader's policy: its dtypes, C order,
 * a length that fits. */
static int npy_array_from(const wt_npy_header *h, npy_array *a)
{
    int ok = 0;
    if (!parse_descr(h->descr, a) || h->fortran) /* Fortran order: the data would be transposed */
        return 0;
    a->ndim = h->ndim;
    memcpy(a->shape, h->shape, sizeof a->shape);
    a->header_len = h->header_len;
    a->data_len = wt_npy_data_bytes(h, (uint64_t)a->itemsize, &ok);
    return ok;
}

wt_status npz_read_header(const zip_reader *r, const zip_entry *m, npy_array *a, uint8_t *buf,
                          size_t cap)
{
    memset(a, 0, sizeof *a);
    if (m->size < 10)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not a .npy array", r->name, m->name);
    size_t first = m->size < cap ? (size_t)m->size : cap;
    wt_status st = zip_entry_read(r, m, 0, buf, first);
    if (st != WT_OK)
        return st;
    wt_npy_header h;
    wt_npy_result res = wt_npy_parse_header(buf, first, cap, &h);
    if (res == WT_NPY_NOT_NPY)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not a .npy array", r->name, m->name);
    if (res != WT_NPY_OK || !npy_array_from(&h, a))
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s has a bad .npy header", r->name,
                            m->name);
    return WT_OK;
}

/* The member holds exactly the bytes its shape needs. */
wt_status npz_check_data_len(const zip_reader *r, const zip_entry *m, const npy_array *a)
{
    if (a->data_len != m->size - a->header_len)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: member %s holds %llu data bytes, its shape needs %llu",
                            r->name, m->name, (unsigned long long)(m->size - a->header_len),
                            (unsigned long long)a->data_len);
    return WT_OK;
}

void npz_format_shape(char *out, size_t cap, const uint64_t *shape, int ndim)
{
    char dims[256];
    wt_npy_shape_text(dims, sizeof dims, shape, ndim);
    snprintf(out, cap, "(%s)", dims);
}

/* Read a whole small member's data (after its .npy header) and check its CRC. */
wt_status npz_read_small(const zip_reader *r, const zip_entry *m, uint8_t *buf, size_t cap)
{
    if (m->size > cap)
        return wt_error_set(WT_ERR_LIMIT, "%s: member %s is too large", r->name, m->name);
    wt_status st = zip_entry_read(r, m, 0, buf, m->size);
    if (st == WT_OK && zip_crc_update(zip_crc_start(), buf, m->size) != m->crc)
        st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)", r->name,
                          m->name);
    return st;
}

/* @p a's shape is @p expected (@p ndim axes), or that without its leading
 * axis of 1 (a one-channel volume's member written by numpy) when
 * @p ndim > 3. */
static int shape_matches(const npy_array *a, const uint64_t *expected, int ndim)
{
    int skip = a->ndim == ndim - 1 && ndim > 3 && expected[0] == 1;
    if (a->ndim != ndim - skip)
        return 0;
    for (int k = 0; k < a->ndim; k++)
        if (a->shape[k] != expected[k + skip])
            return 0;
    return 1;
}

static wt_status check_band_header(const zip_reader *r, const zip_entry *m, const npy_array *a,
                                   char want, const uint64_t *expected, int ndim)
{
    if (a->kind != want || a->itemsize != 4)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is not %s", r->name, m->name,
                            want == 'i' ? "int32" : "float32");
    if (!shape_matches(a, expected, ndim)) {
        char got[160], exp[96];
        npz_format_shape(got, sizeof got, a->shape, a->ndim);
        npz_format_shape(exp, sizeof exp, expected, ndim);
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s has shape %s, expected %s", r->name,
                            m->name, got, exp);
    }
    return WT_OK;
}

wt_status npz_read_array(const zip_reader *r, const zip_directory *d, const char *name, char kind,
                         const uint64_t *expected, uint8_t *dst)
{
    return npz_read_array_nd(r, d, name, kind, expected, 3, dst);
}

wt_status npz_read_array_nd(const zip_reader *r, const zip_directory *d, const char *name,
                            char kind, const uint64_t *expected, int ndim, uint8_t *dst)
{
    uint8_t header[NPZ_HEADER_CAP];
    npy_array a;
    const zip_entry *m = zip_find(d, name);
    if (!m)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is missing", r->name, name);
    wt_status st = npz_read_header(r, m, &a, header, sizeof header);
    if (st == WT_OK)
        st = check_band_header(r, m, &a, kind, expected, ndim);
    if (st == WT_OK)
        st = npz_check_data_len(r, m, &a);
    if (st == WT_OK)
        st = zip_entry_read(r, m, a.header_len, dst, a.data_len);
    if (st != WT_OK)
        return st;
    uint32_t crc = zip_crc_update(zip_crc_start(), header, a.header_len);
    if (zip_crc_update(crc, dst, a.data_len) != m->crc)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)", r->name,
                            m->name);
    if (a.swap)
        npz_swap4(dst, (size_t)(a.data_len / 4));
    return WT_OK;
}

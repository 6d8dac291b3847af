/* Coefficient files of stacks: a leading page axis, written and read a page
 * at a time. Every member is stored (N, C, h, w): its size is known before the
 * first page, so each member's place is reserved in the output and each page's
 * bands are written at their offsets; the CRCs run on page by page (pages come
 * in order) and the local headers, the meta and the directory are written last.
 * Members and their shapes come from the layout (src/npz_layout.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "coeff_meta.h"
#include "image_codec.h"
#include "input.h"
#include "npz_layout.h"
#include "npz_member.h"
#include "transform.h"
#include "wavetool_hooks.h"
#include "wavetool.h"

/* A member of a stack: its .npy header and the bytes of one page. */
typedef struct stack_member {
    char header[256];
    size_t header_len;
    uint64_t page_bytes, data_start;
} stack_member;

struct wt_npz_stack_writer {
    wt_outfile out;
    zip_writer w;
    wt_npz_meta meta;
    int nmembers, undecimated;
    stack_member sm[ZIP_MAX_MEMBERS];
    wt_pyramid plan; /* DWT: the pages' plan (data NULL) */
    uint64_t end, written;
};

/* The members' places: each local header, .npy header and N pages. */
static void reserve_members(wt_npz_stack_writer *s, const wt_uparams *up)
{
    uint64_t pos = 0, n = s->meta.pages;
    char kind = !s->undecimated && s->plan.dtype == WT_INT32 ? 'i' : 'f';
    s->nmembers = s->undecimated ? npz_ustack_members(up) : npz_dwt_members(&s->plan);
    for (int i = 0; i < s->nmembers; i++) {
        zip_member *m = &s->w.members[i];
        stack_member *sm = &s->sm[i];
        char name[ZIP_NAME_CAP];
        uint64_t shape[4] = {n, (uint64_t)s->meta.channels, s->meta.height, s->meta.width};
        if (s->undecimated)
            npz_ustack_member_name(up, i, name);
        else
            npz_dwt_member(&s->plan, i, name, shape + 1);
        snprintf(m->name, sizeof m->name, "%s.npy", name);
        sm->header_len = npz_array_header(sm->header, sizeof sm->header, kind, 4, shape, 4);
        sm->page_bytes = shape[1] * shape[2] * shape[3] * 4;
        m->offset = pos;
        m->size = m->csize = sm->header_len + n * sm->page_bytes;
        m->crc = zip_crc_update(zip_crc_start(), sm->header, sm->header_len);
        sm->data_start = pos + zip_local_header_len(m) + sm->header_len;
        pos = sm->data_start + n * sm->page_bytes;
    }
    s->w.count = s->nmembers;
    s->end = pos;
}

static wt_status stack_writer_error(const wt_npz_stack_writer *s)
{
    return wt_error_set(WT_ERR_IO, "%s: %s", s->w.path, strerror(s->w.error));
}

wt_status wt_npz_stack_writer_open(const char *path, const wt_npz_meta *meta,
                                   const wt_pyramid *shape, const wt_uparams *ustack,
                                   wt_npz_stack_writer **out)
{
    *out = NULL;
    if (strcmp(path, "-") == 0)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "(stdout): a stack's coefficient file is written in place: not to "
                            "standard output");
    if (meta->compress)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: --compress is not available for stacks (members are written "
                            "in place, page by page)", path);
    if (!meta->pages || (!ustack && (!shape || shape->levels != meta->levels)))
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            path);
    wt_npz_stack_writer *s = calloc(1, sizeof *s);
    if (!s)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    s->meta = *meta;
    s->meta.image = NULL; /* the input's metadata: stored by files of one image only */
    s->undecimated = ustack != NULL;
    if (shape) {
        s->plan = *shape;
        s->plan.data = NULL, s->plan.owned = 0;
    }
    wt_status st = wt_outfile_open(&s->out, path);
    if (st != WT_OK) {
        free(s);
        return st;
    }
    s->w.fp = s->out.fp;
    s->w.path = path;
    reserve_members(s, ustack);
    *out = s;
    return WT_OK;
}

/* Page s->written of member @p i from @p data. */
static void add_member_page(wt_npz_stack_writer *s, int i, const void *data)
{
    stack_member *sm = &s->sm[i];
    zip_write_at(&s->w, sm->data_start + s->written * sm->page_bytes, data, sm->page_bytes);
    s->w.members[i].crc = zip_crc_update(s->w.members[i].crc, data, sm->page_bytes);
}

static wt_status check_room(const wt_npz_stack_writer *s)
{
    if (s->written >= s->meta.pages)
        return wt_error_set(WT_ERR_INVALID, "%s: more than %llu pages", s->w.path,
                            (unsigned long long)s->meta.pages);
    return WT_OK;
}

wt_status wt_npz_stack_add_pyramid(wt_npz_stack_writer *s, const wt_pyramid *pyr)
{
    wt_status st = check_room(s);
    if (st == WT_OK && (s->undecimated || !pyr->data || pyr->total != s->plan.total ||
                        pyr->levels != s->plan.levels || pyr->dtype != s->plan.dtype))
        st = wt_error_set(WT_ERR_INVALID, "%s: page %llu does not match page 0", s->w.path,
                          (unsigned long long)s->written);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++)
        add_member_page(s, i, (const float *)pyr->data + npz_dwt_member_offset(pyr, i));
    if (st == WT_OK && s->w.error)
        st = stack_writer_error(s);
    if (st == WT_OK)
        s->written++;
    return st;
}

wt_status wt_npz_stack_add_bands(wt_npz_stack_writer *s, const float *bands)
{
    wt_status st = check_room(s);
    if (st == WT_OK && !s->undecimated)
        st = wt_error_set(WT_ERR_INVALID, "%s: not an undecimated stack", s->w.path);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++)
        add_member_page(s, i, (const uint8_t *)bands + (uint64_t)i * s->sm[i].page_bytes);
    if (st == WT_OK && s->w.error)
        st = stack_writer_error(s);
    if (st == WT_OK)
        s->written++;
    return st;
}

wt_status wt_npz_stack_writer_commit(wt_npz_stack_writer *s)
{
    wt_status st = s->written == s->meta.pages
                       ? WT_OK
                       : wt_error_set(WT_ERR_INVALID, "%s: %llu of %llu pages written",
                                      s->w.path, (unsigned long long)s->written,
                                      (unsigned long long)s->meta.pages);
    char *json = st == WT_OK ? coeff_meta_json(&s->meta) : NULL;
    if (st == WT_OK && !json)
        st = wt_error_set(WT_ERR_NOMEM, "%s: out of memory", s->w.path);
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        zip_write_at(&s->w, s->w.members[i].offset, NULL, 0);
        zip_write_local_header(&s->w, &s->w.members[i]);
        zip_write_bytes(&s->w, s->sm[i].header, s->sm[i].header_len);
    }
    if (st == WT_OK) {
        zip_write_at(&s->w, s->end, NULL, 0);
        coeff_meta_write(&s->w, json);
        zip_write_directory(&s->w);
        if (s->w.error)
            st = stack_writer_error(s);
    }
    if (st == WT_OK)
        st = wt_outfile_commit(&s->out);
    else
        wt_outfile_abort(&s->out);
    free(json);
    free(s);
    return st;
}

void wt_npz_stack_writer_abort(wt_npz_stack_writer *s)
{
    if (!s)
        return;
    wt_outfile_abort(&s->out);
    free(s);
}

/* ---- reading ------------------------------------------------------- */

struct wt_npz_stack_reader {
    zip_reader r;
    zip_directory d;
    wt_npz_meta meta;
    wt_uparams up;
    wt_pyramid plan; /* DWT pages: the plan (data NULL) */
    int nmembers, undecimated;
    const zip_entry *m[ZIP_MAX_MEMBERS];
    uint64_t header_len[ZIP_MAX_MEMBERS], page_bytes[ZIP_MAX_MEMBERS];
    uint32_t crc[ZIP_MAX_MEMBERS];
    int swap;
    uint64_t next;
};

/* Member @p i's header: (N, C, h, w) of the page's dtype, stored, its length. */
static wt_status open_stack_member(wt_npz_stack_reader *s, int i, const char *name,
                                   const uint64_t *page_shape)
{
    uint8_t header[NPZ_HEADER_CAP];
    npy_array a;
    const zip_entry *m = zip_find(&s->d, name);
    if (!m)
        return wt_error_set(WT_ERR_FORMAT, "%s: member %s is missing", s->r.name, name);
    if (m->method != 0)
        return wt_error_set(WT_ERR_UNSUPPORTED,
                            "%s: member %s is deflated: a stack is read from stored members",
                            s->r.name, name);
    wt_status st = npz_read_header(&s->r, m, &a, header, sizeof header);
    char want = !s->undecimated && s->plan.dtype == WT_INT32 ? 'i' : 'f';
    uint64_t expected[4] = {s->meta.pages, page_shape[0], page_shape[1], page_shape[2]};
    if (st == WT_OK && (a.kind != want || a.itemsize != 4 || a.ndim != 4 ||
                        memcmp(a.shape, expected, sizeof expected) != 0)) {
        char got[160], exp[128];
        npz_format_shape(got, sizeof got, a.shape, a.ndim);
        npz_format_shape(exp, sizeof exp, expected, 4);
        st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is %c%d %s, expected %s %s", s->r.name,
                          name, a.kind, 8 * a.itemsize, got, want == 'i' ? "int32" : "float32",
                          exp);
    }
    if (st == WT_OK)
        st = npz_check_data_len(&s->r, m, &a);
    if (st != WT_OK)
        return st;
    s->m[i] = m;
    s->swap = a.swap;
    s->header_len[i] = a.header_len;
    s->page_bytes[i] = page_shape[0] * page_shape[1] * page_shape[2] * 4;
    s->crc[i] = zip_crc_update(zip_crc_start(), header, a.header_len);
    return WT_OK;
}

/* The transform of the meta and every member's header. */
static wt_status open_stack_members(wt_npz_stack_reader *s)
{
    char name[ZIP_NAME_CAP];
    uint64_t shape[3] = {(uint64_t)s->meta.channels, s->meta.height, s->meta.width};
    wt_status st = WT_OK;
    if (s->undecimated) {
        s->up = (wt_uparams){s->meta.transform, wt_wavelet_find(s->meta.wavelet),
                             s->meta.levels, s->meta.start_level, s->meta.norm,
                             s->meta.all_approx, s->meta.border};
        if (wt_uparams_check(&s->up, s->meta.height, s->meta.width) != WT_OK)
            return wt_error_prefix(WT_ERR_FORMAT, s->r.name);
        s->nmembers = npz_ustack_members(&s->up);
    } else {
        wt_params params = {wt_wavelet_find(s->meta.wavelet), s->meta.mode, s->meta.method,
                            s->meta.levels};
        st = wt_params_resolve(&params);
        if (st == WT_OK)
            st = wt_pyramid_plan(&s->plan, &params, s->meta.height, s->meta.width,
                                 s->meta.channels);
        if (st != WT_OK)
            return wt_error_prefix(st == WT_ERR_LIMIT ? WT_ERR_LIMIT : WT_ERR_FORMAT, s->r.name);
        s->nmembers = npz_dwt_members(&s->plan);
    }
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        if (s->undecimated)
            npz_ustack_member_name(&s->up, i, name);
        else
            npz_dwt_member(&s->plan, i, name, shape);
        st = open_stack_member(s, i, name, shape);
    }
    return st;
}

wt_status wt_npz_stack_reader_open(const char *path, const wt_load_options *opt,
                                   wt_npz_stack_reader **out, wt_npz_meta *meta,
                                   wt_uparams *params)
{
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    *out = NULL;
    wt_npz_stack_reader *s = calloc(1, sizeof *s);
    if (!s)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", path);
    wt_status st = zip_reader_open(&s->r, path, max_pixels);
    if (st == WT_OK)
        st = zip_read_directory(&s->r, &s->d);
    if (st == WT_OK) {
        s->r.content = s->d.content;
        st = coeff_meta_read(&s->r, &s->d, &s->meta);
    }
    if (st == WT_OK)
        st = wt_check_dimensions(s->r.name, "coefficient file's", s->meta.width,
                                 s->meta.height, max_pixels);
    if (st == WT_OK && !s->meta.pages)
        st = wt_error_set(WT_ERR_INVALID, "%s: coefficients of one image, not of a stack",
                          s->r.name);
    s->undecimated = wt_transform_class_of(s->meta.transform)->layout == WT_LAYOUT_STACK;
    if (st == WT_OK)
        st = open_stack_members(s);
    if (st != WT_OK) {
        wt_npz_stack_reader_close(s);
        return st;
    }
    *meta = s->meta;
    if (params)
        *params = s->up;
    *out = s;
    return WT_OK;
}

/* Where member @p i's page goes: in a DWT pyramid at its band's offset, in a
 * band stack one band after another. */
static uint8_t *member_target(const wt_npz_stack_reader *s, int i, uint8_t *base,
                              const wt_pyramid *pyr)
{
    if (s->undecimated)
        return base + (uint64_t)i * s->page_bytes[0];
    return base + npz_dwt_member_offset(pyr, i) * 4;
}

/* Page @p k of every member into its place in @p base. */
static wt_status read_stack_page(wt_npz_stack_reader *s, uint64_t k, uint8_t *base,
                                 const wt_pyramid *pyr)
{
    wt_status st = WT_OK;
    for (int i = 0; st == WT_OK && i < s->nmembers; i++) {
        uint8_t *dst = member_target(s, i, base, pyr);
        st = zip_entry_read(&s->r, s->m[i], s->header_len[i] + k * s->page_bytes[i], dst,
                         s->page_bytes[i]);
        if (st == WT_OK)
            s->crc[i] = zip_crc_update(s->crc[i], dst, s->page_bytes[i]);
        if (st == WT_OK && k + 1 == s->meta.pages && s->crc[i] != s->m[i]->crc)
            st = wt_error_set(WT_ERR_FORMAT, "%s: member %s is damaged (CRC mismatch)",
                              s->r.name, s->m[i]->name);
        if (st == WT_OK && s->swap)
            npz_swap4(dst, (size_t)(s->page_bytes[i] / 4));
    }
    return st;
}

wt_status wt_npz_stack_read_page(wt_npz_stack_reader *s, uint64_t k, wt_pyramid *pyr,
                                 float **bands)
{
    if (k != s->next || k >= s->meta.pages)
        return wt_error_set(WT_ERR_INVALID, "%s: pages are read in order (page %llu asked, %llu "
                            "next)", s->r.name, (unsigned long long)k,
                            (unsigned long long)s->next);
    size_t bytes = 0;
    for (int i = 0; i < s->nmembers; i++)
        bytes += (size_t)s->page_bytes[i];
    uint8_t *dst = NULL;
    if (s->undecimated) {
        if (!*bands)
            *bands = malloc(bytes ? bytes : 1);
        dst = (uint8_t *)*bands;
    } else {
        if (!pyr->data) {
            wt_params params = {wt_wavelet_find(s->meta.wavelet), s->meta.mode,
                                s->meta.method, s->meta.levels};
            wt_params_resolve(&params);
            if (wt_pyramid_alloc(pyr, &params, s->meta.height, s->meta.width,
                                 s->meta.channels) != WT_OK)
                return wt_error_prefix(WT_ERR_NOMEM, s->r.name);
        }
        dst = pyr->data;
    }
    if (!dst)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", s->r.name);
    wt_status st = read_stack_page(s, k, dst, pyr);
    if (st == WT_OK)
        s->next++;
    return st;
}

void wt_npz_stack_reader_close(wt_npz_stack_reader *s)
{
    if (!s)
        return;
    zip_reader_close(&s->r);
    free(s);
}

int wt_npz_is_stack(const char *path)
{
    wt_npz_stack_reader *s = NULL;
    wt_npz_meta meta;
    struct stat sb;
    if (strcmp(path, "-") == 0 || stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
        return 0; /* a stream is read once: as one image's coefficients */
    s = calloc(1, sizeof *s);
    int stack = s && zip_reader_open(&s->r, path, 0) == WT_OK &&
                zip_read_directory(&s->r, &s->d) == WT_OK && coeff_meta_read(&s->r, &s->d, &meta) == WT_OK &&
                meta.pages > 0;
    wt_npz_stack_reader_close(s);
    wt_error_clear();
    return stack;
}

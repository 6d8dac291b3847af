/* Coefficient files of one image: a zip (src/zip.c) of .npy members
 * (src/npz_member.c), stored or, with meta->compress, deflated (np.load reads
 * it without pickle), one member per band as the layout says
 * (src/npz_layout.c), each (C, h, w) of '<f4' or '<i4' (host byte order), plus
 * "meta" (src/coeff_meta.c). Stacks of pages: src/npz_stack.c.
 *
 * The reader treats the file as hostile: the data each member must hold is
 * derived from the meta's transform plan, so nothing larger than the file is
 * ever allocated, and CRCs are verified. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coeff_meta.h"
#include "image_codec.h"
#include "input.h"
#include "npz_file.h"
#include "npz_layout.h"
#include "npz_member.h"
#include "transform.h"
#include "wavetool_hooks.h"
#include "wavetool.h"

/* ---- writer --------------------------------------------------------------- */

static wt_status check_meta_matches(const char *path, const wt_pyramid *pyr,
                                    const wt_npz_meta *meta)
{
    if (!pyr->data || meta->height != pyr->height || meta->width != pyr->width ||
        meta->channels != pyr->channels || meta->levels != pyr->levels ||
        (int)meta->color != meta->channels ||
        (meta->bit_depth != 8 && meta->bit_depth != 16 && meta->bit_depth != WT_DEPTH_F32))
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            path);
    return WT_OK;
}

/* The members of a pyramid, in the layout's order. */
static void write_pyramid_bands(zip_writer *w, const void *pyramid)
{
    const wt_pyramid *pyr = pyramid;
    char kind = pyr->dtype == WT_INT32 ? 'i' : 'f';
    for (int i = 0; i < npz_dwt_members(pyr); i++) {
        char name[ZIP_NAME_CAP];
        uint64_t shape[3];
        npz_dwt_member(pyr, i, name, shape);
        const float *data = (const float *)pyr->data + npz_dwt_member_offset(pyr, i);
        npz_write_array(w, name, kind, 4, shape, 3, data);
    }
}

wt_status npz_save_file(const char *path, const char *shown, const wt_npz_meta *meta,
                          void (*write_bands)(zip_writer *w, const void *bands), const void *bands)
{
    char *json = coeff_meta_json(meta);
    zip_writer *w = json ? calloc(1, sizeof *w) : NULL;
    if (!w) {
        free(json);
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory", shown);
    }
    wt_outfile out;
    wt_status st = wt_outfile_open(&out, path);
    if (st == WT_OK) {
        w->fp = out.fp;
        w->path = shown;
        w->compress = meta->compress;
        write_bands(w, bands);
        coeff_meta_write(w, json);
        coeff_meta_write_image(w, meta->image);
        zip_write_directory(w);
        if (w->error)
            st = wt_error_set(WT_ERR_IO, "%s: %s", shown, strerror(w->error));
        if (st == WT_OK)
            st = wt_outfile_commit(&out);
        else
            wt_outfile_abort(&out);
    }
    free(w);
    free(json);
    return st;
}

wt_status wt_npz_save(const char *path, const wt_pyramid *pyr, const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    wt_status st = check_meta_matches(shown, pyr, meta);
    if (st != WT_OK)
        return st;
    return npz_save_file(path, shown, meta, write_pyramid_bands, pyr);
}

/* What write_stack_bands writes. */
typedef struct stack_bands {
    const wt_uparams *params;
    const float *bands;
    const wt_npz_meta *meta;
} stack_bands;

/* The members of an undecimated stack, in the layout's order. */
static void write_stack_bands(zip_writer *w, const void *stack)
{
    const stack_bands *s = stack;
    char name[ZIP_NAME_CAP];
    uint64_t shape[3] = {(uint64_t)s->meta->channels, s->meta->height, s->meta->width};
    uint64_t band = shape[0] * shape[1] * shape[2];
    for (int i = 0; i < npz_ustack_members(s->params); i++) {
        npz_ustack_member_name(s->params, i, name);
        npz_write_array(w, name, 'f', 4, shape, 3, s->bands + (size_t)i * band);
    }
}

wt_status wt_npz_save_stack(const char *path, const wt_uparams *params, const float *bands,
                            const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    if (!bands || meta->transform != params->transform || meta->levels != params->levels ||
        (int)meta->color != meta->channels ||
        (meta->bit_depth != 8 && meta->bit_depth != 16 && meta->bit_depth != WT_DEPTH_F32) ||
        wt_uparams_check(params, meta->height, meta->width) != WT_OK)
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            shown);
    stack_bands stack = {params, bands, meta};
    return npz_save_file(path, shown, meta, write_stack_bands, &stack);
}

/* ---- reader ------------------------------------------------------------------ */

static wt_status plan_from_meta(const zip_reader *r, const wt_npz_meta *meta, wt_pyramid *pyr)
{
    wt_params params = {wt_wavelet_find(meta->wavelet), meta->mode, meta->method, meta->levels};
    wt_status st = wt_params_resolve(&params);
    if (st == WT_OK)
        st = wt_pyramid_plan(pyr, &params, meta->height, meta->width, meta->channels);
    if (st != WT_OK)
        return wt_error_prefix(st == WT_ERR_LIMIT ? WT_ERR_LIMIT : WT_ERR_FORMAT, r->name);
    /* every coefficient is stored in the file: a plan larger than the file is a lie */
    if (pyr->total > r->content / 4)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its description (%ux%u, %d channels, %d levels) needs more "
                            "data than the file holds",
                            r->name, meta->width, meta->height, meta->channels, meta->levels);
    return wt_pyramid_alloc(pyr, &params, meta->height, meta->width, meta->channels);
}

static wt_status read_bands(const zip_reader *r, const zip_directory *d, wt_pyramid *pyr)
{
    char kind = pyr->dtype == WT_INT32 ? 'i' : 'f';
    wt_status st = WT_OK;
    for (int i = 0; st == WT_OK && i < npz_dwt_members(pyr); i++) {
        char name[ZIP_NAME_CAP];
        uint64_t expected[3];
        npz_dwt_member(pyr, i, name, expected);
        uint8_t *dst = (uint8_t *)((float *)pyr->data + npz_dwt_member_offset(pyr, i));
        st = npz_read_array(r, d, name, kind, expected, dst);
    }
    return st;
}

/* The transform a meta describes; its size checked against the file. */
static wt_status uparams_from_meta(const zip_reader *r, const wt_npz_meta *meta, wt_uparams *p)
{
    *p = (wt_uparams){meta->transform, wt_wavelet_find(meta->wavelet), meta->levels,
                      meta->start_level, meta->norm, meta->all_approx, meta->border};
    if (wt_uparams_check(p, meta->height, meta->width) != WT_OK) {
        char reason[512];
        snprintf(reason, sizeof reason, "%s", wt_error_message());
        return wt_error_set(WT_ERR_FORMAT, "%s: %s", r->name, reason);
    }
    uint64_t plane = (uint64_t)meta->height * meta->width * (uint64_t)meta->channels;
    if (plane > r->content / 4 / (uint64_t)wt_ustack_bands(p))
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its description (%ux%u, %d channels, %d bands) needs more "
                            "data than the file holds",
                            r->name, meta->width, meta->height, meta->channels,
                            wt_ustack_bands(p));
    return WT_OK;
}

/* The bands of an undecimated stack (float32), one after another. */
static wt_status read_stack(const zip_reader *r, const zip_directory *d, const wt_uparams *p,
                            const wt_npz_meta *meta, float **stack)
{
    uint64_t expected[3] = {(uint64_t)meta->channels, meta->height, meta->width};
    size_t band = (size_t)(expected[0] * expected[1] * expected[2]);
    int nb = npz_ustack_members(p);
    *stack = malloc(band * (size_t)nb * sizeof **stack);
    if (!*stack)
        return wt_error_set(WT_ERR_NOMEM, "%s: out of memory (%zu MiB of coefficients)",
                            r->name, band * (size_t)nb * 4 >> 20);
    wt_status st = WT_OK;
    char name[ZIP_NAME_CAP];
    for (int i = 0; st == WT_OK && i < nb; i++) {
        npz_ustack_member_name(p, i, name);
        st = npz_read_array(r, d, name, 'f', expected, (uint8_t *)(*stack + (size_t)i * band));
    }
    if (st != WT_OK) {
        free(*stack);
        *stack = NULL;
    }
    return st;
}

/* The input's metadata the file stores into meta->image; on failure the
 * coefficients read are freed. */
static wt_status read_image_meta(const zip_reader *r, const zip_directory *d, wt_pyramid *pyr,
                                 float **stack, wt_npz_meta *meta)
{
    wt_status st = coeff_meta_read_image(r, d, &meta->image);
    if (st != WT_OK) {
        wt_pyramid_free(pyr);
        if (stack) {
            free(*stack);
            *stack = NULL;
        }
    }
    return st;
}

/* Any coefficient file; @p stack NULL: DWT files only. The image it describes
 * gets the limits of every image read (@p opt NULL: the defaults). */
static wt_status load_file(const char *path, const wt_load_options *opt, wt_pyramid *pyr,
                           float **stack, wt_uparams *up, wt_npz_meta *meta)
{
    coeff_file f;
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    memset(pyr, 0, sizeof *pyr);
    if (stack)
        *stack = NULL;
    wt_status st = coeff_file_open(&f, path, max_pixels, meta);
    if (st == WT_OK)
        st = wt_check_dimensions(f.r.name, "coefficient file's", meta->width, meta->height,
                                 max_pixels);
    if (st == WT_OK && meta->depth)
        st = wt_error_set(WT_ERR_UNSUPPORTED,
                          "%s: the coefficients of a volume of %u pages: read with --volume",
                          f.r.name, meta->depth);
    if (st == WT_OK && meta->pages)
        st = wt_error_set(WT_ERR_UNSUPPORTED,
                          "%s: coefficients of a stack of %llu pages: read page by page, "
                          "from a file (not a pipe)",
                          f.r.name, (unsigned long long)meta->pages);
    int undecimated =
        st == WT_OK && wt_transform_class_of(meta->transform)->layout == WT_LAYOUT_STACK;
    if (st == WT_OK && wt_transform_class_of(meta->transform)->layout == WT_LAYOUT_PACKET)
        st = wt_error_set(WT_ERR_UNSUPPORTED,
                          "%s: holds wavelet packets, which are read from a file (not a pipe)",
                          f.r.name);
    else if (undecimated && !stack)
        st = wt_error_set(WT_ERR_UNSUPPORTED, "%s: holds an undecimated (%s) transform",
                          f.r.name, wt_transform_name(meta->transform));
    else if (undecimated) {
        st = uparams_from_meta(&f.r, meta, up);
        if (st == WT_OK)
            st = read_stack(&f.r, f.d, up, meta, stack);
    } else {
        if (st == WT_OK)
            st = plan_from_meta(&f.r, meta, pyr);
        if (st == WT_OK)
            st = read_bands(&f.r, f.d, pyr);
        if (st != WT_OK)
            wt_pyramid_free(pyr);
    }
    if (st == WT_OK && opt && opt->coeff_image_meta)
        st = read_image_meta(&f.r, f.d, pyr, stack, meta);
    coeff_file_close(&f);
    return st;
}

wt_status wt_npz_load(const char *path, wt_pyramid *pyr, wt_npz_meta *meta)
{
    return load_file(path, NULL, pyr, NULL, NULL, meta);
}

wt_status wt_npz_load_any(const char *path, const wt_load_options *opt, wt_pyramid *pyr,
                          float **stack, wt_uparams *params, wt_npz_meta *meta)
{
    return load_file(path, opt, pyr, stack, params, meta);
}

/* ---- the registry's row ------------------------------------------------ */

/* A zip's first member, or the end record of an empty one. */
static int is_npz(const uint8_t *data, size_t size)
{
    return wt_starts_like(data, size, "PK\x03\x04", 4) ||
           wt_starts_like(data, size, "PK\x05\x06", 4);
}

/* Coefficients are float32 or int32: a quarter of the file's bytes. */
static uint64_t npz_probe(const uint8_t *head, size_t size, const char *path)
{
    (void)head;
    (void)size;
    struct stat sb;
    return stat(path, &sb) == 0 && sb.st_size > 0 ? (uint64_t)sb.st_size / 4 : 0;
}

static const char *const npz_extensions[] = {"npz", NULL};

const wt_codec wt_codec_npz = {
    {"NPZ", npz_extensions, WT_HOLDS_COEFFS, 0, 0, 1, NULL, 0},
    is_npz, 4, NULL, NULL, NULL, NULL, NULL, npz_probe,
};

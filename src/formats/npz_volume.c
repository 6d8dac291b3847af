/* A volume's coefficient file: one .npy member per band, named by its
 * pywt.wavedecn key and level ("aaa3", "aad3", ... "ddd1"; the starlet's
 * "c3", "w3" ... "w1"), each (C, z, y, x) float32 (int32 for legall53), and
 * "meta" with the volume's "depth" and "axes". The reader takes members
 * written by numpy too, (z, y, x) for one channel; it derives every shape
 * from the meta, so nothing larger than the file is allocated. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coeff_meta.h"
#include "npz_file.h"
#include "npz_member.h"
#include "transform.h"
#include "wavetool_hooks.h"

static void member_name(const wt_vband *b, char *name)
{
    snprintf(name, ZIP_NAME_CAP, "%s%d", b->key, b->level);
}

static void member_shape(const wt_vcoeffs *c, const wt_vband *b, uint64_t shape[4])
{
    shape[0] = (uint64_t)c->channels;
    for (int k = 0; k < 3; k++)
        shape[k + 1] = b->shape[k];
}

static void write_volume_bands(zip_writer *w, const void *coeffs)
{
    const wt_vcoeffs *c = coeffs;
    for (int i = 0; i < c->nbands; i++) {
        char name[ZIP_NAME_CAP];
        uint64_t shape[4];
        member_name(&c->band[i], name);
        member_shape(c, &c->band[i], shape);
        npz_write_array(w, name, c->dtype == WT_INT32 ? 'i' : 'f', 4, shape, 4,
                        c->band[i].data);
    }
}

wt_status wt_npz_save_volume(const char *path, const wt_vcoeffs *c, const wt_npz_meta *meta)
{
    const char *shown = strcmp(path, "-") == 0 ? "(stdout)" : path;
    if (!meta->depth || meta->depth != c->shape[0] || meta->height != c->shape[1] ||
        meta->width != c->shape[2] || meta->channels != c->channels)
        return wt_error_set(WT_ERR_INVALID, "%s: coefficients do not match their description",
                            shown);
    return npz_save_file(path, shown, meta, write_volume_bands, c);
}

/* ---- reader -------------------------------------------------------------------- */

/* The transform a volume's meta describes. */
static wt_status spec_from_meta(const zip_reader *r, const wt_npz_meta *m, wt_volume_spec *s)
{
    memset(s, 0, sizeof *s);
    s->transform = m->transform;
    s->params = (wt_params){wt_wavelet_find(m->wavelet), m->mode, m->method, m->levels};
    s->uparams = (wt_uparams){m->transform, s->params.wavelet, m->levels, m->start_level,
                              m->norm, m->all_approx, m->border};
    for (s->naxes = 0; m->axes[s->naxes]; s->naxes++)
        s->axes[s->naxes] = m->axes[s->naxes] - '0';
    if (!m->depth)
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: holds an image's coefficients, not a volume's (no depth in "
                            "its meta): reconstruct it without --volume",
                            r->name);
    if (wt_transform_class_of(s->transform)->layout == WT_LAYOUT_PYRAMID &&
        wt_params_resolve(&s->params) != WT_OK)
        return wt_error_prefix(WT_ERR_FORMAT, r->name);
    return WT_OK;
}

static wt_status read_volume_bands(const zip_reader *r, const zip_directory *d, wt_vcoeffs *c)
{
    wt_status st = WT_OK;
    for (int i = 0; st == WT_OK && i < c->nbands; i++) {
        char name[ZIP_NAME_CAP];
        uint64_t shape[4];
        member_name(&c->band[i], name);
        member_shape(c, &c->band[i], shape);
        st = npz_read_array_nd(r, d, name, c->dtype == WT_INT32 ? 'i' : 'f', shape, 4,
                               c->band[i].data);
    }
    return st;
}

static wt_status plan_volume(const zip_reader *r, const wt_npz_meta *meta,
                             const wt_volume_spec *s, wt_vcoeffs *c)
{
    const size_t shape[3] = {meta->depth, meta->height, meta->width};
    wt_status st = wt_volume_plan(s, shape, meta->channels, c);
    if (st != WT_OK)
        return wt_error_prefix(st == WT_ERR_LIMIT ? WT_ERR_LIMIT : WT_ERR_FORMAT, r->name);
    if (wt_vcoeffs_elems(c) > r->content / 4) /* every coefficient is in the file */
        return wt_error_set(WT_ERR_FORMAT,
                            "%s: its description (%ux%ux%u, %d channels, %d levels) needs more "
                            "data than the file holds",
                            r->name, meta->width, meta->height, meta->depth, meta->channels,
                            meta->levels);
    return wt_vcoeffs_alloc(c);
}

wt_status wt_npz_load_volume(const char *path, const wt_load_options *opt, wt_volume_spec *s,
                             wt_vcoeffs *c, wt_npz_meta *meta)
{
    uint64_t max_pixels = opt && opt->max_pixels ? opt->max_pixels : WT_DEFAULT_MAX_PIXELS;
    memset(c, 0, sizeof *c);
    coeff_file f;
    wt_status st = coeff_file_open(&f, path, max_pixels, meta);
    if (st == WT_OK)
        st = spec_from_meta(&f.r, meta, s);
    if (st == WT_OK && (double)meta->width * meta->height * meta->depth > (double)max_pixels)
        st = wt_error_set(WT_ERR_LIMIT, "%s: a volume of %ux%ux%u voxels, more than the %llu "
                          "allowed (--max-pixels)", f.r.name, meta->width, meta->height,
                          meta->depth, (unsigned long long)max_pixels);
    if (st == WT_OK)
        st = plan_volume(&f.r, meta, s, c);
    if (st == WT_OK)
        st = read_volume_bands(&f.r, f.d, c);
    if (st != WT_OK)
        wt_vcoeffs_free(c);
    coeff_file_close(&f);
    return st;
}

int wt_npz_is_volume(const char *path)
{
    wt_npz_meta meta;
    return coeff_meta_peek(path, &meta) && meta.depth > 0;
}

/* Volumes: a (z, y, x) array with channels transformed along a subset of its
 * axes, on the axis core (src/engine/axis_view.h) one axis pass at a time, as
 * PyWavelets' wavedecn and swtn loop over _dwt_axis and _swt_axis:
 *
 *   DWT      pywt.wavedecn / waverecn: each level splits the approximation
 *            along axes[0], then axes[1], ... (the inverse backwards);
 *   SWT      pywt.swtn / iswtn (trim_approx, norm, start_level), periodic
 *            at any size as the 2-D SWT;
 *   starlet  c_j = the B3 kernel at spacing 2^(j-1) along each axis of
 *            c_{j-1}, w_j = c_{j-1} - c_j, layers summing back to the input.
 *
 * The arrays between two passes are dense (C, z, y, x) blocks in work areas
 * allocated once per transform, alternating as the axis core's levels do;
 * the last pass of a level writes into the bands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axis_filter.h"
#include "dwt_line.h"
#include "engine_impl.h"
#include "transform.h"
#include "wavetool_hooks.h"

#define MAX_SPLIT (1 << 3)

static size_t volume_elems(const size_t shape[3], int channels)
{
    return shape[0] * shape[1] * shape[2] * (size_t)channels;
}

static int is_dwt(const wt_volume_spec *s)
{
    return s->transform == WT_TRANSFORM_DWT;
}

static int is_starlet(const wt_volume_spec *s)
{
    return s->transform == WT_TRANSFORM_STARLET;
}

/* ---- axes and levels ------------------------------------------------------------ */

wt_status wt_volume_parse_axes(const char *text, int axes[3], int *naxes)
{
    int n = 0, seen = 0;
    const char *p = text;
    while (*p) {
        if (n == 3 || *p < '0' || *p > '2' || (seen >> (*p - '0') & 1))
            break;
        seen |= 1 << (*p - '0');
        axes[n++] = *p++ - '0';
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            break;
    }
    if (*p || n == 0)
        return wt_error_set(WT_ERR_INVALID,
                            "invalid --axes '%s': distinct axes of the volume, 0 (z), 1 (y) or "
                            "2 (x), separated by commas (e.g. 0,1,2 or 1,2)",
                            text);
    *naxes = n;
    return WT_OK;
}

static size_t shortest_axis(const wt_volume_spec *s, const size_t shape[3])
{
    size_t n = SIZE_MAX;
    for (int k = 0; k < s->naxes; k++)
        n = shape[s->axes[k]] < n ? shape[s->axes[k]] : n;
    return n;
}

int wt_volume_max_level(const wt_volume_spec *s, const size_t shape[3])
{
    size_t n = shortest_axis(s, shape);
    if (is_dwt(s))
        return wt_max_level(n, n, s->params.wavelet);
    return wt_transform_class_of(s->transform)->max_level(n, n);
}

/* ---- the plan --------------------------------------------------------------------- */

/* Key @p i of the 2^naxes of a split: 'a' or 'd' along axes[k] as bit
 * (naxes - 1 - k) of i says (dwtn's order). */
static void split_key(int naxes, int i, char key[4])
{
    for (int k = 0; k < naxes; k++)
        key[k] = (i >> (naxes - 1 - k)) & 1 ? 'd' : 'a';
    key[naxes] = '\0';
}

static void add_band(wt_vcoeffs *c, const char *key, int level, const size_t shape[3])
{
    wt_vband *b = &c->band[c->nbands++];
    snprintf(b->key, sizeof b->key, "%s", key);
    b->level = level;
    memcpy(b->shape, shape, sizeof b->shape);
    b->data = NULL;
}

/* Shape of split @p i of an array of @p shape, level @p lines per axis k. */
static void split_shape(const wt_volume_spec *s, const wt_line *lines, const size_t shape[3],
                        int i, size_t out[3])
{
    memcpy(out, shape, 3 * sizeof *out);
    for (int k = 0; k < s->naxes; k++)
        out[s->axes[k]] = (i >> (s->naxes - 1 - k)) & 1 ? lines[k].nhi : lines[k].nlo;
}

/* The lines of a DWT level along each axis of an approximation of @p shape. */
static void level_lines(const wt_volume_spec *s, const size_t shape[3], wt_line lines[3])
{
    memset(lines, 0, 3 * sizeof *lines); /* those past naxes too */
    for (int k = 0; k < s->naxes; k++)
        wt_line_init(&lines[k], &s->params, shape[s->axes[k]]);
}

static void plan_dwt(const wt_volume_spec *s, wt_vcoeffs *c)
{
    size_t lo[WT_MAX_LEVELS + 1][3];
    memcpy(lo[0], c->shape, sizeof lo[0]);
    for (int l = 1; l <= s->params.levels; l++) {
        wt_line lines[3];
        level_lines(s, lo[l - 1], lines);
        split_shape(s, lines, lo[l - 1], 0, lo[l]);
    }
    char key[4];
    split_key(s->naxes, 0, key);
    add_band(c, key, s->params.levels, lo[s->params.levels]);
    for (int l = s->params.levels; l >= 1; l--) {
        wt_line lines[3];
        level_lines(s, lo[l - 1], lines);
        for (int i = 1; i < 1 << s->naxes; i++) {
            size_t shape[3];
            split_shape(s, lines, lo[l - 1], i, shape);
            split_key(s->naxes, i, key);
            add_band(c, key, l, shape);
        }
    }
}

static void plan_undecimated(const wt_volume_spec *s, wt_vcoeffs *c)
{
    const int levels = s->uparams.levels;
    char key[4];
    if (is_starlet(s)) {
        add_band(c, "c", levels, c->shape);
        for (int l = levels; l >= 1; l--)
            add_band(c, "w", l, c->shape);
        return;
    }
    split_key(s->naxes, 0, key);
    add_band(c, key, levels, c->shape);
    for (int l = levels; l >= 1; l--)
        for (int i = l < levels && s->uparams.all_approx ? 0 : 1; i < 1 << s->naxes; i++) {
            split_key(s->naxes, i, key);
            add_band(c, key, l, c->shape);
        }
}

static wt_status check_spec(const wt_volume_spec *s, const size_t shape[3], int channels)
{
    if (channels < 1 || !shape[0] || !shape[1] || !shape[2])
        return wt_error_set(WT_ERR_INVALID, "empty volume (%zux%zux%zu, %d channels)", shape[2],
                            shape[1], shape[0], channels);
    if (s->naxes < 1 || s->naxes > 3)
        return wt_error_set(WT_ERR_INVALID, "a volume is transformed along 1 to 3 axes");
    for (int k = 0; k < s->naxes; k++)
        if (s->axes[k] < 0 || s->axes[k] > 2)
            return wt_error_set(WT_ERR_INVALID, "axis %d of a volume (0, 1 or 2)", s->axes[k]);
    if (is_dwt(s)) {
        wt_params p = s->params;
        if (p.levels < 0 || p.levels > WT_MAX_LEVELS)
            return wt_error_set(WT_ERR_INVALID, "levels must be between 0 and %d",
                                WT_MAX_LEVELS);
        return wt_params_resolve(&p);
    }
    size_t n = shortest_axis(s, shape);
    return wt_uparams_check(&s->uparams, n, n);
}

wt_status wt_volume_plan(const wt_volume_spec *s, const size_t shape[3], int channels,
                         wt_vcoeffs *c)
{
    memset(c, 0, sizeof *c);
    wt_status st = check_spec(s, shape, channels);
    if (st != WT_OK)
        return st;
    memcpy(c->shape, shape, sizeof c->shape);
    c->channels = channels;
    c->levels = is_dwt(s) ? s->params.levels : s->uparams.levels;
    c->dtype = is_dwt(s) && s->params.wavelet->integer ? WT_INT32 : WT_FLOAT32;
    if (is_dwt(s))
        plan_dwt(s, c);
    else
        plan_undecimated(s, c);
    /* every band's samples must be countable in bytes (a band may be empty:
     * the JPEG 2000 kinds' high band of a 1-sample axis) */
    const size_t limit = SIZE_MAX / 64;
    size_t total = 0;
    for (int i = 0; i < c->nbands; i++) {
        const size_t *b = c->band[i].shape;
        size_t n = (size_t)channels;
        for (int k = 0; k < 3 && n <= limit; k++)
            n = b[k] && n > limit / b[k] ? limit + 1 : n * b[k];
        if (n > limit || total > limit - n)
            return wt_error_set(WT_ERR_LIMIT, "decomposition of %zux%zux%zu is too large",
                                shape[2], shape[1], shape[0]);
        total += n;
    }
    return WT_OK;
}

size_t wt_vcoeffs_elems(const wt_vcoeffs *c)
{
    size_t n = 0;
    for (int i = 0; i < c->nbands; i++)
        n += volume_elems(c->band[i].shape, c->channels);
    return n;
}

wt_status wt_vcoeffs_alloc(wt_vcoeffs *c)
{
    for (int i = 0; i < c->nbands; i++) {
        c->band[i].data = calloc(volume_elems(c->band[i].shape, c->channels) + 1, 4);
        if (!c->band[i].data) {
            wt_vcoeffs_free(c);
            return wt_error_set(WT_ERR_NOMEM, "out of memory for %zu coefficients",
                                wt_vcoeffs_elems(c));
        }
    }
    return WT_OK;
}

void wt_vcoeffs_free(wt_vcoeffs *c)
{
    for (int i = 0; i < c->nbands; i++) {
        free(c->band[i].data);
        c->band[i].data = NULL;
    }
}

/* ---- arrays between passes ---------------------------------------------------------- */

/* A dense (C, z, y, x) array. */
typedef struct varray {
    void *data;
    size_t shape[3];
} varray;

static varray band_array(const wt_vband *b)
{
    return (varray){b->data, {b->shape[0], b->shape[1], b->shape[2]}};
}

/* ---- DWT ---------------------------------------------------------------------------- */

/* The 2^(k+1) arrays after pass k of a level whose input has @p shape, dense
 * one after another from @p mem (NULL: only their shapes); their elements. */
static size_t split_arrays(const wt_volume_spec *s, const wt_line *lines, const size_t shape[3],
                           int k, int channels, void *mem, varray *out)
{
    size_t total = 0;
    for (int i = 0; i < 2 << k; i++) {
        memcpy(out[i].shape, shape, sizeof out[i].shape);
        for (int j = 0; j <= k; j++)
            out[i].shape[s->axes[j]] = (i >> (k - j)) & 1 ? lines[j].nhi : lines[j].nlo;
        out[i].data = mem ? (uint32_t *)mem + total : NULL;
        total += volume_elems(out[i].shape, channels);
    }
    return total;
}

/* The approximation's shape after each level (lo[0]: the volume's). */
static void approx_shapes(const wt_volume_spec *s, const wt_vcoeffs *c,
                          size_t lo[WT_MAX_LEVELS + 1][3])
{
    memcpy(lo[0], c->shape, sizeof lo[0]);
    for (int l = 1; l <= c->levels; l++) {
        wt_line lines[3];
        level_lines(s, lo[l - 1], lines);
        split_shape(s, lines, lo[l - 1], 0, lo[l]);
    }
}

/* Work areas of a transform, allocated once: the arrays between the axis
 * passes (pass k writes tmp[k & 1]) and the approximations between levels
 * (level l's in approx[l & 1]); their elements. */
typedef struct dwt_work {
    void *tmp[2], *approx[2];
} dwt_work;

/* The level of @p lines (in axes order) on an array of @p shape as the
 * runner's level op sees it (@p by_axis: room for its lines). */
static wt_vlevel level_view(const wt_volume_spec *s, const wt_vcoeffs *c, const wt_line *lines,
                            const size_t shape[3], int inverse, wt_line by_axis[3])
{
    wt_vlevel l = {by_axis, {s->axes[0], s->axes[1], s->axes[2]}, inverse, c->channels,
                   {shape[0], shape[1], shape[2]}, NULL, {NULL}};
    for (int k = 0; k < 3; k++)
        by_axis[s->axes[k]] = lines[k];
    return l;
}

/* Whether runner @p r does the level of @p lines (on @p shape) whole:
 * levels along all three axes, where it has a level op that takes it. */
static int level_fused(const wt_volume_spec *s, const wt_vcoeffs *c, const wt_line *lines,
                       const size_t shape[3], int inverse, const wt_vpass_runner *r)
{
    if (!r || !r->level_takes || s->naxes != 3)
        return 0;
    wt_line by_axis[3];
    const wt_vlevel l = level_view(s, c, lines, shape, inverse, by_axis);
    return r->level_takes(r->ctx, &l);
}

static size_t work_layout(const wt_volume_spec *s, const wt_vcoeffs *c, int inverse,
                          const wt_vpass_runner *r, void *mem, dwt_work *w)
{
    size_t lo[WT_MAX_LEVELS + 1][3];
    approx_shapes(s, c, lo);
    /* the largest approximation between levels: not always the first, as
     * lines shorter than the filter grow (pywt's (n + F - 1) / 2) */
    size_t tmp = 0, approx = 0;
    for (int l = 1; l < c->levels; l++) {
        const size_t n = volume_elems(lo[l], c->channels);
        approx = n > approx ? n : approx;
    }
    for (int l = 1; l <= c->levels; l++) {
        wt_line lines[3];
        varray shapes[MAX_SPLIT];
        level_lines(s, lo[l - 1], lines);
        if (level_fused(s, c, lines, lo[l - 1], inverse, r))
            continue;
        for (int k = 0; k + 1 < s->naxes; k++) {
            size_t n = split_arrays(s, lines, lo[l - 1], k, c->channels, NULL, shapes);
            tmp = n > tmp ? n : tmp;
        }
    }
    uint32_t *p = mem;
    if (w)
        *w = (dwt_work){{p, p + tmp}, {p + 2 * tmp, p + 2 * tmp + approx}};
    return 2 * tmp + 2 * approx;
}

size_t wt_volume_dwt_work(const wt_volume_spec *s, const wt_vcoeffs *c,
                          const wt_vpass_runner *r)
{
    /* both directions: a buffer serves forward and inverse alike */
    const size_t forward = work_layout(s, c, 0, r, NULL, NULL),
                 inverse = work_layout(s, c, 1, r, NULL, NULL);
    return forward > inverse ? forward : inverse;
}

/* A level along all three axes by the runner's level op, when it takes it
 * (*done). */
static wt_status fused_level(const wt_volume_spec *s, const wt_vcoeffs *c, const varray *a,
                             const varray *bands, int inverse, const wt_vpass_runner *r,
                             int *done)
{
    wt_line lines[3], by_axis[3];
    level_lines(s, a->shape, lines);
    *done = level_fused(s, c, lines, a->shape, inverse, r);
    if (!*done)
        return WT_OK;
    wt_vlevel l = level_view(s, c, lines, a->shape, inverse, by_axis);
    l.sig = a->data;
    for (int i = 0; i < MAX_SPLIT; i++)
        l.bands[i] = bands[i].data;
    return r->level(r->ctx, &l);
}

/* One axis pass of @p p's engine. */
static wt_status run_pass(const wt_vpass_runner *r, const wt_line *line, int axis,
                          const varray *sig, const varray *lo, const varray *hi, int inverse,
                          const wt_vcoeffs *c)
{
    const wt_vpass p = {line, axis, inverse, c->channels, c->dtype,
                        {sig->shape[0], sig->shape[1], sig->shape[2]},
                        sig->data, lo->data, hi->data};
    return r->run(r->ctx, &p);
}

/* One level: @p a split along each axis in turn, into the work arrays and
 * finally into @p bands (key order). */
static wt_status dwt_level_forward(const wt_volume_spec *s, const wt_vcoeffs *c, const varray *a,
                                   const varray *bands, const dwt_work *w,
                                   const wt_vpass_runner *r)
{
    int done;
    wt_status st = fused_level(s, c, a, bands, 0, r, &done);
    if (st != WT_OK || done)
        return st;
    wt_line lines[3];
    level_lines(s, a->shape, lines);
    varray cur[MAX_SPLIT] = {*a}, next[MAX_SPLIT];
    for (int k = 0; k < s->naxes && st == WT_OK; k++) {
        if (k == s->naxes - 1)
            memcpy(next, bands, sizeof(varray) * ((size_t)2 << k));
        else
            split_arrays(s, lines, a->shape, k, c->channels, w->tmp[k & 1], next);
        for (int i = 0; i < 1 << k && st == WT_OK; i++)
            st = run_pass(r, &lines[k], s->axes[k], &cur[i], &next[2 * i], &next[2 * i + 1], 0,
                          c);
        memcpy(cur, next, sizeof cur);
    }
    return st;
}

/* One level back: @p bands (key order) joined along the axes backwards into
 * @p out (the shape of the level's input). */
static wt_status dwt_level_inverse(const wt_volume_spec *s, const wt_vcoeffs *c,
                                   const varray *bands, const varray *out, const dwt_work *w,
                                   const wt_vpass_runner *r)
{
    int done;
    wt_status st = fused_level(s, c, out, bands, 1, r, &done);
    if (st != WT_OK || done)
        return st;
    wt_line lines[3];
    level_lines(s, out->shape, lines);
    varray cur[MAX_SPLIT], next[MAX_SPLIT];
    memcpy(cur, bands, sizeof(varray) * ((size_t)1 << s->naxes));
    for (int k = s->naxes - 1; k >= 0 && st == WT_OK; k--) {
        if (k == 0)
            next[0] = *out;
        else /* the arrays before pass k: those after pass k - 1 */
            split_arrays(s, lines, out->shape, k - 1, c->channels, w->tmp[k & 1], next);
        for (int i = 0; i < 1 << k && st == WT_OK; i++)
            st = run_pass(r, &lines[k], s->axes[k], &next[i], &cur[2 * i], &cur[2 * i + 1], 1,
                          c);
        memcpy(cur, next, sizeof cur);
    }
    return st;
}

/* The bands of DWT level @p l (key order), its approximation @p a first. */
static void level_bands(const wt_volume_spec *s, const wt_vcoeffs *c, int l, const varray *a,
                        varray *out)
{
    const int per = (1 << s->naxes) - 1, first = 1 + (c->levels - l) * per;
    out[0] = *a;
    for (int i = 1; i <= per; i++)
        out[i] = band_array(&c->band[first + i - 1]);
}

wt_status wt_volume_dwt_levels(const wt_volume_spec *s, const wt_vcoeffs *c, void *samples,
                               void *work, int inverse, const wt_vpass_runner *r)
{
    size_t lo[WT_MAX_LEVELS + 1][3];
    dwt_work w;
    approx_shapes(s, c, lo);
    work_layout(s, c, inverse, r, work, &w);
    const varray input = {samples, {c->shape[0], c->shape[1], c->shape[2]}};
    wt_status st = WT_OK;
    if (!inverse) {
        varray a = input;
        for (int l = 1; l <= c->levels && st == WT_OK; l++) {
            const varray next =
                l == c->levels ? band_array(&c->band[0])
                               : (varray){w.approx[l & 1], {lo[l][0], lo[l][1], lo[l][2]}};
            varray bands[MAX_SPLIT];
            level_bands(s, c, l, &next, bands);
            st = dwt_level_forward(s, c, &a, bands, &w, r);
            a = next;
        }
        return st;
    }
    varray a = band_array(&c->band[0]);
    for (int l = c->levels; l >= 1 && st == WT_OK; l--) {
        const varray out = l > 1 ? (varray){w.approx[(l - 1) & 1],
                                            {lo[l - 1][0], lo[l - 1][1], lo[l - 1][2]}}
                                 : input;
        varray bands[MAX_SPLIT];
        level_bands(s, c, l, &a, bands);
        st = dwt_level_inverse(s, c, bands, &out, &w, r);
        a = out;
    }
    return st;
}

/* The host's axis pass: the axis core on @p ctx's threads. */
static wt_status host_pass(void *ctx, const wt_vpass *p)
{
    const int threads = *(const int *)ctx;
    size_t lo_shape[3], hi_shape[3];
    memcpy(lo_shape, p->shape, sizeof lo_shape);
    memcpy(hi_shape, p->shape, sizeof hi_shape);
    lo_shape[p->axis] = p->line->nlo;
    hi_shape[p->axis] = p->line->nhi;
    wt_array_view sig = wt_view_dense(p->sig, p->dtype, p->channels, 3, p->shape),
                  lo = wt_view_dense(p->lo, p->dtype, p->channels, 3, lo_shape),
                  hi = wt_view_dense(p->hi, p->dtype, p->channels, 3, hi_shape);
    return p->inverse ? wt_axis_dwt_inverse(p->line, &lo, &hi, &sig, p->axis, threads)
                      : wt_axis_dwt_forward(p->line, &sig, &lo, &hi, p->axis, threads);
}

/* The work areas and (legall53) an int32 copy of the samples, in one block. */
static wt_status host_work(const wt_volume_spec *s, const wt_vcoeffs *c, void **mem,
                           void **samples)
{
    const size_t work = wt_volume_dwt_work(s, c, NULL);
    const size_t copy = c->dtype == WT_INT32 ? volume_elems(c->shape, c->channels) : 0;
    *mem = malloc((work + copy + 1) * 4);
    *samples = *mem ? (uint32_t *)*mem + work : NULL;
    if (!*mem)
        return wt_error_set(WT_ERR_NOMEM, "out of memory (%zu MiB for the volume's passes)",
                            (work + copy) * 4 >> 20);
    return WT_OK;
}

static wt_status dwt_forward(const wt_volume_spec *s, const float *planes, wt_vcoeffs *c,
                             int threads)
{
    const size_t n = volume_elems(c->shape, c->channels);
    const int integer = c->dtype == WT_INT32;
    if (c->levels == 0) { /* the coefficients are the samples */
        wt_convert_samples(c->band[0].data, integer, planes, 0, n);
        return WT_OK;
    }
    void *mem, *samples;
    wt_status st = host_work(s, c, &mem, &samples);
    if (st != WT_OK)
        return st;
    if (integer)
        wt_convert_samples(samples, 1, planes, 0, n);
    const wt_vpass_runner r = {host_pass, &threads, NULL, NULL};
    st = wt_volume_dwt_levels(s, c, integer ? samples : (void *)planes, mem, 0, &r);
    free(mem);
    return st;
}

static wt_status dwt_inverse(const wt_volume_spec *s, const wt_vcoeffs *c, float *planes,
                             int threads)
{
    const size_t n = volume_elems(c->shape, c->channels);
    const int integer = c->dtype == WT_INT32;
    if (c->levels == 0) {
        wt_convert_samples(planes, 0, c->band[0].data, integer, n);
        return WT_OK;
    }
    void *mem, *samples;
    wt_status st = host_work(s, c, &mem, &samples);
    if (st != WT_OK)
        return st;
    const wt_vpass_runner r = {host_pass, &threads, NULL, NULL};
    st = wt_volume_dwt_levels(s, c, integer ? samples : (void *)planes, mem, 1, &r);
    if (st == WT_OK && integer)
        wt_convert_samples(planes, 0, samples, 1, n);
    free(mem);
    return st;
}

/* ---- SWT and starlet -------------------------------------------------------------- */

/* One filter pass along @p axis over arrays of the volume's geometry by
 * @p r: dst[t] (+)= f[t] of src[t]. */
static wt_status filter_pass(const wt_vcoeffs *c, const wt_vfilter_runner *r, int axis,
                             wt_border border, int nterms, float *const src[2],
                             float *const dst[2], const wt_filter_spec *const f[2])
{
    wt_vfilter p = {axis, c->channels, nterms, {c->shape[0], c->shape[1], c->shape[2]},
                    border, {src[0], src[1]}, {dst[0], dst[1]}, {{0}, {0}}};
    for (int t = 0; t < nterms; t++)
        p.f[t] = (wt_vtaps){f[t]->taps, f[t]->ntaps, f[t]->gain, f[t]->step, f[t]->shift};
    return r->filter(r->ctx, &p);
}

/* Work arrays of the undecimated transforms, all of the volume's size, in
 * one area: those between the axis passes (pass k writes the 2^(k+1)
 * arrays from tmp[k & 1]) and the approximations between levels (level
 * l's at approx[l & 1]). */
typedef struct uwork {
    float *tmp[2], *approx[2];
} uwork;

/* Arrays each tmp of the work holds. */
static size_t uwork_split(const wt_volume_spec *s)
{
    return s->naxes > 1 ? (size_t)1 << (s->naxes - 1) : 0;
}

size_t wt_volume_undecimated_work(const wt_volume_spec *s, const wt_vcoeffs *c)
{
    return (2 * uwork_split(s) + 2) * volume_elems(c->shape, c->channels);
}

static uwork uwork_at(const wt_volume_spec *s, const wt_vcoeffs *c, float *mem)
{
    const size_t v = volume_elems(c->shape, c->channels), tmp = uwork_split(s);
    return (uwork){{mem, mem + tmp * v}, {mem + 2 * tmp * v, mem + (2 * tmp + 1) * v}};
}

/* One SWT level: @p in split along each axis in turn, finally into @p out
 * (key order). */
static wt_status swt_level_forward(const wt_volume_spec *s, const wt_vcoeffs *c, int j,
                                   const float *in, float *const *out, const uwork *w,
                                   const wt_vfilter_runner *r)
{
    wt_filter_spec lo, hi;
    wt_swt_filters(&s->uparams, j, 0, &lo, &hi);
    const wt_filter_spec *const f[2] = {&lo, &hi};
    const size_t v = volume_elems(c->shape, c->channels);
    float *cur[MAX_SPLIT] = {(float *)in}, *next[MAX_SPLIT];
    wt_status st = WT_OK;
    for (int k = 0; k < s->naxes && st == WT_OK; k++) {
        for (int i = 0; i < 2 << k; i++)
            next[i] = k == s->naxes - 1 ? out[i] : w->tmp[k & 1] + (size_t)i * v;
        for (int i = 0; i < 1 << k && st == WT_OK; i++)
            st = filter_pass(c, r, s->axes[k], WT_BORDER_PERIODIC, 2,
                             (float *const[2]){cur[i], cur[i]},
                             (float *const[2]){next[2 * i], next[2 * i + 1]}, f);
        memcpy(cur, next, sizeof cur);
    }
    return st;
}

/* One SWT level back: @p bands (key order) joined along the axes
 * backwards into @p out. */
static wt_status swt_level_inverse(const wt_volume_spec *s, const wt_vcoeffs *c, int j,
                                   float *const *bands, float *out, const uwork *w,
                                   const wt_vfilter_runner *r)
{
    wt_filter_spec lo, hi;
    wt_swt_filters(&s->uparams, j, 1, &lo, &hi);
    const wt_filter_spec *const f[2] = {&lo, &hi};
    const size_t v = volume_elems(c->shape, c->channels);
    float *cur[MAX_SPLIT], *next[MAX_SPLIT];
    memcpy(cur, bands, sizeof(float *) * ((size_t)1 << s->naxes));
    wt_status st = WT_OK;
    for (int k = s->naxes - 1; k >= 0 && st == WT_OK; k--) {
        for (int i = 0; i < 1 << k && st == WT_OK; i++) {
            next[i] = k == 0 ? out : w->tmp[k & 1] + (size_t)i * v;
            st = filter_pass(c, r, s->axes[k], WT_BORDER_PERIODIC, 2,
                             (float *const[2]){cur[2 * i], cur[2 * i + 1]},
                             (float *const[2]){next[i], next[i]}, f);
        }
        memcpy(cur, next, sizeof cur);
    }
    return st;
}

/* Index of the first band of undecimated level @p l (its approximation
 * with all_approx, else its first detail). */
static int ulevel_first(const wt_vcoeffs *c, int l)
{
    for (int i = 1; i < c->nbands; i++)
        if (c->band[i].level == l)
            return i;
    return c->nbands;
}

/* The detail bands of SWT level @p l into out[1..] (key order). */
static void swt_details(const wt_volume_spec *s, const wt_vcoeffs *c, int l, float **out)
{
    const int with_approx = l < c->levels && s->uparams.all_approx;
    const int first = ulevel_first(c, l) + with_approx;
    for (int b = 1; b < 1 << s->naxes; b++)
        out[b] = c->band[first + b - 1].data;
}

static wt_status swt_forward(const wt_volume_spec *s, const float *planes, const wt_vcoeffs *c,
                             const uwork *w, const wt_vfilter_runner *r)
{
    wt_status st = WT_OK;
    const float *in = planes;
    for (int l = 1; l <= c->levels && st == WT_OK; l++) {
        float *out[MAX_SPLIT];
        swt_details(s, c, l, out);
        if (l == c->levels)
            out[0] = c->band[0].data;
        else if (s->uparams.all_approx) /* kept: trim_approx=False */
            out[0] = c->band[ulevel_first(c, l)].data;
        else
            out[0] = w->approx[l & 1];
        st = swt_level_forward(s, c, s->uparams.start_level + l, in, out, w, r);
        in = out[0];
    }
    return st;
}

static wt_status swt_inverse(const wt_volume_spec *s, const wt_vcoeffs *c, float *planes,
                             const uwork *w, const wt_vfilter_runner *r)
{
    wt_status st = WT_OK;
    float *a = c->band[0].data;
    for (int l = c->levels; l >= 1 && st == WT_OK; l--) {
        float *bands[MAX_SPLIT] = {a}, *out = l == 1 ? planes : w->approx[l & 1];
        swt_details(s, c, l, bands);
        st = swt_level_inverse(s, c, s->uparams.start_level + l, bands, out, w, r);
        a = out;
    }
    return st;
}

/* c_out = the B3 kernel of level @p j along each axis of c_in (the passes
 * between in the work arrays). */
static wt_status starlet_smooth(const wt_volume_spec *s, const wt_vcoeffs *c, int j,
                                const float *c_in, float *c_out, const uwork *w,
                                const wt_vfilter_runner *r)
{
    double b3[WT_STARLET_TAPS];
    wt_starlet_kernel(b3);
    const long long step = wt_utap_step(j);
    const wt_filter_spec spec = {b3, WT_STARLET_TAPS, 1.0, (size_t)step, wt_starlet_shift(step)};
    const wt_filter_spec *const f[2] = {&spec, NULL};
    const float *cur = c_in;
    wt_status st = WT_OK;
    for (int k = 0; k < s->naxes && st == WT_OK; k++) {
        float *dst = k == s->naxes - 1 ? c_out : w->tmp[k & 1];
        st = filter_pass(c, r, s->axes[k], wt_uborder(&s->uparams), 1,
                         (float *const[2]){(float *)cur, NULL}, (float *const[2]){dst, NULL}, f);
        cur = dst;
    }
    return st;
}

static wt_status starlet_forward(const wt_volume_spec *s, const float *planes,
                                 const wt_vcoeffs *c, const uwork *w,
                                 const wt_vfilter_runner *r)
{
    const size_t n = volume_elems(c->shape, c->channels);
    wt_status st = WT_OK;
    const float *prev = planes;
    for (int j = 1; j <= c->levels && st == WT_OK; j++) {
        /* band 0 is c_L, band i the layer w_(L + 1 - i); c_j of the levels
         * before the last alternate in the work's approximations */
        float *cur = j == c->levels ? c->band[0].data : w->approx[j & 1];
        float *layer = c->band[c->levels + 1 - j].data;
        st = starlet_smooth(s, c, j, prev, cur, w, r);
        if (st == WT_OK)
            st = r->combine(r->ctx, layer, prev, cur, -1.0f, n);
        prev = cur;
    }
    return st;
}

static wt_status starlet_inverse(const wt_vcoeffs *c, float *planes, const wt_vfilter_runner *r)
{
    const size_t n = volume_elems(c->shape, c->channels);
    wt_status st = WT_OK;
    const float *sum = c->band[0].data;
    for (int i = 1; i < c->nbands && st == WT_OK; i++) { /* c_L + w_L + ... + w_1 */
        st = r->combine(r->ctx, planes, sum, c->band[i].data, 1.0f, n);
        sum = planes;
    }
    return st;
}

wt_status wt_volume_undecimated_levels(const wt_volume_spec *s, const wt_vcoeffs *c,
                                       float *samples, float *work, int inverse,
                                       const wt_vfilter_runner *r)
{
    if (is_starlet(s) && inverse) /* a sum: no work arrays */
        return starlet_inverse(c, samples, r);
    const uwork w = uwork_at(s, c, work);
    if (is_starlet(s))
        return starlet_forward(s, samples, c, &w, r);
    return inverse ? swt_inverse(s, c, samples, &w, r) : swt_forward(s, samples, c, &w, r);
}

/* The host's filter pass: the axis core on @p ctx's threads. */
static wt_status host_filter(void *ctx, const wt_vfilter *p)
{
    const wt_array_view geometry = wt_view_dense(NULL, WT_FLOAT32, p->channels, 3, p->shape);
    wt_filter_pass pass;
    wt_filter_pass_init(&pass, &geometry, p->axis, p->border);
    for (int t = 0; t < p->nterms; t++) {
        const wt_vtaps *f = &p->f[t];
        const wt_filter_spec spec = {f->taps, f->ntaps, f->gain, f->step, f->shift};
        wt_filter_pass_add(&pass, p->src[t], p->dst[t], &spec);
    }
    return wt_filter_pass_run(&pass, *(const int *)ctx);
}

/* dst = a + sign * b, elementwise (in float, as the sums were). */
static wt_status host_combine(void *ctx, float *dst, const float *a, const float *b, float sign,
                              size_t n)
{
    (void)ctx;
    for (size_t i = 0; i < n; i++)
        dst[i] = a[i] + sign * b[i];
    return WT_OK;
}

static wt_status undecimated_on_host(const wt_volume_spec *s, const wt_vcoeffs *c,
                                     float *planes, int inverse, int threads)
{
    const size_t work = is_starlet(s) && inverse ? 0 : wt_volume_undecimated_work(s, c);
    float *mem = malloc((work + 1) * sizeof *mem);
    if (!mem)
        return wt_error_set(WT_ERR_NOMEM, "out of memory (%zu MiB for the volume's passes)",
                            work * sizeof *mem >> 20);
    const wt_vfilter_runner r = {host_filter, host_combine, &threads};
    const wt_status st = wt_volume_undecimated_levels(s, c, planes, mem, inverse, &r);
    free(mem);
    return st;
}

/* ---- entry points ------------------------------------------------------------------- */

int wt_volume_engine_takes(const wt_volume_spec *s, int levels)
{
    wt_params p = s->params;
    if (!is_dwt(s)) /* SWT and starlet: the engine runs what wt_volume_plan takes */
        return levels >= 1;
    return levels >= 1 && p.wavelet && wt_params_resolve(&p) == WT_OK;
}

int wt_volume_on_engine(const wt_engine *e, const wt_volume_spec *s)
{
    return e && e->ops->vforward && wt_volume_engine_takes(s, s->params.levels);
}

wt_status wt_volume_forward_into_on(wt_engine *e, const wt_volume_spec *s, const float *planes,
                                    int threads, wt_vcoeffs *c)
{
    if (e && e->ops->vforward && wt_volume_engine_takes(s, c->levels))
        return e->ops->vforward(e, s, planes, c);
    return is_dwt(s) ? dwt_forward(s, planes, c, threads)
                     : undecimated_on_host(s, c, (float *)planes, 0, threads);
}

wt_status wt_volume_forward_into(const wt_volume_spec *s, const float *planes, int threads,
                                 wt_vcoeffs *c)
{
    return wt_volume_forward_into_on(NULL, s, planes, threads, c);
}

wt_status wt_volume_forward_on(wt_engine *e, const wt_volume_spec *s, const float *planes,
                               const size_t shape[3], int channels, int threads,
                               wt_vcoeffs *out)
{
    wt_status st = wt_volume_plan(s, shape, channels, out);
    if (st == WT_OK)
        st = wt_vcoeffs_alloc(out);
    if (st == WT_OK)
        st = wt_volume_forward_into_on(e, s, planes, threads, out);
    if (st != WT_OK)
        wt_vcoeffs_free(out);
    return st;
}

wt_status wt_volume_forward(const wt_volume_spec *s, const float *planes, const size_t shape[3],
                            int channels, int threads, wt_vcoeffs *out)
{
    return wt_volume_forward_on(NULL, s, planes, shape, channels, threads, out);
}

wt_status wt_volume_inverse_on(wt_engine *e, const wt_volume_spec *s, const wt_vcoeffs *in,
                               float *planes, int threads)
{
    wt_vcoeffs plan;
    wt_status st = wt_volume_plan(s, in->shape, in->channels, &plan);
    if (st == WT_OK && (plan.nbands != in->nbands || plan.dtype != in->dtype))
        st = wt_error_set(WT_ERR_INVALID, "coefficients do not match their transform");
    for (int i = 0; st == WT_OK && i < in->nbands; i++)
        if (memcmp(plan.band[i].shape, in->band[i].shape, sizeof plan.band[i].shape) ||
            strcmp(plan.band[i].key, in->band[i].key) || plan.band[i].level != in->band[i].level)
            st = wt_error_set(WT_ERR_INVALID, "band %s%d does not match its transform",
                              in->band[i].key, in->band[i].level);
    if (st != WT_OK)
        return st;
    if (e && e->ops->vinverse && wt_volume_engine_takes(s, in->levels))
        return e->ops->vinverse(e, s, in, planes);
    return is_dwt(s) ? dwt_inverse(s, in, planes, threads)
                     : undecimated_on_host(s, in, planes, 1, threads);
}

wt_status wt_volume_inverse(const wt_volume_spec *s, const wt_vcoeffs *in, float *planes,
                            int threads)
{
    return wt_volume_inverse_on(NULL, s, in, planes, threads);
}

unsigned wt_volume_bytes_per_sample(const wt_volume_spec *s)
{
    /* DWT: samples, bands, two arrays between passes, the approximations
     * between levels (and legall53's int32 copy of the samples) */
    if (is_dwt(s))
        return s->params.wavelet && s->params.wavelet->integer ? 24 : 20;
    /* samples, bands, 2^axes arrays between passes, two approximations */
    const int split = 1 << s->naxes, levels = s->uparams.levels;
    const int bands = is_starlet(s) ? levels + 1
                                    : 1 + levels * (split - 1) +
                                          (s->uparams.all_approx ? levels - 1 : 0);
    return 4u * (unsigned)(1 + bands + split + 2);
}

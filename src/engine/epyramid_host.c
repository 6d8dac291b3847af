/* Engine-resident pyramids in host memory (the CPU engine): the transforms are
 * the engine's own; band operations run over chunks of the selected bands on
 * the engine's threads. Per-chunk partial results are merged in chunk order,
 * so the numbers do not depend on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_impl.h"

#define CHUNK ((size_t)1 << 16) /* coefficients per job */

/* The storage seen as a wt_pyramid. */
static wt_pyramid view_of(const wt_epyramid *p)
{
    wt_pyramid v = p->shape;
    v.data = p->priv;
    v.owned = 0;
    return v;
}

static wt_status host_create(wt_epyramid *p)
{
    p->priv = calloc(p->shape.total ? p->shape.total : 1, 4);
    return p->priv ? WT_OK
                   : wt_error_set(WT_ERR_NOMEM, "out of memory for %zu coefficients",
                                  p->shape.total);
}

static void host_destroy(wt_epyramid *p)
{
    free(p->priv);
    p->priv = NULL;
}

static wt_status host_forward(wt_epyramid *p, const float *planes)
{
    wt_pyramid v = view_of(p);
    return wt_forward(p->engine, &p->params, planes, &v);
}

static wt_status host_forward_image(wt_epyramid *p, const wt_image *img)
{
    wt_pyramid v = view_of(p);
    return wt_forward_image(p->engine, &p->params, img, &v);
}

static wt_status host_inverse(wt_epyramid *p, float *planes)
{
    wt_pyramid v = view_of(p);
    return wt_inverse(p->engine, &p->params, &v, planes);
}

static wt_status host_inverse_image(wt_epyramid *p, wt_image *img)
{
    wt_pyramid v = view_of(p);
    return wt_inverse_image(p->engine, &p->params, &v, img);
}

static wt_status host_upload(wt_epyramid *p, const wt_pyramid *host)
{
    memcpy(p->priv, host->data, p->shape.total * 4);
    return WT_OK;
}

static wt_status host_download(const wt_epyramid *p, wt_pyramid *host)
{
    memcpy(host->data, p->priv, p->shape.total * 4);
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Chunks of the selected spans */

typedef struct chunk {
    size_t span;       /* index into the spans */
    size_t begin, end; /* elements of the span */
} chunk;

/* The spans [0, n) cut into chunks of at most CHUNK elements (allocated here). */
static wt_status chunks_of(const wt_band_span *s, size_t n, chunk **out, size_t *count)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += (s[i].rows * s[i].cols + CHUNK - 1) / CHUNK;
    chunk *c = malloc((total ? total : 1) * sizeof *c);
    if (!c)
        return wt_error_set(WT_ERR_NOMEM, "out of memory");
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        size_t elems = s[i].rows * s[i].cols;
        for (size_t b = 0; b < elems; b += CHUNK)
            c[k++] = (chunk){i, b, b + CHUNK < elems ? b + CHUNK : elems};
    }
    *out = c;
    *count = k;
    return WT_OK;
}

/* chunks_of, and a zeroed scratch array of @p per_chunk bytes for each chunk
 * (returned); NULL when out of memory (the error set, nothing allocated). */
static void *chunks_with_scratch(const wt_band_span *s, size_t n, size_t per_chunk, chunk **c,
                                 size_t *nc)
{
    if (chunks_of(s, n, c, nc) != WT_OK)
        return NULL;
    void *scratch = calloc(*nc ? *nc : 1, per_chunk);
    if (!scratch) {
        free(*c);
        wt_error_set(WT_ERR_NOMEM, "out of memory");
    }
    return scratch;
}

static int is_int(const wt_epyramid *p)
{
    return p->shape.dtype == WT_INT32;
}

static double value_at(const void *data, int integer, size_t i)
{
    return integer ? (double)((const int32_t *)data)[i] : (double)((const float *)data)[i];
}

/* The int32 result of a band operation: nearest, ties to even, saturated
 * (as the GPU's __double2int_rn). */
static int32_t to_int32(double v)
{
    if (v >= 2147483647.0)
        return INT32_MAX;
    if (v <= -2147483648.0)
        return INT32_MIN;
    return (int32_t)lrint(v);
}

static void store_at(void *data, int integer, size_t i, double v)
{
    if (integer)
        ((int32_t *)data)[i] = to_int32(v);
    else
        ((float *)data)[i] = (float)v;
}

static uint32_t key_at(const void *data, int integer, size_t i)
{
    if (integer)
        return wt_abs_key_i32(((const int32_t *)data)[i]);
    uint32_t bits;
    memcpy(&bits, (const float *)data + i, 4);
    return wt_abs_key_f32(bits);
}

/* ---------------------------------------------------------------------- */
/* Map */

typedef struct map_job {
    const wt_epyramid *p;
    wt_band_op op;
    const wt_band_span *s;
    const double *args;
    const chunk *c;
} map_job;

/* @p r where @p keep, else +0 (the bits of a float; a select the compiler
 * vectorises, where a conditional on doubles stays a branch). */
static float kept_or_zero(float r, int keep)
{
    uint32_t bits;
    memcpy(&bits, &r, sizeof bits);
    bits &= -(uint32_t)(keep != 0);
    memcpy(&r, &bits, sizeof r);
    return r;
}

/* Thresholds of @p n floats: wt_band_op_apply's values bit for bit (zeros
 * +0, NaN kept), without a branch a sample (a denoise's shrinkage: the
 * comparison mispredicts on noise); other operations through it. */
static void map_floats(float *x, size_t n, wt_band_op op, double t)
{
    switch (op) {
    case WT_OP_SOFT:
        for (size_t i = 0; i < n; i++) {
            double v = x[i], m = fabs(v);
            x[i] = kept_or_zero((float)copysign(m - t, v), !(m < t));
        }
        break;
    case WT_OP_HARD:
        for (size_t i = 0; i < n; i++) {
            double v = x[i];
            x[i] = kept_or_zero((float)v, !(fabs(v) < t));
        }
        break;
    default:
        for (size_t i = 0; i < n; i++)
            x[i] = (float)wt_band_op_apply(op, x[i], t);
    }
}

static void map_range(void *ctx, size_t begin, size_t end)
{
    const map_job *j = ctx;
    int integer = is_int(j->p);
    for (size_t k = begin; k < end; k++) {
        const chunk *c = &j->c[k];
        size_t base = j->s[c->span].offset;
        double t = j->args ? j->args[c->span] : 0.0;
        if (!integer) {
            map_floats((float *)j->p->priv + base + c->begin, c->end - c->begin, j->op, t);
            continue;
        }
        for (size_t i = base + c->begin; i < base + c->end; i++)
            store_at(j->p->priv, integer, i, wt_band_op_apply(j->op, value_at(j->p->priv, integer, i), t));
    }
}

static wt_status host_map(wt_epyramid *p, wt_band_op op, const wt_band_span *s,
                          const double *args, size_t n)
{
    chunk *c;
    size_t nc;
    wt_status st = chunks_of(s, n, &c, &nc);
    if (st != WT_OK)
        return st;
    map_job j = {p, op, s, op == WT_OP_ZERO ? NULL : args, c};
    wt_parallel_for(p->engine->threads, nc, map_range, &j);
    free(c);
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Reduce */

typedef struct reduce_job {
    const wt_epyramid *p;
    const wt_band_span *s;
    const double *t;
    const chunk *c;
    wt_band_stats *part; /* per chunk */
} reduce_job;

static void reduce_range(void *ctx, size_t begin, size_t end)
{
    const reduce_job *j = ctx;
    int integer = is_int(j->p);
    for (size_t k = begin; k < end; k++) {
        const chunk *c = &j->c[k];
        size_t base = j->s[c->span].offset;
        double t = j->t ? j->t[c->span] : 0.0;
        wt_band_stats r;
        wt_band_stats_init(&r);
        for (size_t i = base + c->begin; i < base + c->end; i++)
            wt_band_stats_add(&r, value_at(j->p->priv, integer, i), t);
        j->part[k] = r;
    }
}

static wt_status host_reduce(const wt_epyramid *p, const wt_band_span *s, const double *t,
                             size_t n, wt_band_stats *out)
{
    chunk *c;
    size_t nc;
    wt_band_stats *part = chunks_with_scratch(s, n, sizeof *part, &c, &nc);
    if (!part)
        return WT_ERR_NOMEM;
    reduce_job j = {p, s, t, c, part};
    wt_parallel_for(p->engine->threads, nc, reduce_range, &j);
    for (size_t i = 0; i < n; i++)
        wt_band_stats_init(&out[i]);
    for (size_t k = 0; k < nc; k++)
        wt_band_stats_merge(&out[c[k].span], &part[k]);
    free(part);
    free(c);
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Select: radix selection on the keys of |c|, 8 bits per pass from the top */

typedef struct hist_job {
    const wt_epyramid *p;
    const wt_band_span *s;
    const chunk *c;
    uint32_t prefix, mask;
    int shift;
    uint64_t *hist; /* 256 per chunk */
} hist_job;

static void hist_range(void *ctx, size_t begin, size_t end)
{
    const hist_job *j = ctx;
    int integer = is_int(j->p);
    for (size_t k = begin; k < end; k++) {
        const chunk *c = &j->c[k];
        size_t base = j->s[c->span].offset;
        uint64_t *h = j->hist + k * 256;
        memset(h, 0, 256 * sizeof *h);
        for (size_t i = base + c->begin; i < base + c->end; i++) {
            uint32_t key = key_at(j->p->priv, integer, i);
            if ((key & j->mask) == j->prefix)
                h[(key >> j->shift) & 255]++;
        }
    }
}

/* The bin of the histogram that holds the k-th key; *k becomes its rank there. */
static uint32_t bin_of(const uint64_t *hist, uint64_t *k)
{
    uint32_t b = 0;
    while (b < 255 && *k >= hist[b]) {
        *k -= hist[b];
        b++;
    }
    return b;
}

static wt_status select_group(const wt_epyramid *p, const wt_band_span *s,
                              const wt_select_group *g, double *out)
{
    chunk *c;
    size_t nc;
    uint64_t *hist = chunks_with_scratch(s + g->first, g->count, 256 * sizeof *hist, &c, &nc);
    if (!hist)
        return WT_ERR_NOMEM;
    hist_job j = {p, s + g->first, c, 0, 0, 24, hist};
    uint64_t k = g->k;
    for (j.shift = 24; j.shift >= 0; j.shift -= 8) {
        wt_parallel_for(p->engine->threads, nc, hist_range, &j);
        for (size_t q = 1; q < nc; q++)
            for (int b = 0; b < 256; b++)
                hist[b] += hist[q * 256 + (size_t)b];
        j.prefix |= bin_of(hist, &k) << j.shift;
        j.mask |= 255u << j.shift;
    }
    *out = wt_abs_key_value(j.prefix, is_int(p));
    free(hist);
    free(c);
    return WT_OK;
}

static wt_status host_select(const wt_epyramid *p, const wt_band_span *s,
                             const wt_select_group *groups, size_t ngroups, double *out)
{
    for (size_t g = 0; g < ngroups; g++) {
        wt_status st = select_group(p, s, &groups[g], &out[g]);
        if (st != WT_OK)
            return st;
    }
    return WT_OK;
}

/* ---------------------------------------------------------------------- */
/* Zero below a cut, the first `ties` equal to it kept */

typedef struct zero_job {
    const wt_epyramid *p;
    const wt_band_span *s;
    const chunk *c;
    double cut;
    uint64_t *keep; /* per chunk: pass 1 its ties, pass 2 how many of them survive */
    int apply;
} zero_job;

static void zero_range(void *ctx, size_t begin, size_t end)
{
    const zero_job *j = ctx;
    int integer = is_int(j->p);
    for (size_t k = begin; k < end; k++) {
        const chunk *c = &j->c[k];
        size_t base = j->s[c->span].offset;
        uint64_t n = 0, keep = j->keep[k];
        for (size_t i = base + c->begin; i < base + c->end; i++) {
            double m = fabs(value_at(j->p->priv, integer, i));
            if (!j->apply) {
                n += m == j->cut;
                continue;
            }
            if (m > j->cut)
                continue;
            if (m == j->cut && keep) {
                keep--;
                continue;
            }
            store_at(j->p->priv, integer, i, 0.0);
        }
        if (!j->apply)
            j->keep[k] = n;
    }
}

static wt_status host_zero_below(wt_epyramid *p, const wt_band_span *s, size_t n, double cut,
                                 uint64_t ties)
{
    chunk *c;
    size_t nc;
    uint64_t *keep = chunks_with_scratch(s, n, sizeof *keep, &c, &nc);
    if (!keep)
        return WT_ERR_NOMEM;
    zero_job j = {p, s, c, cut, keep, 0};
    wt_parallel_for(p->engine->threads, nc, zero_range, &j);
    for (size_t k = 0; k < nc; k++) { /* the first `ties` in order survive */
        uint64_t here = keep[k] < ties ? keep[k] : ties;
        ties -= here;
        keep[k] = here;
    }
    j.apply = 1;
    wt_parallel_for(p->engine->threads, nc, zero_range, &j);
    free(keep);
    free(c);
    return WT_OK;
}

const wt_epyramid_ops wt_host_epyramid_ops = {
    .create = host_create,
    .destroy = host_destroy,
    .forward = host_forward,
    .forward_image = host_forward_image,
    .inverse = host_inverse,
    .inverse_image = host_inverse_image,
    .upload = host_upload,
    .download = host_download,
    .map = host_map,
    .reduce = host_reduce,
    .select = host_select,
    .zero_below = host_zero_below,
};

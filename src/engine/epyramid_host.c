/* Engine-resident pyramids in host memory (the CPU engine): the transforms are
 * the engine's own; band operations run over chunks of the selected bands on
 * the engine's threads. Per-chunk partial results are merged in chunk order,
 * so the numbers do not depend on the number of threads. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

/* The storage is not zeroed (24 MB for a 1080p RGB pyramid: a pass over
 * memory a denoise): every op writes what it reads later, as the CUDA
 * engine's cudaMalloc'd storage requires. */
static wt_status host_create(wt_epyramid *p)
{
    p->priv = malloc((p->shape.total ? p->shape.total : 1) * 4);
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
#if defined(__SSE2__)
/* Soft (@p soft) or hard thresholds of @p n (a multiple of 4) floats in
 * SSE2, two doubles a register: map_floats' operations on the same values
 * (|v| and v - t in double, copysign as bits, the float conversion), so
 * the same bits. */
static void map_threshold_sse2(float *x, size_t n, double t, int soft)
{
    const __m128d sign = _mm_set1_pd(-0.0), tv = _mm_set1_pd(t);
    for (size_t i = 0; i < n; i += 4) {
        __m128 v4 = _mm_loadu_ps(x + i);
        __m128d half[2] = {_mm_cvtps_pd(v4), _mm_cvtps_pd(_mm_movehl_ps(v4, v4))};
        __m128 out[2];
        for (int h = 0; h < 2; h++) {
            __m128d v = half[h], m = _mm_andnot_pd(sign, v);
            __m128d keep = _mm_cmpnlt_pd(m, tv); /* !(m < t) */
            __m128d r = v;
            if (soft) /* copysign(m - t, v) */
                r = _mm_or_pd(_mm_andnot_pd(sign, _mm_sub_pd(m, tv)), _mm_and_pd(sign, v));
            out[h] = _mm_cvtpd_ps(_mm_and_pd(r, keep));
        }
        _mm_storeu_ps(x + i, _mm_movelh_ps(out[0], out[1]));
    }
}
#endif

static void map_floats(float *x, size_t n, wt_band_op op, double t)
{
#if defined(__SSE2__)
    if ((op == WT_OP_SOFT || op == WT_OP_HARD) && !wt_cpu_reference()) {
        size_t body = n - n % 4;
        map_threshold_sse2(x, body, t, op == WT_OP_SOFT);
        x += body;
        n -= body;
    }
#endif
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

/* stats_of_floats' partial results: sample i goes to lane i % STAT_LANES. */
#define STAT_LANES 8
typedef struct stat_lanes {
    double sum[STAT_LANES], sq[STAT_LANES];
    float lo[STAT_LANES], hi[STAT_LANES], top[STAT_LANES];
    uint64_t zeros[STAT_LANES], small[STAT_LANES];
} stat_lanes;

static void lanes_init(stat_lanes *s)
{
    memset(s, 0, sizeof *s);
    for (int l = 0; l < STAT_LANES; l++) {
        s->lo[l] = INFINITY;
        s->hi[l] = -INFINITY;
    }
}

/* @p n (a multiple of STAT_LANES) floats into the lanes; @p t: at_most's
 * bound. */
static void lanes_add(stat_lanes *s, const float *x, size_t n, double t)
{
    for (size_t i = 0; i < n; i += STAT_LANES)
        for (int l = 0; l < STAT_LANES; l++) {
            float v = x[i + (size_t)l], m = fabsf(v);
            double d = v;
            s->sum[l] += d;
            s->sq[l] += d * d;
            s->lo[l] = v < s->lo[l] ? v : s->lo[l];
            s->hi[l] = v > s->hi[l] ? v : s->hi[l];
            s->top[l] = m > s->top[l] ? m : s->top[l];
            s->zeros[l] += v == 0.0f;
            s->small[l] += (double)m <= t;
        }
}

#if defined(__SSE2__)
/* The largest float f with f <= @p t (NaN stays NaN): (double)m <= t is
 * m <= f for every float m. */
static float float_at_most(double t)
{
    float f = (float)t;
    return (double)f > t ? nextafterf(f, -INFINITY) : f;
}

/* lanes_add in SSE2 (GCC keeps the scalar loop's comparisons as branches):
 * the same lanes and the same operations in the same order, so the same
 * bits; minps/maxps keep their second operand for NaN, as the scalar
 * comparisons do. @p n < 2^31 (the counts are int32 lanes here). */
static void lanes_add_sse2(stat_lanes *s, const float *x, size_t n, double t)
{
    __m128d s0 = _mm_loadu_pd(s->sum), s1 = _mm_loadu_pd(s->sum + 2);
    __m128d s2 = _mm_loadu_pd(s->sum + 4), s3 = _mm_loadu_pd(s->sum + 6);
    __m128d q0 = _mm_loadu_pd(s->sq), q1 = _mm_loadu_pd(s->sq + 2);
    __m128d q2 = _mm_loadu_pd(s->sq + 4), q3 = _mm_loadu_pd(s->sq + 6);
    __m128 lo0 = _mm_loadu_ps(s->lo), lo1 = _mm_loadu_ps(s->lo + 4);
    __m128 hi0 = _mm_loadu_ps(s->hi), hi1 = _mm_loadu_ps(s->hi + 4);
    __m128 top0 = _mm_loadu_ps(s->top), top1 = _mm_loadu_ps(s->top + 4);
    __m128i z0 = _mm_setzero_si128(), z1 = z0, k0 = z0, k1 = z0;
    const __m128 zero = _mm_setzero_ps(), bound = _mm_set1_ps(float_at_most(t));
    const __m128 abs_mask = _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff));
    for (size_t i = 0; i < n; i += STAT_LANES) {
        __m128 a = _mm_loadu_ps(x + i), b = _mm_loadu_ps(x + i + 4);
        __m128d a0 = _mm_cvtps_pd(a), a1 = _mm_cvtps_pd(_mm_movehl_ps(a, a));
        __m128d b0 = _mm_cvtps_pd(b), b1 = _mm_cvtps_pd(_mm_movehl_ps(b, b));
        s0 = _mm_add_pd(s0, a0);
        s1 = _mm_add_pd(s1, a1);
        s2 = _mm_add_pd(s2, b0);
        s3 = _mm_add_pd(s3, b1);
        q0 = _mm_add_pd(q0, _mm_mul_pd(a0, a0));
        q1 = _mm_add_pd(q1, _mm_mul_pd(a1, a1));
        q2 = _mm_add_pd(q2, _mm_mul_pd(b0, b0));
        q3 = _mm_add_pd(q3, _mm_mul_pd(b1, b1));
        lo0 = _mm_min_ps(a, lo0);
        lo1 = _mm_min_ps(b, lo1);
        hi0 = _mm_max_ps(a, hi0);
        hi1 = _mm_max_ps(b, hi1);
        __m128 ma = _mm_and_ps(a, abs_mask), mb = _mm_and_ps(b, abs_mask);
        top0 = _mm_max_ps(ma, top0);
        top1 = _mm_max_ps(mb, top1);
        z0 = _mm_sub_epi32(z0, _mm_castps_si128(_mm_cmpeq_ps(a, zero)));
        z1 = _mm_sub_epi32(z1, _mm_castps_si128(_mm_cmpeq_ps(b, zero)));
        k0 = _mm_sub_epi32(k0, _mm_castps_si128(_mm_cmple_ps(ma, bound)));
        k1 = _mm_sub_epi32(k1, _mm_castps_si128(_mm_cmple_ps(mb, bound)));
    }
    _mm_storeu_pd(s->sum, s0);
    _mm_storeu_pd(s->sum + 2, s1);
    _mm_storeu_pd(s->sum + 4, s2);
    _mm_storeu_pd(s->sum + 6, s3);
    _mm_storeu_pd(s->sq, q0);
    _mm_storeu_pd(s->sq + 2, q1);
    _mm_storeu_pd(s->sq + 4, q2);
    _mm_storeu_pd(s->sq + 6, q3);
    _mm_storeu_ps(s->lo, lo0);
    _mm_storeu_ps(s->lo + 4, lo1);
    _mm_storeu_ps(s->hi, hi0);
    _mm_storeu_ps(s->hi + 4, hi1);
    _mm_storeu_ps(s->top, top0);
    _mm_storeu_ps(s->top + 4, top1);
    int32_t z[STAT_LANES], k[STAT_LANES];
    _mm_storeu_si128((__m128i *)(void *)z, z0);
    _mm_storeu_si128((__m128i *)(void *)(z + 4), z1);
    _mm_storeu_si128((__m128i *)(void *)k, k0);
    _mm_storeu_si128((__m128i *)(void *)(k + 4), k1);
    for (int l = 0; l < STAT_LANES; l++) {
        s->zeros[l] += (uint64_t)z[l];
        s->small[l] += (uint64_t)k[l];
    }
}
#endif

/* wt_band_stats_add of @p n floats: the same counts and extremes (NaN in
 * the sums only), the sums in STAT_LANES partial sums added in a fixed
 * order at the end, so a chunk's result does not depend on the threads or
 * on the instruction set. */
static void stats_of_floats(const float *x, size_t n, double t, wt_band_stats *r)
{
    stat_lanes s;
    lanes_init(&s);
    size_t body = n - n % STAT_LANES;
    for (size_t done = 0; done < body;) {
        size_t part = body - done < ((size_t)1 << 24) ? body - done : (size_t)1 << 24;
#if defined(__SSE2__)
        if (!wt_cpu_reference())
            lanes_add_sse2(&s, x + done, part, t);
        else
#endif
            lanes_add(&s, x + done, part, t);
        done += part;
    }
    wt_band_stats_init(r);
    for (int l = 0; l < STAT_LANES; l++) {
        wt_band_stats part = {.count = 0, .zeros = s.zeros[l], .at_most = s.small[l],
                              .sum = s.sum[l], .sum_sq = s.sq[l], .min = s.lo[l],
                              .max = s.hi[l], .max_abs = s.top[l]};
        wt_band_stats_merge(r, &part);
    }
    r->count = body;
    for (size_t i = body; i < n; i++)
        wt_band_stats_add(r, x[i], t);
}

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
        if (!integer)
            stats_of_floats((const float *)j->p->priv + base + c->begin, c->end - c->begin, t, &r);
        else
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

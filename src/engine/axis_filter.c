/* Filtering along any axis of a strided view (see axis_filter.h).
 *
 * Along the contiguous axis the taps are added one after another over the
 * line where it lies (vectorisable), the few outputs near its ends through
 * the border one by one; along any other axis whose neighbouring lines are
 * contiguous, an output sample of a block of lines adds whole source rows
 * tap by tap, in place; a view with neither gathers each line into a buffer
 * and scatters the result back. */
#include "axis_filter.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "dwt_line.h" /* the kernels' filter_taps */
#include "wavetool_hooks.h"

static wt_axis_border border_of(wt_border b, size_t n)
{
    wt_axis_border a = {b, n, n, 0};
    if (b == WT_BORDER_MIRROR)
        a.period = n > 1 ? 2 * (n - 1) : 1; /* mirror is periodic with 2(n-1) */
    else if (b == WT_BORDER_NEAREST)
        a.base = n; /* offsets clamped to [-n, n] */
    return a;
}

/* Source index of ext[i]. */
static size_t border_map(const wt_axis_border *a, size_t i)
{
    switch (a->border) {
    case WT_BORDER_PERIODIC: return i % a->n;
    case WT_BORDER_MIRROR: {
        size_t r = i % a->period;
        return r < a->n ? r : a->period - r;
    }
    case WT_BORDER_NEAREST: return i < a->base ? 0 : (i - a->base >= a->n ? a->n - 1 : i - a->base);
    }
    return 0;
}

/* ext position of offset @p off (the sample o + off is ext[o + start]). */
static size_t border_start(const wt_axis_border *a, long long off)
{
    if (a->border == WT_BORDER_NEAREST) {
        long long n = (long long)a->n;
        off = off < -n ? -n : (off > n ? n : off);
        return (size_t)(off + n);
    }
    long long p = (long long)a->period;
    long long r = off % p;
    return (size_t)(r < 0 ? r + p : r);
}

/* Filter @p taps (scaled by @p gain) at spacing @p step with @p shift. */
static void taps_of(wt_axis_taps *f, const wt_axis_border *a, const double *taps, int ntaps,
                    double gain, size_t step, long long shift)
{
    f->ntaps = 0;
    for (int k = 0; k < ntaps; k++) {
        if (taps[k] == 0.0)
            continue;
        f->f[f->ntaps] = (float)(taps[k] * gain);
        f->start[f->ntaps] = border_start(a, shift - (long long)k * (long long)step);
        f->ntaps++;
    }
}

void wt_filter_pass_init(wt_filter_pass *p, const wt_array_view *geometry, int axis,
                         wt_border border)
{
    memset(p, 0, sizeof *p);
    p->geometry = *geometry;
    p->axis = axis;
    p->border = border_of(border, geometry->shape[axis]);
    p->kernels = wt_line_kernels_best();
}

void wt_filter_pass_add(wt_filter_pass *p, const float *src, float *dst, const wt_filter_spec *f)
{
    wt_filter_term *t = &p->term[p->nterms++];
    t->src = src;
    t->dst = dst;
    taps_of(&t->taps, &p->border, f->taps, f->ntaps, f->gain, f->step, f->shift);
}

_Static_assert(WT_UTAPS <= WT_FILTER_TAPS_MAX, "the kernels' sums take every filter");

/* out[x] (+)= sum of c[k] * src[k][x] for k < n, x < len: the kernels'
 * sums (dwt_line.h's filter_taps; WT_CPU_SCALAR=1: the reference's). */
static void taps_into(const wt_filter_pass *p, float *out, const float *const *src,
                      const float *c, int n, size_t len, int accumulate)
{
    p->kernels->filter_taps(out, src, c, n, len, accumulate);
}

/* The offset of a tap in the line itself: ext[o + start] is in[o + d]
 * wherever o + d lies in [0, n) (the extension repeats the line at base and,
 * periodic or mirrored, again one period later: the nearer copy). */
static long long line_offset(const wt_axis_border *b, size_t start)
{
    long long d = (long long)start - (long long)b->base;
    if (b->border != WT_BORDER_NEAREST && 2 * d > (long long)b->period)
        d -= (long long)b->period;
    return d;
}

/* out[x] (+)= the taps @p t of the line @p in at output x, through border_map. */
static void taps_at(const wt_filter_pass *p, const wt_axis_taps *t, const float *in, float *out,
                    size_t x, int accumulate)
{
    const float *src[WT_UTAPS];
    for (int k = 0; k < t->ntaps; k++)
        src[k] = in + border_map(&p->border, x + t->start[k]);
    taps_into(p, out + x, src, t->f, t->ntaps, 1, accumulate);
}

/* out (+)= the taps @p t of the contiguous line @p in: the outputs whose taps
 * all fall inside the line, [x0, x1), read it in place; the few near its ends
 * go one by one through border_map (the line is never copied into an
 * extension). */
static void taps_line(const wt_filter_pass *p, const wt_axis_taps *t, const float *in,
                      float *out, int accumulate)
{
    const wt_axis_border *b = &p->border;
    const long long n = (long long)b->n;
    long long d[WT_UTAPS], x0 = 0, x1 = n;
    for (int k = 0; k < t->ntaps; k++) {
        d[k] = line_offset(b, t->start[k]);
        x0 = -d[k] > x0 ? -d[k] : x0;
        x1 = n - d[k] < x1 ? n - d[k] : x1;
    }
    x0 = x0 < n ? x0 : n;
    x1 = x1 < x0 ? x0 : x1;
    for (long long x = 0; x < x0; x++)
        taps_at(p, t, in, out, (size_t)x, accumulate);
    if (x1 > x0) {
        const float *src[WT_UTAPS];
        for (int k = 0; k < t->ntaps; k++)
            src[k] = in + x0 + d[k];
        taps_into(p, out + x0, src, t->f, t->ntaps, (size_t)(x1 - x0), accumulate);
    }
    for (long long x = x1; x < n; x++)
        taps_at(p, t, in, out, (size_t)x, accumulate);
}

/* Does term t add to the destination of term t - 1? */
static int accumulates(const wt_filter_pass *p, int t)
{
    return t > 0 && p->term[t].dst == p->term[t - 1].dst;
}

/* Is term t the last of those that add up into its destination? */
static int last_into(const wt_filter_pass *p, int t)
{
    return t + 1 == p->nterms || p->term[t + 1].dst != p->term[t].dst;
}

/* Buffers of a worker that filters strided lines: the gathered input and
 * the output before its scatter. */
typedef struct line_buffers {
    float *in, *out;
} line_buffers;

static void gather_line(const float *src, ptrdiff_t step, size_t n, float *line)
{
    for (size_t i = 0; i < n; i++)
        line[i] = src[(ptrdiff_t)i * step];
}

static void scatter_line(const float *line, size_t n, float *dst, ptrdiff_t step)
{
    for (size_t i = 0; i < n; i++)
        dst[(ptrdiff_t)i * step] = line[i];
}

/* Every term along the line at element offset @p off, sample step @p step. */
static void filter_line(const wt_filter_pass *p, ptrdiff_t off, ptrdiff_t step,
                        const line_buffers *buf)
{
    const size_t n = p->border.n;
    const float *last = NULL;
    for (int t = 0; t < p->nterms; t++) {
        const wt_filter_term *term = &p->term[t];
        const float *in = term->src + off;
        if (step != 1 && in != last)
            gather_line(in, step, n, buf->in);
        last = in;
        float *out = step != 1 ? buf->out : term->dst + off;
        taps_line(p, &term->taps, step != 1 ? buf->in : in, out, accumulates(p, t));
        if (step != 1 && last_into(p, t))
            scatter_line(buf->out, n, term->dst + off, step);
    }
}

/* Lines [begin, end) of the walk, each filtered whole. */
static void lines_range(void *ctx, size_t begin, size_t end)
{
    wt_filter_pass *p = ctx;
    wt_axis_walk walk = wt_axis_walk_of(&p->geometry, p->axis);
    ptrdiff_t step = p->geometry.strides[p->axis];
    size_t n = p->border.n;
    float *mem = step != 1 ? malloc(2 * n * sizeof *mem) : NULL;
    if (step != 1 && !mem) {
        p->failed = 1;
        return;
    }
    line_buffers buf = {mem, mem ? mem + n : NULL};
    for (size_t u = begin; u < end; u++) {
        size_t block = u / walk.nlines, l = u % walk.nlines;
        ptrdiff_t off = wt_axis_block_offset(&p->geometry, &walk, block);
        if (walk.inner >= 0)
            off += (ptrdiff_t)l * p->geometry.strides[walk.inner];
        filter_line(p, off, step, &buf);
    }
    free(mem);
}

/* Output samples [begin, end) (block u / n, sample u % n) of a pass across
 * contiguous lines: each adds whole rows of the block's lines. */
static void rows_range(void *ctx, size_t begin, size_t end)
{
    const wt_filter_pass *p = ctx;
    wt_axis_walk walk = wt_axis_walk_of(&p->geometry, p->axis);
    const ptrdiff_t step = p->geometry.strides[p->axis];
    for (size_t u = begin; u < end; u++) {
        size_t o = u % walk.len;
        ptrdiff_t off = wt_axis_block_offset(&p->geometry, &walk, u / walk.len);
        for (int t = 0; t < p->nterms; t++) {
            const wt_filter_term *term = &p->term[t];
            const float *src[WT_UTAPS];
            for (int k = 0; k < term->taps.ntaps; k++)
                src[k] = term->src + off +
                         (ptrdiff_t)border_map(&p->border, o + term->taps.start[k]) * step;
            taps_into(p, term->dst + off + (ptrdiff_t)o * step, src, term->taps.f,
                      term->taps.ntaps, walk.nlines, accumulates(p, t));
        }
    }
}

wt_status wt_filter_pass_run(wt_filter_pass *p, int threads)
{
    wt_axis_walk walk = wt_axis_walk_of(&p->geometry, p->axis);
    int across = p->geometry.strides[p->axis] != 1 && walk.inner >= 0 &&
                 p->geometry.strides[walk.inner] == 1;
    if (walk.len == 0)
        return WT_OK;
    if (across)
        wt_parallel_for(threads, walk.nblocks * walk.len, rows_range, p);
    else
        wt_parallel_for(threads, walk.nblocks * walk.nlines, lines_range, p);
    return p->failed ? wt_error_set(WT_ERR_NOMEM, "out of memory") : WT_OK;
}

/* ---- one level over every axis --------------------------------------------- */

/* Terms of one pass: dst[t] (+)= filter[t] of src[t], t < n. */
typedef struct pass_terms {
    int n;
    const float *src[2];
    float *dst[2];
    const wt_filter_spec *filter[2];
} pass_terms;

static wt_status run_terms(const wt_array_view *geometry, int axis, wt_border border,
                           const pass_terms *terms, int threads)
{
    wt_filter_pass pass;
    wt_filter_pass_init(&pass, geometry, axis, border);
    for (int t = 0; t < terms->n; t++)
        wt_filter_pass_add(&pass, terms->src[t], terms->dst[t], terms->filter[t]);
    return wt_filter_pass_run(&pass, threads);
}

/* The m-th of the arrays between two passes: @p final's, or a tmp array. */
static float *array_between(float *final_data, float *tmp, size_t index, size_t span)
{
    return final_data ? final_data : tmp + index * span;
}

wt_status wt_axis_split_forward(const wt_array_view *src, const wt_array_view *bands,
                                const wt_filter_spec *lo, const wt_filter_spec *hi,
                                wt_border border, float *const tmp[2], int threads)
{
    const int rank = src->rank;
    const size_t span = wt_view_span(src);
    const float *cur[1 << WT_VIEW_MAX_RANK] = {src->data};
    wt_status st = WT_OK;
    for (int axis = rank - 1, m = 0; axis >= 0 && st == WT_OK; axis--, m++) {
        const int bit = 1 << (rank - 1 - axis); /* the axes done have the lower bits */
        float *next[1 << WT_VIEW_MAX_RANK];
        for (int i = 0; i < bit && st == WT_OK; i++) {
            next[i] = array_between(axis ? NULL : bands[i].data, tmp[m & 1], 2 * (size_t)i, span);
            next[i | bit] = array_between(axis ? NULL : bands[i | bit].data, tmp[m & 1],
                                          2 * (size_t)i + 1, span);
            const pass_terms t = {2, {cur[i], cur[i]}, {next[i], next[i | bit]}, {lo, hi}};
            st = run_terms(src, axis, border, &t, threads);
        }
        memcpy(cur, next, sizeof(float *) * 2 * (size_t)bit);
    }
    return st;
}

wt_status wt_axis_split_inverse(const wt_array_view *bands, const wt_array_view *dst,
                                const wt_filter_spec *lo, const wt_filter_spec *hi,
                                wt_border border, float *const tmp[2], int threads)
{
    const int rank = dst->rank;
    const size_t span = wt_view_span(dst);
    const float *cur[1 << WT_VIEW_MAX_RANK];
    for (int i = 0; i < 1 << rank; i++)
        cur[i] = bands[i].data;
    wt_status st = WT_OK;
    for (int axis = 0, m = 0; axis < rank && st == WT_OK; axis++, m++) {
        const int bit = 1 << (rank - 1 - axis);
        for (int i = 0; i < bit && st == WT_OK; i++) {
            float *out = array_between(bit == 1 ? dst->data : NULL, tmp[m & 1], (size_t)i, span);
            const pass_terms t = {2, {cur[i], cur[i | bit]}, {out, out}, {lo, hi}};
            st = run_terms(dst, axis, border, &t, threads);
            cur[i] = out;
        }
    }
    return st;
}

wt_status wt_axis_smooth(const wt_array_view *src, const wt_array_view *dst,
                         const wt_filter_spec *f, wt_border border, float *const tmp[2],
                         int threads)
{
    const float *cur = src->data;
    wt_status st = WT_OK;
    for (int axis = src->rank - 1, m = 0; axis >= 0 && st == WT_OK; axis--, m++) {
        float *out = array_between(axis ? NULL : dst->data, tmp[m & 1], 0, 0);
        const pass_terms t = {1, {cur}, {out}, {f}};
        st = run_terms(src, axis, border, &t, threads);
        cur = out;
    }
    return st;
}

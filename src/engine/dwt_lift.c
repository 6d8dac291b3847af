/* Lifting passes of the instruction-set kernels where the lines lie
 * (dwt_line.h: wt_cols, wt_rows; float lifting of every scheme and the
 * integer LeGall 5/3).
 *
 * Columns: the even and odd rows of a plane are a[m] and d[m] of every
 * column at once (polyphase rows). A pass is a pipeline over the positions
 * m: at time tau the pair of position tau comes into a ring of rows, step s
 * runs at position tau - lag[s] (vectors across the row) and the outputs
 * leave from tau - lag_out; the lags make each step read what the steps
 * before it wrote and nothing a later step changed (lift_lags). A worker's
 * consecutive jobs of one strip go on from where the last stopped (the
 * pipeline's state in the head of its scratch), so the window's margins
 * cost once a worker and bands of a few rows are as cheap as long runs.
 * Rows: a row's extension split into a[] and d[] (split_extend, dwt_rows.c),
 * the steps along them (forward: in one sweep of blocks, each output scaled
 * and stored as soon as it is final, lift_sweep; inverse: interleaved);
 * where the steps come in predict/update pairs of two taps (cdf97,
 * legall53), the row's inside in registers, all steps of a vector of
 * positions at once (row_pairs; inverse: the integer 5/3 only), and only
 * its ends through the sweep.
 *
 * Included by dwt_line_avx2.c and dwt_line_avx512.c after dwt_rows.c. Each
 * value is the same operations in the same order as dwt_line.c's
 * lifting_step (acc = 0, acc += tap * x tap after tap, dst += acc) on the
 * same extended signal, so the passes equal the reference bit for bit; the
 * positions the reference leaves stale near its window's ends are never
 * read by an output here either (each step runs only where its inputs are
 * valid: lift_intervals). */

#include <limits.h>

/* ---- the scheme as a pass applies it -------------------------------------- */

typedef struct lift_step {
    int update, offset, ntaps;
    real t[8];    /* taps, negated to undo the step */
    long lag;     /* columns: runs at position tau - lag at time tau */
    long lo, hi;  /* positions of the window where its inputs are valid */
} lift_step;

typedef struct lift_plan {
    int nsteps, integer;
    int dir; /* +1 forward, -1 inverse */
    lift_step step[8];
    long left, right;   /* how far the steps reach before and after a position, in all */
    long lag_out, ring; /* columns: outputs leave at tau - lag_out; positions the ring holds */
    long sweep_lag[8], sweep_lag_out; /* the forward row's sweep (sweep_lags) */
} lift_plan;

static long max_l(long a, long b)
{
    return a > b ? a : b;
}

static long min_l(long a, long b)
{
    return a < b ? a : b;
}

/* The lags: step s at position p must see every earlier step that wrote
 * the half it reads at p + offset .. p + offset + ntaps - 1 (and the load
 * of those positions, lag 0), and must not overwrite a position before an
 * earlier step that reads its half has read it. Within one time the steps
 * run in order. @p out_gap: how far apart the positions of one output row
 * of either half may lie (the forward's shift_lo - shift_hi). */
static void lift_lags(lift_plan *p, long out_gap)
{
    long span = 0, out = 0;
    for (int s = 0; s < p->nsteps; s++) {
        lift_step *st = &p->step[s];
        long lag = max_l(0, st->offset + st->ntaps - 1);
        for (int q = 0; q < s; q++) {
            const lift_step *e = &p->step[q];
            lag = max_l(lag, e->lag);
            if (e->update != st->update) /* e wrote what st reads, and reads what st writes */
                lag = max_l(lag, max_l(e->lag + st->offset + st->ntaps - 1, e->lag - e->offset));
        }
        st->lag = lag;
        out = max_l(out, lag);
        span = max_l(span, lag - min_l(0, st->offset));
    }
    p->lag_out = out;
    p->ring = max_l(span, out + out_gap) + 1;
}

static void lift_plan_init(lift_plan *p, const wt_line *line, int inverse, int integer)
{
    const wt_lifting *L = line->wavelet->lifting;
    real sign = inverse ? -1.0 : 1.0;
    p->nsteps = L->nsteps;
    p->integer = integer;
    p->dir = inverse ? -1 : 1;
    p->left = p->right = 0;
    for (int i = 0; i < L->nsteps; i++) {
        const wt_lifting_step *src = &L->steps[inverse ? L->nsteps - 1 - i : i];
        lift_step *st = &p->step[i];
        st->update = src->update;
        st->offset = src->offset;
        st->ntaps = src->ntaps;
        for (int j = 0; j < src->ntaps; j++)
            st->t[j] = sign * (real)src->taps[j];
        p->left += max_l(0, -src->offset);
        p->right += max_l(0, src->offset + src->ntaps - 1);
    }
    long gap = L->shift_lo - L->shift_hi;
    lift_lags(p, inverse ? 0 : gap < 0 ? -gap : gap);
}

/* The positions of the window [m0, m1) where each step's inputs are valid
 * (all of the window's a[] and d[] are, before the first). */
static void lift_intervals(lift_plan *p, long m0, long m1)
{
    long lo[2] = {m0, m0}, hi[2] = {m1, m1}; /* [0]: a, [1]: d */
    for (int s = 0; s < p->nsteps; s++) {
        lift_step *st = &p->step[s];
        int dst = st->update ? 0 : 1, src = 1 - dst;
        st->lo = lo[dst] = max_l(lo[dst], lo[src] - st->offset);
        st->hi = hi[dst] = min_l(hi[dst], hi[src] - st->offset - st->ntaps + 1);
    }
}

/* ---- one step over a span ------------------------------------------------- */

/* dst[c] += sum_i t[i] src[i][c] for c in [c, c + VECS * VW), the taps
 * broadcast in tv. */
#define LIFT_STEP(VECS, NTAPS)                                                               \
    do {                                                                                     \
        lanes acc[VECS];                                                                     \
        for (int v = 0; v < (VECS); v++)                                                     \
            acc[v] = (lanes){0};                                                             \
        for (int i = 0; i < (NTAPS); i++)                                                    \
            for (int v = 0; v < (VECS); v++)                                                 \
                acc[v] += tv[i] * LOAD(src[i] + c + v * VW);                                 \
        for (int v = 0; v < (VECS); v++)                                                     \
            AT(dst + c + v * VW) = LOAD(dst + c + v * VW) + acc[v];                          \
    } while (0)

/* The step with @p ntaps taps: a constant where the caller's is, so that
 * the taps stay in registers and the loop over them unrolls. */
static inline __attribute__((always_inline)) void
lift_apply_taps(const real *t, int ntaps, real *dst, const real *const *src, long c, long c1)
{
    lanes tv[8];
    for (int i = 0; i < ntaps; i++)
        tv[i] = t[i] + (lanes){0};
    for (; c + 2 * VW <= c1; c += 2 * VW)
        LIFT_STEP(2, ntaps);
    for (; c + VW <= c1; c += VW)
        LIFT_STEP(1, ntaps);
    for (; c < c1; c++) {
        real acc = 0;
        for (int i = 0; i < ntaps; i++)
            acc += t[i] * src[i][c];
        dst[c] += acc;
    }
}

static inline __attribute__((always_inline)) void
lift_apply_f32(const lift_step *st, real *dst, const real *const *src, long c, long c1)
{
    if (st->ntaps == 2) /* cdf97, legall53 and most factorisations */
        lift_apply_taps(st->t, 2, dst, src, c, c1);
    else if (st->ntaps == 4) /* dd137 */
        lift_apply_taps(st->t, 4, dst, src, c, c1);
    else
        lift_apply_taps(st->t, st->ntaps, dst, src, c, c1);
}

/* The integer 5/3 (wt_lift53_step; dwt_line.c's legall53_predict and
 * legall53_update): predict d -= floor((a + a') / 2), update a +=
 * floor((d' + d + 2) / 4), undone with the opposite sign; in 32-bit lanes
 * where @p narrow (every input they depend on within WT_LIFT53_NARROW_MAX),
 * else saturated (lift53_saturated). */
typedef int32_t ilanes __attribute__((vector_size(VW * sizeof(int32_t))));
typedef int32_t ilanes_at __attribute__((vector_size(VW * sizeof(int32_t)), aligned(4), may_alias));
typedef uint32_t ulanes __attribute__((vector_size(VW * sizeof(uint32_t))));

/* wt_lift53_step's value in 32-bit lanes, whatever the inputs: the floor
 * of the 64-bit sum (s0 + s1 + bias) >> shift is the sum of the parts'
 * floors, s >> shift and that of the low bits' sum (s = 2^shift (s >>
 * shift) + (s & mask)), which fits in int32 (shift 1: within [-2^31,
 * 2^31 - 1]); dst +- q wraps (unsigned), and where it overflowed (the
 * sign bit of the result is not that of dst while q's allowed it) the
 * result is dst's bound, INT32_MAX or INT32_MIN. */
static inline ilanes lift53_saturated(ilanes d, ilanes s0, ilanes s1, int bias, int shift,
                                      int sign)
{
    const int32_t mask = (1 << shift) - 1;
    ilanes q = (s0 >> shift) + (s1 >> shift) + (((s0 & mask) + (s1 & mask) + bias) >> shift);
    ilanes r = (ilanes)(sign > 0 ? (ulanes)d + (ulanes)q : (ulanes)d - (ulanes)q);
    ilanes over = sign > 0 ? ((d ^ r) & (q ^ r)) < 0 : ((d ^ q) & (d ^ r)) < 0;
    ilanes bound = (d >> 31) ^ INT32_MAX;
    return (r & ~over) | (bound & over);
}

static void lift_apply_i32(const lift_step *st, int dir, int32_t *dst,
                           const int32_t *const *src, long c, long c1, int narrow)
{
    const int bias = st->update ? 2 : 0, shift = st->update ? 2 : 1;
    const int sign = st->update ? dir : -dir;
    const int32_t *s0 = src[0], *s1 = src[1];
    if (narrow) {
        for (; c + VW <= c1; c += VW) {
            ilanes q = ((ilanes)(*(const ilanes_at *)(s0 + c)) +
                        (ilanes)(*(const ilanes_at *)(s1 + c)) + bias) >> shift;
            ilanes d = *(ilanes_at *)(dst + c);
            *(ilanes_at *)(dst + c) = sign > 0 ? d + q : d - q;
        }
        for (; c < c1; c++)
            dst[c] = wt_lift53_step32(dst[c], s0[c], s1[c], bias, shift, sign);
        return;
    }
    for (; c + VW <= c1; c += VW)
        *(ilanes_at *)(dst + c) = lift53_saturated(
            *(ilanes_at *)(dst + c), *(const ilanes_at *)(s0 + c), *(const ilanes_at *)(s1 + c),
            bias, shift, sign);
    for (; c < c1; c++)
        dst[c] = wt_lift53_step(dst[c], s0[c], s1[c], bias, shift, sign);
}

/* dst[c] = scale * src[c], c in [0, count). */
static void scale_span(real *dst, const real *src, real scale, long count)
{
    long c = 0;
    for (; c + VW <= count; c += VW)
        AT(dst + c) = scale * LOAD(src + c);
    for (; c < count; c++)
        dst[c] = scale * src[c];
}

/* Whether all of x[0, count) lie within +-WT_LIFT53_NARROW_MAX (dwt_line.c's
 * within_narrow, with 32-bit lanes). */
static int span_narrow(const int32_t *x, long count)
{
    const int32_t m = (int32_t)WT_LIFT53_NARROW_MAX;
    ilanes out = {0};
    long c = 0;
    for (; c + VW <= count; c += VW) {
        ilanes v = *(const ilanes_at *)(x + c);
        out |= (v > m) | (v < -m);
    }
    int any = 0;
    for (int v = 0; v < VW; v++)
        any |= out[v];
    for (; c < count; c++)
        any |= x[c] > m || x[c] < -m;
    return !any;
}

/* ---- where the polyphase pairs come from ---------------------------------- */

/* The alignment of the forward lifting (dwt_line.c's lifting_alignment):
 * a[m] = x[2m + e], lo[k] = scale_lo a[k + t + shift_lo] (hi alike). */
typedef struct lift_geometry {
    long e, t, shift[2]; /* [0]: a / lo, [1]: d / hi */
    real scale[2];       /* forward: scale_lo, scale_hi; inverse: their inverses */
} lift_geometry;

static lift_geometry lift_geometry_of(const wt_line *line, int inverse)
{
    const wt_lifting *L = line->wavelet->lifting;
    lift_geometry g;
    lifting_alignment(line, &g.e, &g.t);
    g.shift[0] = L->shift_lo;
    g.shift[1] = L->shift_hi;
    g.scale[0] = inverse ? (real)(1.0 / L->scale_lo) : (real)L->scale_lo;
    g.scale[1] = inverse ? (real)(1.0 / L->scale_hi) : (real)L->scale_hi;
    return g;
}

/* Inverse: coefficient row (or sample) of half @p half at position m, as
 * dwt_line.c's lifting_inverse and wt_line_inverse_i32 read it: the
 * JPEG 2000 kinds and the integer 5/3 from the interleaved sequence
 * y(2m + half) extended (wt_interleaved_mode), the filter banks from
 * band[m - t - shift] (periodic for periodization, else nothing: zero). */
static long coeff_source(const wt_line *line, const lift_geometry *g, int interleaved, long m,
                         int half, int *band)
{
    long nlo = (long)line->nlo, nhi = (long)line->nhi;
    if (interleaved) {
        int sign;
        long i = wt_fold_index((int)(2 * m + half), (int)(nlo + nhi),
                               wt_interleaved_mode(line->mode), &sign);
        *band = (int)(i & 1);
        return i / 2;
    }
    long nc = half ? nhi : nlo, k = m - g->t - g->shift[half];
    *band = half;
    if (is_periodization(line))
        return ((k % nc) + nc) % nc;
    return k >= 0 && k < nc ? k : -1;
}

static int uses_interleaved(const wt_line *line, int integer)
{
    return integer || line->wavelet->kind == WT_KIND_JPEG2000;
}

/* ---- columns -------------------------------------------------------------- */

/* The pipeline's state between a worker's jobs (head of its scratch, zero
 * when allocated): whose strip it holds (its input: forward sig, inverse lo
 * and hi) and where it stands. */
typedef struct lift_cols_state {
    const void *sig, *lo, *hi; /* the strip; NULL: none */
    int inverse;
    long start, tau;  /* window start; the next time */
    long next[2];     /* the next output row: forward lo, hi; inverse sig (next[0]) */
    long wide_until;  /* integer: times up to this one use the saturated steps */
} lift_cols_state;

_Static_assert(sizeof(lift_cols_state) <= WT_COLS_STATE, "the state fits the scratch's head");

/* Columns a chunk of a time step: the rows the steps of one time touch
 * stay in the first-level cache. */
#define LIFT_CHUNK 512

typedef struct lift_cols {
    const wt_line *line;
    const wt_cols *strip;
    lift_plan plan;
    lift_geometry g;
    lift_cols_state *state;
    real *ring[2]; /* a, d: plan.ring rows of ring_step */
    long ring_step, width, end; /* the window's end position */
    strip_rows src;            /* forward: the plane's rows and their extension */
} lift_cols;

static real *ring_row(const lift_cols *lc, int half, long m)
{
    long slot = ((m % lc->plan.ring) + lc->plan.ring) % lc->plan.ring;
    return lc->ring[half] + slot * lc->ring_step;
}

/* An output row: dst = scale * src, or a copy, or (@p to_float) the
 * integers of src as floats. */
typedef struct lift_out {
    float *dst;
    const real *src;
    real scale;
    int copy, to_float;
} lift_out;

/* The output rows a time step can write: the rows of the job whose
 * positions are complete (< @p done) and not yet written; next[] moves on. */
static int due_rows(lift_cols *lc, long done, long k1, long k1h, lift_out *out)
{
    const wt_cols *s = lc->strip;
    lift_cols_state *st = lc->state;
    int count = 0;
    if (!st->inverse) {
        float *band[2] = {s->lo, s->hi};
        ptrdiff_t step[2] = {s->lo_step, s->hi_step};
        long end[2] = {k1, k1h};
        for (int h = 0; h < 2; h++)
            for (; st->next[h] < end[h] && st->next[h] + lc->g.t + lc->g.shift[h] < done;
                 st->next[h]++)
                out[count++] = (lift_out){band[h] + (st->next[h] - (long)s->out_first) * step[h],
                                          ring_row(lc, h, st->next[h] + lc->g.t + lc->g.shift[h]),
                                          lc->g.scale[h], lc->plan.integer, 0};
        return count;
    }
    for (; st->next[0] < k1; st->next[0]++) {
        long p = st->next[0] - lc->g.e; /* x[2m + e] = a[m], x[2m + e + 1] = d[m] */
        if ((p >> 1) >= done)
            break;
        out[count++] = (lift_out){s->sig + st->next[0] * s->sig_step,
                                  ring_row(lc, (int)(p & 1), p >> 1), 1, 1, s->sig_float};
    }
    return count;
}

/* dst[c] = (float)src[c], c in [0, count): wt_convert_samples' values. */
static void ints_to_floats(float *dst, const int32_t *src, long count)
{
    long c = 0;
    for (; c + VW <= count; c += VW)
        AT(dst + c) = __builtin_convertvector((ilanes)(*(const ilanes_at *)(src + c)), lanes);
    for (; c < count; c++)
        dst[c] = (float)src[c];
}

/* dst[c] = src[c] toward zero, saturated, NaN 0, c in [0, count):
 * wt_convert_samples' values. */
static void floats_to_ints(int32_t *dst, const float *src, long count)
{
    long c = 0;
    const lanes top = (lanes){0} + 2147483648.0f;
    for (; c + VW <= count; c += VW) {
        lanes x = LOAD(src + c);
#if VW == 8
        ilanes r = (ilanes)_mm256_cvttps_epi32((__m256)x); /* INT32_MIN out of range, NaN */
#else
        ilanes r = (ilanes)_mm512_cvttps_epi32((__m512)x);
#endif
        ilanes over = x >= top, nan = x != x;
        r = (r & ~over) | (over & INT32_MAX);
        *(ilanes_at *)(dst + c) = r & ~nan;
    }
    for (; c < count; c++)
        dst[c] = src[c] != src[c]              ? 0
                 : src[c] >= 2147483648.0f    ? INT32_MAX
                 : src[c] <= -2147483648.0f   ? INT32_MIN
                                              : (int32_t)src[c];
}

static void write_out(const lift_out *o, long c0, long c1)
{
    if (o->to_float)
        ints_to_floats(o->dst + c0, (const int32_t *)o->src + c0, c1 - c0);
    else if (o->copy)
        memcpy(o->dst + c0, o->src + c0, (size_t)(c1 - c0) * sizeof *o->dst);
    else
        scale_span(o->dst + c0, o->src + c0, o->scale, c1 - c0);
}

/* Position m's rows into the ring, columns [c0, c1). */
static void load_pair(const lift_cols *lc, long m, long c0, long c1)
{
    for (int h = 0; h < 2; h++) {
        real *dst = ring_row(lc, h, m) + c0;
        if (!lc->state->inverse) {
            const real *row = strip_row(&lc->src, 2 * m + lc->g.e + h) + c0;
            if (lc->strip->sig_float && lc->plan.integer)
                floats_to_ints((int32_t *)dst, row, c1 - c0);
            else
                memcpy(dst, row, (size_t)(c1 - c0) * sizeof *dst);
            continue;
        }
        const wt_cols *s = lc->strip;
        int band, interleaved = uses_interleaved(lc->line, lc->plan.integer);
        long k = coeff_source(lc->line, &lc->g, interleaved, m, h, &band);
        if (k < 0) {
            memset(dst, 0, (size_t)(c1 - c0) * sizeof *dst);
            continue;
        }
        if (s->coeff_row) { /* made in the ring (whole rows: c0 = 0), then scaled there */
            s->coeff_row(s->coeff_ctx, band, (size_t)k, dst);
            if (!lc->plan.integer)
                scale_span(dst, dst, lc->g.scale[h], c1 - c0);
            continue;
        }
        const real *row = band ? s->hi + k * s->hi_step : s->lo + k * s->lo_step;
        if (lc->plan.integer)
            memcpy(dst, row + c0, (size_t)(c1 - c0) * sizeof *dst);
        else
            scale_span(dst, row + c0, lc->g.scale[h], c1 - c0);
    }
}

static int row_narrow(const lift_cols *lc, long m)
{
    return span_narrow((const int32_t *)ring_row(lc, 0, m), lc->width) &&
           span_narrow((const int32_t *)ring_row(lc, 1, m), lc->width);
}

/* Step s at its position of time tau, columns [c0, c1). */
static void run_step(const lift_cols *lc, const lift_step *st, long tau, long c0, long c1,
                     int narrow)
{
    long p = tau - st->lag;
    if (p < st->lo || p >= st->hi)
        return;
    int dst_half = st->update ? 0 : 1;
    const real *src[8];
    for (int i = 0; i < st->ntaps; i++)
        src[i] = ring_row(lc, 1 - dst_half, p + st->offset + i);
    real *dst = ring_row(lc, dst_half, p);
    if (lc->plan.integer)
        lift_apply_i32(st, lc->plan.dir, (int32_t *)dst, (const int32_t *const *)src, c0, c1,
                       narrow);
    else
        lift_apply_f32(st, dst, src, c0, c1);
}

/* One time step: load, steps, the due outputs, chunk by chunk. */
static void time_step(lift_cols *lc, long tau, long k1, long k1h)
{
    lift_cols_state *st = lc->state;
    if (tau < lc->end) {
        load_pair(lc, tau, 0, lc->width); /* whole rows: coeff_row makes whole rows */
        if (lc->plan.integer && !row_narrow(lc, tau))
            st->wide_until = tau + lc->plan.ring + lc->plan.left + lc->plan.right;
    }
    int narrow = tau > st->wide_until;
    lift_out out[16];
    int nout = due_rows(lc, tau - lc->plan.lag_out + 1, k1, k1h, out);
    for (long c0 = 0; c0 < lc->width; c0 += LIFT_CHUNK) {
        long c1 = min_l(lc->width, c0 + LIFT_CHUNK);
        for (int s = 0; s < lc->plan.nsteps; s++)
            run_step(lc, &lc->plan.step[s], tau, c0, c1, narrow);
        for (int o = 0; o < nout; o++)
            write_out(&out[o], c0, c1);
    }
}

/* The first position a job's outputs from row @p k need. */
static long first_position(const lift_cols *lc, long k)
{
    if (lc->state->inverse)
        return (k - lc->g.e) >> 1;
    return k + lc->g.t + min_l(lc->g.shift[0], lc->g.shift[1]);
}

/* Go on from the worker's last job where it ended where this one starts;
 * else start a new window @p left positions before the job's first. */
static void resume_or_start(lift_cols *lc, int inverse, long k0, long k0h)
{
    const wt_cols *s = lc->strip;
    lift_cols_state *st = lc->state;
    int same_input = inverse ? st->lo == s->lo && st->hi == s->hi : st->sig == s->sig;
    int same = same_input && st->inverse == inverse && st->next[0] == k0 &&
               (inverse || st->next[1] == k0h);
    if (same)
        return;
    *st = (lift_cols_state){s->sig, s->lo, s->hi, inverse, 0, 0, {k0, k0h}, LONG_MIN / 2};
    st->start = first_position(lc, k0) - lc->plan.left;
    st->tau = st->start;
}

static void lift_cols_run(const wt_line *line, const wt_cols *strip, void *scratch, int inverse)
{
    lift_cols lc = {.line = line, .strip = strip};
    int integer = strip->integer;
    lift_plan_init(&lc.plan, line, inverse, integer);
    lc.g = lift_geometry_of(line, inverse);
    lc.state = scratch;
    lc.width = (long)strip->width;
    lc.ring_step = wt_lift_row_step(strip->width);
    lc.ring[0] = (real *)((char *)scratch + WT_COLS_STATE);
    lc.ring[1] = lc.ring[0] + lc.plan.ring * lc.ring_step;
    long n = (long)line->n, k0 = (long)strip->first, k1 = k0 + (long)strip->count;
    long k1h = inverse ? k1 : min_l(k1, (long)line->nhi), k0h = min_l(k0, k1h);
    /* the window ends where the last outputs' positions are complete */
    long last = inverse ? (n - 1 - lc.g.e) >> 1
                        : max_l((long)line->nlo - 1 + lc.g.t + lc.g.shift[0],
                                (long)line->nhi - 1 + lc.g.t + lc.g.shift[1]);
    lc.end = last + 1 + lc.plan.right;
    resume_or_start(&lc, inverse, k0, k0h);
    lift_intervals(&lc.plan, lc.state->start, lc.end);
    long job_last = inverse ? (k1 - 1 - lc.g.e) >> 1
                            : max_l(k1 - 1 + lc.g.t + lc.g.shift[0],
                                    (k1h > 0 ? k1h - 1 : 0) + lc.g.t + lc.g.shift[1]);
    long tau_end = job_last + lc.plan.lag_out; /* the last time this job runs */
    if (!inverse) {
        long padded = n + (is_periodization(line) && (n & 1));
        lc.src = (strip_rows){strip->sig, strip->sig_step, n, padded, 0, NULL, NULL, lc.width};
        long m1 = min_l(tau_end + 1, lc.end);
        extend_strip(&lc.src, signal_mode(line), 2 * lc.state->tau + lc.g.e,
                     2 * m1 + lc.g.e, lc.ring[1] + lc.plan.ring * lc.ring_step);
    }
    lift_out pending[16];
    int np = due_rows(&lc, lc.state->tau - lc.plan.lag_out, k1, k1h, pending);
    for (int o = 0; o < np; o++)
        write_out(&pending[o], 0, lc.width);
    for (; lc.state->tau <= tau_end; lc.state->tau++)
        time_step(&lc, lc.state->tau, k1, k1h);
}

static void lift_cols_forward(const wt_line *line, const wt_cols *strip, void *scratch)
{
    lift_cols_run(line, strip, scratch, 0);
}

static void lift_cols_inverse(const wt_line *line, const wt_cols *strip, void *scratch)
{
    lift_cols_run(line, strip, scratch, 1);
}

/* ---- rows ----------------------------------------------------------------- */

/* Step @p st over indices [i0, i1) of a[] and d[] (index m - m0). */
static inline __attribute__((always_inline)) void
lift_span(const lift_plan *p, const lift_step *st, real *a, real *d, long i0, long i1, int narrow)
{
    real *dst = st->update ? a : d;
    const real *from = (st->update ? d : a) + i0 + st->offset, *src[8];
    for (int i = 0; i < st->ntaps; i++)
        src[i] = from + i;
    if (p->integer)
        lift_apply_i32(st, p->dir, (int32_t *)dst + i0, (const int32_t *const *)src, 0, i1 - i0,
                       narrow);
    else
        lift_apply_f32(st, dst + i0, src, 0, i1 - i0);
}

/* Positions a block of the forward row's sweep (lift_sweep): the outputs
 * of a block are stored while the steps of the next ones run. */
#define SWEEP_BLOCK 128

static long floor_div(long x, long y)
{
    return x >= 0 ? x / y : -((-x + y - 1) / y);
}

/* The lags of the steps in blocks of SWEEP_BLOCK positions (lift_lags on
 * the blocks a step reads and writes): step s runs on block tau -
 * sweep_lag[s] at time tau and reads only blocks the steps before it have
 * finished and the steps after it have not yet changed. */
static void sweep_lags(lift_plan *p)
{
    lift_plan b = *p;
    for (int s = 0; s < p->nsteps; s++) {
        lift_step *st = &b.step[s];
        long first = floor_div(st->offset, SWEEP_BLOCK);
        long last = floor_div(SWEEP_BLOCK - 1 + st->offset + st->ntaps - 1, SWEEP_BLOCK);
        st->offset = (int)first;
        st->ntaps = (int)(last - first + 1);
    }
    lift_lags(&b, 0);
    for (int s = 0; s < p->nsteps; s++)
        p->sweep_lag[s] = b.step[s].lag;
    p->sweep_lag_out = b.lag_out;
}

/* The forward row's outputs: band h's output k is scale[h] * src[h][k]
 * (integer: a copy), at index first[h] + k; written up to done[h]. */
typedef struct forward_out {
    float *dst[2];
    const real *src[2];
    long first[2], count[2], done[2];
    real scale[2];
    int integer;
} forward_out;

/* The outputs whose positions are final (index < @p final). */
static void forward_emit(forward_out *o, long final)
{
    for (int h = 0; h < 2; h++) {
        long k0 = o->done[h], k1 = min_l(final - o->first[h], o->count[h]);
        if (k1 <= k0)
            continue;
        if (o->integer)
            memcpy(o->dst[h] + k0, o->src[h] + k0, (size_t)(k1 - k0) * sizeof *o->dst[h]);
        else
            scale_span(o->dst[h] + k0, o->src[h] + k0, o->scale[h], k1 - k0);
        o->done[h] = k1;
    }
}

/* The steps over a[] and d[] of positions [m0, m1) (index m - m0), each
 * where its inputs are valid (lift_intervals). Where @p out is set (the
 * forward), in one sweep of blocks of SWEEP_BLOCK positions (the plan's
 * sweep_lag), the values of the steps one after the other along the
 * whole line, bit for bit, and each output written as soon as its
 * position is final, so that the row's stores go to memory while its
 * steps run; else one step after the other along the whole line. */
static void lift_sweep(lift_plan *p, real *a, real *d, long m0, long m1, int narrow,
                       forward_out *out)
{
    static const long in_order[8] = {0};
    long n = m1 - m0, block = out ? SWEEP_BLOCK : n, blocks = (n + block - 1) / block;
    const long *lag = blocks > 1 ? p->sweep_lag : in_order;
    long lag_out = blocks > 1 ? p->sweep_lag_out : 0;
    lift_intervals(p, m0, m1);
    for (long tau = 0; tau < blocks + lag_out; tau++) {
        for (int s = 0; s < p->nsteps; s++) {
            const lift_step *st = &p->step[s];
            long b = tau - lag[s];
            long i0 = max_l(b * block, st->lo - m0), i1 = min_l((b + 1) * block, st->hi - m0);
            if (b >= 0 && b < blocks && i1 > i0)
                lift_span(p, st, a, d, i0, i1, narrow);
        }
        if (out)
            forward_emit(out, min_l(n, (tau - lag_out + 1) * block));
    }
}

/* ---- a row's inside in registers ----------------------------------------- */

/* Whether a row's inside runs in registers (row_pairs; the inverse:
 * row_pair_inverse_i32, the integer 5/3 only):
 * steps of two taps in pairs, forward a predict d[m] += t0 a[m] + t1 a[m +
 * 1] then an update a[m] += t0 d[m - 1] + t1 d[m] (cdf97: two pairs,
 * legall53: one; the integer 5/3 where the row is narrow:
 * wt_lift53_step32), undone in the opposite order. */
static int pairs_in_registers(const lift_plan *p, int narrow)
{
    if (p->nsteps % 2 || p->nsteps > 4 || p->nsteps == 0 ||
        (p->integer && (!narrow || p->nsteps != 2)))
        return 0;
    for (int s = 0; s < p->nsteps; s++) {
        const lift_step *st = &p->step[s];
        int update = p->dir > 0 ? s & 1 : !(s & 1);
        if (st->ntaps != 2 || st->update != update || st->offset != -update)
            return 0;
    }
    return 1;
}

/* A float step's value: dst + (0 + t0 x0 + t1 x1), LIFT_STEP's operations. */
static inline __attribute__((always_inline)) lanes float_step(lanes dst, lanes x0, lanes x1,
                                                               lanes t0, lanes t1)
{
    lanes acc = (lanes){0};
    acc += t0 * x0;
    acc += t1 * x1;
    return dst + acc;
}

/* The integer 5/3's step in 32-bit lanes (lift_apply_i32's narrow values):
 * forward (@p dir 1) predict d - ((x0 + x1) >> 1), update a + ((x0 + x1 +
 * 2) >> 2); inverse (-1) the opposite signs. */
static inline __attribute__((always_inline)) ilanes int_step(ilanes dst, ilanes x0, ilanes x1,
                                                              int update, int dir)
{
    ilanes q = update ? (x0 + x1 + 2) >> 2 : (x0 + x1) >> 1;
    return (update ? dir : -dir) > 0 ? dst + q : dst - q;
}

/* Pair K's forward predict (UPDATE 0) or update (1) in ROW_PAIRS. */
#define FLOAT_STEP(K, UPDATE, DST, X0, X1)                                                   \
    float_step(DST, X0, X1, tv[K][2 * (UPDATE)], tv[K][2 * (UPDATE) + 1])
#define INT_STEP(K, UPDATE, DST, X0, X1) int_step(DST, X0, X1, UPDATE, 1)
#define ILOAD(p) ((ilanes)(*(const ilanes_at *)(p)))
#define FLOAT_OUT(P, H, V) (AT(P) = scale[H] * (V))
#define INT_OUT(P, H, V) (*(ilanes_at *)(P) = (V))

/* PAIRS pairs of steps (pairs_in_registers) on the positions [i0, i1) of
 * a[], d[] (the row's extension split, unchanged here; i1 - i0 a multiple
 * of VW), in vectors of type V (LD loads one, STEP is a step's value, OUT
 * stores an output), each output stored: lo[i - first[0]] = a'[i] (the
 * float steps: scaled), hi[i - first[1]] = d'[i]. Block j's pair k runs at
 * time j + k (it reads the next block of the pair before it: the
 * predict's a'[m + 1]); an update's d'[m - 1] is the last lane of the
 * block before. Each value is the steps' on the same inputs: the
 * positions' final values, bit for bit. The block before i0 starts the
 * pipeline (its first lanes read zeros; only its last d' is used), so
 * a[], d[] must hold [i0 - VW, i1 + PAIRS * VW). */
#define ROW_PAIRS(PAIRS, V, LD, STEP, OUT)                                                   \
    do {                                                                                     \
        V A[PAIRS] = {{0}}, D[PAIRS] = {{0}}; /* pair k's last block */                      \
        long blocks = (i1 - i0) / VW;                                                        \
        for (long j = -2; j < blocks + (PAIRS) - 1; j++) {                                   \
            long b = i0 + (j + 1) * VW; /* the first pair's block */                         \
            V x = LD(a + b), xn = LD(a + b + 1), y = LD(d + b);                              \
            for (int k = 0; k < (PAIRS); k++) {                                              \
                V dn = STEP(k, 0, y, x, xn);                                                 \
                V an = STEP(k, 1, x, SHUFFLE2(D[k], dn, AFTER_LAST), dn);                    \
                if (k + 1 < (PAIRS)) { /* the next pair: the block before, a' one on */      \
                    x = A[k];                                                                \
                    xn = SHUFFLE2(A[k], an, BEFORE_FIRST);                                   \
                    y = D[k];                                                                \
                }                                                                            \
                A[k] = an;                                                                   \
                D[k] = dn;                                                                   \
            }                                                                                \
            long out = j + 2 - (PAIRS); /* the block the last pair finished */               \
            if (out >= 0 && out < blocks) {                                                  \
                long i = i0 + out * VW;                                                      \
                OUT(lo + i - first[0], 0, A[(PAIRS) - 1]);                                   \
                OUT(hi + i - first[1], 1, D[(PAIRS) - 1]);                                   \
            }                                                                                \
        }                                                                                    \
    } while (0)

/* The taps of the steps broadcast: tv[k][2 * u + i], step u of pair k. */
static void pair_taps(const lift_plan *p, lanes tv[2][4])
{
    for (int k = 0; k < p->nsteps / 2; k++)
        for (int i = 0; i < 4; i++)
            tv[k][i] = p->step[2 * k + i / 2].t[i & 1] + (lanes){0};
}

static void row_pairs_f32(const lift_plan *p, const real *a, const real *d, long i0, long i1,
                          const long first[2], const real scale[2], float *lo, float *hi)
{
    lanes tv[2][4];
    pair_taps(p, tv);
    if (p->nsteps == 4)
        ROW_PAIRS(2, lanes, LOAD, FLOAT_STEP, FLOAT_OUT);
    else
        ROW_PAIRS(1, lanes, LOAD, FLOAT_STEP, FLOAT_OUT);
}

static void row_pairs_i32(const int32_t *a, const int32_t *d, long i0, long i1,
                          const long first[2], float *lo, float *hi)
{
    ROW_PAIRS(1, ilanes, ILOAD, INT_STEP, INT_OUT);
}

static void row_pairs(const lift_plan *p, const real *a, const real *d, long i0, long i1,
                      const long first[2], const real scale[2], float *lo, float *hi)
{
    if (p->integer)
        row_pairs_i32((const int32_t *)a, (const int32_t *)d, i0, i1, first, lo, hi);
    else
        row_pairs_f32(p, a, d, i0, i1, first, scale, lo, hi);
}

/* The positions [inside[0], inside[1]) of a row of @p half positions
 * (indices of a[], d[]) that row_pairs makes: outputs of both bands, VW
 * apart from the ends and a multiple of VW long, and room at both ends
 * for lift_sweep's (forward_ends); 0 where the row is too short. */
static int inside_of(const lift_plan *p, const forward_out *o, long half, long inside[2])
{
    long i0 = max_l(max_l(o->first[0], o->first[1]), 2 * VW);
    i0 += ((o->first[0] - i0) % VW + VW) % VW; /* lo's stores whole vectors of its row */
    long i1 = min_l(min_l(o->first[0] + o->count[0], o->first[1] + o->count[1]),
                    half - (p->nsteps / 2 + 1) * VW);
    i1 = i0 + (i1 - i0) / VW * VW;
    inside[0] = i0;
    inside[1] = i1;
    return i1 - i0 >= 4 * VW;
}

/* The outputs of band h from index @p from on (of a window starting @p
 * start positions into the row's). */
static forward_out outputs_from(const forward_out *o, long start, const long from[2])
{
    forward_out r = *o;
    for (int h = 0; h < 2; h++) {
        long k = min_l(max_l(from[h] - o->first[h], 0), o->count[h]);
        r.dst[h] += k;
        r.src[h] += k;
        r.first[h] += k - start;
        r.count[h] -= k;
        r.done[h] = 0;
    }
    return r;
}

/* The outputs before and after the inside (row_pairs made it): the steps
 * in place on a window from the row's start to just past the inside's
 * start, and on one from just before its end to the row's end; each
 * window's outputs whose positions' inputs lie within it are the whole
 * row's values (lift_intervals), and those are the ones written. */
static void forward_ends(lift_plan *p, const forward_out *o, real *a, real *d, long m0, long m1,
                         const long inside[2], int narrow)
{
    long head = inside[0] + p->right + 1, tail = inside[1] - p->left - 1;
    forward_out before = *o;
    for (int h = 0; h < 2; h++)
        before.count[h] = min_l(o->count[h], max_l(inside[0] - o->first[h], 0));
    lift_sweep(p, a, d, m0, m0 + head, narrow, &before);
    const long from[2] = {inside[1], inside[1]};
    forward_out after = outputs_from(o, tail, from);
    lift_sweep(p, a + tail, d + tail, m0 + tail, m1, narrow, &after);
}

static void lift_row_forward(const wt_line *line, lift_plan *p, const lift_geometry *g,
                             const float *x, float *lo, float *hi, real *scratch)
{
    long n = (long)line->n, padded = n + (is_periodization(line) && (n & 1));
    long m0 = min_l(0, g->t + min_l(g->shift[0], g->shift[1]) - p->left);
    long m1 = max_l((padded - g->e + 1) / 2,
                    max_l((long)line->nlo + g->t + g->shift[0],
                          (long)line->nhi + g->t + g->shift[1]) + p->right);
    long half = m1 - m0;
    split_row r = {scratch, scratch + half, 2 * m0 + g->e};
    split_extend(x, n, padded, signal_mode(line), r.e0, 2 * m1 + g->e, &r);
    int narrow = !p->integer || span_narrow((const int32_t *)x, n);
    long first[2] = {g->t + g->shift[0] - m0, g->t + g->shift[1] - m0};
    forward_out out = {{lo, hi},
                       {r.even + first[0], r.odd + first[1]},
                       {first[0], first[1]},
                       {(long)line->nlo, (long)line->nhi},
                       {0, 0},
                       {g->scale[0], g->scale[1]},
                       p->integer};
    long inside[2];
    if (!pairs_in_registers(p, narrow) || !inside_of(p, &out, half, inside)) {
        lift_sweep(p, r.even, r.odd, m0, m1, narrow, &out);
        return;
    }
    row_pairs(p, r.even, r.odd, inside[0], inside[1], first, g->scale, lo, hi);
    forward_ends(p, &out, r.even, r.odd, m0, m1, inside, narrow);
}

/* a[m], d[m] for m in [m0, m1) from the bands (coeff_source; the inside
 * at once, the ends one by one). */
static void fill_pairs(const wt_line *line, const lift_geometry *g, int integer, const float *lo,
                       const float *hi, long m0, long m1, real *a, real *d)
{
    int interleaved = uses_interleaved(line, integer);
    const float *bands[2] = {lo, hi};
    real *pair[2] = {a, d};
    for (int h = 0; h < 2; h++) {
        long nc = (long)(h ? line->nhi : line->nlo);
        /* the positions whose source is band h's element m - shift, in order */
        long shift = interleaved ? 0 : g->t + g->shift[h];
        long in0 = max_l(m0, shift), in1 = min_l(m1, nc + shift);
        if (interleaved) /* y(2m + h) inside y's nlo + nhi samples */
            in1 = min_l(in1, ((long)(line->nlo + line->nhi) - h + 1) / 2);
        for (long m = m0; m < m1; m++) {
            if (m == in0 && in1 > in0) {
                const float *src = bands[h] + (m - shift);
                if (integer)
                    memcpy(pair[h] + (m - m0), src, (size_t)(in1 - in0) * sizeof *a);
                else
                    scale_span(pair[h] + (m - m0), src, g->scale[h], in1 - in0);
                m = in1 - 1;
                continue;
            }
            int band;
            long k = coeff_source(line, g, interleaved, m, h, &band);
            real v = k < 0 ? 0 : bands[band][k];
            pair[h][m - m0] = k < 0 || integer ? v : g->scale[h] * v;
        }
    }
}

/* out[2j] = even[j], out[2j + 1] = odd[j] for the n outputs. */
static void interleave_out(const real *even, const real *odd, float *out, long n)
{
    long j = 0;
    for (; 2 * (j + VW) <= n; j += VW) {
        lanes e = LOAD(even + j), o = LOAD(odd + j);
        AT(out + 2 * j) = SHUFFLE2(e, o, LOW_INTERLEAVE);
        AT(out + 2 * j + VW) = SHUFFLE2(e, o, HIGH_INTERLEAVE);
    }
    for (long i = 2 * j; i < n; i++)
        out[i] = (i & 1) ? odd[i / 2] : even[i / 2];
}

/* The inverse row: a[], d[] from the bands, the steps undone along the
 * whole row (in blocks it was no faster here: the row's outputs go to
 * the column pass's ring, not to memory), interleaved on the way out. */
/* The integer 5/3's inverse row inside in 32-bit lanes (pairs_in_registers,
 * narrow): the update undone on the positions [i0, i1) of a[], d[] (the
 * made pairs, unchanged here; i1 - i0 a multiple of VW), then the predict
 * one block behind (it reads the next block of a'), the values interleaved
 * into x from x[2 i0] on: x[2i] = a'[i], x[2i + 1] = d'[i]. The block
 * before i0 starts the pipeline (its predict reads zeros and is not
 * stored), so a[], d[] must hold [i0 - VW - 1, i1 + VW). (cdf97's two
 * pairs in registers were slower here than the in-order sweep: the
 * inverse row's steps were not its time; dev/notes/cpu-kernels.md.) */
static void row_pair_inverse_i32(const int32_t *a, const int32_t *d, long i0, long i1,
                                 float *xs)
{
    ilanes prev = {0}; /* a' of the block before */
    long blocks = (i1 - i0) / VW;
    for (long j = 0; j <= blocks; j++) {
        long b = i0 + (j - 1) * VW;
        ilanes an = int_step(ILOAD(a + b + VW), ILOAD(d + b + VW - 1), ILOAD(d + b + VW), 1, -1);
        ilanes dn = int_step(ILOAD(d + b), prev, SHUFFLE2(prev, an, BEFORE_FIRST), 0, -1);
        if (j > 0) { /* bits as they are */
            AT(xs + 2 * (b - i0)) = (lanes)SHUFFLE2(prev, dn, LOW_INTERLEAVE);
            AT(xs + 2 * (b - i0) + VW) = (lanes)SHUFFLE2(prev, dn, HIGH_INTERLEAVE);
        }
        prev = an;
    }
}

/* x[j] for j in [j0, j1) from a[], d[] (even[j / 2] for even j, odd[j /
 * 2] for odd). */
static void interleave_range(const real *even, const real *odd, float *x, long j0, long j1)
{
    if (j0 >= j1)
        return;
    if (j0 & 1)
        x[j0] = odd[j0 / 2], j0++;
    interleave_out(even + j0 / 2, odd + j0 / 2, x + j0, j1 - j0);
}

static void lift_row_inverse(const wt_line *line, lift_plan *p, const lift_geometry *g,
                             const float *lo, const float *hi, float *out, real *scratch)
{
    long n = (long)line->n;
    long m0 = (0 - g->e) / 2 - p->left, m1 = (n - 1 - g->e) / 2 + 1 + p->right;
    real *a = scratch, *d = scratch + (m1 - m0);
    fill_pairs(line, g, p->integer, lo, hi, m0, m1, a, d);
    int narrow = !p->integer || (span_narrow((const int32_t *)lo, (long)line->nlo) &&
                                 span_narrow((const int32_t *)hi, (long)line->nhi));
    /* x[i] = a[m] at i = 2m + e, d[m] at 2m + e + 1: x[2j] = even[j], x[2j + 1] = odd[j] */
    const real *even = g->e == 0 ? a - m0 : d - m0, *odd = g->e == 0 ? d - m0 : a + 1 - m0;
    long half = m1 - m0;
    /* the inside: x from 2 (m0 + i0) + e to 2 (m0 + i1) + e within [0, n) */
    long i0 = max_l(2 * VW, -m0 + 1), i1 = min_l(half - 3 * VW, (n - g->e) / 2 - m0 - 1);
    long r = ((2 * (m0 + i0) + g->e) % VW + VW) % VW; /* x's stores whole vectors (even r) */
    i0 += r % 2 ? 0 : (VW - r) % VW / 2;
    i1 = i0 + (i1 - i0) / VW * VW;
    if (!p->integer || !pairs_in_registers(p, narrow) || i1 - i0 < 4 * VW) {
        lift_sweep(p, a, d, m0, m1, narrow, NULL);
        interleave_range(even, odd, out, 0, n);
        return;
    }
    long x0 = 2 * (m0 + i0) + g->e, x1 = 2 * (m0 + i1) + g->e;
    row_pair_inverse_i32((const int32_t *)a, (const int32_t *)d, i0, i1, out + x0);
    long head = i0 + p->right + 1, tail = i1 - p->left - 1;
    lift_sweep(p, a, d, m0, m0 + head, narrow, NULL);
    interleave_range(even, odd, out, 0, x0);
    lift_sweep(p, a + tail, d + tail, m0 + tail, m1, narrow, NULL);
    interleave_range(even, odd, out, x1, n);
}

static void lift_rows_run(const wt_line *line, const wt_rows *rows, void *scratch, int inverse)
{
    lift_plan p;
    lift_plan_init(&p, line, inverse, rows->integer);
    if (!inverse)
        sweep_lags(&p);
    lift_geometry g = lift_geometry_of(line, inverse);
    for (size_t b = rows->first; b < rows->first + rows->count; b++) {
        float *sig = rows->sig + (ptrdiff_t)b * rows->sig_step;
        float *lo = rows->lo + (ptrdiff_t)b * rows->lo_step;
        float *hi = rows->hi + (ptrdiff_t)b * rows->hi_step;
        if (inverse)
            lift_row_inverse(line, &p, &g, lo, hi, sig, scratch);
        else
            lift_row_forward(line, &p, &g, sig, lo, hi, scratch);
    }
}

/* ---- the table's entries: filter banks (dwt_cols.c, dwt_rows.c) or lifting */

static void plane_cols_forward(const wt_line *line, const wt_cols *strip, void *scratch)
{
    if (line->method == WT_METHOD_LIFTING)
        lift_cols_forward(line, strip, scratch);
    else
        cols_forward(line, strip, scratch);
}

static void plane_cols_inverse(const wt_line *line, const wt_cols *strip, void *scratch)
{
    if (line->method == WT_METHOD_LIFTING)
        lift_cols_inverse(line, strip, scratch);
    else
        cols_inverse(line, strip, scratch);
}

static void plane_rows_forward(const wt_line *line, const wt_rows *rows, void *scratch)
{
    if (line->method == WT_METHOD_LIFTING)
        lift_rows_run(line, rows, scratch, 0);
    else
        rows_forward(line, rows, scratch);
}

static void plane_rows_inverse(const wt_line *line, const wt_rows *rows, void *scratch)
{
    if (line->method == WT_METHOD_LIFTING)
        lift_rows_run(line, rows, scratch, 1);
    else
        rows_inverse(line, rows, scratch);
}

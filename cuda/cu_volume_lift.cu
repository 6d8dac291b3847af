/* Lifting passes of the CUDA engine's volumes (cu_volume.cu's
 * cu_vpass_run sends them here): one DWT level along one axis of dense
 * (C, z, y, x) device arrays by a wavelet's lifting scheme, float (cdf97,
 * dd137, haar, db3, ...) or legall53's int32 steps, with
 * src/engine/dwt_line.c's arithmetic line for line (its lifting_forward,
 * lifting_inverse, wt_line_forward_i32 and wt_line_inverse_i32): the
 * polyphase halves a[m] = x(2m + e), d[m] = x(2m + e + 1) of the extended
 * line over [m0, m0 + count), the steps in order (inverse: undone
 * backwards), the scaled halves out.
 *
 * One thread lifts one line; lines are numbered (outer, inner), so
 * neighbouring threads take neighbouring x of the z and y passes. The
 * halves live in a device scratch laid out [m][line] (neighbouring lines'
 * values side by side), for as many lines at a time as CU_VLIFT_SCRATCH
 * and half of the free device memory allow. legall53 runs the 64-bit
 * saturating step (wt_lift53_step), which the CPU engine's 32-bit step
 * equals wherever it takes that one. */
#include <string.h>

#include "cu_engine.h"
#include "cu_extend.cuh"
#include "transform.h"
extern "C" {
#include "dwt_line.h"
}

#define CU_VLIFT_THREADS 128

typedef struct cu_vstep {
    int update, offset, ntaps;
    float taps[8]; /* with the direction's sign */
} cu_vstep;

/* One axis of one level, as the kernels see it. */
typedef struct cu_vlift {
    int n, nlo, nhi;
    int mode;     /* the level's mode */
    int sig_mode; /* forward: the signal's extension */
    int j2k;
    int e, t, shift_lo, shift_hi; /* polyphase alignment */
    int m0, count;                /* the halves' span */
    float g_lo, g_hi;             /* forward: the scales; inverse: their inverses */
    int nsteps;
    cu_vstep steps[8]; /* in the order they run */
} cu_vlift;

/* A chunk of lines: line l of the chunk is line first + l of the pass,
 * (outer o, inner q) = divmod(first + l, inner). */
typedef struct cu_vlines {
    size_t first, count, inner;
} cu_vlines;

WT_DEV size_t line_base(const cu_vlines &L, size_t l, int len)
{
    const size_t g = L.first + l, o = g / L.inner, q = g % L.inner;
    return o * (size_t)len * L.inner + q;
}

/* Apply one float step (its taps carry the direction's sign) to the halves
 * of line l (index m at [m * lines + l]). */
WT_DEV void lift_step(const cu_vstep &st, float *a, float *d, int count, size_t lines, size_t l)
{
    float *dst = st.update ? a : d;
    const float *src = st.update ? d : a;
    const int lo = st.offset < 0 ? -st.offset : 0;
    const int reach = st.offset + st.ntaps - 1;
    const int hi = count - (reach > 0 ? reach : 0);
    for (int m = lo; m < hi; m++) {
        float acc = 0.0f;
        for (int i = 0; i < st.ntaps; i++)
            acc += st.taps[i] * src[(size_t)(m + st.offset + i) * lines + l];
        dst[(size_t)m * lines + l] += acc;
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift_forward(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                  const float *__restrict__ sig, float *__restrict__ lo, float *__restrict__ hi,
                  float *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        float *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const float *line = sig + line_base(L, l, A.n);
        for (int m = 0; m < A.count; m++) {
            const int x = 2 * (m + A.m0) + A.e;
            a[(size_t)m * L.count + l] = signal_at(line, L.inner, A.n, A.sig_mode, x);
            d[(size_t)m * L.count + l] = signal_at(line, L.inner, A.n, A.sig_mode, x + 1);
        }
        for (int s = 0; s < A.nsteps; s++)
            lift_step(A.steps[s], a, d, A.count, L.count, l);
        float *out_lo = lo + line_base(L, l, A.nlo), *out_hi = hi + line_base(L, l, A.nhi);
        for (int k = 0; k < A.nlo; k++)
            out_lo[(size_t)k * L.inner] =
                A.g_lo * a[(size_t)(k + A.t + A.shift_lo - A.m0) * L.count + l];
        for (int k = 0; k < A.nhi; k++)
            out_hi[(size_t)k * L.inner] =
                A.g_hi * d[(size_t)(k + A.t + A.shift_hi - A.m0) * L.count + l];
    }
}

/* Coefficient @p k of a band of @p len (periodization: periodic; else 0
 * outside), scaled. */
WT_DEV float coef_at(const float *band, size_t stride, int len, int k, int periodic, float g)
{
    if (periodic)
        k = wt_floor_mod(k, len);
    return k >= 0 && k < len ? g * band[(size_t)k * stride] : 0.0f;
}

/* Position @p i of a JPEG 2000 inverse's interleaved coefficients (lo at
 * even, hi at odd positions), extended as the level's mode says. */
template <typename T>
WT_DEV T interleaved(const T *lo, const T *hi, size_t stride, int len, int mode, int i)
{
    int sign;
    const int f = wt_fold_index(i, len, wt_interleaved_mode(mode), &sign);
    return (f & 1 ? hi : lo)[(size_t)(f >> 1) * stride];
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift_inverse(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                  const float *__restrict__ lo, const float *__restrict__ hi,
                  float *__restrict__ sig, float *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        float *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const float *in_lo = lo + line_base(L, l, A.nlo), *in_hi = hi + line_base(L, l, A.nhi);
        float *out = sig + line_base(L, l, A.n);
        if (A.j2k && A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            out[0] = in_lo[0]; /* a one-sample signal is its own low-pass band */
            continue;
        }
        const int per = A.mode == WT_MODE_PERIODIZATION, len = A.nlo + A.nhi;
        for (int m = 0; m < A.count; m++) {
            const int mm = m + A.m0;
            float va, vd;
            if (A.j2k) {
                va = A.g_lo * interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * mm);
                vd = A.g_hi * interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * mm + 1);
            } else {
                va = coef_at(in_lo, L.inner, A.nlo, mm - A.t - A.shift_lo, per, A.g_lo);
                vd = coef_at(in_hi, L.inner, A.nhi, mm - A.t - A.shift_hi, per, A.g_hi);
            }
            a[(size_t)m * L.count + l] = va;
            d[(size_t)m * L.count + l] = vd;
        }
        for (int s = 0; s < A.nsteps; s++)
            lift_step(A.steps[s], a, d, A.count, L.count, l);
        for (int i = 0; i < A.n; i++) {
            const int p = i - A.e; /* a[m] = x(2m + e) */
            const float *h = p & 1 ? d + (size_t)((p - 1) / 2 - A.m0) * L.count
                                   : a + (size_t)(p / 2 - A.m0) * L.count;
            out[(size_t)i * L.inner] = h[l];
        }
    }
}

/* ---- legall53, integer to integer --------------------------------------------------- */

/* predict: d[m] -/+= floor((a[m] + a[m+1]) / 2), m in [0, count - 1);
 * update: a[m] +/-= floor((d[m-1] + d[m] + 2) / 4), m in [1, count). */
WT_DEV void lift53_predict(const int32_t *a, int32_t *d, int count, size_t lines, size_t l,
                           int sign)
{
    for (int m = 0; m + 1 < count; m++)
        d[m * lines + l] =
            wt_lift53_step(d[m * lines + l], a[m * lines + l], a[(m + 1) * lines + l], 0, 1, -sign);
}

WT_DEV void lift53_update(int32_t *a, const int32_t *d, int count, size_t lines, size_t l,
                          int sign)
{
    for (int m = 1; m < count; m++)
        a[m * lines + l] =
            wt_lift53_step(a[m * lines + l], d[(m - 1) * lines + l], d[m * lines + l], 2, 2, sign);
}

/* Sample @p i of a line extended as wt_line_forward_i32 does (the
 * interleaved sequence's folding; periodization pads an odd line with its
 * last sample). */
WT_DEV int32_t sample53(const cu_vlift &A, const int32_t *line, size_t stride, int i)
{
    const int len = A.mode == WT_MODE_PERIODIZATION ? A.n + (A.n & 1) : A.n;
    int sign;
    const int x = wt_fold_index(i, len, wt_interleaved_mode(A.mode), &sign);
    return line[(size_t)(x < A.n ? x : A.n - 1) * stride];
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift53_forward(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                    const int32_t *__restrict__ sig, int32_t *__restrict__ lo,
                    int32_t *__restrict__ hi, int32_t *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        int32_t *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const int32_t *line = sig + line_base(L, l, A.n);
        for (int m = 0; m < A.count; m++) {
            a[(size_t)m * L.count + l] = sample53(A, line, L.inner, 2 * (m + A.m0));
            d[(size_t)m * L.count + l] = sample53(A, line, L.inner, 2 * (m + A.m0) + 1);
        }
        lift53_predict(a, d, A.count, L.count, l, 1);
        lift53_update(a, d, A.count, L.count, l, 1);
        int32_t *out_lo = lo + line_base(L, l, A.nlo), *out_hi = hi + line_base(L, l, A.nhi);
        for (int k = 0; k < A.nlo; k++)
            out_lo[(size_t)k * L.inner] = a[(size_t)(k - A.m0) * L.count + l];
        for (int k = 0; k < A.nhi; k++)
            out_hi[(size_t)k * L.inner] = d[(size_t)(k - A.m0) * L.count + l];
    }
}

WT_GLOBAL void WT_LAUNCH_BOUNDS(CU_VLIFT_THREADS)
    vlift53_inverse(const WT_GRID_CONST cu_vlift A, const WT_GRID_CONST cu_vlines L,
                    const int32_t *__restrict__ lo, const int32_t *__restrict__ hi,
                    int32_t *__restrict__ sig, int32_t *__restrict__ scratch)
{
    for (size_t l = (size_t)blockIdx.x * blockDim.x + threadIdx.x; l < L.count;
         l += (size_t)gridDim.x * blockDim.x) {
        int32_t *a = scratch, *d = scratch + (size_t)A.count * L.count;
        const int32_t *in_lo = lo + line_base(L, l, A.nlo), *in_hi = hi + line_base(L, l, A.nhi);
        int32_t *out = sig + line_base(L, l, A.n);
        if (A.n == 1 && A.mode != WT_MODE_PERIODIZATION) {
            out[0] = in_lo[0];
            continue;
        }
        const int len = A.nlo + A.nhi;
        for (int m = 0; m < A.count; m++) {
            a[(size_t)m * L.count + l] =
                interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * (m + A.m0));
            d[(size_t)m * L.count + l] =
                interleaved(in_lo, in_hi, L.inner, len, A.mode, 2 * (m + A.m0) + 1);
        }
        lift53_update(a, d, A.count, L.count, l, -1);
        lift53_predict(a, d, A.count, L.count, l, -1);
        for (int i = 0; i < A.n; i++) {
            const int32_t *h = i & 1 ? d + (size_t)((i - 1) / 2 - A.m0) * L.count
                                     : a + (size_t)(i / 2 - A.m0) * L.count;
            out[(size_t)i * L.inner] = h[l];
        }
    }
}

/* ---- host side ---------------------------------------------------------------------- */

/* The float scheme of @p line in one direction (dwt_line.c's spans). */
static cu_vlift vlift_of(const wt_line *line, int inverse)
{
    const wt_wavelet *w = line->wavelet;
    const wt_lifting *S = w->lifting;
    cu_vlift A;
    memset(&A, 0, sizeof A);
    A.n = (int)line->n;
    A.nlo = (int)line->nlo;
    A.nhi = (int)line->nhi;
    A.mode = (int)line->mode;
    A.sig_mode = wt_signal_mode(w, line->mode);
    A.j2k = w->kind == WT_KIND_JPEG2000;
    if (w->integer) { /* wt_line_forward_i32 / wt_line_inverse_i32 */
        A.m0 = -3;
        A.count = (inverse ? (A.nlo + A.nhi + 1) / 2 : A.nlo) + 6;
        return A;
    }
    wt_lifting_alignment(w, line->mode, &A.e, &A.t);
    const int R = wt_lifting_reach(S);
    A.shift_lo = S->shift_lo;
    A.shift_hi = S->shift_hi;
    if (inverse) {
        A.m0 = (0 - A.e) / 2 - 1 - R;
        A.count = (A.n - A.e) / 2 + 1 + R - A.m0;
        A.g_lo = (float)(1.0 / S->scale_lo);
        A.g_hi = (float)(1.0 / S->scale_hi);
    } else {
        const int nout = A.nlo > A.nhi ? A.nlo : A.nhi;
        const int smin = S->shift_lo < S->shift_hi ? S->shift_lo : S->shift_hi;
        const int smax = S->shift_lo > S->shift_hi ? S->shift_lo : S->shift_hi;
        A.m0 = A.t + smin - R;
        A.count = A.t + smax + nout + R - A.m0;
        A.g_lo = (float)S->scale_lo;
        A.g_hi = (float)S->scale_hi;
    }
    A.nsteps = S->nsteps;
    for (int s = 0; s < S->nsteps; s++) {
        const wt_lifting_step *src = &S->steps[inverse ? S->nsteps - 1 - s : s];
        cu_vstep *st = &A.steps[s];
        st->update = src->update;
        st->offset = src->offset;
        st->ntaps = src->ntaps;
        for (int i = 0; i < src->ntaps; i++) /* dwt_line.c: sign * (real)tap */
            st->taps[i] = inverse ? -(float)src->taps[i] : (float)src->taps[i];
    }
    return A;
}

static wt_status vlift_launch(cu_engine *ce, const cu_vlift &A, const cu_vlines &L,
                              const wt_vpass *p, void *scratch)
{
    size_t blocks = (L.count + CU_VLIFT_THREADS - 1) / CU_VLIFT_THREADS;
    const size_t cap = (size_t)ce->sms * 32;
    const dim3 grid((unsigned)(blocks < cap ? blocks : cap)), block(CU_VLIFT_THREADS);
    if (p->dtype == WT_INT32 && p->inverse)
        WT_LAUNCH(vlift53_inverse, grid, block, 0, ce->stream, A, L, (const int32_t *)p->lo,
                  (const int32_t *)p->hi, (int32_t *)p->sig, (int32_t *)scratch);
    else if (p->dtype == WT_INT32)
        WT_LAUNCH(vlift53_forward, grid, block, 0, ce->stream, A, L, (const int32_t *)p->sig,
                  (int32_t *)p->lo, (int32_t *)p->hi, (int32_t *)scratch);
    else if (p->inverse)
        WT_LAUNCH(vlift_inverse, grid, block, 0, ce->stream, A, L, (const float *)p->lo,
                  (const float *)p->hi, (float *)p->sig, (float *)scratch);
    else
        WT_LAUNCH(vlift_forward, grid, block, 0, ce->stream, A, L, (const float *)p->sig,
                  (float *)p->lo, (float *)p->hi, (float *)scratch);
    CU_CHECK_CE(ce, cudaGetLastError());
    return WT_OK;
}

wt_status cu_vlift_pass(cu_engine *ce, const wt_vpass *p)
{
    const cu_vlift A = vlift_of(p->line, p->inverse);
    size_t outer, inner;
    cu_vaxis_extents(p->shape, p->axis, p->channels, &outer, &inner);
    const size_t lines = outer * inner, line_bytes = 2 * (size_t)A.count * 4;
    if (lines == 0 || (p->inverse ? A.n : A.nlo + A.nhi) == 0)
        return WT_OK; /* nothing to compute (an empty band's pass) */
    const size_t half = cu_device_free_bytes(ce) / 2;
    const size_t budget = half < CU_VLIFT_SCRATCH ? half : CU_VLIFT_SCRATCH;
    size_t chunk = budget / line_bytes;
    chunk = chunk < lines ? chunk : lines;
    if (chunk == 0)
        return wt_error_set(WT_ERR_DEVICE_NOMEM,
                            "GPU out of memory: a lifting pass needs %zu bytes of scratch",
                            line_bytes);
    void *scratch = NULL;
    WT_TRY(cu_device_alloc(ce, &scratch, chunk * line_bytes));
    wt_status st = WT_OK;
    for (size_t first = 0; first < lines && st == WT_OK; first += chunk) {
        const cu_vlines L = {first, chunk < lines - first ? chunk : lines - first, inner};
        st = vlift_launch(ce, A, L, p, scratch);
    }
    /* the scratch goes back once the stream has used it */
    const wt_status done = cu_fail_check(cudaStreamSynchronize(ce->stream),
                                         "cudaStreamSynchronize");
    cu_device_free(ce, scratch, chunk * line_bytes);
    return st == WT_OK ? done : st;
}
